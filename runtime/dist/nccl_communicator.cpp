#include "runtime/dist/nccl_communicator.h"

#include "runtime/dist/blocking_call.h"
#include "runtime/dist/fault_monitor.h"
#include "runtime/dist/flight_recorder.h"
#include "runtime/dist/mpi_communicator.h"
#include "runtime/dist/status_check.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "runtime/core/errors.h"

namespace runner::dist {

namespace {

#define RUNNER_CUDA_CHECK(call) RUNNER_STATUS_CHECK(call, cudaSuccess, cudaGetErrorString)
#define RUNNER_NCCL_CHECK(call) RUNNER_STATUS_CHECK(call, ncclSuccess, ncclGetErrorString)

using Clock = std::chrono::steady_clock;

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

// The point on the communicator's stream where a collective is done; shared by its Work and
// the watchdog's queue.
struct StreamEvent {
  cudaEvent_t event = nullptr;
  StreamEvent() { RUNNER_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming)); }
  ~StreamEvent() { cudaEventDestroy(event); }
  StreamEvent(const StreamEvent&) = delete;
  StreamEvent& operator=(const StreamEvent&) = delete;
};

// ATen's kernels (and so the trainer's) run on the legacy default stream: making it wait is
// what "the result is in place" means to every later kernel and host read.
void default_stream_waits(const StreamEvent& e) { RUNNER_CUDA_CHECK(cudaStreamWaitEvent(cudaStreamLegacy, e.event, 0)); }

class NcclWork : public Work {
 public:
  // `keep`: a device copy the collective reads, alive until it is done.
  NcclWork(std::shared_ptr<StreamEvent> e, at::Tensor keep) : event_(std::move(e)), keep_(std::move(keep)) {}
  // Also without wait(): memory of `keep` is reused only by work queued after the collective.
  ~NcclWork() override { cudaStreamWaitEvent(cudaStreamLegacy, event_->event, 0); }
  bool test() override { return cudaEventQuery(event_->event) != cudaErrorNotReady; }  // an error counts as done: the next CUDA call reports it
  // Stream-ordered, as PyTorch's Work.wait() on NCCL: the default stream waits, the host
  // goes on queueing (the watchdog bounds how long the GPU may wait).
  void wait() override { default_stream_waits(*event_); }

 private:
  std::shared_ptr<StreamEvent> event_;
  at::Tensor keep_;
};

class NcclCommunicator : public Communicator {
 public:
  NcclCommunicator(MPI_Comm comm, int local_rank, double timeout) : timeout_(timeout), mpi_(comm != MPI_COMM_NULL) {
    if (mpi_) {  // else one process alone, without MPI: rank 0 of 1
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
    if (mpi_) {
      set_blocking_timeout(timeout);
      BlockingCall bootstrap("NCCL's bootstrap broadcast (set-up)");
      MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm);
    }
    RUNNER_NCCL_CHECK(ncclCommInitRank(&comm_, size_, id, rank_));
    // Host values (the trainer's item counts, control votes, logged losses) travel over MPI
    // between the same ranks. Staged through this GPU, each would wait for every kernel
    // queued before it (a pageable copy waits for the default stream): a drained GPU at
    // every step.
    host_ = mpi_ ? make_mpi_communicator(comm, timeout) : make_local_communicator();
    watchdog_ = std::thread([this] { watch(); });
  }
  ~NcclCommunicator() override {
    if (stream_) cudaStreamSynchronize(stream_);  // collectives still queued finish first, watched
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (watchdog_.joinable()) watchdog_.join();
    if (comm_) ncclCommDestroy(comm_);
    if (stream_) cudaStreamDestroy(stream_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backend() const override { return "nccl"; }

  void broadcast(at::Tensor& t, int root) override {
    if (on_host(t, t, [&](Communicator& h) { h.broadcast(t, root); })) return;
    if (staged(t, t, [&](const at::Tensor&, at::Tensor& d) { broadcast(d, root); })) return;
    check_device(t, "broadcast");
    const std::lock_guard<std::timed_mutex> queueing(queue_mu_);
    after_default_stream();
    RUNNER_NCCL_CHECK(ncclBroadcast(t.data_ptr(), t.data_ptr(), t.numel(), nccl_type(t.scalar_type()), root, comm_, stream_));
    ordered("broadcast", t, t.nbytes());
  }
  void all_reduce(at::Tensor& t, ReduceOp op) override {
    if (on_host(t, t, [&](Communicator& h) { h.all_reduce(t, op); })) return;
    if (staged(t, t, [&](const at::Tensor&, at::Tensor& d) { all_reduce(d, op); })) return;
    check_device(t, "all_reduce");
    const std::lock_guard<std::timed_mutex> queueing(queue_mu_);
    after_default_stream();
    RUNNER_NCCL_CHECK(ncclAllReduce(t.data_ptr(), t.data_ptr(), t.numel(), nccl_type(t.scalar_type()), nccl_op(op), comm_, stream_));
    ordered("all_reduce", t, t.nbytes());
  }
  void reduce_scatter(const at::Tensor& in, at::Tensor& out) override {
    if (on_host(in, out, [&](Communicator& h) { h.reduce_scatter(in, out); })) return;
    if (staged(in, out, [&](const at::Tensor& i, at::Tensor& o) { reduce_scatter(i, o); })) return;
    check_device(in, "reduce_scatter");
    check_device(out, "reduce_scatter");
    if (in.numel() != out.numel() * size_) throw DistError("reduce_scatter: input is not world size × output");
    const std::lock_guard<std::timed_mutex> queueing(queue_mu_);
    after_default_stream();
    RUNNER_NCCL_CHECK(ncclReduceScatter(in.data_ptr(), out.data_ptr(), out.numel(), nccl_type(in.scalar_type()), ncclSum, comm_, stream_));
    ordered("reduce_scatter", in, in.nbytes());
  }
  void all_gather(const at::Tensor& in, at::Tensor& out) override {
    if (on_host(in, out, [&](Communicator& h) { h.all_gather(in, out); })) return;
    if (staged(in, out, [&](const at::Tensor& i, at::Tensor& o) { all_gather(i, o); })) return;
    check_device(in, "all_gather");
    check_device(out, "all_gather");
    if (out.numel() != in.numel() * size_) throw DistError("all_gather: output is not world size × input");
    const std::lock_guard<std::timed_mutex> queueing(queue_mu_);
    after_default_stream();
    RUNNER_NCCL_CHECK(ncclAllGather(in.data_ptr(), out.data_ptr(), in.numel(), nccl_type(in.scalar_type()), comm_, stream_));
    ordered("all_gather", in, out.nbytes());
  }
  void all_to_all(const at::Tensor& in, at::Tensor& out) override {
    if (on_host(in, out, [&](Communicator& h) { h.all_to_all(in, out); })) return;
    if (staged(in, out, [&](const at::Tensor& i, at::Tensor& o) { all_to_all(i, o); })) return;
    check_device(in, "all_to_all");
    check_device(out, "all_to_all");
    if (in.numel() != out.numel() || in.numel() % size_ != 0) throw DistError("all_to_all: input and output must be equal, world size × block");
    // NCCL has no all-to-all collective: one grouped send and receive per peer.
    const int64_t n = in.numel() / size_, bytes = n * in.element_size();
    const ncclDataType_t type = nccl_type(in.scalar_type());
    const std::lock_guard<std::timed_mutex> queueing(queue_mu_);
    after_default_stream();
    RUNNER_NCCL_CHECK(ncclGroupStart());
    {
      // A send or receive that fails still closes the group: an open group would swallow the
      // next collective into it (the error then names a later call, or hangs the peers).
      struct GroupEnd {
        bool armed = true;
        ~GroupEnd() { if (armed) ncclGroupEnd(); }
      } group_end;
      for (int r = 0; r < size_; ++r) {
        RUNNER_NCCL_CHECK(ncclSend(static_cast<const char*>(in.data_ptr()) + r * bytes, n, type, r, comm_, stream_));
        RUNNER_NCCL_CHECK(ncclRecv(static_cast<char*>(out.data_ptr()) + r * bytes, n, type, r, comm_, stream_));
      }
      group_end.armed = false;
    }
    RUNNER_NCCL_CHECK(ncclGroupEnd());
    ordered("all_to_all", in, in.nbytes());
  }
  // The one collective the host waits for: every rank has reached it and everything queued
  // on this GPU's NCCL stream before it has run.
  void barrier() override {
    at::Tensor t = at::zeros({1}, at::TensorOptions().dtype(at::kFloat).device(at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(device_))));
    all_reduce(t, ReduceOp::kSum);
    wait_on_host(last_seq_);
  }
  std::unique_ptr<Work> all_reduce_async(at::Tensor& t) override {
    check_device(t, "all_reduce_async");
    const std::lock_guard<std::timed_mutex> queueing(queue_mu_);
    after_default_stream();
    RUNNER_NCCL_CHECK(ncclAllReduce(t.data_ptr(), t.data_ptr(), t.numel(), nccl_type(t.scalar_type()), ncclSum, comm_, stream_));
    return std::make_unique<NcclWork>(ordered("all_reduce (bucket)", t, t.nbytes(), /*async=*/true), at::Tensor());
  }

  std::unique_ptr<Work> all_gather_async(const at::Tensor& in, at::Tensor& out) override {
    check_device(out, "all_gather_async");
    if (out.numel() != in.numel() * size_) throw DistError("all_gather_async: output is not world size × input");
    const at::Tensor send = gpu(in).contiguous();  // ZeRO-3 offload: host shards are copied up first
    const std::lock_guard<std::timed_mutex> queueing(queue_mu_);
    after_default_stream();
    RUNNER_NCCL_CHECK(ncclAllGather(send.data_ptr(), out.data_ptr(), send.numel(), nccl_type(send.scalar_type()), comm_, stream_));
    return std::make_unique<NcclWork>(ordered("all_gather (prefetch)", out, out.nbytes(), /*async=*/true), send.is_same(in) ? at::Tensor() : send);
  }

 private:
  // A collective whose tensors are all on the host goes to host_.
  template <class Op>
  bool on_host(const at::Tensor& in, const at::Tensor& out, Op op) {
    if (in.is_cuda() || out.is_cuda()) return false;
    const double before = host_->stats().seconds;
    op(*host_);
    stats_.calls += 1;  // counted here too: stats() is this backend's whole traffic
    stats_.bytes += static_cast<int64_t>(std::max(in.nbytes(), out.nbytes()));
    stats_.seconds += host_->stats().seconds - before;
    return true;
  }
  // One that mixes host and device tensors travels through a copy on this rank's GPU.
  // From pinned memory (ZeRO-3's offloaded shards) without the host waiting for the GPU: a
  // pageable copy drains the default stream first, and a prefetch would then overlap nothing.
  at::Tensor gpu(const at::Tensor& t) const {
    return t.is_cuda() ? t : t.to(at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(device_)), /*non_blocking=*/t.is_pinned());
  }
  template <class Op>
  bool staged(const at::Tensor& in, at::Tensor& out, Op op) {
    if (in.is_cuda() && out.is_cuda()) return false;
    at::Tensor d_out = gpu(out).contiguous();
    op(gpu(in).contiguous(), d_out);
    if (!d_out.is_same(out)) out.copy_(d_out);  // a host out, or a device one not contiguous
    return true;
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

  // After a collective is queued (under queue_mu_, held by the caller from before the
  // queueing, so that a failing watchdog can stop further NCCL calls): records where it ends
  // on our stream, makes the default stream wait there (unless the caller waits through a
  // Work) and hands it to the watchdog. The host never waits: a bucket's all-reduce or a ZeRO-3 unit's
  // reduce-scatter overlaps the backward kernels queued after it, as with PyTorch's
  // ProcessGroupNCCL.
  std::shared_ptr<StreamEvent> ordered(const char* what, const at::Tensor& t, int64_t bytes, bool async = false) {
    const auto queued = Clock::now();
    // The flight record (flight_recorder.h): started when queued, completed once the stream ran it.
    last_seq_ = record_start(what, c10::getDtypeNames(t.scalar_type()).first, t.numel(), bytes, async);
    auto e = std::make_shared<StreamEvent>();
    RUNNER_CUDA_CHECK(cudaEventRecord(e->event, stream_));
    if (!async) default_stream_waits(*e);
    stats_.calls += 1;
    stats_.bytes += bytes;
    {
      std::lock_guard<std::mutex> lock(mu_);
      retire();
      pending_.push_back({last_seq_, what, queued, e});
    }
    stats_.seconds += std::chrono::duration<double>(Clock::now() - queued).count();
    return e;
  }

  // The host waits for everything queued on our stream up to collective `seq` (polling: the
  // watchdog's limit and NCCL's asynchronous errors still apply), marked in the flight
  // record as waiting, so the fault monitor can name a peer that never comes.
  void wait_on_host(int64_t seq) {
    const auto start = Clock::now();
    record_wait_begin(seq);
    while (cudaStreamQuery(stream_) == cudaErrorNotReady) std::this_thread::yield();
    record_wait_end();
    std::lock_guard<std::mutex> lock(mu_);
    retire();
    if (!pending_.empty())
      abort_job(std::string(pending_.front().what) + ": the CUDA stream of NCCL reported " + cudaGetErrorString(cudaEventQuery(pending_.front().event->event)));
    stats_.seconds += std::chrono::duration<double>(Clock::now() - start).count();
  }

  struct Pending {
    int64_t seq;
    const char* what;
    Clock::time_point queued;
    std::shared_ptr<StreamEvent> event;
  };

  // Under mu_: drops the collectives that have run (one stream: they finish in order).
  void retire() {
    while (!pending_.empty() && cudaEventQuery(pending_.front().event->event) == cudaSuccess) {
      record_complete(pending_.front().seq);
      pending_.pop_front();
    }
  }

  // The host no longer waits in collectives, so a peer that died or hangs shows only as a
  // collective that never ends on this GPU (and a host blocked in some later CUDA call):
  // this thread ends the job then, as PyTorch's NCCL watchdog does (the timeout counts from
  // when the host queued it, a bound that is looser by the GPU's backlog).
  void watch() {
    cudaSetDevice(device_);
    const auto tick = std::chrono::milliseconds(timeout_ > 0 ? std::clamp<int64_t>(static_cast<int64_t>(timeout_ * 100), 20, 1000) : 1000);
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, tick, [this] { return stop_; })) {
      retire();
      if (pending_.empty()) continue;
      const Pending& oldest = pending_.front();
      ncclResult_t async = ncclSuccess;
      if (ncclCommGetAsyncError(comm_, &async) == ncclSuccess && async != ncclSuccess)
        fail(std::string(oldest.what) + ": NCCL reported " + ncclGetErrorString(async));
      const double waited = std::chrono::duration<double>(Clock::now() - oldest.queued).count();
      if (timeout_ > 0 && waited > timeout_)
        fail(std::string(oldest.what) + " #" + std::to_string(oldest.seq) + " has not finished on the GPU " + std::to_string(static_cast<int>(waited)) +
             " s after it was queued (ddp_timeout): a peer died or is stuck");
    }
  }

  // From the watchdog: the main thread first stops queueing (unless it is blocked inside an
  // NCCL call, holding queue_mu_: then it can do no harm), and one blocked behind the stuck
  // collective stays blocked, since nothing aborts the communicator before the process ends.
  [[noreturn]] void fail(const std::string& line) {
    (void)queue_mu_.try_lock_for(std::chrono::seconds(1));
    abort_job(line);
  }

  int rank_ = 0, size_ = 1;
  int device_ = 0;
  double timeout_;
  bool mpi_;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  std::shared_ptr<Communicator> host_;  // MPI over the same ranks (a world of one: the identity)
  std::timed_mutex queue_mu_;  // held while a collective is queued
  std::mutex mu_;              // pending_, stop_
  std::condition_variable cv_;
  std::deque<Pending> pending_;
  bool stop_ = false;
  int64_t last_seq_ = -1;  // the flight record's entry of the last collective queued
  std::thread watchdog_;
};

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
