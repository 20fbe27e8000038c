#include "runtime/dist/mpi_communicator.h"

#include "runtime/dist/blocking_call.h"
#include "runtime/dist/flight_recorder.h"
#include "runtime/dist/status_check.h"

#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>

#include "runtime/core/errors.h"

namespace runner::dist {

namespace {

using Clock = std::chrono::steady_clock;

std::string mpi_error_string(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  return std::string(text, static_cast<size_t>(len));
}

// MPI errors come back as codes (the communicator is set to MPI_ERRORS_RETURN).
#define RUNNER_MPI_CHECK(call) RUNNER_STATUS_CHECK(call, MPI_SUCCESS, mpi_error_string)

MPI_Datatype mpi_type(at::ScalarType t) {
  switch (t) {
    case at::kFloat: return MPI_FLOAT;
    case at::kDouble: return MPI_DOUBLE;
    case at::kLong: return MPI_INT64_T;
    case at::kInt: return MPI_INT32_T;
    case at::kShort: return MPI_INT16_T;
    case at::kByte: case at::kBool: return MPI_UINT8_T;
    case at::kChar: return MPI_INT8_T;
    default: throw DistError(std::string("MPI cannot reduce ") + c10::toString(t) + " tensors");
  }
}

MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return MPI_SUM;
    case ReduceOp::kMax: return MPI_MAX;
    case ReduceOp::kMin: return MPI_MIN;
  }
  return MPI_SUM;
}

// MPI has no bf16 sum and MPICH aborts on fp16 sums: low-precision tensors are reduced in fp32.
bool needs_upcast(const at::Tensor& t) { return t.scalar_type() == at::kBFloat16 || t.scalar_type() == at::kHalf; }

void check_contiguous(const at::Tensor& t, const char* what) {
  if (!t.is_contiguous()) throw DistError(std::string(what) + ": tensor must be contiguous");
}

// MPICH is not CUDA-aware: GPU tensors travel through page-locked host copies (the copy
// back to the device is the caller's, once the MPI call is done).
bool on_device(const at::Tensor& t) { return !t.device().is_cpu(); }
at::Tensor host_buffer(const at::Tensor& like) {
  return at::empty(like.sizes(), like.options().device(at::kCPU).pinned_memory(true));
}
at::Tensor to_host(const at::Tensor& t) { return host_buffer(t).copy_(t); }

int count_of(int64_t n, const char* what) {
  if (n > INT_MAX) throw DistError(std::string(what) + ": " + std::to_string(n) + " elements per rank exceed MPI's int count");
  return static_cast<int>(n);
}

class MpiCommunicator;

class MpiWork : public Work {
 public:
  // `staging` is copied into `target` when the request completes; `keep` (a host copy
  // being sent) only has to outlive the request.
  MpiWork(MpiCommunicator& comm, MPI_Request req, at::Tensor target, at::Tensor staging, const char* what, int64_t seq, at::Tensor keep = {})
      : comm_(comm), req_(req), target_(std::move(target)), staging_(std::move(staging)), keep_(std::move(keep)), what_(what), seq_(seq) {}
  ~MpiWork() override {
    if (req_ == MPI_REQUEST_NULL) return;
    BlockingCall waiting("a pending collective (teardown)");
    MPI_Wait(&req_, MPI_STATUS_IGNORE);  // never leave a request dangling
  }
  bool test() override;
  void wait() override;

 private:
  void finish() {
    record_complete(seq_);
    if (staging_.defined()) target_.copy_(staging_);
    staging_ = keep_ = at::Tensor();
  }
  MpiCommunicator& comm_;
  MPI_Request req_;
  at::Tensor target_, staging_, keep_;
  const char* what_;
  int64_t seq_;
};

class MpiCommunicator : public Communicator {
 public:
  MpiCommunicator(MPI_Comm comm, double timeout) : timeout_(timeout) {
    {
      set_blocking_timeout(timeout);
      BlockingCall duplicating("MPI_Comm_dup (set-up)");
      RUNNER_MPI_CHECK(MPI_Comm_dup(comm, &comm_));
    }
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    if (timeout_ > 0) watchdog_ = std::thread([this] { watch(); });
  }
  ~MpiCommunicator() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (watchdog_.joinable()) watchdog_.join();
    MPI_Comm_free(&comm_);
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backend() const override { return "mpi"; }
  void set_timeout(double seconds) override { timeout_.store(seconds); }

  // Marks a blocking MPI call for the watchdog and counts it in the stats.
  class Busy {
   public:
    // `new_call`: false when waiting for a non-blocking call already counted at its start.
    // A new call is recorded in the flight record (flight_recorder.h) from `t`; waiting for
    // a non-blocking one names the entry its start recorded (`seq`).
    Busy(MpiCommunicator& c, const char* what, const at::Tensor& t, int64_t bytes) : Busy(c, what, record(what, t, bytes, false), bytes, true) {}
    Busy(MpiCommunicator& c, const char* what, int64_t seq, int64_t bytes, bool new_call) : c_(c), start_(Clock::now()), seq_(seq) {
      c_.what_ = what;
      c_.busy_since_.store(start_.time_since_epoch().count());
      c_.stats_.calls += new_call ? 1 : 0;
      c_.stats_.bytes += bytes;
      record_wait_begin(seq_);
    }
    ~Busy() {
      record_wait_end();
      if (!std::uncaught_exceptions()) record_complete(seq_);
      c_.busy_since_.store(0);
      c_.stats_.seconds += std::chrono::duration<double>(Clock::now() - start_).count();
    }
    static int64_t record(const char* what, const at::Tensor& t, int64_t bytes, bool async) {
      return record_start(what, t.defined() ? c10::getDtypeNames(t.scalar_type()).first : "none", t.defined() ? t.numel() : 0, bytes, async);
    }

   private:
    MpiCommunicator& c_;
    Clock::time_point start_;
    int64_t seq_;
  };

  void broadcast(at::Tensor& t, int root) override {
    check_contiguous(t, "broadcast");
    if (on_device(t)) {
      at::Tensor h = to_host(t);
      broadcast(h, root);
      t.copy_(h);
      return;
    }
    Busy busy(*this, "broadcast", t, t.nbytes());
    // Pure data movement: bytes, chunked below INT_MAX.
    auto* p = static_cast<char*>(t.data_ptr());
    for (int64_t off = 0, n = static_cast<int64_t>(t.nbytes()); off < n; off += INT_MAX / 2)
      RUNNER_MPI_CHECK(MPI_Bcast(p + off, static_cast<int>(std::min<int64_t>(INT_MAX / 2, n - off)), MPI_BYTE, root, comm_));
  }

  void all_reduce(at::Tensor& t, ReduceOp op) override {
    check_contiguous(t, "all_reduce");
    if (on_device(t)) {
      at::Tensor h = to_host(t);
      all_reduce(h, op);
      t.copy_(h);
      return;
    }
    if (needs_upcast(t)) {
      at::Tensor f = t.to(at::kFloat);
      all_reduce(f, op);
      t.copy_(f);
      return;
    }
    Busy busy(*this, "all_reduce", t, t.nbytes());
    const MPI_Datatype type = mpi_type(t.scalar_type());
    const int64_t chunk = INT_MAX / 2, esize = t.element_size();
    auto* p = static_cast<char*>(t.data_ptr());
    for (int64_t off = 0; off < t.numel(); off += chunk)
      RUNNER_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, p + off * esize, static_cast<int>(std::min(chunk, t.numel() - off)), type, mpi_op(op), comm_));
  }

  void reduce_scatter(const at::Tensor& in, at::Tensor& out) override {
    check_contiguous(in, "reduce_scatter");
    check_contiguous(out, "reduce_scatter");
    if (in.numel() != out.numel() * size_)
      throw DistError("reduce_scatter: input has " + std::to_string(in.numel()) + " values, expected " + std::to_string(out.numel() * size_));
    if (on_device(in) || on_device(out)) {
      at::Tensor h = host_buffer(out);
      reduce_scatter(on_device(in) ? to_host(in) : in, h);
      out.copy_(h);
      return;
    }
    if (needs_upcast(in)) {
      at::Tensor f = at::empty({out.numel()}, in.options().dtype(at::kFloat));
      reduce_scatter(in.to(at::kFloat), f);
      out.copy_(f.view_as(out));
      return;
    }
    Busy busy(*this, "reduce_scatter", in, in.nbytes());
    RUNNER_MPI_CHECK(MPI_Reduce_scatter_block(in.data_ptr(), out.data_ptr(), count_of(out.numel(), "reduce_scatter"),
                                              mpi_type(in.scalar_type()), MPI_SUM, comm_));
  }

  void all_gather(const at::Tensor& in, at::Tensor& out) override {
    check_contiguous(in, "all_gather");
    check_contiguous(out, "all_gather");
    if (out.numel() != in.numel() * size_)
      throw DistError("all_gather: output has " + std::to_string(out.numel()) + " values, expected " + std::to_string(in.numel() * size_));
    if (on_device(in) || on_device(out)) {
      at::Tensor h = host_buffer(out);
      all_gather(on_device(in) ? to_host(in) : in, h);
      out.copy_(h);
      return;
    }
    Busy busy(*this, "all_gather", in, out.nbytes());
    const int bytes = count_of(static_cast<int64_t>(in.nbytes()), "all_gather");
    RUNNER_MPI_CHECK(MPI_Allgather(in.data_ptr(), bytes, MPI_BYTE, out.data_ptr(), bytes, MPI_BYTE, comm_));
  }

  void all_to_all(const at::Tensor& in, at::Tensor& out) override {
    check_contiguous(in, "all_to_all");
    check_contiguous(out, "all_to_all");
    if (in.numel() != out.numel() || in.numel() % size_ != 0 || in.scalar_type() != out.scalar_type())
      throw DistError("all_to_all: input and output must be equal and split into " + std::to_string(size_) + " blocks (got " +
                      std::to_string(in.numel()) + " and " + std::to_string(out.numel()) + " values)");
    if (on_device(in) || on_device(out)) {
      at::Tensor h = host_buffer(out);
      all_to_all(on_device(in) ? to_host(in) : in, h);
      out.copy_(h);
      return;
    }
    Busy busy(*this, "all_to_all", in, in.nbytes());
    const int bytes = count_of(static_cast<int64_t>(in.nbytes()) / size_, "all_to_all");
    RUNNER_MPI_CHECK(MPI_Alltoall(in.data_ptr(), bytes, MPI_BYTE, out.data_ptr(), bytes, MPI_BYTE, comm_));
  }

  void barrier() override {
    Busy busy(*this, "barrier", at::Tensor(), 0);
    RUNNER_MPI_CHECK(MPI_Barrier(comm_));
  }

  std::unique_ptr<Work> all_reduce_async(at::Tensor& t) override {
    check_contiguous(t, "all_reduce_async");
    at::Tensor staging = on_device(t) ? to_host(needs_upcast(t) ? t.to(at::kFloat) : t) : needs_upcast(t) ? t.to(at::kFloat) : at::Tensor();
    at::Tensor& buf = staging.defined() ? staging : t;
    stats_.calls += 1;
    stats_.bytes += buf.nbytes();
    MPI_Request req;
    RUNNER_MPI_CHECK(MPI_Iallreduce(MPI_IN_PLACE, buf.data_ptr(), count_of(buf.numel(), "all_reduce_async"), mpi_type(buf.scalar_type()),
                                    MPI_SUM, comm_, &req));
    return std::make_unique<MpiWork>(*this, req, t, staging, "all_reduce (bucket)", Busy::record("all_reduce (bucket)", buf, buf.nbytes(), true));
  }

  std::unique_ptr<Work> all_gather_async(const at::Tensor& in, at::Tensor& out) override {
    check_contiguous(in, "all_gather_async");
    check_contiguous(out, "all_gather_async");
    if (out.numel() != in.numel() * size_)
      throw DistError("all_gather_async: output has " + std::to_string(out.numel()) + " values, expected " + std::to_string(in.numel() * size_));
    stats_.calls += 1;
    stats_.bytes += out.nbytes();
    const int bytes = count_of(static_cast<int64_t>(in.nbytes()), "all_gather_async");
    const at::Tensor send = on_device(in) ? to_host(in) : in;
    const at::Tensor recv = on_device(out) ? host_buffer(out) : out;
    MPI_Request req;
    RUNNER_MPI_CHECK(MPI_Iallgather(send.data_ptr(), bytes, MPI_BYTE, recv.data_ptr(), bytes, MPI_BYTE, comm_, &req));
    return std::make_unique<MpiWork>(*this, req, on_device(out) ? out : at::Tensor(), on_device(out) ? recv : at::Tensor(),
                                     "all_gather (prefetch)", Busy::record("all_gather (prefetch)", recv, out.nbytes(), true), send);
  }

 private:
  friend class MpiWork;

  void watch() {
    std::unique_lock<std::mutex> lock(mu_);
    const auto tick = std::chrono::milliseconds(std::clamp<int64_t>(static_cast<int64_t>(timeout_.load() * 250), 20, 1000));
    while (!cv_.wait_for(lock, tick, [this] { return stop_; })) {
      const int64_t since = busy_since_.load();
      if (since == 0) continue;
      const double waited = std::chrono::duration<double>(Clock::now().time_since_epoch() - Clock::duration(since)).count();
      if (waited > timeout_.load()) {
        std::fprintf(stderr, "runner: error: rank %d waited %.0f s in %s (ddp_timeout = %g s): a peer died or is stuck; aborting every rank\n",
                     rank_, waited, what_.load(), timeout_.load());
        std::fflush(stderr);
        std::this_thread::sleep_for(std::chrono::milliseconds(500));  // let the launcher forward the line
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    }
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  std::atomic<double> timeout_;
  std::atomic<int64_t> busy_since_{0};
  std::atomic<const char*> what_{""};
  std::thread watchdog_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
};

bool MpiWork::test() {
  if (req_ == MPI_REQUEST_NULL) return true;
  int done = 0;
  RUNNER_MPI_CHECK(MPI_Test(&req_, &done, MPI_STATUS_IGNORE));
  if (done) finish();
  return done != 0;
}

void MpiWork::wait() {
  if (req_ == MPI_REQUEST_NULL) return;
  {
    MpiCommunicator::Busy busy(comm_, what_, seq_, 0, /*new_call=*/false);
    RUNNER_MPI_CHECK(MPI_Wait(&req_, MPI_STATUS_IGNORE));
  }
  finish();
}

}  // namespace

std::shared_ptr<Communicator> make_mpi_communicator(MPI_Comm comm, double timeout_seconds) {
  return std::make_shared<MpiCommunicator>(comm, timeout_seconds);
}

}  // namespace runner::dist
