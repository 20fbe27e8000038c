// Integrity of checkpoint folders. manifest.json lists every file of the folder with its size
// and XXH64 checksum (written last, before the folder is committed), so a truncated or
// bit-flipped file is found before any of it is loaded.
#pragma once
#include <string>

namespace runner::io {

void write_manifest(const std::string& dir);
// Empty when the folder is intact; otherwise what is wrong, naming the file. A folder
// without a manifest (written by HF or an older runner) is only checked for model.safetensors.
std::string checkpoint_problem(const std::string& dir);

}  // namespace runner::io
