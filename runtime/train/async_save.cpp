#include "runtime/train/async_save.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "runtime/core/errors.h"
#include "runtime/train/optimizer_shards.h"

namespace runner::train {

namespace {

// Test hook, not configuration: RUNNER_TEST_SAVE_SECONDS holds every background write this
// long in the middle (the writer: its files staged, before the commit), so tests can kill a
// run, or start the next save, while a write is in flight (docs/reliability.md).
double test_save_seconds() {
  const char* v = std::getenv("RUNNER_TEST_SAVE_SECONDS");
  return v && *v ? std::atof(v) : 0.0;
}

void pause(double seconds, const std::atomic<bool>& cancelled) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!cancelled && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

}  // namespace

at::Tensor host_copy(const at::Tensor& t) {
  if (!t.defined()) return t;
  if (!t.is_cuda()) return t.clone();
  // Pinned, so the copy runs at full bandwidth; a blocking copy, so the step that follows
  // cannot change the values before they are on the host.
  at::Tensor host = at::empty(t.sizes(), t.options().device(at::kCPU).pinned_memory(true));
  host.copy_(t, /*non_blocking=*/false);
  return host;
}

void write_save_job(const SaveJob& job, const std::function<void()>& before_moves) {
  if (!job.shard_path.empty()) save_optimizer_shard(job.shard_path, *job.layout, job.owned, job.shard);
  if (!job.writer) return;
  io::write_checkpoint(job.dir, job.contents, before_moves);
  if (job.after_commit) job.after_commit();
}

void BackgroundSave::start(SaveJob job) {
  wait();  // at most one in flight (the caller waits first; this keeps the class safe alone)
  done_ = false;
  error_ = nullptr;
  thread_ = std::thread([this, job = std::move(job)] { run(job); });
}

void BackgroundSave::run(const SaveJob& job) {
  try {
    const double slow = test_save_seconds();
    // The other ranks longer than the writer, so its wait for their files is exercised.
    if (!job.writer) pause(2 * slow, cancelled_);
    write_save_job(job, [&] {
      pause(slow, cancelled_);
      // Every other rank's shard file appears by an atomic rename once it is whole.
      for (const auto& file : job.contents.move_files) {
        std::error_code ec;
        while (!std::filesystem::exists(file, ec)) {
          if (cancelled_) throw CheckpointError("the save was abandoned before every rank's files were written", job.dir);
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
      }
    });
  } catch (...) {  // no Lua on this thread: any error is kept for the training thread
    error_ = std::current_exception();
  }
  done_ = true;
}

bool BackgroundSave::wait() {
  if (!thread_.joinable()) return false;
  thread_.join();
  if (error_) {
    std::exception_ptr e = error_;
    error_ = nullptr;
    std::rethrow_exception(e);
  }
  return true;
}

void BackgroundSave::check() {
  if (done_ && thread_.joinable() && error_) wait();
}

BackgroundSave::~BackgroundSave() {
  if (!thread_.joinable()) return;
  cancelled_ = true;
  thread_.join();
}

}  // namespace runner::train
