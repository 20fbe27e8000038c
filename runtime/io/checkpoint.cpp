#include "runtime/io/checkpoint.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "runtime/core/errors.h"
#include "runtime/io/atomic_file.h"

namespace runner::io {

namespace fs = std::filesystem;

void write_checkpoint(const std::string& dir, const CheckpointContents& c) {
  StagedDir staged(dir);
  const std::string& p = staged.path();
  save_safetensors(p + "/model.safetensors", c.model, {{"format", "pt"}});
  if (!c.optimizer.empty()) save_safetensors(p + "/optimizer.safetensors", c.optimizer, {{"format", "pt"}});
  if (!c.optimizer_meta.is_null()) write_json_atomic(p + "/optimizer.json", c.optimizer_meta);
  if (!c.scheduler.is_null()) write_json_atomic(p + "/scheduler.json", c.scheduler);
  if (!c.rng.is_null()) write_json_atomic(p + "/rng_state.json", c.rng);
  write_json_atomic(p + "/trainer_state.json", c.trainer_state);
  write_json_atomic(p + "/training_args.json", c.training_args);
  for (const auto& [src, name] : c.copy_files) {
    std::ifstream in(src, std::ios::binary);
    if (!in) continue;  // the recipe copy is a convenience, never a reason to fail a save
    std::stringstream ss;
    ss << in.rdbuf();
    write_file_atomic(p + "/" + name, ss.str());
  }
  staged.commit();
}

std::vector<std::pair<int64_t, std::string>> list_checkpoints(const std::string& output_dir) {
  std::vector<std::pair<int64_t, std::string>> out;
  std::error_code ec;
  if (!fs::is_directory(output_dir, ec)) return out;
  static const std::regex pattern("^checkpoint-([0-9]+)$");
  for (const auto& entry : fs::directory_iterator(output_dir, ec)) {
    std::smatch m;
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && std::regex_match(name, m, pattern)) out.emplace_back(std::stoll(m[1]), entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> last_checkpoint(const std::string& output_dir) {
  auto all = list_checkpoints(output_dir);
  if (all.empty()) return std::nullopt;
  return all.back().second;
}

}  // namespace runner::io
