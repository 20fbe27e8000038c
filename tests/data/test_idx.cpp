#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>

#include "runtime/data/sources/idx.h"
#include "tests/data/data_test_util.h"

using namespace runner;
using namespace runner::data;
using runner::testing::data_error;
using runner::testing::temp_file;
using ::testing::HasSubstr;

namespace {

std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

// n images of rows×cols where pixel j of image i is (i * 10 + j) % 256.
std::string idx_images(uint32_t n, uint32_t rows, uint32_t cols) {
  std::string s = be32(0x803) + be32(n) + be32(rows) + be32(cols);
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = 0; j < rows * cols; ++j) s += static_cast<char>((i * 10 + j) % 256);
  return s;
}

std::string idx_labels(const std::vector<int>& labels) {
  std::string s = be32(0x801) + be32(static_cast<uint32_t>(labels.size()));
  for (int l : labels) s += static_cast<char>(l);
  return s;
}

std::string gzip(const std::string& raw) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, raw.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  zs.avail_in = static_cast<uInt>(raw.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

}  // namespace

TEST(Idx, RawFileGivesPixelValuesAndLabels) {
  const auto images = temp_file("raw-images-idx3-ubyte", idx_images(3, 2, 2));
  const auto labels = temp_file("raw-labels-idx1-ubyte", idx_labels({7, 0, 9}));
  auto ds = load_idx(images, labels);
  ASSERT_EQ(ds->size(), 3);
  const Example e = ds->get(1);
  EXPECT_EQ(e.at("pixel_values").sizes(), at::IntArrayRef({1, 2, 2}));  // (channels, rows, cols) like torchvision
  EXPECT_EQ(e.at("pixel_values").scalar_type(), at::kFloat);
  EXPECT_TRUE(e.at("pixel_values").allclose(at::tensor({10.f, 11.f, 12.f, 13.f}).view({1, 2, 2}) / 255.0));
  EXPECT_EQ(e.at("labels").item<int64_t>(), 0);
  EXPECT_EQ(e.at("labels").scalar_type(), at::kLong);
  EXPECT_THAT(ds->describe(), HasSubstr("data.idx(" + images));
}

TEST(Idx, GzipIsDetectedByMagicBytesAndMatchesRaw) {
  const auto raw = idx_images(5, 3, 4);
  const auto raw_path = temp_file("r-images", raw);
  const auto gz_path = temp_file("g-images.idx", gzip(raw));  // no .gz suffix: detection is by content
  const auto labels = temp_file("g-labels.gz", gzip(idx_labels({1, 2, 3, 4, 5})));
  auto a = load_idx(raw_path, "");
  auto b = load_idx(gz_path, labels);
  EXPECT_TRUE(a->get(4).at("pixel_values").equal(b->get(4).at("pixel_values")));
  EXPECT_EQ(b->get(4).at("labels").item<int64_t>(), 5);
  EXPECT_EQ(a->fields(), std::vector<std::string>{"pixel_values"});  // no labels file, no labels
}

TEST(Idx, NormalizeAndFlatten) {
  const auto images = temp_file("n-images", idx_images(4, 2, 3));
  IdxOptions none;
  none.normalize = "none";
  none.flatten = true;
  auto raw = load_idx(images, "", none);
  EXPECT_EQ(raw->get(0).at("pixel_values").sizes(), at::IntArrayRef({6}));
  EXPECT_TRUE(raw->get(2).at("pixel_values").equal(at::arange(20, 26, at::kFloat)));

  IdxOptions standardize;
  standardize.normalize = "standardize";
  auto s = std::static_pointer_cast<const TensorDataset>(load_idx(images, "", standardize));
  const at::Tensor& px = s->columns().at("pixel_values");
  EXPECT_NEAR(px.mean().item<double>(), 0.0, 1e-5);  // defaults: the file's own statistics
  EXPECT_NEAR(px.std().item<double>(), 1.0, 1e-5);

  standardize.mean = 0.5, standardize.std = 0.25;
  auto given = load_idx(images, "", standardize);
  EXPECT_NEAR(given->get(0).at("pixel_values").flatten()[0].item<double>(), (0.0 / 255 - 0.5) / 0.25, 1e-6);
}

TEST(Idx, WrongMagicNumberNamesTheFile) {
  const auto labels = temp_file("m-labels", idx_labels({1, 2}));
  const auto images = temp_file("m-images", idx_images(2, 2, 2));
  EXPECT_THAT(data_error([&] { load_idx(labels, ""); }),
              HasSubstr(labels + ": wrong magic number 0x00000801, expected 0x00000803 for IDX images (this is a labels file)"));
  EXPECT_THAT(data_error([&] { load_idx(images, images); }), HasSubstr(images + ": wrong magic number 0x00000803"));
  const auto text = temp_file("m-text", "hello world, not an idx file");
  EXPECT_THAT(data_error([&] { load_idx(text, ""); }), HasSubstr(text + ": wrong magic number"));
}

TEST(Idx, TruncatedFiles) {
  std::string raw = idx_images(3, 4, 4);
  const auto cut = temp_file("t-images", raw.substr(0, raw.size() - 5));
  EXPECT_THAT(data_error([&] { load_idx(cut, ""); }),
              HasSubstr(cut + ": truncated: the header promises 48 bytes of images data, the file has 43"));
  const auto header = temp_file("t-header", raw.substr(0, 10));
  EXPECT_THAT(data_error([&] { load_idx(header, ""); }), HasSubstr(header + ": truncated: the IDX header is cut short"));
  const std::string gz = gzip(raw);
  const auto cut_gz = temp_file("t-images.gz", gz.substr(0, gz.size() / 2));
  EXPECT_THAT(data_error([&] { load_idx(cut_gz, ""); }), HasSubstr(cut_gz + ": truncated gzip data"));
  const auto images = temp_file("t-ok-images", raw);
  const auto labels = temp_file("t-labels", idx_labels({1, 2, 3}).substr(0, 9));
  EXPECT_THAT(data_error([&] { load_idx(images, labels); }), HasSubstr(labels + ": truncated: the header promises 3 bytes of labels"));
  const auto extra = temp_file("t-extra", raw + "xy");
  EXPECT_THAT(data_error([&] { load_idx(extra, ""); }), HasSubstr(extra + ": 2 unexpected bytes after the images data"));
  const auto corrupt = temp_file("t-corrupt.gz", gz.substr(0, 10) + std::string(40, '\xff'));
  EXPECT_THAT(data_error([&] { load_idx(corrupt, ""); }), HasSubstr(corrupt + ": corrupt gzip data"));
}

TEST(Idx, CountMismatchEmptyAndMissingFiles) {
  const auto images = temp_file("c-images", idx_images(3, 2, 2));
  const auto labels = temp_file("c-labels", idx_labels({1, 2}));
  EXPECT_THAT(data_error([&] { load_idx(images, labels); }), HasSubstr(labels + ": 2 labels but 3 images in " + images));
  const auto empty = temp_file("c-empty", "");
  EXPECT_THAT(data_error([&] { load_idx(empty, ""); }), HasSubstr(empty + ": empty file"));
  EXPECT_THAT(data_error([] { load_idx("/nonexistent/images", ""); }), HasSubstr("/nonexistent/images: cannot open"));
  const auto zero = temp_file("c-zero", idx_images(0, 2, 2));
  EXPECT_THAT(data_error([&] { load_idx(zero, ""); }), HasSubstr("no images"));
}

TEST(Idx, BadOptions) {
  const auto images = temp_file("o-images", idx_images(2, 2, 2));
  IdxOptions o;
  o.normalize = "unit8";
  EXPECT_THAT(data_error([&] { load_idx(images, "", o); }), HasSubstr("normalize must be \"unit\", \"standardize\" or \"none\""));
  o.normalize = "unit", o.mean = 0.1;
  EXPECT_THAT(data_error([&] { load_idx(images, "", o); }), HasSubstr("mean and std apply only with normalize = \"standardize\""));
}

TEST(Idx, DebianFashionMnistWhenInstalled) {
  const std::string dir = "/usr/share/datasets/fashion-mnist/";
  if (!std::filesystem::exists(dir + "t10k-images-idx3-ubyte.gz")) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  auto ds = load_idx(dir + "t10k-images-idx3-ubyte.gz", dir + "t10k-labels-idx1-ubyte.gz");
  ASSERT_EQ(ds->size(), 10000);
  EXPECT_EQ(ds->get(0).at("pixel_values").sizes(), at::IntArrayRef({1, 28, 28}));
  auto labels = std::static_pointer_cast<const TensorDataset>(ds)->columns().at("labels");
  EXPECT_TRUE(at::bincount(labels).equal(at::full({10}, 1000, at::kLong)));  // 1000 test images per class
}
