// Whole-file reads for the binary sources. IDX files are usually shipped gzip-compressed
// (MNIST's *.gz, Debian's dataset-fashion-mnist), so the reader recognises gzip by its
// magic bytes rather than by the file name.
#pragma once
#include <string>

namespace runner::data {

// The file's bytes. A DataError names the file when it cannot be opened or read.
std::string read_file_bytes(const std::string& path);

// The file's bytes, decompressed when they start with the gzip magic 1f 8b (several
// concatenated gzip members are decompressed one after another, as gunzip does). A corrupt
// or truncated gzip stream is a DataError naming the file.
std::string read_maybe_gzip(const std::string& path);

}  // namespace runner::data
