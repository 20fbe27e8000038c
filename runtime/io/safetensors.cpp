#include "runtime/io/safetensors.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"
#include "runtime/io/atomic_file.h"

namespace runner::io {

using nlohmann::json;

namespace {

struct DtypeName {
  at::ScalarType type;
  const char* name;
};
const DtypeName kDtypes[] = {
    {at::kDouble, "F64"}, {at::kFloat, "F32"}, {at::kHalf, "F16"}, {at::kBFloat16, "BF16"},
    {at::kLong, "I64"},   {at::kInt, "I32"},   {at::kShort, "I16"}, {at::kChar, "I8"},
    {at::kByte, "U8"},    {at::kBool, "BOOL"},
};

at::ScalarType parse_dtype(const std::string& name, const std::string& path, const std::string& tensor) {
  for (const auto& d : kDtypes)
    if (name == d.name) return d.type;
  throw CheckpointError("tensor '" + tensor + "': unsupported dtype \"" + name + "\"", path);
}

// Closes the descriptor on every path out of a function.
struct Fd {
  int fd;
  ~Fd() { if (fd >= 0) ::close(fd); }
};

void read_exact(int fd, void* dst, uint64_t n, uint64_t offset, const std::string& path) {
  auto* p = static_cast<char*>(dst);
  while (n > 0) {
    ssize_t got = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (got <= 0) throw CheckpointError("unexpected end of file", path);
    p += got, n -= static_cast<uint64_t>(got), offset += static_cast<uint64_t>(got);
  }
}

}  // namespace

const char* safetensors_dtype(at::ScalarType t) {
  for (const auto& d : kDtypes)
    if (t == d.type) return d.name;
  throw CheckpointError(std::string("cannot save dtype ") + c10::toString(t) + " to safetensors");
}

void save_safetensors(const std::string& path, const NamedTensors& tensors, const Metadata& metadata) {
  json header = json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::vector<at::Tensor> data;
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    if (header.contains(name)) throw CheckpointError("duplicate tensor name '" + name + "'", path);
    at::Tensor c = t.detach().to(at::kCPU).contiguous();
    const uint64_t bytes = c.numel() * c.element_size();
    header[name] = {{"dtype", safetensors_dtype(c.scalar_type())}, {"shape", c.sizes().vec()},
                    {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
    data.push_back(c);
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');  // keep the data 8-byte aligned, as the Rust writer does
  unsigned char len[8];
  const uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>((n >> (8 * i)) & 0xff);
  write_file_atomic(path, [&](const ByteSink& sink) {
    sink(len, 8);
    sink(text.data(), text.size());
    for (const auto& c : data) sink(c.data_ptr(), c.numel() * c.element_size());
  });
}

SafetensorsFile::SafetensorsFile(const std::string& path) : path_(path) {
  Fd f{::open(path.c_str(), O_RDONLY)};
  if (f.fd < 0) throw CheckpointError(std::string("cannot open: ") + std::strerror(errno), path);
  struct stat st {};
  ::fstat(f.fd, &st);
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size < 8) throw CheckpointError("not a safetensors file (shorter than 8 bytes)", path);
  unsigned char len[8];
  read_exact(f.fd, len, 8, 0, path);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | len[i];
  if (n > size - 8) throw CheckpointError("not a safetensors file (header length " + std::to_string(n) + " exceeds the file)", path);
  // The format's own limit (the reference reader's MAX_HEADER_SIZE): a larger length is
  // corruption, and reading it would allocate that much.
  if (n > 100000000) throw CheckpointError("not a safetensors file (header length " + std::to_string(n) + " exceeds 100 MB)", path);
  std::string text(n, '\0');
  read_exact(f.fd, text.data(), n, 8, path);
  json header = json::parse(text, nullptr, false);
  if (header.is_discarded() || !header.is_object()) throw CheckpointError("not a safetensors file (header is not a JSON object)", path);
  const uint64_t data_start = 8 + n, data_size = size - data_start;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") {
      if (!it.value().is_object()) throw CheckpointError("__metadata__ must be an object", path);
      for (auto m = it.value().begin(); m != it.value().end(); ++m)
        metadata_[m.key()] = m.value().is_string() ? m.value().get<std::string>() : m.value().dump();
      continue;
    }
    const json& e = it.value();
    const std::string& name = it.key();
    if (!e.is_object() || !e.contains("dtype") || !e.contains("shape") || !e.contains("data_offsets") ||
        !e["dtype"].is_string() || !e["shape"].is_array() || !e["data_offsets"].is_array() || e["data_offsets"].size() != 2)
      throw CheckpointError("tensor '" + name + "': malformed header entry", path);
    Entry entry;
    entry.dtype = parse_dtype(e["dtype"].get<std::string>(), path, name);
    uint64_t numel = 1;
    for (const auto& d : e["shape"]) {
      if (!d.is_number_unsigned() || d.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX) || __builtin_mul_overflow(numel, d.get<uint64_t>(), &numel))
        throw CheckpointError("tensor '" + name + "': bad shape " + e["shape"].dump(), path);
      entry.shape.push_back(d.get<int64_t>());
    }
    uint64_t nbytes = 0;
    if (__builtin_mul_overflow(numel, static_cast<uint64_t>(c10::elementSize(entry.dtype)), &nbytes))
      throw CheckpointError("tensor '" + name + "': shape " + e["shape"].dump() + " overflows", path);
    for (const auto& o : e["data_offsets"])
      if (!o.is_number_unsigned()) throw CheckpointError("tensor '" + name + "': bad data_offsets", path);
    const uint64_t b = e["data_offsets"][0].get<uint64_t>(), en = e["data_offsets"][1].get<uint64_t>();
    if (b > en || en > data_size)
      throw CheckpointError("tensor '" + name + "': data_offsets [" + std::to_string(b) + ", " + std::to_string(en) +
                                "] outside the " + std::to_string(data_size) + " data bytes (truncated file?)", path);
    if (en - b != nbytes)
      throw CheckpointError("tensor '" + name + "': " + std::to_string(en - b) + " bytes do not match shape " + e["shape"].dump(), path);
    entry.begin = data_start + b, entry.end = data_start + en;
    ranges.emplace_back(b, en);
    entries_.emplace(name, std::move(entry));
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].first < ranges[i - 1].second) throw CheckpointError("overlapping tensor data", path);
}

const SafetensorsFile::Entry& SafetensorsFile::entry(const std::string& name) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) throw CheckpointError("no tensor named '" + name + "'", path_);
  return it->second;
}

std::vector<std::string> SafetensorsFile::names() const {
  std::vector<std::pair<uint64_t, std::string>> order;
  for (const auto& [name, e] : entries_) order.emplace_back(e.begin, name);
  std::sort(order.begin(), order.end());
  std::vector<std::string> out;
  for (auto& [_, n] : order) out.push_back(n);
  return out;
}

std::vector<int64_t> SafetensorsFile::shape(const std::string& name) const { return entry(name).shape; }
at::ScalarType SafetensorsFile::dtype(const std::string& name) const { return entry(name).dtype; }

at::Tensor SafetensorsFile::load(const std::string& name) const {
  const Entry& e = entry(name);
  at::Tensor t = at::empty(e.shape, at::TensorOptions().dtype(e.dtype));
  Fd f{::open(path_.c_str(), O_RDONLY)};
  if (f.fd < 0) throw CheckpointError(std::string("cannot open: ") + std::strerror(errno), path_);
  read_exact(f.fd, t.data_ptr(), e.end - e.begin, e.begin, path_);
  return t;
}

at::Tensor SafetensorsFile::load_elements(const std::string& name, int64_t begin, int64_t count) const {
  const Entry& e = entry(name);
  const uint64_t item = c10::elementSize(e.dtype), total = (e.end - e.begin) / item;
  if (begin < 0 || count < 0 || static_cast<uint64_t>(begin + count) > total)
    throw CheckpointError("elements [" + std::to_string(begin) + ", " + std::to_string(begin + count) + ") are outside '" + name + "' (" +
                              std::to_string(total) + " values)", path_);
  at::Tensor t = at::empty({count}, at::TensorOptions().dtype(e.dtype));
  Fd f{::open(path_.c_str(), O_RDONLY)};
  if (f.fd < 0) throw CheckpointError(std::string("cannot open: ") + std::strerror(errno), path_);
  read_exact(f.fd, t.data_ptr(), static_cast<uint64_t>(count) * item, e.begin + static_cast<uint64_t>(begin) * item, path_);
  return t;
}

NamedTensors load_safetensors(const std::string& path) {
  SafetensorsFile file(path);
  NamedTensors out;
  for (const auto& name : file.names()) out.emplace_back(name, file.load(name));
  return out;
}

}  // namespace runner::io
