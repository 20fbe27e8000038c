#include "runtime/train/optimizer_shards.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"
#include "runtime/io/atomic_file.h"

namespace runner::train {

using nlohmann::json;

namespace {

constexpr const char* kParameters = "parameters";  // metadata: [[name, shape], …] in flat order

int64_t parse_start(const io::SafetensorsFile& f, const std::string& key) {
  auto it = f.metadata().find(key);
  if (it == f.metadata().end()) throw CheckpointError("no start offset for '" + key + "' in the metadata", f.path());
  try {
    return std::stoll(it->second);
  } catch (const std::exception&) {
    throw CheckpointError("malformed start offset for '" + key + "'", f.path());
  }
}

std::vector<std::pair<std::string, std::vector<int64_t>>> read_parameters(const io::SafetensorsFile& f) {
  auto it = f.metadata().find(kParameters);
  if (it == f.metadata().end()) throw CheckpointError("not an optimizer shard file (no parameter list in its metadata)", f.path());
  try {
    return json::parse(it->second).get<std::vector<std::pair<std::string, std::vector<int64_t>>>>();
  } catch (const std::exception&) {
    throw CheckpointError("malformed parameter list in the metadata", f.path());
  }
}

// The W files of a checkpoint, each opened (header read) once.
std::vector<io::SafetensorsFile> open_shards(const std::string& dir, int world) {
  if (world < 1) throw CheckpointError("optimizer.json: 'shards' must be >= 1", dir);
  std::vector<io::SafetensorsFile> files;
  for (int r = 0; r < world; ++r) {
    const std::string path = dir + "/" + shard_file_name(r, world);
    if (!io::path_exists(path))
      throw CheckpointError("missing optimizer shard " + shard_file_name(r, world) + " (the checkpoint was saved on " +
                            std::to_string(world) + " ranks)", dir);
    files.emplace_back(path);
  }
  return files;
}

// Calls fn(file, i, key, start, length) for every piece of `prefix.<params[i].first>` in the
// files, once its start and length are checked to lie inside the parameter.
template <typename Fn>
void for_each_piece(const std::vector<io::SafetensorsFile>& files, const std::string& prefix,
                    const std::vector<std::pair<std::string, int64_t>>& params, Fn fn) {
  for (const io::SafetensorsFile& f : files)
    for (size_t i = 0; i < params.size(); ++i) {
      const std::string key = prefix + "." + params[i].first;
      if (!f.contains(key)) continue;
      const int64_t start = parse_start(f, key);
      int64_t length = 1;
      for (int64_t d : f.shape(key)) length *= d;
      if (start < 0 || start + length > params[i].second)
        throw CheckpointError("piece of '" + key + "' lies outside the parameter (" + std::to_string(params[i].second) + " values)", f.path());
      fn(f, i, key, start, length);
    }
}

std::vector<std::pair<std::string, int64_t>> slot_sizes(const optim::FlatParams& layout) {
  std::vector<std::pair<std::string, int64_t>> params;
  for (const auto& s : layout.slots()) params.emplace_back(s.name, s.numel);
  return params;
}

// Copies every piece of `prefix.<name>` in the files into `dst(name)`, and checks that the
// pieces cover each parameter exactly once.
template <typename Dst>
void assemble(const std::string& dir, const std::vector<io::SafetensorsFile>& files, const std::string& prefix,
              const std::vector<std::pair<std::string, int64_t>>& params, Dst dst) {
  std::vector<int64_t> covered(params.size(), 0);
  for_each_piece(files, prefix, params, [&](const io::SafetensorsFile& f, size_t i, const std::string& key, int64_t start, int64_t length) {
    dst(i).narrow(0, start, length).copy_(f.load(key).reshape(-1));
    covered[i] += length;
  });
  for (size_t i = 0; i < params.size(); ++i)
    if (covered[i] != params[i].second)
      throw CheckpointError("the optimizer shards hold " + std::to_string(covered[i]) + " of the " + std::to_string(params[i].second) +
                            " values of '" + prefix + "." + params[i].first + "'", dir);
}

}  // namespace

std::string shard_file_name(int rank, int world) {
  return "optimizer.rank-" + std::to_string(rank) + "-of-" + std::to_string(world) + ".safetensors";
}

void save_optimizer_shard(const std::string& path, const optim::FlatParams& layout, const std::vector<dist::OwnedRange>& owned,
                          const std::map<std::string, at::Tensor>& local) {
  io::NamedTensors tensors;
  io::Metadata meta{{"format", "pt"}};
  json params = json::array();
  for (const auto& s : layout.slots()) params.push_back(json::array({s.name, s.shape}));
  meta[kParameters] = params.dump();
  for (const auto& [state, t] : local) {
    for (const auto& o : owned) {
      if (o.local_begin + o.length > t.numel())
        throw CheckpointError("optimizer state '" + state + "' is not per element; it cannot be saved in shards", path);
      for (const auto& s : layout.slots()) {
        const int64_t b = std::max(o.flat_begin, s.offset), e = std::min(o.flat_begin + o.length, s.offset + s.numel);
        if (b >= e) continue;
        const std::string key = state + "." + s.name;
        if (meta.count(key)) throw CheckpointError("two pieces of '" + key + "' on one rank", path);
        meta[key] = std::to_string(b - s.offset);
        tensors.emplace_back(key, t.narrow(0, o.local_begin + (b - o.flat_begin), e - b));
      }
    }
  }
  io::save_safetensors(path, tensors, meta);
}

std::map<std::string, at::Tensor> load_optimizer_shards(const std::string& dir, int world, const optim::FlatParams& layout,
                                                        const std::vector<std::string>& names) {
  const std::vector<io::SafetensorsFile> files = open_shards(dir, world);
  const auto params = slot_sizes(layout);
  std::map<std::string, at::Tensor> out;
  for (const auto& name : names) {
    at::Tensor flat = at::zeros({layout.numel()}, at::kFloat);
    assemble(dir, files, name, params, [&](size_t i) { return flat.narrow(0, layout.slots()[i].offset, layout.slots()[i].numel); });
    out[name] = flat;
  }
  return out;
}

void load_owned_optimizer_shards(const std::string& dir, int world, const optim::FlatParams& layout,
                                 const std::vector<dist::OwnedRange>& owned, std::map<std::string, at::Tensor>& local) {
  const std::vector<io::SafetensorsFile> files = open_shards(dir, world);
  const auto params = slot_sizes(layout);
  int64_t wanted = 0, reach = 0;
  for (const auto& o : owned) wanted += o.length, reach = std::max(reach, o.local_begin + o.length);
  for (auto& [name, dst] : local) {
    if (dst.numel() < reach)
      throw CheckpointError("optimizer state '" + name + "' is not per element; it cannot be loaded from shards", dir);
    at::Tensor flat_dst = dst.view({-1});
    int64_t covered = 0;
    for_each_piece(files, name, params, [&](const io::SafetensorsFile& f, size_t i, const std::string& key, int64_t start, int64_t length) {
      const int64_t piece_begin = layout.slots()[i].offset + start;  // in the flat layout
      for (const auto& o : owned) {
        const int64_t b = std::max(o.flat_begin, piece_begin), e = std::min(o.flat_begin + o.length, piece_begin + length);
        if (b >= e) continue;
        flat_dst.narrow(0, o.local_begin + (b - o.flat_begin), e - b).copy_(f.load_elements(key, b - piece_begin, e - b));
        covered += e - b;
      }
    });
    if (covered != wanted)
      throw CheckpointError("the optimizer shards hold " + std::to_string(covered) + " of the " + std::to_string(wanted) + " values of '" +
                            name + "' this rank owns", dir);
  }
}

io::NamedTensors consolidate_param_shards(const std::string& dir, int world) {
  const std::vector<io::SafetensorsFile> files = open_shards(dir, world);
  const auto shapes = read_parameters(files.front());
  std::vector<std::pair<std::string, int64_t>> params;
  io::NamedTensors out;
  for (const auto& [name, shape] : shapes) {
    out.emplace_back(name, at::zeros(shape, at::kFloat));
    params.emplace_back(name, out.back().second.numel());
  }
  assemble(dir, files, "param", params, [&](size_t i) { return out[i].second.view({-1}); });
  return out;
}

std::map<std::string, at::Tensor> read_whole_optimizer_state(const std::string& dir, const nlohmann::json& meta, const optim::Optimizer& optimizer,
                                                             const optim::FlatParams& layout) {
  if (meta.contains("shards")) {  // one file per rank of the run that saved it
    std::vector<std::string> names;
    for (const auto& [state_name, t] : optimizer.state_tensors()) names.push_back(state_name);
    return load_optimizer_shards(dir, meta["shards"].get<int>(), layout, names);
  }
  std::map<std::string, at::Tensor> flat_state;
  io::SafetensorsFile file(dir + "/optimizer.safetensors");
  for (const auto& [state_name, flat] : optimizer.state_tensors()) {
    if (file.contains(state_name)) {
      flat_state[state_name] = file.load(state_name);
      continue;
    }
    std::vector<at::Tensor> parts;
    for (const auto& s : layout.slots()) {
      const std::string key = state_name + "." + s.name;
      if (!file.contains(key)) throw CheckpointError("optimizer.safetensors has no '" + key + "' (was it saved by another optimizer or model?)", dir);
      parts.push_back(file.load(key).reshape(-1));
    }
    flat_state[state_name] = at::cat(parts);
  }
  return flat_state;
}


}  // namespace runner::train
