#include "runtime/data/sources/file_bytes.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include "runtime/core/errors.h"

namespace runner::data {

std::string read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(std::string("cannot open: ") + std::strerror(errno), path);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw DataError("read error", path);
  return bytes;
}

namespace {

bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gunzip(const std::string& in, const std::string& path) {
  std::string out;
  size_t pos = 0;
  char buf[1 << 16];
  // One iteration per gzip member; trailing zero padding (some tools add it) is ignored.
  while (pos < in.size()) {
    if (!is_gzip(in.substr(pos, 2))) {
      if (in.find_first_not_of('\0', pos) == std::string::npos) break;
      throw DataError("unexpected bytes after the gzip data (offset " + std::to_string(pos) + ")", path);
    }
    z_stream zs{};
    if (inflateInit2(&zs, 15 + 16) != Z_OK) throw DataError("cannot initialise zlib", path);
    // Inflate reads in chunks no larger than uInt can describe. Z_BUF_ERROR means zlib
    // needs more input; with none left the stream was cut short.
    int rc = Z_OK;
    while (true) {
      if (zs.avail_in == 0 && pos < in.size()) {
        const size_t chunk = std::min<size_t>(in.size() - pos, std::numeric_limits<uInt>::max());
        zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + pos));
        zs.avail_in = static_cast<uInt>(chunk);
        pos += chunk;
      }
      zs.next_out = reinterpret_cast<Bytef*>(buf);
      zs.avail_out = sizeof buf;
      rc = inflate(&zs, Z_NO_FLUSH);
      out.append(buf, sizeof buf - zs.avail_out);
      if (rc == Z_STREAM_END) break;
      if (rc == Z_BUF_ERROR && zs.avail_in == 0 && pos >= in.size()) break;
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        const std::string why = zs.msg ? zs.msg : "error " + std::to_string(rc);
        inflateEnd(&zs);
        throw DataError("corrupt gzip data: " + why, path);
      }
    }
    pos -= zs.avail_in;  // bytes handed to zlib but not part of this member
    inflateEnd(&zs);
    if (rc != Z_STREAM_END) throw DataError("truncated gzip data (the stream ends early)", path);
  }
  return out;
}

}  // namespace

std::string read_maybe_gzip(const std::string& path) {
  std::string bytes = read_file_bytes(path);
  return is_gzip(bytes) ? gunzip(bytes, path) : bytes;
}

}  // namespace runner::data
