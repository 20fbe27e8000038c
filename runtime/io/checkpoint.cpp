#include "runtime/io/checkpoint.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/core/errors.h"
#include "runtime/core/regex.h"
#include "runtime/io/atomic_file.h"
#include "runtime/io/manifest.h"

namespace runner::io {

namespace fs = std::filesystem;

void write_checkpoint(const std::string& dir, const CheckpointContents& c, const std::function<void()>& before_moves) {
  StagedDir staged(dir);
  const std::string& p = staged.path();
  save_safetensors(p + "/" + c.model_file, c.model, {{"format", "pt"}});
  // Also without state tensors (SGD without momentum), as HF always writes optimizer.pt.
  if (!c.optimizer.empty() || (!c.optimizer_meta.is_null() && !c.optimizer_meta.contains("shards")))
    save_safetensors(p + "/optimizer.safetensors", c.optimizer, {{"format", "pt"}});
  if (!c.optimizer_meta.is_null()) write_json_atomic(p + "/optimizer.json", c.optimizer_meta);
  if (!c.scheduler.is_null()) write_json_atomic(p + "/scheduler.json", c.scheduler);
  if (!c.rng.is_null()) write_json_atomic(p + "/rng_state.json", c.rng);
  if (!c.loop.is_null()) write_json_atomic(p + "/loop_state.json", c.loop);
  if (!c.scaler.is_null()) write_json_atomic(p + "/scaler.json", c.scaler);
  if (!c.stream.is_null()) write_json_atomic(p + "/stream_state.json", c.stream);
  write_json_atomic(p + "/trainer_state.json", c.trainer_state);
  write_json_atomic(p + "/training_args.json", c.training_args);
  if (!c.model_config.is_null()) write_json_atomic(p + "/" + c.model_config_file, c.model_config);
  if (!c.generation_config.is_null()) write_json_atomic(p + "/generation_config.json", c.generation_config);
  for (const auto& [src, name] : c.copy_files) copy_file_atomic(src, p + "/" + name);  // conveniences: a missing one never fails a save
  if (before_moves) before_moves();
  for (const auto& src : c.move_files) {
    std::error_code ec;
    fs::rename(src, p + "/" + fs::path(src).filename().string(), ec);
    if (ec) throw CheckpointError("cannot move " + src + " into the checkpoint: " + ec.message(), dir);
  }
  write_manifest(p);  // last: sizes and checksums of everything above
  fsync_dir(p);       // the files and renames are durable before the commit
  staged.commit();
}

std::vector<std::pair<int64_t, std::string>> list_checkpoints(const std::string& output_dir) {
  std::vector<std::pair<int64_t, std::string>> out;
  std::error_code ec;
  if (!fs::is_directory(output_dir, ec)) return out;
  static const Regex pattern("checkpoint-([0-9]+)");
  for (const auto& entry : fs::directory_iterator(output_dir, ec)) {
    std::vector<std::string> m;
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && pattern.full_match(name, &m)) out.emplace_back(std::stoll(m[1]), entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> last_checkpoint(const std::string& output_dir) {
  auto all = list_checkpoints(output_dir);
  if (all.empty()) return std::nullopt;
  return all.back().second;
}

std::vector<std::string> checkpoints_to_delete(const std::vector<std::pair<int64_t, std::string>>& sorted,
                                               const std::optional<std::string>& best, int64_t limit,
                                               const std::optional<std::string>& written) {
  if (limit <= 0) return {};
  std::vector<std::string> order;
  for (const auto& [step, path] : sorted) order.push_back(path);
  const auto same = [](const std::string& a, const std::string& b) {
    std::error_code ec;
    return a == b || fs::equivalent(a, b, ec);
  };
  if (written) {
    auto it = std::find_if(order.begin(), order.end(), [&](const std::string& p) { return same(p, *written); });
    if (it != order.end()) std::rotate(it, it + 1, order.end());
  }
  int64_t keep = limit;
  if (best) {
    auto it = std::find_if(order.begin(), order.end(), [&](const std::string& p) { return same(p, *best); });
    if (it != order.end()) {
      // bubble the best one up to second-to-last; the newest stays last (it is needed to resume)
      for (size_t i = static_cast<size_t>(it - order.begin()); i + 2 < order.size(); ++i) std::swap(order[i], order[i + 1]);
      if (limit == 1 && !same(order.back(), *best)) keep = 2;
    }
  }
  if (static_cast<int64_t>(order.size()) <= keep) return {};
  return std::vector<std::string>(order.begin(), order.end() - keep);
}

}  // namespace runner::io
