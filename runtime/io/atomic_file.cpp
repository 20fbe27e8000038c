#include "runtime/io/atomic_file.h"
#include "runtime/io/json_text.h"

#include <fcntl.h>
#include <stdio.h>  // renameat2, RENAME_EXCHANGE (glibc >= 2.28)
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/core/errors.h"

namespace runner::io {

namespace fs = std::filesystem;

namespace {

std::string sys_error() { return std::strerror(errno); }

}  // namespace

void fsync_dir(const std::string& dir) {
  int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

namespace {

std::string parent_of(const std::string& path) {
  std::string p = fs::path(path).parent_path().string();
  return p.empty() ? "." : p;
}

}  // namespace

void write_file_atomic(const std::string& path, const std::function<void(const ByteSink&)>& write) {
  const std::string dir = parent_of(path);
  make_dirs(dir);
  const std::string tmp = dir + "/.tmp-" + fs::path(path).filename().string() + "-" + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw CheckpointError("cannot write: " + sys_error(), path);
  std::string failure;
  ByteSink sink = [&](const void* data, size_t size) {
    auto* p = static_cast<const char*>(data);
    while (size > 0 && failure.empty()) {
      ssize_t n = ::write(fd, p, size);
      if (n < 0) {
        if (errno == EINTR) continue;
        failure = sys_error();
        return;
      }
      p += n, size -= static_cast<size_t>(n);
    }
  };
  try {
    write(sink);
  } catch (...) {  // the writer failed: no half-written temporary left behind
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (failure.empty() && ::fsync(fd) != 0) failure = sys_error();
  if (::close(fd) != 0 && failure.empty()) failure = sys_error();  // NFS reports write errors here
  if (failure.empty() && ::rename(tmp.c_str(), path.c_str()) != 0) failure = sys_error();
  if (!failure.empty()) {
    ::unlink(tmp.c_str());
    throw CheckpointError("cannot write: " + failure, path);
  }
  fsync_dir(dir);
}

void write_file_atomic(const std::string& path, const std::string& bytes) {
  write_file_atomic(path, [&](const ByteSink& sink) { sink(bytes.data(), bytes.size()); });
}

bool copy_file_atomic(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  if (!in) return false;
  std::stringstream bytes;
  bytes << in.rdbuf();
  write_file_atomic(to, bytes.str());
  return true;
}

void write_json_atomic(const std::string& path, const nlohmann::json& value) {
  // nlohmann::json objects are std::map-backed, so keys come out sorted like HF's sort_keys;
  // non-finite numbers are written as Python's json does (NaN, Infinity).
  write_file_atomic(path, dump_json_python(value) + "\n");
}

nlohmann::json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw CheckpointError("cannot read: " + sys_error(), path);
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = parse_json_python(ss.str());
  if (j.is_discarded()) throw CheckpointError("not valid JSON", path);
  return j;
}

StagedDir::StagedDir(const std::string& final_path) : final_(final_path) {
  while (final_.size() > 1 && final_.back() == '/') final_.pop_back();  // "merged/" names the folder "merged"
  fs::path p(final_);
  const std::string parent = parent_of(final_);
  tmp_ = parent + "/.tmp-" + p.filename().string() + "-" + std::to_string(::getpid());
  make_dirs(parent);
  remove_all(tmp_);  // leftovers of a crashed run with the same pid
  make_dirs(tmp_);
}

StagedDir::~StagedDir() {
  if (!committed_) {
    std::error_code ec;
    fs::remove_all(tmp_, ec);
  }
}

void StagedDir::commit() {
  std::error_code ec;
  if (fs::exists(final_)) {
    // One atomic step where the filesystem supports it: the new folder and the old one swap
    // names, so `final_` is complete at every moment; then the old one (now at tmp_) goes.
    if (::renameat2(AT_FDCWD, tmp_.c_str(), AT_FDCWD, final_.c_str(), RENAME_EXCHANGE) == 0) {
      fsync_dir(parent_of(final_));
      committed_ = true;
      fs::remove_all(tmp_, ec);
      return;
    }
    // Otherwise move the old folder aside first (a rename over a non-empty folder is not
    // allowed); between the two renames the old copy still exists on disk.
    const std::string old = tmp_ + ".old";
    fs::remove_all(old, ec);
    fs::rename(final_, old, ec);
    if (ec) throw CheckpointError("cannot replace: " + ec.message(), final_);
    fs::rename(tmp_, final_, ec);
    if (ec) throw CheckpointError("cannot rename into place: " + ec.message(), final_);
    fs::remove_all(old, ec);
  } else {
    fs::rename(tmp_, final_, ec);
    if (ec) throw CheckpointError("cannot rename into place: " + ec.message(), final_);
  }
  fsync_dir(parent_of(final_));
  committed_ = true;
}

bool path_exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

bool is_directory(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

void make_dirs(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) throw CheckpointError("cannot create folder: " + ec.message(), path);
}

void remove_all(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

}  // namespace runner::io
