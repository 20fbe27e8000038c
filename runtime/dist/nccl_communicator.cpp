#include "runtime/dist/nccl_communicator.h"

#include "runtime/dist/blocking_call.h"
#include "runtime/dist/flight_recorder.h"
#include "runtime/dist/status_check.h"

#include <chrono>
#include <thread>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "runtime/core/errors.h"

namespace runner::dist {

namespace {

#define RUNNER_CUDA_CHECK(call) RUNNER_STATUS_CHECK(call, cudaSuccess, cudaGetErrorString)
#define RUNNER_NCCL_CHECK(call) RUNNER_STATUS_CHECK(call, ncclSuccess, ncclGetErrorString)

ncclDataType_t nccl_type(at::ScalarType t) {
  switch (t) {
    case at::kFloat: return ncclFloat32;
    case at::kDouble: return ncclFloat64;
    case at::kHalf: return ncclFloat16;
    case at::kBFloat16: return ncclBfloat16;
    case at::kLong: return ncclInt64;
    case at::kInt: return ncclInt32;
    case at::kByte: case at::kBool: return ncclUint8;
    case at::kChar: return ncclInt8;
    default: throw DistError(std::string("NCCL cannot reduce ") + c10::toString(t) + " tensors");
  }
}

ncclRedOp_t nccl_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return ncclSum;
    case ReduceOp::kMax: return ncclMax;
    case ReduceOp::kMin: return ncclMin;
  }
  return ncclSum;
}

void check_device(const at::Tensor& t, const char* what) {
  if (!t.is_contiguous()) throw DistError(std::string(what) + ": tensor must be contiguous");
  if (!t.device().is_cuda()) throw DistError(std::string(what) + ": the NCCL backend takes CUDA tensors (use ddp_backend = \"mpi\" on CPUs)");
}

class NcclCommunicator;

class NcclWork : public Work {
 public:
  // `keep`: a device copy the collective reads, alive until it is done.
  NcclWork(NcclCommunicator& c, cudaEvent_t e, int64_t seq, at::Tensor keep = {}) : comm_(c), event_(e), keep_(std::move(keep)), seq_(seq) {}
  ~NcclWork() override { cudaEventDestroy(event_); }
  bool test() override {
    const bool done = cudaEventQuery(event_) == cudaSuccess;
    if (done) record_complete(seq_);
    return done;
  }
  void wait() override;

 private:
  NcclCommunicator& comm_;
  cudaEvent_t event_;
  at::Tensor keep_;
  int64_t seq_;
};

class NcclCommunicator : public Communicator {
 public:
  NcclCommunicator(MPI_Comm comm, int local_rank, double timeout) : timeout_(timeout) {
    if (comm != MPI_COMM_NULL) {  // else one process alone, without MPI: rank 0 of 1
      MPI_Comm_rank(comm, &rank_);
      MPI_Comm_size(comm, &size_);
    }
    int devices = 0;
    RUNNER_CUDA_CHECK(cudaGetDeviceCount(&devices));
    if (devices == 0) throw DistError("ddp_backend = \"nccl\" needs a GPU, and CUDA sees none");
    device_ = local_rank % devices;
    RUNNER_CUDA_CHECK(cudaSetDevice(device_));
    RUNNER_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    ncclUniqueId id;
    if (rank_ == 0) RUNNER_NCCL_CHECK(ncclGetUniqueId(&id));
    if (comm != MPI_COMM_NULL) {
      set_blocking_timeout(timeout);
      BlockingCall bootstrap("NCCL's bootstrap broadcast (set-up)");
      MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm);
    }
    RUNNER_NCCL_CHECK(ncclCommInitRank(&comm_, size_, id, rank_));
  }
  ~NcclCommunicator() override {
    if (comm_) ncclCommDestroy(comm_);
    if (stream_) cudaStreamDestroy(stream_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backend() const override { return "nccl"; }

  // The trainer's small collectives (losses, item counts, control flags, evaluation
  // results) hold host tensors: those travel through a copy on this rank's GPU.
  at::Tensor gpu(const at::Tensor& t) const { return t.is_cuda() ? t : t.to(at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(device_))); }
  template <class Op>
  bool staged(const at::Tensor& in, at::Tensor& out, Op op) {
    if (in.is_cuda() && out.is_cuda()) return false;
    at::Tensor d_out = gpu(out).contiguous();
    op(gpu(in).contiguous(), d_out);
    if (!out.is_cuda()) out.copy_(d_out);
    return true;
  }

  void broadcast(at::Tensor& t, int root) override {
    if (staged(t, t, [&](const at::Tensor&, at::Tensor& d) { broadcast(d, root); })) return;
    check_device(t, "broadcast");
    after_default_stream();
    RUNNER_NCCL_CHECK(ncclBroadcast(t.data_ptr(), t.data_ptr(), t.numel(), nccl_type(t.scalar_type()), root, comm_, stream_));
    sync("broadcast", t, t.nbytes());
  }
  void all_reduce(at::Tensor& t, ReduceOp op) override {
    if (staged(t, t, [&](const at::Tensor&, at::Tensor& d) { all_reduce(d, op); })) return;
    check_device(t, "all_reduce");
    after_default_stream();
    RUNNER_NCCL_CHECK(ncclAllReduce(t.data_ptr(), t.data_ptr(), t.numel(), nccl_type(t.scalar_type()), nccl_op(op), comm_, stream_));
    sync("all_reduce", t, t.nbytes());
  }
  void reduce_scatter(const at::Tensor& in, at::Tensor& out) override {
    if (staged(in, out, [&](const at::Tensor& i, at::Tensor& o) { reduce_scatter(i, o); })) return;
    check_device(in, "reduce_scatter");
    check_device(out, "reduce_scatter");
    if (in.numel() != out.numel() * size_) throw DistError("reduce_scatter: input is not world size × output");
    after_default_stream();
    RUNNER_NCCL_CHECK(ncclReduceScatter(in.data_ptr(), out.data_ptr(), out.numel(), nccl_type(in.scalar_type()), ncclSum, comm_, stream_));
    sync("reduce_scatter", in, in.nbytes());
  }
  void all_gather(const at::Tensor& in, at::Tensor& out) override {
    if (staged(in, out, [&](const at::Tensor& i, at::Tensor& o) { all_gather(i, o); })) return;
    check_device(in, "all_gather");
    check_device(out, "all_gather");
    if (out.numel() != in.numel() * size_) throw DistError("all_gather: output is not world size × input");
    after_default_stream();
    RUNNER_NCCL_CHECK(ncclAllGather(in.data_ptr(), out.data_ptr(), in.numel(), nccl_type(in.scalar_type()), comm_, stream_));
    sync("all_gather", in, out.nbytes());
  }
  void all_to_all(const at::Tensor& in, at::Tensor& out) override {
    if (staged(in, out, [&](const at::Tensor& i, at::Tensor& o) { all_to_all(i, o); })) return;
    check_device(in, "all_to_all");
    check_device(out, "all_to_all");
    if (in.numel() != out.numel() || in.numel() % size_ != 0) throw DistError("all_to_all: input and output must be equal, world size × block");
    // NCCL has no all-to-all collective: one grouped send and receive per peer.
    const int64_t n = in.numel() / size_, bytes = n * in.element_size();
    const ncclDataType_t type = nccl_type(in.scalar_type());
    after_default_stream();
    RUNNER_NCCL_CHECK(ncclGroupStart());
    for (int r = 0; r < size_; ++r) {
      RUNNER_NCCL_CHECK(ncclSend(static_cast<const char*>(in.data_ptr()) + r * bytes, n, type, r, comm_, stream_));
      RUNNER_NCCL_CHECK(ncclRecv(static_cast<char*>(out.data_ptr()) + r * bytes, n, type, r, comm_, stream_));
    }
    RUNNER_NCCL_CHECK(ncclGroupEnd());
    sync("all_to_all", in, in.nbytes());
  }
  void barrier() override {
    at::Tensor t = at::zeros({1}, at::TensorOptions().dtype(at::kFloat).device(at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(device_))));
    all_reduce(t, ReduceOp::kSum);
  }
  std::unique_ptr<Work> all_reduce_async(at::Tensor& t) override {
    check_device(t, "all_reduce_async");
    after_default_stream();
    RUNNER_NCCL_CHECK(ncclAllReduce(t.data_ptr(), t.data_ptr(), t.numel(), nccl_type(t.scalar_type()), ncclSum, comm_, stream_));
    return pending("all_reduce (bucket)", t, t.nbytes());
  }

  std::unique_ptr<Work> all_gather_async(const at::Tensor& in, at::Tensor& out) override {
    check_device(out, "all_gather_async");
    if (out.numel() != in.numel() * size_) throw DistError("all_gather_async: output is not world size × input");
    const at::Tensor send = gpu(in).contiguous();  // ZeRO-3 offload: host shards are copied up first
    after_default_stream();
    RUNNER_NCCL_CHECK(ncclAllGather(send.data_ptr(), out.data_ptr(), send.numel(), nccl_type(send.scalar_type()), comm_, stream_));
    return pending("all_gather (prefetch)", out, out.nbytes(), send.is_same(in) ? at::Tensor() : send);
  }

  // A Work that completes when everything queued on our stream so far has run.
  std::unique_ptr<Work> pending(const char* what, const at::Tensor& t, int64_t bytes, at::Tensor keep = {}) {
    const int64_t seq = record_start(what, c10::getDtypeNames(t.scalar_type()).first, t.numel(), bytes, true);
    cudaEvent_t e;
    RUNNER_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    RUNNER_CUDA_CHECK(cudaEventRecord(e, stream_));
    stats_.calls += 1;
    stats_.bytes += bytes;
    return std::make_unique<NcclWork>(*this, e, seq, std::move(keep));
  }

  // Our stream is non-blocking, so it does not wait for kernels ATen queued on the default
  // stream (the values a collective sends): make it wait for them first.
  void after_default_stream() {
    cudaEvent_t e;
    RUNNER_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    RUNNER_CUDA_CHECK(cudaEventRecord(e, cudaStreamLegacy));
    RUNNER_CUDA_CHECK(cudaStreamWaitEvent(stream_, e, 0));
    RUNNER_CUDA_CHECK(cudaEventDestroy(e));
  }

  // Waits for the stream, polling NCCL's asynchronous error and the ddp_timeout.
  void sync(const char* what, const at::Tensor& t, int64_t bytes) {
    const auto start = std::chrono::steady_clock::now();
    // The flight record (flight_recorder.h): started when queued, completed once the stream ran it.
    const int64_t seq = record_start(what, c10::getDtypeNames(t.scalar_type()).first, t.numel(), bytes, false);
    record_wait_begin(seq);
    stats_.calls += 1;
    stats_.bytes += bytes;
    while (cudaStreamQuery(stream_) == cudaErrorNotReady) {
      ncclResult_t async = ncclSuccess;
      RUNNER_NCCL_CHECK(ncclCommGetAsyncError(comm_, &async));
      if (async != ncclSuccess) throw DistError(std::string(what) + ": NCCL reported " + ncclGetErrorString(async));
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (timeout_ > 0 && waited > timeout_) {
        ncclCommAbort(comm_);
        comm_ = nullptr;
        throw DistError(std::string(what) + " waited " + std::to_string(static_cast<int>(waited)) + " s (ddp_timeout): a peer died or is stuck");
      }
      std::this_thread::yield();
    }
    record_wait_end();
    record_complete(seq);
    stats_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

 private:
  int rank_ = 0, size_ = 1;
  int device_ = 0;
  double timeout_;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

void NcclWork::wait() {
  record_wait_begin(seq_);
  RUNNER_CUDA_CHECK(cudaEventSynchronize(event_));
  record_wait_end();
  record_complete(seq_);
}

}  // namespace

std::string nccl_library_version() {
  int v = 0;
  if (ncclGetVersion(&v) != ncclSuccess) return "NCCL (version unknown)";
  // NCCL ≥ 2.9 encodes major·10000 + minor·100 + patch.
  return "NCCL " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

std::shared_ptr<Communicator> make_nccl_communicator(MPI_Comm comm, int local_rank, double timeout_seconds) {
  return std::make_shared<NcclCommunicator>(comm, local_rank, timeout_seconds);
}

}  // namespace runner::dist
