#include "runtime/io/manifest.h"

#include <xxhash.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"
#include "runtime/io/atomic_file.h"

namespace runner::io {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const char* const kManifest = "manifest.json";

std::string file_hash(const std::string& path, uint64_t& bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CheckpointError("cannot read", path);
  std::unique_ptr<XXH64_state_t, decltype(&XXH64_freeState)> state(XXH64_createState(), &XXH64_freeState);
  XXH64_reset(state.get(), 0);
  std::vector<char> buf(1 << 20);
  bytes = 0;
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const auto n = static_cast<size_t>(in.gcount());
    XXH64_update(state.get(), buf.data(), n);
    bytes += n;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(XXH64_digest(state.get())));
  return hex;
}

}  // namespace

void write_manifest(const std::string& dir) {
  json files = json::object();
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name == kManifest || name.rfind(".tmp-", 0) == 0) continue;
    uint64_t bytes = 0;
    const std::string hash = file_hash(entry.path().string(), bytes);
    files[name] = {{"bytes", bytes}, {"xxh64", hash}};
  }
  write_json_atomic(dir + "/" + kManifest, {{"format", "runner checkpoint manifest 1"}, {"files", files}});
}

std::string checkpoint_problem(const std::string& dir) {
  const std::string manifest = dir + "/" + kManifest;
  if (!path_exists(manifest)) return path_exists(dir + "/model.safetensors") ? "" : dir + "/model.safetensors: missing";
  json m;
  try {
    m = read_json_file(manifest);
  } catch (const Error& e) {
    return manifest + ": " + e.message();
  }
  if (!m.is_object() || !m.contains("files") || !m["files"].is_object()) return manifest + ": malformed";
  for (auto it = m["files"].begin(); it != m["files"].end(); ++it) {
    const std::string path = dir + "/" + it.key();
    const json& want = it.value();
    if (!want.is_object() || !want.contains("bytes") || !want.contains("xxh64")) return manifest + ": malformed entry for " + it.key();
    if (!path_exists(path)) return path + ": missing";
    uint64_t bytes = 0;
    std::string hash;
    try {
      hash = file_hash(path, bytes);
    } catch (const Error&) {
      return path + ": cannot read";
    }
    if (want["bytes"] != bytes)
      return path + ": " + std::to_string(bytes) + " bytes, the manifest says " + want["bytes"].dump() + " (truncated?)";
    if (want["xxh64"] != hash) return path + ": checksum mismatch (the file changed after it was written)";
  }
  return "";
}

}  // namespace runner::io
