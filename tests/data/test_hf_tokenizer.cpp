// HF tokenizer.json files run by runner give the ids, offsets and text the `tokenizers` package
// gives (hf_tokenizer_reference.py builds GPT-2, Llama 3, Qwen 2 and RoBERTa style byte-level
// tokenizers, one with Strip/NFKD/Lowercase/NFC, Llama 2 / Mistral style SentencePiece BPE
// tokenizers with byte fallback, BERT's WordPiece and SentencePiece Unigram models, and records
// its answers): Unicode, whitespace runs, emoji,
// CJK, Hangul, combining characters (reordered, composed, decomposed), characters the
// vocabulary lacks, special tokens inside text, templates, and a decode that stops inside a
// character. encode_with_offsets() must give encode()'s ids and tokenizers' Encoding.offsets
// (in bytes) with and without the template's tokens.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"
#include "runtime/data/tokenizers/byte_level.h"
#include "runtime/data/tokenizers/hf_tokenizer.h"
#include "runtime/data/tokenizers/unigram_model.h"

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
  // `byte_fallback`: the cases must reach <0xXX> byte tokens, so that path is tested.
  void check(const std::string& style, bool byte_fallback = false) {
    auto tok = data::HfTokenizer::load((dir_ / style / "tokenizer.json").string());
    const json& e = expected_.at(style);
    EXPECT_EQ(tok->vocab_size(), e.at("vocab_size").get<int64_t>());
    const auto tokens = e.at("id_to_token").get<std::vector<std::string>>();
    for (size_t id = 0; id < tokens.size(); ++id) EXPECT_EQ(tok->id_to_token(static_cast<int64_t>(id)), tokens[id]) << style << ": id " << id;
    for (const auto& [content, id] : e.at("added_ids").items()) EXPECT_EQ(tok->token_to_id(content), id.get<int64_t>()) << style << ": " << content;
    int n = 0, byte_tokens = 0;
    for (const auto& c : e.at("cases")) {
      if (c.contains("decode_only")) {
        EXPECT_EQ(tok->decode(c["decode_only"].get<std::vector<int64_t>>()), c["decoded"].get<std::string>()) << style;
        continue;
      }
      const std::string text = c.at("text").get<std::string>();
      const auto ids = c.at("ids").get<std::vector<int64_t>>();
      EXPECT_EQ(tok->encode(text), ids) << style << ": " << text;
      EXPECT_EQ(tok->encode(text, /*add_special_tokens=*/false), c.at("ids_plain").get<std::vector<int64_t>>()) << style << ": " << text;
      for (const bool special : {true, false}) {
        const auto enc = tok->encode_with_offsets(text, special);
        EXPECT_EQ(enc.ids, c.at(special ? "ids" : "ids_plain").get<std::vector<int64_t>>()) << style << ": " << text;
        std::vector<std::pair<size_t, size_t>> want;
        for (const auto& o : c.at(special ? "offsets" : "offsets_plain")) want.emplace_back(o[0].get<size_t>(), o[1].get<size_t>());
        EXPECT_EQ(enc.offsets, want) << style << (special ? "" : " (no special tokens)") << ": " << text;
      }
      EXPECT_EQ(tok->decode(ids), c.at("decoded").get<std::string>()) << style << ": " << text;
      EXPECT_EQ(tok->decode(ids, /*skip_special_tokens=*/true), c.at("decoded_skip").get<std::string>()) << style << ": " << text;
      for (int64_t id : ids) byte_tokens += tok->id_to_token(id).rfind("<0x", 0) == 0;
      ++n;
    }
    for (const auto& c : e.at("pairs")) {  // tokenizer(a[, b], truncation=True, max_length=n)
      const std::string a = c.at("a").get<std::string>(), b = c.at("b").get<std::string>();
      const std::string_view pair = b;
      const int64_t max_length = c.at("max_length").get<int64_t>();
      const std::string what = style + ": (" + a.substr(0, 20) + ", " + b.substr(0, 20) + ") max_length " + std::to_string(max_length);
      const auto single = tok->encode_typed(a, nullptr, true, max_length);
      EXPECT_EQ(single.ids, c.at("single").get<std::vector<int64_t>>()) << what;
      EXPECT_EQ(single.type_ids, c.at("single_types").get<std::vector<int64_t>>()) << what;
      const auto both = tok->encode_typed(a, &pair, true, max_length);
      EXPECT_EQ(both.ids, c.at("ids").get<std::vector<int64_t>>()) << what;
      EXPECT_EQ(both.type_ids, c.at("type_ids").get<std::vector<int64_t>>()) << what;
    }
    for (const auto& c : e.at("words")) {  // tokenizer(words, is_split_into_words=True, truncation=True, max_length=n)
      const auto a = c.at("a").get<std::vector<std::string>>();
      const std::vector<std::string> b = c.at("b").is_null() ? std::vector<std::string>{} : c.at("b").get<std::vector<std::string>>();
      const int64_t max_length = c.at("max_length").get<int64_t>();
      const auto enc = tok->encode_words(a, c.at("b").is_null() ? nullptr : &b, true, max_length);
      const std::string what = style + ": words of \"" + a.front() + "\" max_length " + std::to_string(max_length);
      EXPECT_EQ(enc.ids, c.at("ids").get<std::vector<int64_t>>()) << what;
      EXPECT_EQ(enc.type_ids, c.at("type_ids").get<std::vector<int64_t>>()) << what;
      EXPECT_EQ(enc.word_ids, c.at("word_ids").get<std::vector<int64_t>>()) << what;
    }
    EXPECT_GE(n, 30);
    if (byte_fallback) EXPECT_GE(byte_tokens, 20) << style;
  }
  static inline std::filesystem::path dir_;
  static inline int status_ = 0;
  json expected_;
};

}  // namespace

TEST_F(HfTokenizerGolden, Gpt2StyleByteLevel) { check("gpt2"); }
TEST_F(HfTokenizerGolden, Llama3StyleSplitIgnoreMergesAndBos) { check("llama3"); }
TEST_F(HfTokenizerGolden, Qwen2StyleNfcAndSplit) { check("qwen2"); }
// A prefix space, offsets trimmed of spaces by RobertaProcessing, <mask> with lstrip.
TEST_F(HfTokenizerGolden, RobertaStylePrefixSpaceAndTrimmedOffsets) { check("roberta"); }
// Strip, NFKD, Lowercase and NFC in sequence; ByteLevel's trim_offsets without a prefix space.
TEST_F(HfTokenizerGolden, StripDecomposeLowercaseCompose) { check("lower"); }
// Llama 2 / Mistral / TinyLlama as published: Prepend + Replace normalizers, no pre-tokenizer
// (the whole text is one word), byte fallback, fused <unk>, Replace/ByteFallback/Fuse/Strip.
TEST_F(HfTokenizerGolden, Llama2StylePrependReplaceByteFallback) { check("llama2", true); }
// Pieces that span words ("▁of▁the"): runner cuts a long word only where no piece can cross.
TEST_F(HfTokenizerGolden, Llama2StyleWithPiecesAcrossSpaces) { check("llama2_crossing", true); }
// The same vocabulary as transformers writes it today: Metaspace(prepend_scheme first, no split).
TEST_F(HfTokenizerGolden, Llama2StyleMetaspaceFirst) { check("llama2_metaspace", true); }
// tokenizers' SentencePieceBPETokenizer shape: NFKC, a Regex Replace, Metaspace(always, split),
// the Metaspace decoder.
TEST_F(HfTokenizerGolden, SentencePieceMetaspaceSplitNfkc) { check("sp_metaspace", true); }
// Byte tokens for ASCII only: other unknown characters fuse into one <unk>, written after the
// byte tokens met meanwhile (tokenizers' order); ignore_merges; prepend_scheme never.
TEST_F(HfTokenizerGolden, SentencePieceUnkNeverPrepend) { check("sp_unk"); }

// BERT uncased: BertNormalizer (control characters out, spaces around CJK, accents stripped,
// lowercase), BertPreTokenizer, WordPiece with "##" pieces and [UNK] words, [CLS] $A [SEP],
// the WordPiece decoder's cleanup.
TEST_F(HfTokenizerGolden, BertUncasedWordPiece) { check("bert"); }
// BERT cased: accents and case kept, no CJK spacing; TemplateProcessing; Whitespace pre-tokenizer.
TEST_F(HfTokenizerGolden, BertCasedWordPieceWhitespace) { check("bert_cased"); }

// SentencePiece Unigram models trained by the sentencepiece package (nmt_nfkc charsmap):
// XLM-RoBERTa as transformers v5 writes it (Precompiled; WhitespaceSplit + Metaspace; <s> $A </s>
// </s> $B </s>), T5 and ALBERT through transformers' converters (Precompiled, Strip, Replace;
// ALBERT's NFKD, StripAccents, Lowercase, [CLS] $A [SEP]), and byte fallback.
TEST_F(HfTokenizerGolden, XlmRobertaUnigramPrecompiled) { check("xlmr"); }
TEST_F(HfTokenizerGolden, T5UnigramPrecompiledStripReplace) { check("t5"); }
TEST_F(HfTokenizerGolden, AlbertUnigramStripAccentsLowercase) { check("albert"); }
TEST_F(HfTokenizerGolden, UnigramByteFallback) { check("unigram_bytes", true); }
// WordLevel: a word per token, [UNK] otherwise; no decoder (tokens joined by spaces).
TEST_F(HfTokenizerGolden, WordLevelWhitespaceLowercase) { check("wordlevel"); }

TEST(HfTokenizer, InvalidUtf8IsReplacedAsRustDoes) {
  // One U+FFFD per maximal invalid subpart: a truncated 3-byte sequence is one replacement.
  EXPECT_EQ(runner::utf8_lossy("a\xE2\x82" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(runner::utf8_lossy("\xFF\xFE"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(runner::utf8_lossy("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(runner::utf8_lossy("ok \xF0\x9F\x99\x82"), "ok \xF0\x9F\x99\x82");
}

TEST(HfTokenizer, UnsupportedPartsAreNamed) {
  const auto dir = std::filesystem::temp_directory_path() / ("runner_tok_bad_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& text) {
    std::ofstream(dir / "tokenizer.json") << text;
    return (dir / "tokenizer.json").string();
  };
  const std::string model = R"("model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": []})";
  auto refused = [&](const std::string& file, const std::string& message) {
    EXPECT_THAT([&] { data::HfTokenizer::load(write(file)); }, ::testing::ThrowsMessage<DataError>(::testing::HasSubstr(message))) << file;
  };
  refused("{" + model + R"(, "pre_tokenizer": {"type": "Digits"}})", "pre_tokenizer \"Digits\" is not supported yet");
  refused("{" + model + R"(, "normalizer": {"type": "Sequence", "normalizers": [{"type": "Nmt"}]}})", "normalizer \"Nmt\" is not supported yet");
  refused("{" + model + R"(, "normalizer": {"type": "Precompiled", "precompiled_charsmap": "!!"}})", "precompiled_charsmap is not base64");
  refused("{" + model + R"(, "normalizer": {"type": "Precompiled", "precompiled_charsmap": "AQ=="}})",
          "precompiled_charsmap is shorter than its 4-byte header");
  refused("{" + model + R"(, "decoder": {"type": "CTC"}})", "decoder \"CTC\" is not supported yet");
  refused("{" + model + R"(, "pre_tokenizer": {"type": "Metaspace", "replacement": "_", "prepend_scheme": "sometimes"}})",
          "pre_tokenizer Metaspace: prepend_scheme \"sometimes\" is not supported");
  refused("{" + model + R"(, "pre_tokenizer": {"type": "Metaspace"}})", "pre_tokenizer Metaspace: replacement is missing");
  refused("{" + model + R"(, "decoder": {"type": "Strip", "content": "ab", "start": 1, "stop": 0}})", "decoder Strip: content must be one character");
  refused(R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": [["a", "b"]]}})", "model.merges: \"ab\" is not in the vocabulary");
  refused(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [], "dropout": 0.1}})", "model.dropout");
  refused(R"({"model": {"type": "WordPieceX", "vocab": {}}})", "model \"WordPieceX\" is not supported yet");
  refused(R"({"model": {"type": "WordLevel", "vocab": ["a"]}})", "WordLevel: \"vocab\" must be an object");
  refused(R"({"model": {"type": "Unigram", "vocab": [["a", 0.0]], "unk_id": 1}})", "Unigram: unk_id 1 is outside the vocabulary of 1");
  refused("{not json", "not a tokenizer.json");
  std::filesystem::remove_all(dir);
}

// tokenizers' own documented example of its Unigram model: the best-scoring cut, and "xx" (no
// piece) one fused unknown token.
TEST(UnigramModel, BestScoringPiecesAndFusedUnknown) {
  const nlohmann::json m = json::parse(R"({"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["a", 0.0], ["b", 0.0], ["c", 0.0],
    ["d", 0.0], ["cd", 1.0], ["ab", 2.0], ["abc", 5.0], ["abcd", 10.0]]})");
  runner::data::UnigramModel model(m);
  std::vector<int64_t> ids;
  std::vector<std::pair<size_t, size_t>> spans;
  model.tokenize("abcdacdxx", ids, &spans);
  EXPECT_EQ(ids, (std::vector<int64_t>{8, 1, 5, 0}));
  EXPECT_EQ(spans, (std::vector<std::pair<size_t, size_t>>{{0, 4}, {4, 5}, {5, 7}, {7, 9}}));
  const nlohmann::json no_unk = json::parse(R"({"type": "Unigram", "unk_id": null, "vocab": [["a", -1.0]]})");
  runner::data::UnigramModel strict(no_unk);
  ids.clear();
  EXPECT_THROW(strict.tokenize("ab", ids), std::runtime_error);
}
