#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"
#include "runtime/io/safetensors.h"

using namespace runner;
namespace fs = std::filesystem;

namespace {
std::string temp_path(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("runner_st_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return (dir / name).string();
}
void write_raw(const std::string& path, const std::string& header, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  uint64_t n = header.size();
  out.write(reinterpret_cast<const char*>(&n), 8);
  out << header << data;
}
std::string load_error(const std::string& path) {
  try {
    io::load_safetensors(path);
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Safetensors, RoundTripEveryDtype) {
  io::NamedTensors in{
      {"f32", at::randn({2, 3})},
      {"f64", at::randn({4}, at::kDouble)},
      {"bf16", at::randn({3, 1}).to(at::kBFloat16)},
      {"f16", at::randn({5}).to(at::kHalf)},
      {"i64", at::arange(6, at::kLong).view({2, 3})},
      {"i32", at::arange(3, at::kInt)},
      {"u8", at::arange(4, at::kByte)},
      {"bool", at::tensor({1, 0, 1}, at::kLong).to(at::kBool)},
      {"scalar", at::scalar_tensor(3.5)},
      {"empty", at::zeros({0, 4})},
      {"strided", at::randn({4, 4}).t()},  // non-contiguous input is saved contiguous
  };
  const std::string path = temp_path("all.safetensors");
  io::save_safetensors(path, in, {{"format", "pt"}});
  io::SafetensorsFile f(path);
  EXPECT_EQ(f.metadata().at("format"), "pt");
  EXPECT_EQ(f.names().size(), in.size());
  auto out = io::load_safetensors(path);
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(out[i].first, in[i].first);  // file order = save order
    EXPECT_EQ(out[i].second.scalar_type(), in[i].second.scalar_type()) << in[i].first;
    EXPECT_TRUE(out[i].second.equal(in[i].second)) << in[i].first;
  }
}

TEST(Safetensors, HeaderIsAlignedAndDescribesTensors) {
  const std::string path = temp_path("layout.safetensors");
  io::save_safetensors(path, {{"w", at::ones({2, 2})}});
  std::ifstream in(path, std::ios::binary);
  uint64_t n = 0;
  in.read(reinterpret_cast<char*>(&n), 8);
  EXPECT_EQ((8 + n) % 8, 0u);
  std::string header(n, ' ');
  in.read(header.data(), static_cast<std::streamsize>(n));
  auto j = nlohmann::json::parse(header);
  EXPECT_EQ(j["w"]["dtype"], "F32");
  EXPECT_EQ(j["w"]["shape"], nlohmann::json({2, 2}));
  EXPECT_EQ(j["w"]["data_offsets"], nlohmann::json({0, 16}));
}

TEST(Safetensors, CorruptFilesAreCheckpointErrorsNamingTheFile) {
  const std::string p = temp_path("bad.safetensors");
  std::ofstream(p) << "abc";
  EXPECT_THAT(load_error(p), ::testing::HasSubstr(p + ": not a safetensors file (shorter than 8 bytes)"));

  write_raw(p, "{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", std::string(8, '\0'));
  EXPECT_THAT(load_error(p), ::testing::HasSubstr("truncated"));

  write_raw(p, "{\"w\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,16]}}", std::string(16, '\0'));
  EXPECT_THAT(load_error(p), ::testing::HasSubstr("do not match shape"));

  write_raw(p, "{\"w\":{\"dtype\":\"Q4\",\"shape\":[1],\"data_offsets\":[0,1]}}", std::string(1, '\0'));
  EXPECT_THAT(load_error(p), ::testing::HasSubstr("unsupported dtype"));

  write_raw(p, "not json", "");
  EXPECT_THAT(load_error(p), ::testing::HasSubstr("header is not a JSON object"));

  write_raw(p,
            "{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},"
            "\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[2,6]}}",
            std::string(6, '\0'));
  EXPECT_THAT(load_error(p), ::testing::HasSubstr("overlapping"));

  {  // a header length larger than the file
    std::ofstream out(p, std::ios::binary);
    uint64_t n = 1ull << 40;
    out.write(reinterpret_cast<const char*>(&n), 8);
  }
  EXPECT_THAT(load_error(p), ::testing::HasSubstr("exceeds the file"));
  EXPECT_THAT(load_error(temp_path("missing.safetensors")), ::testing::HasSubstr("cannot open"));
}

TEST(Safetensors, HostileHeadersAreRefusedBeforeAnyLargeAllocation) {
  const std::string p = temp_path("hostile.safetensors");
  {  // a 200 MB header length in a file that really is that long (sparse): over the format's cap
    std::ofstream out(p, std::ios::binary);
    const uint64_t n = 200000000;
    out.write(reinterpret_cast<const char*>(&n), 8);
    out.seekp(static_cast<std::streamoff>(8 + n));
    out.put('\0');
  }
  EXPECT_THAT(load_error(p), ::testing::HasSubstr("exceeds 100 MB"));
  // Element counts whose product wraps around 2^64 to match the byte range.
  write_raw(p, "{\"w\":{\"dtype\":\"U8\",\"shape\":[4294967296,4294967296,1],\"data_offsets\":[0,0]}}", "");
  EXPECT_THAT(load_error(p), ::testing::HasSubstr("bad shape"));
  write_raw(p, "{\"w\":{\"dtype\":\"F32\",\"shape\":[4611686018427387904],\"data_offsets\":[0,0]}}", "");
  EXPECT_THAT(load_error(p), ::testing::HasSubstr("overflows"));
  write_raw(p, "{\"w\":{\"dtype\":\"U8\",\"shape\":[18446744073709551615],\"data_offsets\":[0,0]}}", "");
  EXPECT_THAT(load_error(p), ::testing::HasSubstr("bad shape"));
}
