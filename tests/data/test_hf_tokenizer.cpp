// HF tokenizer.json files run by runner give the ids and text the `tokenizers` package gives
// (hf_tokenizer_reference.py builds GPT-2, Llama 3 and Qwen 2 style tokenizers and records
// its answers): Unicode, whitespace runs, emoji, combining characters (NFC), special tokens
// inside text, templates, and a decode that stops inside a character.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"
#include "runtime/data/tokenizers/byte_level.h"
#include "runtime/data/tokenizers/hf_tokenizer.h"

using namespace runner;
using nlohmann::json;

namespace {

class HfTokenizerGolden : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() / ("runner_tok_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    const std::string cmd = std::string(RUNNER_PYTHON) + " " + RUNNER_SOURCE_DIR + "/tests/data/hf_tokenizer_reference.py " + dir_.string() +
                            " " + RUNNER_SOURCE_DIR + " > " + (dir_ / "log.txt").string() + " 2>&1";
    status_ = std::system(cmd.c_str());
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }
  void SetUp() override {
    if (WEXITSTATUS(status_) == 77) GTEST_SKIP() << "the tokenizers package is not installed (scripts/setup installs it with transformers)";
    ASSERT_EQ(status_, 0) << "hf_tokenizer_reference.py failed; see " << (dir_ / "log.txt");
    std::ifstream in(dir_ / "expected.json");
    expected_ = json::parse(in);
  }
  void check(const std::string& style) {
    auto tok = data::HfTokenizer::load((dir_ / style / "tokenizer.json").string());
    const json& e = expected_.at(style);
    EXPECT_EQ(tok->vocab_size(), e.at("vocab_size").get<int64_t>());
    int n = 0;
    for (const auto& c : e.at("cases")) {
      if (c.contains("decode_only")) {
        EXPECT_EQ(tok->decode(c["decode_only"].get<std::vector<int64_t>>()), c["decoded"].get<std::string>()) << style;
        continue;
      }
      const std::string text = c.at("text").get<std::string>();
      const auto ids = c.at("ids").get<std::vector<int64_t>>();
      EXPECT_EQ(tok->encode(text), ids) << style << ": " << text;
      EXPECT_EQ(tok->encode(text, /*add_special_tokens=*/false), c.at("ids_plain").get<std::vector<int64_t>>()) << style << ": " << text;
      EXPECT_EQ(tok->decode(ids), c.at("decoded").get<std::string>()) << style << ": " << text;
      EXPECT_EQ(tok->decode(ids, /*skip_special_tokens=*/true), c.at("decoded_skip").get<std::string>()) << style << ": " << text;
      ++n;
    }
    EXPECT_GE(n, 15);
  }
  static inline std::filesystem::path dir_;
  static inline int status_ = 0;
  json expected_;
};

}  // namespace

TEST_F(HfTokenizerGolden, Gpt2StyleByteLevel) { check("gpt2"); }
TEST_F(HfTokenizerGolden, Llama3StyleSplitIgnoreMergesAndBos) { check("llama3"); }
TEST_F(HfTokenizerGolden, Qwen2StyleNfcAndSplit) { check("qwen2"); }

TEST(HfTokenizer, InvalidUtf8IsReplacedAsRustDoes) {
  // One U+FFFD per maximal invalid subpart: a truncated 3-byte sequence is one replacement.
  EXPECT_EQ(data::utf8_lossy("a\xE2\x82" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(data::utf8_lossy("\xFF\xFE"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(data::utf8_lossy("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(data::utf8_lossy("ok \xF0\x9F\x99\x82"), "ok \xF0\x9F\x99\x82");
}

TEST(HfTokenizer, UnsupportedPartsAreNamed) {
  const auto dir = std::filesystem::temp_directory_path() / ("runner_tok_bad_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& text) {
    std::ofstream(dir / "tokenizer.json") << text;
    return (dir / "tokenizer.json").string();
  };
  const std::string model = R"("model": {"type": "BPE", "vocab": {"a": 0}, "merges": []})";
  EXPECT_THAT([&] { data::HfTokenizer::load(write("{" + model + R"(, "pre_tokenizer": {"type": "Metaspace"}})")); },
              ::testing::ThrowsMessage<DataError>(::testing::HasSubstr("pre_tokenizer \"Metaspace\" is not supported yet")));
  EXPECT_THAT([&] { data::HfTokenizer::load(write(R"({"model": {"type": "WordPiece", "vocab": {}}})")); },
              ::testing::ThrowsMessage<DataError>(::testing::HasSubstr("model \"WordPiece\" is not supported yet")));
  EXPECT_THAT([&] { data::HfTokenizer::load(write("{not json")); }, ::testing::ThrowsMessage<DataError>(::testing::HasSubstr("not a tokenizer.json")));
  std::filesystem::remove_all(dir);
}
