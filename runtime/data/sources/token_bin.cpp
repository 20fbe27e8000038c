#include "runtime/data/sources/token_bin.h"

#include <fstream>

#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"

namespace runner::data {

TokenBinDataset::TokenBinDataset(std::unique_ptr<MappedFile> file, int bytes_per_token, WindowPlan plan, std::string origin)
    : TokenWindowDataset(plan, std::move(origin)), file_(std::move(file)), bytes_per_token_(bytes_per_token) {}

void TokenBinDataset::read_tokens(int64_t offset, int64_t count, int64_t* out) const {
  // Assembled byte by byte: the file is little-endian whatever the host is, and mapped
  // data need not be aligned for the wider type.
  const unsigned char* p = file_->data() + offset * bytes_per_token_;
  if (bytes_per_token_ == 2) {
    for (int64_t k = 0; k < count; ++k, p += 2) out[k] = static_cast<int64_t>(p[0] | (p[1] << 8));
  } else {
    for (int64_t k = 0; k < count; ++k, p += 4)
      out[k] = static_cast<int64_t>(static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
                                    (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24));
  }
}

std::string token_header_path(const std::string& token_file) { return token_file + ".json"; }

std::shared_ptr<const TokenBinDataset> load_token_bin(const TokenBinOptions& options) {
  TokenBinOptions o = options;
  int64_t header_tokens = -1;
  const std::string header_path = token_header_path(o.path);
  if (std::ifstream in{header_path}) {
    const nlohmann::json h = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (h.is_discarded() || !h.is_object() || !h.contains("dtype") || !h["dtype"].is_string())
      throw DataError("not a token file header (a JSON object with \"dtype\")", header_path);
    const std::string dtype = h["dtype"].get<std::string>();
    if (!o.dtype.empty() && o.dtype != dtype)
      throw DataError("dtype \"" + o.dtype + "\" given, but the header says \"" + dtype + "\"", header_path);
    o.dtype = dtype;
    if (h.contains("num_tokens") && h["num_tokens"].is_number_integer()) header_tokens = h["num_tokens"].get<int64_t>();
  }
  if (o.dtype.empty()) o.dtype = "uint16";
  int width;
  if (o.dtype == "uint16") width = 2;
  else if (o.dtype == "uint32") width = 4;
  else throw DataError("dtype must be \"uint16\" or \"uint32\", got \"" + o.dtype + "\"", o.path);
  auto file = std::make_unique<MappedFile>(o.path);
  if (file->size() == 0) throw DataError("empty file", o.path);
  if (file->size() % static_cast<size_t>(width) != 0)
    throw DataError(std::to_string(file->size()) + " bytes is not a whole number of " + o.dtype +
                        " tokens (a truncated file, or the wrong dtype)", o.path);
  const int64_t tokens = static_cast<int64_t>(file->size()) / width;
  if (header_tokens >= 0 && header_tokens != tokens)
    throw DataError("holds " + std::to_string(tokens) + " tokens, its header says " + std::to_string(header_tokens) +
                        " (a truncated or replaced file)", o.path);
  std::string origin = "data.token_bin(" + o.path + ")";
  WindowPlan plan(tokens, o.windows, origin);
  return std::make_shared<const TokenBinDataset>(std::move(file), width, plan, std::move(origin));
}

}  // namespace runner::data
