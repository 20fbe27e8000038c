// The NCCL communicator on one rank (ctest label `gpu`): every collective runs through NCCL on
// the GPU and returns what a world of one must (the identity), for each dtype the trainer
// reduces, on device tensors, on host tensors (over MPI, never through the GPU) and on the
// two mixed (staged through the GPU).
#include <gtest/gtest.h>

#ifdef RUNNER_TEST_CUDART  // an NCCL build: the CUDA runtime and the NCCL backend's own header
#include <cuda_runtime_api.h>

#include "runtime/dist/nccl_communicator.h"
#endif

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

#ifdef RUNNER_TEST_CUDART
// Queues a few hundred ms of GPU work (200 steps of x <- tanh(x·a), about 27 fp32 TFLOP: tens
// of ms even with TF32) and returns its last value, which every step changes: a read of it
// that does not wait for the queue sees other numbers.
at::Tensor busy_gpu() {
  const at::Tensor a = at::randn({4096, 4096}, at::TensorOptions().device(at::kCUDA)).div_(64);
  at::Tensor x = at::randn({4096, 4096}, at::TensorOptions().device(at::kCUDA));
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (int i = 0; i < 200; ++i) x = at::tanh(at::mm(x, a));
  return x;
}
bool gpu_still_busy() { return cudaStreamQuery(cudaStreamLegacy) == cudaErrorNotReady; }
#define SKIP_WITHOUT_CUDART()
#else
#define SKIP_WITHOUT_CUDART() GTEST_SKIP() << "built without the CUDA runtime's headers"
#endif

// Every kernel and collective a case uses, run once first: CUDA loads kernels lazily, and a
// first load may wait for the device, which would look like a collective waiting.
void warm_up(Communicator& comm) {
  const at::Tensor x = at::ones({1 << 20}, at::TensorOptions().device(at::kCUDA));
  at::Tensor y = at::zeros_like(x), z = x.clone();
  comm.all_gather(x, y);
  comm.all_reduce_async(z)->wait();
  comm.reduce_scatter(x, y);
  comm.all_reduce(z, ReduceOp::kSum);
  at::Tensor votes = at::ones({3}, at::kDouble), rows = at::empty({3}, at::kDouble);
  comm.all_reduce(votes, ReduceOp::kSum);
  comm.all_gather(votes, rows);
  comm.broadcast(votes, 0);
  at::tanh(at::mm(x.view({1024, 1024}), x.view({1024, 1024})));
  comm.barrier();
}

// The trainer sums host values (item counts, control votes) at every step. Staged through
// the GPU, each sum would wait for every kernel queued before it: the step's host would
// never run ahead of its GPU. (One rank: the host collectives are a world of one's copies;
// with several ranks they are MPI's, which no GPU test here can start.)
TEST(Nccl, HostValuesTravelWithoutWaitingForTheGpu) {
  REQUIRE_GPU();
  SKIP_WITHOUT_CUDART();
#ifdef RUNNER_TEST_CUDART
  std::shared_ptr<Communicator> comm = world_communicator(60, "nccl", 0);
  warm_up(*comm);
  busy_gpu();
  at::Tensor votes = at::tensor({1.0, 0.0, 2.0}, at::kDouble);
  comm->all_reduce(votes, ReduceOp::kSum);
  at::Tensor rows = at::empty({3}, at::kDouble);
  comm->all_gather(votes, rows);
  comm->broadcast(votes, 0);
  EXPECT_TRUE(gpu_still_busy()) << "a host collective waited for the GPU's queued work";
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(rows.equal(at::tensor({1.0, 0.0, 2.0}, at::kDouble)));
#endif
}

// Device collectives are ordered on the GPU, as PyTorch's ProcessGroupNCCL: NCCL's stream
// waits for the kernels that made the values, the default stream waits for NCCL's result,
// and the host waits for neither (a bucket's all-reduce, a ZeRO-3 unit's reduce-scatter
// overlap the backward kernels queued after them).
TEST(Nccl, DeviceCollectivesAreOrderedOnTheGpuWithoutTheHostWaiting) {
  REQUIRE_GPU();
  SKIP_WITHOUT_CUDART();
#ifdef RUNNER_TEST_CUDART
  std::shared_ptr<Communicator> comm = world_communicator(60, "nccl", 0);
  warm_up(*comm);
  const at::Tensor made = busy_gpu().reshape(-1).narrow(0, 0, 1 << 20);  // still being computed
  at::Tensor gathered = at::zeros_like(made);
  comm->all_gather(made, gathered);               // NCCL must wait for the queue to read `made`
  const at::Tensor read_next = gathered.clone();  // the default stream must wait for NCCL's write
  at::Tensor bucket = made.clone();
  std::unique_ptr<Work> work = comm->all_reduce_async(bucket);
  work->wait();
  at::Tensor scattered = at::zeros_like(made);
  comm->reduce_scatter(made, scattered);
  EXPECT_TRUE(gpu_still_busy()) << "a device collective made the host wait for the GPU";
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(work->test());
  EXPECT_TRUE(gathered.equal(made)) << "NCCL read the input before the kernels that made it";
  EXPECT_TRUE(read_next.equal(made)) << "the default stream read the output before NCCL wrote it";
  EXPECT_TRUE(scattered.equal(made));
  comm->barrier();  // waits on the host: every collective before it is complete in the flight record
  for (const auto& e : flight_record()) EXPECT_TRUE(e.completed) << describe(e);
#endif
}

// The host no longer waits inside NCCL, so its watchdog ends a job whose collective never
// finishes on the GPU, with one line and exit code 1. Here a collective queued behind ~0.4 s
// of GPU work under a 0.1 s limit stands in for a peer that never comes.
TEST(NcclDeathTest, TheWatchdogEndsTheJobWhenACollectiveDoesNotFinish) {
  REQUIRE_GPU();
  SKIP_WITHOUT_CUDART();
#ifdef RUNNER_TEST_CUDART
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process: CUDA does not survive fork
  EXPECT_EXIT(
      {
        std::shared_ptr<Communicator> comm = make_nccl_communicator(MPI_COMM_NULL, 0, 0.1);
        warm_up(*comm);
        for (int i = 0; i < 20; ++i) {
          at::Tensor t = busy_gpu().reshape(-1).narrow(0, 0, 1024).clone();
          comm->all_reduce(t, ReduceOp::kSum);
        }
        cudaDeviceSynchronize();
        std::exit(0);
      },
      ::testing::ExitedWithCode(1), "has not finished on the GPU .* after it was queued \\(ddp_timeout\\)");
#endif
}

TEST(Nccl, RefusesHostTensorsItCannotStage) {
  REQUIRE_GPU();
  std::shared_ptr<Communicator> comm = world_communicator(60, "nccl", 0);
  at::Tensor host = at::ones({4});
  EXPECT_THROW(comm->all_reduce_async(host), std::exception);  // asynchronous work needs a device tensor
}

}  // namespace
}  // namespace runner::dist
