#include "runtime/data/sources/text.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "runtime/core/errors.h"
#include "runtime/data/sources/file_bytes.h"
#include "runtime/data/tokenizers/byte_level.h"

namespace runner::data {

namespace {

// Decodes one UTF-8 sequence at s[i]; returns its length, or 0 if it is not valid UTF-8
// (bad lead byte, missing continuation, overlong form, surrogate or beyond U+10FFFF).
size_t decode_utf8(const std::string& s, size_t i, uint32_t& cp) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  size_t len;
  uint32_t min;
  if (b < 0x80) {
    cp = b;
    return 1;
  } else if ((b & 0xE0) == 0xC0) {
    len = 2, cp = b & 0x1F, min = 0x80;
  } else if ((b & 0xF0) == 0xE0) {
    len = 3, cp = b & 0x0F, min = 0x800;
  } else if ((b & 0xF8) == 0xF0) {
    len = 4, cp = b & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

std::vector<uint32_t> code_points(const std::string& text, const std::string& path) {
  std::vector<uint32_t> cps;
  cps.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    const size_t len = decode_utf8(text, i, cp);
    if (len == 0) {
      const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(i), '\n');
      throw DataError("not valid UTF-8 at byte offset " + std::to_string(i) +
                          " (tokenizer \"chars\" needs UTF-8 text; tokenizer \"bytes\" reads any encoding)",
                      path + ":" + std::to_string(line));
    }
    cps.push_back(cp);
    i += len;
  }
  return cps;
}

std::string fraction(double f) {
  std::ostringstream s;
  s << f;
  return s.str();
}

}  // namespace

TextDataset::TextDataset(std::vector<int32_t> tokens, std::vector<uint32_t> vocab, bool bytes, WindowPlan plan, std::string origin,
                         std::shared_ptr<const HfTokenizer> hf)
    : TokenWindowDataset(plan, std::move(origin)), tokens_(std::move(tokens)), vocab_(std::move(vocab)), bytes_(bytes), hf_(std::move(hf)) {}

void TextDataset::read_tokens(int64_t offset, int64_t count, int64_t* out) const {
  std::copy(tokens_.begin() + offset, tokens_.begin() + offset + count, out);
}

std::string TextDataset::decode(const std::vector<int64_t>& ids) const {
  if (hf_) return hf_->decode(ids);
  std::string out;
  out.reserve(ids.size());
  for (const int64_t id : ids) {
    if (id < 0 || id >= vocab_size())
      throw DataError("decode: id " + std::to_string(id) + " is outside the vocabulary (0.." + std::to_string(vocab_size() - 1) + ")",
                      describe());
    if (bytes_) out += static_cast<char>(id);
    else append_utf8(out, vocab_[static_cast<size_t>(id)]);
  }
  return out;
}

std::vector<int64_t> TextDataset::encode(const std::string& text) const {
  if (hf_) return hf_->encode(text, /*add_special_tokens=*/false);
  std::vector<int64_t> ids;
  if (bytes_) {
    for (const char c : text) ids.push_back(static_cast<unsigned char>(c));
    return ids;
  }
  for (const uint32_t cp : code_points(text, "encode")) {
    const auto it = std::lower_bound(vocab_.begin(), vocab_.end(), cp);
    if (it == vocab_.end() || *it != cp) {
      std::string ch;
      append_utf8(ch, cp);
      throw DataError("encode: character '" + ch + "' is not in the vocabulary", describe());
    }
    ids.push_back(it - vocab_.begin());
  }
  return ids;
}

std::shared_ptr<const TextDataset> load_text(const TextOptions& o) {
  const std::string& path = o.path;
  const bool json_file = o.tokenizer.size() > 5 && o.tokenizer.compare(o.tokenizer.size() - 5, 5, ".json") == 0;
  if (o.tokenizer != "chars" && o.tokenizer != "bytes" && !json_file)
    throw DataError("tokenizer must be \"chars\", \"bytes\" or a tokenizer.json file, got \"" + o.tokenizer + "\"", path);
  const std::shared_ptr<const HfTokenizer> hf = json_file ? HfTokenizer::load(o.tokenizer) : nullptr;
  if (!(o.range_begin >= 0 && o.range_begin < o.range_end && o.range_end <= 1))
    throw DataError("range must be {begin, end} with 0 <= begin < end <= 1, got {" + fraction(o.range_begin) + ", " +
                        fraction(o.range_end) + "}", path);
  const std::string text = read_maybe_gzip(path);
  if (text.empty()) throw DataError("empty file", path);
  const bool bytes = o.tokenizer == "bytes";

  std::vector<uint32_t> vocab;
  std::vector<int32_t> all;
  if (hf) {
    for (const int64_t id : hf->encode(text, /*add_special_tokens=*/false)) all.push_back(static_cast<int32_t>(id));
  } else if (bytes) {
    all.reserve(text.size());
    for (const char c : text) all.push_back(static_cast<unsigned char>(c));
  } else {
    const std::vector<uint32_t> cps = code_points(text, path);
    vocab = cps;
    std::sort(vocab.begin(), vocab.end());
    vocab.erase(std::unique(vocab.begin(), vocab.end()), vocab.end());
    all.reserve(cps.size());
    for (const uint32_t cp : cps) all.push_back(static_cast<int32_t>(std::lower_bound(vocab.begin(), vocab.end(), cp) - vocab.begin()));
  }

  // nanoGPT's split: data[int(n * begin) : int(n * end)].
  const auto n = static_cast<double>(all.size());
  const auto begin = static_cast<int64_t>(std::floor(n * o.range_begin));
  const auto end = static_cast<int64_t>(std::floor(n * o.range_end));
  std::vector<int32_t> tokens(all.begin() + begin, all.begin() + end);
  std::string origin = "data.text(" + path;
  if (o.range_begin != 0.0 || o.range_end != 1.0) origin += ", range {" + fraction(o.range_begin) + ", " + fraction(o.range_end) + "}";
  origin += ")";
  WindowPlan plan(static_cast<int64_t>(tokens.size()), o.windows, origin);
  return std::make_shared<const TextDataset>(std::move(tokens), std::move(vocab), bytes, plan, std::move(origin), hf);
}

}  // namespace runner::data
