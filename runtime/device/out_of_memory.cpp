#include "runtime/device/out_of_memory.h"

#include <algorithm>
#include <cstdlib>

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include "runtime/core/errors.h"

namespace runner::device {

namespace {
int64_t env_int(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const long long x = std::strtoll(v, &end, 10);
  return *end == '\0' ? x : fallback;
}
}  // namespace

bool is_out_of_memory(const std::exception& e) {
  if (dynamic_cast<const c10::OutOfMemoryError*>(&e)) return true;
  // runner's own errors are verdicts already, but for those that wrap what recipe code hit
  // (a Lua hook's or Lua model's HookError, a TorchScript model's RecipeError).
  if (const auto* r = dynamic_cast<const Error*>(&e); r && r->kind() != ErrorKind::kHook && r->kind() != ErrorKind::kRecipe) return false;
  const std::string what = e.what();
  for (const char* s : {" out of memory", "DefaultCPUAllocator: can't allocate memory", "CUDNN_STATUS_NOT_SUPPORTED"})
    if (what.find(s) != std::string::npos) return true;
  return false;
}

std::string error_message(const std::exception& e) {
  if (const auto* c = dynamic_cast<const c10::Error*>(&e)) return c->what_without_backtrace();
  return e.what();
}

std::string out_of_memory_summary(const std::exception& e) {
  const std::string m = error_message(e);
  // From the allocator's phrase; else from the start of the line that says it (a wrapper's
  // "recipe.lua:12: " included), to the end of that sentence.
  size_t from = std::string::npos, at = std::string::npos;
  for (const char* s : {"CUDA out of memory", "DefaultCPUAllocator", "CUDA error: out of memory"})
    if ((at = m.find(s)) != std::string::npos) {
      from = at;
      break;
    }
  if (from == std::string::npos) {
    at = m.find("out of memory");
    if (at == std::string::npos) at = 0;
    const size_t line = m.rfind('\n', at);
    from = line == std::string::npos ? 0 : line + 1;
  }
  size_t end = std::min(m.find('\n', at), m.find(". ", at));
  if (end != std::string::npos && end < from) end = std::string::npos;  // no marker, message opening with a newline
  return m.substr(from, end == std::string::npos ? std::string::npos : end - from);
}

namespace {
// Fails as the CPU allocator does when the batch has more than `limit` rows (and this is the
// chosen rank, if RUNNER_FAULT_OOM_RANK names one); on a GPU `device`, CUDA's caching
// allocator fails for real.
void inject_above(const char* variable, int64_t limit, int64_t batch_rows, int rank, const c10::Device& device = c10::Device(c10::kCPU)) {
  static const int64_t only_rank = env_int("RUNNER_FAULT_OOM_RANK", -1);
  if (limit < 0 || batch_rows <= limit || (only_rank >= 0 && only_rank != rank)) return;
  if (device.is_cuda()) (void)at::empty({int64_t{1} << 40}, at::TensorOptions().dtype(at::kByte).device(device));  // 1 TiB
  TORCH_CHECK(false, "DefaultCPUAllocator: can't allocate memory (a batch of ", batch_rows, " examples; injected by ", variable, "=",
              limit, ")");
}
}  // namespace

void maybe_inject_out_of_memory(int64_t batch_rows, int rank) {
  static const int64_t limit = env_int("RUNNER_FAULT_OOM_BATCH_ABOVE", -1);
  inject_above("RUNNER_FAULT_OOM_BATCH_ABOVE", limit, batch_rows, rank);
}

void maybe_inject_out_of_memory_in_loop(int64_t batch_rows, int rank, const c10::Device& device) {
  static const int64_t limit = env_int("RUNNER_FAULT_OOM_LOOP_BATCH_ABOVE", -1);
  inject_above("RUNNER_FAULT_OOM_LOOP_BATCH_ABOVE", limit, batch_rows, rank, device);
}

}  // namespace runner::device
