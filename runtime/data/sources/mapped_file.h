// A read-only memory map of a whole file. Token files (nanoGPT's train.bin) can be larger
// than RAM; mapping lets the page cache hold what is used, and several DataLoader workers
// read the same pages without copies or locks.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace runner::data {

class MappedFile {
 public:
  // A DataError names the file when it cannot be opened or mapped. An empty file maps to
  // size() == 0 and data() == nullptr (mmap refuses zero-length maps).
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const unsigned char* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  const unsigned char* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace runner::data
