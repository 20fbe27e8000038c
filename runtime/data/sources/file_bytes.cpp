#include "runtime/data/sources/file_bytes.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "runtime/core/errors.h"

namespace runner::data {

std::string read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(std::string("cannot open: ") + std::strerror(errno), path);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw DataError("read error", path);
  return bytes;
}

std::string read_maybe_gzip(const std::string& path) {
  // zlib's gz* functions read gzip files (several members too) and plain files alike.
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw DataError(std::string("cannot open: ") + std::strerror(errno ? errno : ENOMEM), path);
  gzbuffer(f, 1 << 17);
  std::string out;
  char buf[1 << 16];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  int code = Z_OK;
  const char* message = gzerror(f, &code);
  const std::string why = message ? message : "";
  gzclose(f);
  if (code == Z_BUF_ERROR) throw DataError("truncated gzip data (the stream ends early)", path);
  if (code == Z_ERRNO) throw DataError(std::string("read error: ") + std::strerror(errno), path);
  if (code != Z_OK || n < 0) throw DataError("corrupt gzip data: " + why, path);
  return out;
}

}  // namespace runner::data
