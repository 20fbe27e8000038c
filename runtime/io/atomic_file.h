// Crash-safe writes: readers see the old file (or folder) or the complete new one, never a
// half-written one. Files go to a temporary name in the same folder, are fsync'ed, then
// renamed; folders are staged under a temporary name and renamed into place by commit().
#pragma once
#include <cstddef>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace runner::io {

// `write` is called with a function that appends bytes to the temporary file.
using ByteSink = std::function<void(const void* data, size_t size)>;
void write_file_atomic(const std::string& path, const std::function<void(const ByteSink&)>& write);
void write_file_atomic(const std::string& path, const std::string& bytes);
// `from`'s bytes written atomically to `to`; false (nothing written) when `from` cannot be read.
bool copy_file_atomic(const std::string& from, const std::string& to);

// HF's JSON file convention: indent 2, sorted keys, trailing newline.
void write_json_atomic(const std::string& path, const nlohmann::json& value);
nlohmann::json read_json_file(const std::string& path);  // CheckpointError on failure

// A folder built under "<parent>/.tmp-<name>-<pid>" and renamed to "<parent>/<name>" by
// commit(). An uncommitted folder is removed by the destructor (or by the next run).
class StagedDir {
 public:
  explicit StagedDir(const std::string& final_path);
  ~StagedDir();
  StagedDir(const StagedDir&) = delete;
  StagedDir& operator=(const StagedDir&) = delete;
  const std::string& path() const { return tmp_; }  // write files here
  void commit();  // replaces an existing folder of the same name

 private:
  std::string final_, tmp_;
  bool committed_ = false;
};

void fsync_dir(const std::string& dir);  // makes renames inside `dir` durable
bool path_exists(const std::string& path);
bool is_directory(const std::string& path);
void make_dirs(const std::string& path);  // mkdir -p
void remove_all(const std::string& path);

}  // namespace runner::io
