// The NCCL communicator on one rank (ctest label `gpu`): every collective runs through NCCL on
// the GPU and returns what a world of one must (the identity), for each dtype the trainer
// reduces, on device tensors and on host tensors staged through the GPU.
#include <gtest/gtest.h>

#include "runtime/dist/communicator.h"
#include "runtime/dist/flight_recorder.h"
#include "runtime/dist/world.h"
#include "tests/gpu_test_util.h"

namespace runner::dist {
namespace {

TEST(Nccl, OneRankRunsEveryCollective) {
  REQUIRE_GPU();
  // No launcher started this test: the world is one process without MPI, and NCCL makes a
  // communicator of its own.
  std::shared_ptr<Communicator> comm = world_communicator(60, "nccl", 0);
  ASSERT_EQ(comm->backend(), "nccl");
  ASSERT_EQ(comm->size(), 1);
  ASSERT_EQ(comm->rank(), 0);
  const at::Device cuda(at::kCUDA, 0);
  for (at::ScalarType dtype : {at::kFloat, at::kHalf, at::kBFloat16, at::kLong, at::kDouble}) {
    SCOPED_TRACE(c10::toString(dtype));
    const at::Tensor x = at::arange(12, at::TensorOptions().dtype(dtype)).to(cuda);
    at::Tensor t = x.clone();
    comm->broadcast(t, 0);
    EXPECT_TRUE(t.equal(x));
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMax, ReduceOp::kMin}) {
      comm->all_reduce(t, op);
      EXPECT_TRUE(t.equal(x));
    }
    at::Tensor out = at::empty_like(x);
    comm->reduce_scatter(x, out);
    EXPECT_TRUE(out.equal(x));
    out.zero_();
    comm->all_gather(x, out);
    EXPECT_TRUE(out.equal(x));
    out.zero_();
    comm->all_to_all(x, out);
    EXPECT_TRUE(out.equal(x));
    at::Tensor a = x.clone();
    comm->all_reduce_async(a)->wait();
    EXPECT_TRUE(a.equal(x));
    out.zero_();
    comm->all_gather_async(x.cpu(), out)->wait();  // a host shard (ZeRO-3 offload) goes up first
    EXPECT_TRUE(out.equal(x));
    at::Tensor host = x.cpu();  // the trainer's small collectives hold host tensors
    comm->all_reduce(host, ReduceOp::kSum);
    EXPECT_TRUE(host.equal(x.cpu()));
  }
  comm->barrier();
  EXPECT_GE(comm->stats().calls, 5 * 9 + 1);
  EXPECT_GT(comm->stats().bytes, 0);
  // The flight record (flight_recorder.h) saw NCCL's collectives, each completed.
  const std::vector<CollectiveRecord> record = flight_record();
  ASSERT_FALSE(record.empty());
  EXPECT_EQ(record.back().op, "all_reduce");  // the barrier is a one-value sum
  EXPECT_EQ(record.back().dtype, "float32");
  bool async_seen = false;
  for (const auto& e : record) {
    EXPECT_TRUE(e.completed) << describe(e);
    async_seen = async_seen || (e.async && e.op == "all_reduce (bucket)");
  }
  EXPECT_TRUE(async_seen);
}

TEST(Nccl, RefusesHostTensorsItCannotStage) {
  REQUIRE_GPU();
  std::shared_ptr<Communicator> comm = world_communicator(60, "nccl", 0);
  at::Tensor host = at::ones({4});
  EXPECT_THROW(comm->all_reduce_async(host), std::exception);  // asynchronous work needs a device tensor
}

}  // namespace
}  // namespace runner::dist
