#include "runtime/device/cuda_graph.h"

#include <optional>
#include <stdexcept>

#include <ATen/autocast_mode.h>

#ifdef RUNNER_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAGuard.h>
#endif

namespace runner::device {

namespace {

// Autocast's cast cache off for the scope (restored after, also on an exception).
class NoAutocastCache {
 public:
  NoAutocastCache() : was_(at::autocast::is_autocast_cache_enabled()) { at::autocast::set_autocast_cache_enabled(false); }
  ~NoAutocastCache() { at::autocast::set_autocast_cache_enabled(was_); }

 private:
  bool was_;
};

}  // namespace

#ifdef RUNNER_WITH_CUDA

struct CapturedWork::Impl {
  std::unique_ptr<at::cuda::CUDAGraph> graph;
  std::optional<at::cuda::CUDAStream> side;

  // Runs `fn` on the side stream, ordered after the current stream's work and before its
  // later work.
  void on_side_stream(const std::function<void()>& fn) {
    const at::cuda::CUDAStream main = at::cuda::getCurrentCUDAStream();
    if (!side) side = at::cuda::getStreamFromPool();
    at::cuda::CUDAEvent before;
    before.record(main);
    before.block(*side);
    {
      const c10::cuda::CUDAStreamGuard guard(*side);
      fn();
    }
    at::cuda::CUDAEvent after;
    after.record(*side);
    after.block(main);
  }
};

CapturedWork::CapturedWork() : impl_(std::make_unique<Impl>()) {}
CapturedWork::~CapturedWork() = default;

std::string CapturedWork::unavailable() { return at::hasCUDA() ? "" : "no CUDA device is visible"; }

void CapturedWork::warm_up(const std::function<void()>& work) {
  const NoAutocastCache no_cache;
  impl_->on_side_stream(work);
}

void CapturedWork::capture(const std::function<void()>& work) {
  const NoAutocastCache no_cache;
  // As torch.cuda.graph does, once: the warm-up's tensors were made on the side stream and
  // read on the main one; when they are freed their blocks return to the side stream's
  // cache, where the capture must not take them while queued reads are pending.
  c10::cuda::device_synchronize();
  auto graph = std::make_unique<at::cuda::CUDAGraph>();
  impl_->on_side_stream([&] {
    // Thread-local mode: the data workers' pinned allocations and a background save's copies
    // on their own threads are not part of the step and must not break its capture.
    graph->capture_begin({0, 0}, cudaStreamCaptureModeThreadLocal);
    try {
      work();
    } catch (const std::exception& e) {
      try {
        graph->capture_end();
      } catch (...) {
        throw CaptureInvalidated(e.what());  // the first error is the one to report
      }
      throw;
    }
    try {
      graph->capture_end();
    } catch (const std::exception& e) {
      throw CaptureInvalidated(e.what());
    }
  });
  impl_->graph = std::move(graph);
}

bool CapturedWork::captured() const { return impl_->graph != nullptr; }

void CapturedWork::replay() { impl_->graph->replay(); }

#else

struct CapturedWork::Impl {};
CapturedWork::CapturedWork() : impl_(std::make_unique<Impl>()) {}
CapturedWork::~CapturedWork() = default;
std::string CapturedWork::unavailable() { return "this runner was built without CUDA"; }
void CapturedWork::warm_up(const std::function<void()>& work) {
  const NoAutocastCache no_cache;
  work();
}
void CapturedWork::capture(const std::function<void()>&) { throw std::runtime_error("CUDA graphs: " + unavailable()); }
bool CapturedWork::captured() const { return false; }
void CapturedWork::replay() { throw std::runtime_error("CUDA graphs: " + unavailable()); }

#endif

}  // namespace runner::device
