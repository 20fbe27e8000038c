// Extractive question answering (transformers' run_qa.py):
// data.qa_features{path = "train.jsonl" | dataset = data.parquet{...}, tokenizer = tok, max_length = 384, doc_stride = 128,
//                  id_field = "id", question_field = "question", context_field = "context", answers_field = "answers",
//                  max_samples}
//   → a dataset of features (runtime/data/sources/qa_features.h);
// data.qa_predictions(features, predictions[, {n_best_size = 20, max_answer_length = 30, version_2_with_negative = false,
//                     null_score_diff_threshold = 0}]) → {{id =, prediction_text =[, no_answer_score_diff =]}, ...}, one per example;
// data.qa_metrics(features, predictions[, same options]) → the SQuAD scores of those answers (squad_metric.h).
#include "bindings/lua/data_binding.h"
#include "bindings/lua/data_parts.h"
#include "bindings/lua/lua_module.h"
#include "runtime/core/errors.h"
#include "runtime/data/qa_postprocess.h"
#include "runtime/data/squad_metric.h"

namespace runner::lua {

namespace {

int d_qa_features(lua_State* L) {
  Options o(L, 1, "data.qa_features");
  data::QaOptions q;
  RowSource rows = row_source(L, o, "data.qa_features", "train.jsonl");
  q.path = rows.path, q.dataset = rows.dataset, q.tokenizer = rows.tokenizer;
  q.max_length = o.integer("max_length", q.max_length);
  q.doc_stride = o.integer("doc_stride", q.doc_stride);
  q.max_samples = o.integer("max_samples", q.max_samples);
  if (o.has("max_samples") && q.max_samples < 0) throw RecipeError("data.qa_features: max_samples must be >= 0");
  if (q.max_length <= 0) throw RecipeError("data.qa_features: max_length must be > 0");
  if (q.doc_stride < 0) throw RecipeError("data.qa_features: doc_stride must be >= 0");
  q.id_field = o.string("id_field", q.id_field);
  q.question_field = o.string("question_field", q.question_field);
  q.context_field = o.string("context_field", q.context_field);
  q.answers_field = o.string("answers_field", q.answers_field);
  o.finish();
  push_dataset(L, data::make_qa_features(data::load_qa_examples(q), q));
  return 1;
}

// The features dataset at 1, the predictions (features, tokens, 2) at 2, options at 3.
struct Postprocessed {
  std::shared_ptr<const data::QaFeatures> features;
  std::vector<data::QaPrediction> predictions;
  bool v2 = false;
};
Postprocessed postprocess(lua_State* L, const char* fn) {
  auto features = std::dynamic_pointer_cast<const data::QaFeatures>(check_dataset(L, 1));
  if (!features) throw RecipeError(std::string(fn) + ": the first argument must be the data.qa_features dataset the predictions are of");
  at::Tensor* logits = test_tensor_values(L, 2);
  if (!logits) throw RecipeError(std::string(fn) + ": the second argument must be the predictions tensor (features, tokens, 2), e.g. p.predictions");
  Options o(L, 3, fn);
  data::QaPostprocessOptions q;
  q.n_best_size = o.integer("n_best_size", q.n_best_size);
  q.max_answer_length = o.integer("max_answer_length", q.max_answer_length);
  q.version_2_with_negative = o.boolean("version_2_with_negative", q.version_2_with_negative);
  q.null_score_diff_threshold = o.number("null_score_diff_threshold", q.null_score_diff_threshold);
  o.finish();
  if (q.n_best_size < 1 || q.max_answer_length < 1) throw RecipeError(std::string(fn) + ": n_best_size and max_answer_length must be >= 1");
  return {features, data::qa_postprocess(*features, *logits, q), q.version_2_with_negative};
}

int d_qa_predictions(lua_State* L) {
  const Postprocessed r = postprocess(L, "data.qa_predictions");
  lua_createtable(L, static_cast<int>(r.predictions.size()), 0);
  for (size_t i = 0; i < r.predictions.size(); ++i) {
    const data::QaPrediction& p = r.predictions[i];
    lua_createtable(L, 0, 3);
    lua_pushlstring(L, p.id.data(), p.id.size());
    lua_setfield(L, -2, "id");
    lua_pushlstring(L, p.text.data(), p.text.size());
    lua_setfield(L, -2, "prediction_text");
    if (r.v2) {
      lua_pushnumber(L, p.null_score_diff);
      lua_setfield(L, -2, "no_answer_score_diff");
    }
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  return 1;
}

int d_qa_metrics(lua_State* L) {
  const Postprocessed r = postprocess(L, "data.qa_metrics");
  std::vector<std::string> texts;
  std::vector<std::vector<std::string>> references;
  for (const auto& p : r.predictions) texts.push_back(p.text);
  for (const auto& e : r.features->examples()) references.push_back(e.answers);
  lua_newtable(L);
  for (const auto& [name, value] : data::squad_scores(texts, references, r.v2)) {
    lua_pushnumber(L, value);
    lua_setfield(L, -2, name.c_str());
  }
  return 1;
}

}  // namespace

void add_qa_functions(lua_State* L) {
  set_functions(L, {{"qa_features", guarded<d_qa_features>}, {"qa_predictions", guarded<d_qa_predictions>}, {"qa_metrics", guarded<d_qa_metrics>}});
}

}  // namespace runner::lua
