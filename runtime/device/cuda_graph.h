// A CUDA graph of host-launched GPU work: captured once, then replayed with one launch, so
// a step costs the GPU's time and not the host's (runtime/train/step_graph.h uses it for the
// whole training step). What runs under capture only records kernels: any host read of a
// device value there is an error, and the tensors it allocates come from the graph's own
// memory pool and are rewritten by every replay.
#pragma once
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

namespace runner::device {

// A capture CUDA itself invalidated (cudaStreamEndCapture failed: a host sync or an
// unpermitted call under capture). PyTorch 2.11's CUDAGraph then skips its epilogue: the
// default CUDA generator stays in capture mode, so the next eager random draw throws, and
// the graph's memory pool is never released. Nothing in this process can run the step
// eagerly after it, unlike a capture that ended and was merely discarded.
struct CaptureInvalidated : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class CapturedWork {
 public:
  CapturedWork();
  ~CapturedWork();
  CapturedWork(const CapturedWork&) = delete;
  CapturedWork& operator=(const CapturedWork&) = delete;

  // Whether this build can capture (LibTorch with CUDA and runner built with it) and a GPU is
  // there; "" when it can, else why not.
  static std::string unavailable();
  // Runs `work` eagerly on the stream capture uses, as the warm-up torch.cuda.graphs advises
  // (lazy initialisations such as cuBLAS workspaces happen here, not under capture).
  void warm_up(const std::function<void()>& work);
  // Records `work` (nothing runs). Autocast's weight cache is off meanwhile: a cached cast
  // would be freed when the autocast scope ends, under the graph's feet. Throws what the
  // capture threw, as CaptureInvalidated when CUDA could not end the capture; the object is
  // then empty again.
  void capture(const std::function<void()>& work);
  bool captured() const;
  // Runs the recorded work on the current stream.
  void replay();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace runner::device
