#include "runtime/core/regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "runtime/core/errors.h"

namespace runner {

struct Regex::Impl {
  pcre2_code* code = nullptr;
  ~Impl() {
    if (code) pcre2_code_free(code);
  }
};

Regex::Regex(const std::string& pattern, const std::string& what, ErrorKind kind) : impl_(std::make_unique<Impl>()) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  impl_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
  if (!impl_->code) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    throw_error(kind, what + " \"" + pattern + "\" is not a valid regular expression (at offset " + std::to_string(offset) + ": " +
                          reinterpret_cast<const char*>(message) + ")");
  }
  pcre2_jit_compile(impl_->code, PCRE2_JIT_COMPLETE);  // falls back to the interpreter if JIT is unavailable
}

Regex::~Regex() = default;

std::vector<std::pair<size_t, size_t>> Regex::find_all(std::string_view text) const {
  std::vector<std::pair<size_t, size_t>> out;
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(impl_->code, nullptr);
  size_t start = 0;
  // Invalid UTF-8 is the caller's business (the tokenizer replaces it first); NO_UTF_CHECK
  // saves re-validating the whole text on every call.
  while (start <= text.size()) {
    const int rc = pcre2_match(impl_->code, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), start, PCRE2_NO_UTF_CHECK, md, nullptr);
    if (rc < 0) break;
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    const size_t b = ov[0], e = ov[1];
    if (e == b) {  // an empty match: step one character on
      size_t next = e + 1;
      while (next < text.size() && (static_cast<unsigned char>(text[next]) & 0xC0) == 0x80) ++next;
      start = next;
      continue;
    }
    out.emplace_back(b, e);
    start = e;
  }
  pcre2_match_data_free(md);
  return out;
}

bool Regex::match(std::string_view text, uint32_t options, std::vector<std::string>* groups) const {
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(impl_->code, nullptr);
  const int rc = pcre2_match(impl_->code, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0, options, md, nullptr);
  if (rc >= 0 && groups) {
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    groups->clear();
    for (uint32_t g = 0; g < pcre2_get_ovector_count(md); ++g)
      groups->push_back(ov[2 * g] == PCRE2_UNSET ? std::string() : std::string(text.substr(ov[2 * g], ov[2 * g + 1] - ov[2 * g])));
  }
  pcre2_match_data_free(md);
  return rc >= 0;
}

bool Regex::full_match(std::string_view text, std::vector<std::string>* groups) const {
  return match(text, PCRE2_ANCHORED | PCRE2_ENDANCHORED, groups);
}

bool Regex::search(std::string_view text, std::vector<std::string>* groups) const { return match(text, 0, groups); }

}  // namespace runner
