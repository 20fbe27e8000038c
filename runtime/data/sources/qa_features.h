// data.qa_features: extractive question answering (SQuAD) examples cut into the model's
// features as transformers' run_qa.py prepares them. Each question and its context are
// tokenized as a pair with only the context truncated (HfTokenizer::encode_windows): a
// context longer than max_length gives several features whose windows overlap by doc_stride
// tokens. A feature's start_positions / end_positions are the first and last tokens of the
// example's first answer when the window holds all of it, else both the first special token's
// index ([CLS]: "no answer here"), as run_qa.py labels them; an unanswerable question (SQuAD
// 2.0) gets that too. The dataset keeps each feature's example and its tokens' context offsets,
// which qa_postprocess.h turns predicted spans back into answer text with.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/data/dataset.h"
#include "runtime/data/tokenizers/hf_tokenizer.h"

namespace runner::data {

// One SQuAD question. Answers are texts of `context`; their starts are in characters (Python
// string indices, as SQuAD and `datasets` store them). No answers: unanswerable (SQuAD 2.0).
struct QaExample {
  std::string id, question, context;
  std::vector<std::string> answers;
  std::vector<int64_t> answer_starts;
};

struct QaOptions {
  // A JSONL file of `datasets`' SQuAD rows ({id, question, context, answers: {text: [...],
  // answer_start: [...]}}), a JSON file of them under "data" (run_qa.py's --train_file), or
  // SQuAD's own JSON (data → paragraphs → qas, answers as [{text, answer_start}], is_impossible).
  std::string path;
  DatasetPtr dataset;  // instead of a path: a data.parquet / data.arrow / data.hf_dataset of those rows
  std::shared_ptr<const HfTokenizer> tokenizer;
  int64_t max_length = 384, doc_stride = 128;  // run_qa.py's max_seq_length and doc_stride
  int64_t max_samples = -1;                    // the first that many questions and features (run_qa.py's max_train_samples); -1: all
  std::string id_field = "id", question_field = "question", context_field = "context", answers_field = "answers";
};

class QaFeatures : public Dataset {
 public:
  struct Feature {
    int64_t example = 0;  // index into examples()
    // Held compactly (SQuAD's training set is ~90k features): the tensors get() returns are int64.
    std::vector<int32_t> ids;
    std::vector<uint8_t> type_ids;
    int64_t start_position = 0, end_position = 0;
    // Each token's [begin, end) bytes of the example's context; (-1, -1) for a question or special token.
    std::vector<std::pair<int32_t, int32_t>> context_offsets;
  };
  QaFeatures(std::vector<QaExample> examples, std::vector<Feature> features, std::string origin);

  // input_ids, token_type_ids, attention_mask (1-D int64) and start_positions, end_positions (0-D int64).
  int64_t size() const override { return static_cast<int64_t>(features_.size()); }
  Example get(int64_t index) const override;
  std::vector<std::string> fields() const override;
  std::string describe() const override { return origin_; }

  const std::vector<QaExample>& examples() const { return examples_; }
  const std::vector<Feature>& features() const { return features_; }

 private:
  std::vector<QaExample> examples_;
  std::vector<Feature> features_;
  std::string origin_;
};

// The examples of a file or dataset (DataError naming the file and line, or row, for a missing
// or malformed field, or an answer outside its context).
std::vector<QaExample> load_qa_examples(const QaOptions& options);
// The features of those examples: DataError when a question leaves no room for context.
std::shared_ptr<const QaFeatures> make_qa_features(std::vector<QaExample> examples, const QaOptions& options);

}  // namespace runner::data
