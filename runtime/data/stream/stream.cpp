#include "runtime/data/stream/stream.h"

#include <glob.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"
#include "runtime/core/text.h"
#include "runtime/core/found_files.h"
#include "runtime/core/splitmix.h"

namespace runner::data {

namespace {

std::string format_of(const std::string& path) {
  if (ends_with(path, ".parquet")) return "parquet";
  if (ends_with(path, ".arrow") || ends_with(path, ".feather")) return "arrow";
  if (ends_with(path, ".bin")) return "token_bin";
  if (ends_with(path, ".jsonl") || ends_with(path, ".json")) return "jsonl";
  return "text";
}

// Compressed shards would be read as bytes of text (HF streaming decompresses them): refused.
void refuse_compressed(const std::string& path) {
  for (const char* ext : {".gz", ".bz2", ".xz", ".zst", ".zstd", ".lz4", ".zip", ".7z", ".tar"})
    if (ends_with(path, ext))
      throw DataError(std::string("data.stream: compressed shards are not read (") + ext + "): decompress them first", path);
}

// Whether a file in a source folder is data: not hidden (.gitattributes), not a dataset card
// or licence, not a token file's header (x.bin.json) or a save_to_disk folder's metadata
// (state.json, dataset_info.json), not code or documentation. HF's data-file inference
// likewise reads only the files of a data format.
bool is_data_file(const std::filesystem::path& p) {
  const std::string name = p.filename().string(), ext = p.extension().string();
  if (name.empty() || name[0] == '.') return false;
  for (const char* meta : {"README", "LICENSE", "LICENCE", "CITATION", "NOTICE"})
    if (name.rfind(meta, 0) == 0) return false;
  for (const char* other : {".md", ".py", ".sh", ".yaml", ".yml", ".lock", ".html", ".pdf", ".png", ".jpg", ".toml", ".cfg", ".ini"})
    if (ext == other) return false;
  if (name == "state.json" || name == "dataset_info.json" || name == "dataset_dict.json") return false;
  if (ext == ".json" && std::filesystem::exists(p.parent_path() / p.stem())) return false;  // x.bin.json beside x.bin
  return true;
}

// A source's files, sorted: a folder's data files (of one format, `format` when given), a
// glob's matches, or the file itself.
std::vector<std::string> expand(const std::string& source, const std::string& format) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::error_code ec;
  if (fs::is_directory(source, ec)) {
    std::vector<std::string> other;  // data files of another format than the folder's
    for (const auto& e : fs::directory_iterator(source, ec))
      if (e.is_regular_file() && is_data_file(e.path())) files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    if (files.empty()) throw DataError("data.stream: no data files in this folder", source);
    const std::string kind = format.empty() ? format_of(files.front()) : format == "json" ? "jsonl" : format;
    std::vector<std::string> kept;
    for (auto& f : files) (format_of(f) == kind ? kept : other).push_back(std::move(f));
    if (kept.empty()) throw DataError("data.stream: no " + kind + " files in this folder", source);
    if (format.empty() && !other.empty())
      throw DataError("data.stream: this folder holds data files of several formats (" + kept.front() + " is " + kind + ", " + other.front() +
                          " is " + format_of(other.front()) + "): give format = or a glob",
                      source);
    files = std::move(kept);
  } else if (source.find_first_of("*?[") != std::string::npos) {
    glob_t g{};
    if (::glob(source.c_str(), 0, nullptr, &g) == 0)
      for (size_t i = 0; i < g.gl_pathc; ++i) files.emplace_back(g.gl_pathv[i]);
    globfree(&g);
    if (files.empty()) throw DataError("data.stream: no file matches", source);
    std::sort(files.begin(), files.end());
  } else {
    if (!fs::is_regular_file(source, ec)) throw DataError("data.stream: no such shard", source);
    files.push_back(source);
  }
  for (const auto& f : files) {
    refuse_compressed(f);
    check_found_file(f);
  }
  return files;
}

}  // namespace

Stream::Stream(StreamOptions options) : options_(std::move(options)) {
  if (options_.sources.empty()) throw RecipeError("data.stream: source is required (a file, a folder, a glob or a list of them)");
  if (options_.block_size <= 0) throw RecipeError("data.stream: block_size is required (tokens per example, > 0)");
  if (options_.buffer_size < 0) throw RecipeError("data.stream: buffer_size must be >= 0");
  for (const auto& s : options_.sources)
    for (auto& f : expand(s, options_.format)) shards_.push_back(std::move(f));
  if (options_.format.empty()) options_.format = format_of(shards_.front());
  if (options_.format == "json") options_.format = "jsonl";
  if (options_.tokenizer != "bytes") {
    if (!ends_with(options_.tokenizer, ".json"))
      throw RecipeError("data.stream: tokenizer must be \"bytes\" or a tokenizer.json path, got \"" + options_.tokenizer + "\"");
    tokenizer_ = HfTokenizer::load(options_.tokenizer);
  }
  records_.format = options_.format;
  records_.column = options_.column;
  if (options_.format == "token_bin") read_token_header();
  std::string first;
  open_records(records_, shards_.front(), {})->next(first);
}

void Stream::read_token_header() {
  if (tokenizer_) throw RecipeError("data.stream: a token_bin stream holds token ids already; leave tokenizer out");
  std::string dtype = options_.dtype;
  const std::string header = shards_.front() + ".json";  // runner prepare-data's (sources/token_bin.h)
  if (std::ifstream in{header}) {
    const nlohmann::json h = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (h.is_discarded() || !h.is_object() || !h.contains("dtype") || !h["dtype"].is_string())
      throw DataError("not a token file header (a JSON object with \"dtype\")", header);
    if (!dtype.empty() && dtype != h["dtype"].get<std::string>())
      throw DataError("data.stream: dtype \"" + dtype + "\" given, but the header says \"" + h["dtype"].get<std::string>() + "\"", header);
    dtype = h["dtype"].get<std::string>();
    if (h.contains("vocab_size") && h["vocab_size"].is_number_integer()) header_vocab_ = h["vocab_size"].get<int64_t>();
  }
  if (dtype.empty() || dtype == "uint16") records_.token_bytes = 2;
  else if (dtype == "uint32") records_.token_bytes = 4;
  else throw RecipeError("data.stream: dtype must be \"uint16\" or \"uint32\", got \"" + dtype + "\"");
  records_.chunk_tokens = options_.block_size;
  options_.eos_token_id = -1;  // the file has its separators already
}

int64_t Stream::vocab_size() const {
  if (tokenizer_) return tokenizer_->vocab_size();
  if (records_.format != "token_bin") return 256;
  if (header_vocab_ > 0) return header_vocab_;
  throw RecipeError("data.stream: " + shards_.front() + " has no header with a vocab_size (runner prepare-data writes one); give the model's vocab_size yourself");
}

std::vector<int64_t> Stream::shard_order(int64_t epoch) const {
  std::vector<int64_t> order(shards_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
  uint64_t state = splitmix64_mix(static_cast<uint64_t>(options_.seed) ^ splitmix64_mix(static_cast<uint64_t>(epoch)));
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[splitmix64(state) % i]);
  return order;
}

std::vector<int64_t> Stream::encode(const std::string& record) const {
  std::vector<int64_t> ids;
  if (records_.format == "token_bin") {  // little-endian ids
    const auto* b = reinterpret_cast<const unsigned char*>(record.data());
    const size_t w = static_cast<size_t>(records_.token_bytes);
    for (size_t i = 0; i + w <= record.size(); i += w) {
      uint64_t v = 0;
      for (size_t k = 0; k < w; ++k) v |= static_cast<uint64_t>(b[i + k]) << (8 * k);
      ids.push_back(static_cast<int64_t>(v));
    }
    return ids;
  }
  if (tokenizer_) {
    ids = tokenizer_->encode(record, /*add_special_tokens=*/false);
  } else {
    ids.reserve(record.size() + 1);
    for (const unsigned char c : record) ids.push_back(c);
  }
  if (options_.eos_token_id >= 0) ids.push_back(options_.eos_token_id);
  return ids;
}

}  // namespace runner::data
