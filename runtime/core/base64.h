// Base64 (RFC 4648, standard alphabet, '=' padding): bytes inside JSON files (a stream's
// shuffle buffer in its checkpoint state, a tokenizer.json's precompiled charsmap).
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace runner {

std::string base64_encode(std::string_view bytes);
// nullopt when `text` holds a character outside the alphabet.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace runner
