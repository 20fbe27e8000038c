// Extractive QA's answer side: qa_postprocess (transformers' postprocess_qa_predictions: spans
// over all of an example's features, n_best_size, max_answer_length, SQuAD 2.0's null answer and
// its threshold, HF's "empty") and squad_scores (the official SQuAD 1.1 / 2.0 scripts' numbers,
// worked by hand below). The features themselves are checked against transformers' tokenizer in
// tests/integration/test_question_answering.py.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runtime/core/errors.h"
#include "runtime/data/qa_postprocess.h"
#include "runtime/data/squad_metric.h"

using namespace runner;
using namespace runner::data;
using ::testing::HasSubstr;

namespace {

// "alpha beta gamma delta": tokens [CLS] q [SEP] <context words...> [SEP]; two windows of one example.
const std::string kContext = "alpha beta gamma delta";
QaFeatures::Feature window(std::vector<std::pair<int32_t, int32_t>> words) {
  QaFeatures::Feature f;
  f.context_offsets = {{-1, -1}, {-1, -1}, {-1, -1}};  // [CLS] question [SEP]
  for (auto w : words) f.context_offsets.push_back(w);
  f.context_offsets.push_back({-1, -1});
  f.ids.assign(f.context_offsets.size(), 5);
  f.type_ids.assign(f.context_offsets.size(), 0);
  return f;
}
QaFeatures two_windows() {
  QaExample e{"q1", "which?", kContext, {"gamma"}, {11}};
  // Window 0: alpha beta gamma; window 1: gamma delta.
  return QaFeatures({e}, {window({{0, 5}, {6, 10}, {11, 16}}), window({{11, 16}, {17, 22}})}, "test");
}
// Rows of (start, end) logits, padded to width 7 with -100 as evaluation pads them.
at::Tensor logits(const std::vector<std::vector<std::pair<float, float>>>& rows) {
  at::Tensor t = at::full({static_cast<int64_t>(rows.size()), 7, 2}, -100.0f);
  for (size_t i = 0; i < rows.size(); ++i)
    for (size_t j = 0; j < rows[i].size(); ++j) {
      t[static_cast<int64_t>(i)][static_cast<int64_t>(j)][0] = rows[i][j].first;
      t[static_cast<int64_t>(i)][static_cast<int64_t>(j)][1] = rows[i][j].second;
    }
  return t;
}

// Window 0 prefers "alpha beta" (1 + 2), window 1 "gamma delta" (2 + 3); the [CLS] logits give
// null scores 8 and 6 (the example's: the lower, 6).
at::Tensor two_window_logits() {
  return logits({{{4, 4}, {0, 0}, {0, 0}, {1, 0}, {0, 2}, {0, 0}, {0, 0}}, {{3, 3}, {0, 0}, {0, 0}, {2, 0}, {0, 3}, {0, 0}}});
}

TEST(QaPostprocess, BestSpanOverAllFeaturesWithinMaxAnswerLength) {
  const QaFeatures f = two_windows();
  auto p = qa_postprocess(f, two_window_logits(), {});
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].id, "q1");
  EXPECT_EQ(p[0].text, "gamma delta");  // 2 + 3 beats 1 + 2
  QaPostprocessOptions one;
  one.max_answer_length = 1;  // single tokens: delta (0 + 3) beats gamma (2 + 0) and beta (0 + 2)
  EXPECT_EQ(qa_postprocess(f, two_window_logits(), one)[0].text, "delta");
}

TEST(QaPostprocess, OnlyTheNBestStartsAndEndsPairAndNoValidSpanIsEmpty) {
  QaExample e{"q2", "which?", kContext, {"beta"}, {6}};
  const QaFeatures f({e}, {window({{0, 5}, {6, 10}, {11, 16}, {17, 22}})}, "test");
  // Starts peak at delta, ends at alpha: with one of each there is no span (end before start).
  const at::Tensor l = logits({{{0, 0}, {0, 0}, {0, 0}, {0, 5}, {1, 0}, {2, 0}, {3, 0}}});
  QaPostprocessOptions o;
  o.n_best_size = 1;
  EXPECT_EQ(qa_postprocess(f, l, o)[0].text, "empty");
  o.n_best_size = 2;  // starts delta, gamma; ends alpha, then delta (ties among the zeros: the later first, as np.argsort reversed)
  EXPECT_EQ(qa_postprocess(f, l, o)[0].text, "delta");
  o.n_best_size = 20;  // every pair: alpha..alpha (0 + 5) is the best
  EXPECT_EQ(qa_postprocess(f, l, o)[0].text, "alpha");
}

TEST(QaPostprocess, Squad2NullAnswerAgainstTheThreshold) {
  const QaFeatures f = two_windows();
  QaPostprocessOptions o;
  o.version_2_with_negative = true;
  auto p = qa_postprocess(f, two_window_logits(), o);
  EXPECT_EQ(p[0].text, "");                      // null 6 - (2 + 3) = 1 > 0
  EXPECT_DOUBLE_EQ(p[0].null_score_diff, 1.0);
  o.null_score_diff_threshold = 1.5;
  EXPECT_EQ(qa_postprocess(f, two_window_logits(), o)[0].text, "gamma delta");
}

TEST(QaPostprocess, PredictionsMustBeOneRowPerFeature) {
  const QaFeatures f = two_windows();
  EXPECT_THROW(
      {
        try {
          qa_postprocess(f, at::zeros({3, 7, 2}), {});
        } catch (const DataError& e) {
          EXPECT_THAT(e.message(), HasSubstr("one row per feature (2)"));
          throw;
        }
      },
      DataError);
  EXPECT_THROW(qa_postprocess(f, at::zeros({2, 7}), {}), DataError);
}

TEST(SquadMetric, NormalizesAsTheOfficialScript) {
  EXPECT_EQ(normalize_answer("The  Cat!"), "cat");
  EXPECT_EQ(normalize_answer("an apple, a pear"), "apple pear");
  EXPECT_EQ(normalize_answer("Theatre of A-B"), "theatre of ab");  // articles are whole words; '-' is punctuation
  EXPECT_EQ(normalize_answer("  (the)  "), "");
  // Python's str semantics: NBSP separates words, curly quotes are neither punctuation nor word
  // characters, lower() is Unicode's.
  EXPECT_EQ(normalize_answer("the\u00a0cat"), "cat");
  EXPECT_EQ(normalize_answer("\u201cthe\u201d cat"), "\u201c \u201d cat");
  EXPECT_EQ(normalize_answer("\u00c9CLAIR"), "\u00e9clair");
}

TEST(SquadMetric, Squad11ExactMatchAndF1) {
  // "the cat sat" vs "a cat sat on": "cat sat" / "cat sat on": EM 0, F1 2·1·(2/3)/(1 + 2/3) = 0.8.
  // "Paris" vs {"paris", "Paris, France"}: EM 1, F1 1 (the best reference).
  const auto s = squad_scores({"the cat sat", "Paris"}, {{"a cat sat on"}, {"paris", "Paris, France"}}, false);
  EXPECT_EQ(s.size(), 2u);
  EXPECT_DOUBLE_EQ(s.at("exact_match"), 50.0);
  EXPECT_NEAR(s.at("f1"), 90.0, 1e-9);
  EXPECT_DOUBLE_EQ(squad_scores({""}, {{"x"}}, false).at("f1"), 0.0);
}

TEST(SquadMetric, Squad20CountsTheEmptyAnswer) {
  // No references: only "" is right (EM and F1 1); "x" is wrong; "blue" for {"blue"} is right.
  const auto s = squad_scores({"", "x", "blue", "red"}, {{}, {}, {"blue"}, {"a red one"}}, true);
  EXPECT_NEAR(s.at("exact"), 50.0, 1e-9);
  EXPECT_NEAR(s.at("f1"), 100.0 * (1 + 0 + 1 + 2.0 / 3.0) / 4, 1e-9);  // "red" vs "red one": p 1, r 1/2
  EXPECT_DOUBLE_EQ(s.at("total"), 4);
  EXPECT_DOUBLE_EQ(s.at("HasAns_exact"), 50.0);
  EXPECT_DOUBLE_EQ(s.at("HasAns_total"), 2);
  EXPECT_DOUBLE_EQ(s.at("NoAns_exact"), 50.0);
  EXPECT_DOUBLE_EQ(s.at("NoAns_f1"), 50.0);
  // evaluate's best_*: the best prefix (no-answer probabilities 0): 2 unanswerable counted right,
  // "x" costs 1, "blue" gains 1, "red" gains 0 (exact) or 2/3 (F1).
  EXPECT_DOUBLE_EQ(s.at("best_exact"), 50.0);
  EXPECT_NEAR(s.at("best_f1"), 100.0 * (2 + 2.0 / 3.0) / 4, 1e-9);
  EXPECT_DOUBLE_EQ(s.at("best_f1_thresh"), 0.0);
}

// make_qa_features with the repository's small WordPiece tokenizer (lower-cased BERT).
std::shared_ptr<const HfTokenizer> wordpiece() {
  return HfTokenizer::load(std::string(RUNNER_SOURCE_DIR) + "/recipes/lib/wordpiece_tokenizer/tokenizer.json");
}
std::string span_text(const QaFeatures& ds, size_t i) {
  const auto& f = ds.features()[i];
  const auto& off = f.context_offsets;
  if (off[static_cast<size_t>(f.start_position)].first < 0) return "[CLS]";
  const int64_t b = off[static_cast<size_t>(f.start_position)].first, e = off[static_cast<size_t>(f.end_position)].second;
  return ds.examples()[static_cast<size_t>(f.example)].context.substr(static_cast<size_t>(b), static_cast<size_t>(e - b));
}
QaOptions qa_options(int64_t max_length, int64_t stride) {
  QaOptions o;
  o.tokenizer = wordpiece();
  o.max_length = max_length, o.doc_stride = stride;
  o.path = "test";
  return o;
}

TEST(QaFeatures, AnswerAtAWindowsLastContextTokenAndAcrossWindows) {
  // The answer is the context's last word: run_qa.py's loop would walk past [SEP] here; the
  // label is the answer's own tokens.
  const std::string context = "the old bridge stands in paris near the river in the town of lima";
  QaExample e{"a", "  where is the town?", context, {"lima"}, {static_cast<int64_t>(context.size()) - 4}};
  auto ds = make_qa_features({e}, qa_options(64, 8));
  ASSERT_EQ(ds->size(), 1);
  EXPECT_EQ(span_text(*ds, 0), "lima");
  EXPECT_EQ(ds->features()[0].ids.back(), wordpiece()->token_to_id("[SEP]"));
  // Short windows: the windows that hold the whole answer label it, the others point at [CLS].
  ds = make_qa_features({e}, qa_options(20, 4));
  ASSERT_GT(ds->size(), 2);
  int holding = 0;
  for (size_t i = 0; i < ds->features().size(); ++i) {
    const std::string t = span_text(*ds, i);
    EXPECT_TRUE(t == "lima" || t == "[CLS]") << t;
    holding += t == "lima";
    if (t == "[CLS]") EXPECT_EQ(ds->features()[i].start_position, 0);
  }
  EXPECT_GE(holding, 1);
  const Example first = ds->get(0);
  EXPECT_EQ(first.at("input_ids").size(0), 20);
  EXPECT_EQ(first.at("start_positions").dim(), 0);
}

TEST(QaFeatures, UnanswerableAndEmptyContextsPointAtCls) {
  QaExample none{"n", "who?", "nobody is named here at all", {}, {}}, empty{"e", "who?", "", {}, {}};
  auto ds = make_qa_features({none, empty}, qa_options(16, 4));
  for (const auto& f : ds->features()) {
    EXPECT_EQ(f.start_position, 0);
    EXPECT_EQ(f.end_position, 0);
  }
  EXPECT_EQ(ds->features().back().example, 1);  // the empty context: one feature, [CLS] q [SEP] [SEP]
}

class QaFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("runner_qa_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream((dir_ / name).string()) << text;
    return (dir_ / name).string();
  }
  std::filesystem::path dir_;
};

TEST_F(QaFiles, SquadJsonRunQaJsonAndJsonl) {
  QaOptions o = qa_options(64, 8);
  // SQuAD 2.0's own layout: an impossible question has no answers.
  o.path = write("squad.json", R"({"version": "v2.0", "data": [{"title": "t", "paragraphs": [{"context": "lima is a city",
      "qas": [{"id": "x", "question": "which city?", "answers": [{"text": "lima", "answer_start": 0}]},
              {"id": "y", "question": "which river?", "answers": [], "plausible_answers": [{"text": "city", "answer_start": 10}], "is_impossible": true}]}]}]})");
  auto ex = load_qa_examples(o);
  ASSERT_EQ(ex.size(), 2u);
  EXPECT_EQ(ex[0].context, "lima is a city");
  EXPECT_EQ(ex[0].answers, std::vector<std::string>{"lima"});
  EXPECT_TRUE(ex[1].answers.empty());
  o.max_samples = 1;  // run_qa.py's max_train_samples: the first questions
  EXPECT_EQ(load_qa_examples(o).size(), 1u);
  o.max_samples = -1;
  // run_qa.py's --train_file: rows under "data"; and a JSONL of datasets' rows (ids may be numbers).
  o.path = write("rows.json", R"({"data": [{"id": 7, "question": "q", "context": "abc", "answers": {"text": ["b"], "answer_start": [1]}}]})");
  ex = load_qa_examples(o);
  ASSERT_EQ(ex.size(), 1u);
  EXPECT_EQ(ex[0].id, "7");
  o.path = write("rows.jsonl", "{\"id\": \"z\", \"question\": \"q\", \"context\": \"h\u00e9llo w\", \"answers\": {\"text\": [\"w\"], \"answer_start\": [6]}}\n");
  ex = load_qa_examples(o);
  auto ds = make_qa_features(ex, o);
  EXPECT_EQ(span_text(*ds, 0), "w");  // answer_start counts characters: é is one
}

TEST_F(QaFiles, ErrorsNameTheFileAndLine) {
  QaOptions o = qa_options(64, 8);
  auto message = [&](const std::string& text) {
    o.path = write("bad.jsonl", text);
    try {
      make_qa_features(load_qa_examples(o), o);
    } catch (const DataError& e) {
      return std::string(e.what());  // "where: message"
    }
    return std::string("no error");
  };
  EXPECT_THAT(message("{\"id\": \"a\", \"question\": \"q\", \"context\": \"c\"}\n"), HasSubstr("bad.jsonl:1: needs \"answers\""));
  EXPECT_THAT(message("\n{\"id\": \"a\", \"context\": \"c\", \"answers\": {\"text\": [], \"answer_start\": []}}\n"),
              HasSubstr("bad.jsonl:2: needs a string \"question\""));
  EXPECT_THAT(message("{\"id\": \"a\", \"question\": \"q\", \"context\": \"c\", \"is_impossible\": \"no\", \"answers\": []}\n"),
              HasSubstr("\"is_impossible\" must be true or false"));
  EXPECT_THAT(message("{\"id\": \"a\", \"question\": \"q\", \"context\": \"abc\", \"answers\": {\"text\": [\"bcd\"], \"answer_start\": [1]}}\n"),
              HasSubstr("runs outside its context of 3 characters"));
  o.max_length = 6;
  EXPECT_THAT(message("{\"id\": \"a\", \"question\": \"what is the name of it\", \"context\": \"c d e f\", \"answers\": []}\n"),
              HasSubstr("leaves no room for the second text"));
}

}  // namespace
