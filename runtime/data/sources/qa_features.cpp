#include "runtime/data/sources/qa_features.h"

#include <cstdint>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"
#include "runtime/core/utf8.h"
#include "runtime/jinja/text.h"

namespace runner::data {

using json = nlohmann::json;

namespace {

std::string string_field(const json& row, const std::string& name, const std::string& where) {
  auto it = row.find(name);
  if (it == row.end() || !it->is_string()) throw DataError("needs a string \"" + name + "\"", where);
  return it->get<std::string>();
}

// The byte where each character of `s` starts, and s.size() after the last (Python indexes
// strings by code point; a stray byte counts as one, as it decodes to one U+FFFD).
std::vector<size_t> char_starts(const std::string& s) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < s.size(); i += utf8_length(s, i)) starts.push_back(i);
  starts.push_back(s.size());
  return starts;
}

// `answers` as `datasets` holds them ({text: [...], answer_start: [...]}) or as SQuAD's JSON
// does ([{text, answer_start}, ...]); absent, null or empty: unanswerable.
void read_answers(const json& a, QaExample& e, const std::string& where) {
  auto add = [&](const json& text, const json& start) {
    if (!text.is_string() || !start.is_number_integer())
      throw DataError("each answer needs a string text and an integer answer_start", where);
    e.answers.push_back(text.get<std::string>());
    e.answer_starts.push_back(start.get<int64_t>());
  };
  if (a.is_null()) return;
  if (a.is_object()) {
    const json& texts = a.value("text", json::array());
    const json& starts = a.value("answer_start", json::array());
    if (!texts.is_array() || !starts.is_array() || texts.size() != starts.size())
      throw DataError("answers must hold lists \"text\" and \"answer_start\" of the same length", where);
    for (size_t i = 0; i < texts.size(); ++i) add(texts[i], starts[i]);
  } else if (a.is_array()) {
    for (const auto& x : a) {
      if (!x.is_object()) throw DataError("answers must be {text: [...], answer_start: [...]} or a list of {text, answer_start}", where);
      add(x.value("text", json()), x.value("answer_start", json()));
    }
  } else {
    throw DataError("answers must be {text: [...], answer_start: [...]} or a list of {text, answer_start}", where);
  }
}

QaExample read_example(const json& row, const QaOptions& o, int64_t index, const std::string& where) {
  if (!row.is_object()) throw DataError("not a JSON object", where);
  QaExample e;
  auto id = row.find(o.id_field);
  e.id = id == row.end() || id->is_null() ? std::to_string(index) : id->is_string() ? id->get<std::string>() : id->dump();
  e.question = string_field(row, o.question_field, where);
  e.context = string_field(row, o.context_field, where);
  if (e.context.size() > static_cast<size_t>(INT32_MAX)) throw DataError("a context of 2 GiB or more is not supported", where);
  // SQuAD 2.0 marks unanswerable questions with is_impossible, or gives them no answers; a row
  // without the field at all is a misnamed column, not a question without an answer.
  const auto impossible = row.find("is_impossible");
  if (impossible != row.end() && !impossible->is_boolean() && !impossible->is_null()) throw DataError("\"is_impossible\" must be true or false", where);
  const bool unanswerable = impossible != row.end() && impossible->is_boolean() && impossible->get<bool>();
  const auto a = row.find(o.answers_field);
  if (a == row.end() && !unanswerable)
    throw DataError("needs \"" + o.answers_field + "\" ({text: [...], answer_start: [...]}; empty for an unanswerable question)", where);
  if (a != row.end() && !unanswerable) read_answers(*a, e, where);
  const size_t chars = char_starts(e.context).size() - 1;
  for (size_t i = 0; i < e.answers.size(); ++i) {
    const int64_t start = e.answer_starts[i];
    const size_t length = char_starts(e.answers[i]).size() - 1;
    if (start < 0 || static_cast<size_t>(start) + length > chars)
      throw DataError("answer \"" + e.answers[i] + "\" at character " + std::to_string(start) + " runs outside its context of " +
                          std::to_string(chars) + " characters",
                      where);
  }
  return e;
}

// SQuAD's own layout: data → [{title, paragraphs: [{context, qas: [{id, question, answers, is_impossible}]}]}].
void read_squad_articles(const json& data, const QaOptions& o, std::vector<QaExample>& out) {
  auto list = [&](const json& parent, const char* key, const std::string& where) -> const json& {
    static const json kEmpty = json::array();
    if (!parent.is_object()) throw DataError("SQuAD's layout: each article and paragraph must be an object", where);
    auto it = parent.find(key);
    if (it == parent.end()) return kEmpty;
    if (!it->is_array()) throw DataError(std::string("\"") + key + "\" must be a list", where);
    return *it;
  };
  for (size_t a = 0; a < data.size(); ++a)
    for (const auto& paragraph : list(data[a], "paragraphs", o.path + ": article " + std::to_string(a + 1)))
      for (const auto& qa : list(paragraph, "qas", o.path + ": article " + std::to_string(a + 1))) {
        if (!qa.is_object()) throw DataError("each of \"qas\" must be an object", o.path + ": article " + std::to_string(a + 1));
        json row = qa;
        row[o.context_field] = paragraph.value("context", json());
        const int64_t index = static_cast<int64_t>(out.size());
        out.push_back(read_example(row, o, index, o.path + ": question " + std::to_string(index + 1)));
      }
}

}  // namespace

QaFeatures::QaFeatures(std::vector<QaExample> examples, std::vector<Feature> features, std::string origin)
    : examples_(std::move(examples)), features_(std::move(features)), origin_(std::move(origin)) {}

Example QaFeatures::get(int64_t index) const {
  const Feature& f = features_.at(static_cast<size_t>(index));
  const auto n = static_cast<int64_t>(f.ids.size());
  at::Tensor ids = at::empty({n}, at::kLong), types = at::empty({n}, at::kLong);
  int64_t* pi = ids.data_ptr<int64_t>();
  int64_t* pt = types.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) pi[i] = f.ids[static_cast<size_t>(i)], pt[i] = f.type_ids[static_cast<size_t>(i)];
  return {{"input_ids", ids},
          {"token_type_ids", types},
          {"attention_mask", at::ones({static_cast<int64_t>(f.ids.size())}, at::kLong)},
          {"start_positions", at::scalar_tensor(f.start_position, at::kLong)},
          {"end_positions", at::scalar_tensor(f.end_position, at::kLong)}};
}

std::vector<std::string> QaFeatures::fields() const { return {"attention_mask", "end_positions", "input_ids", "start_positions", "token_type_ids"}; }

// Every example of the file or dataset, in order.
static std::vector<QaExample> read_all_examples(const QaOptions& o) {
  std::vector<QaExample> out;
  if (o.dataset) {
    for (int64_t i = 0; i < o.dataset->size(); ++i)
      out.push_back(read_example(o.dataset->text(i), o, i, o.dataset->describe() + " row " + std::to_string(i)));
    return out;
  }
  std::ifstream in(o.path);
  if (!in) throw DataError("cannot read (missing?)", o.path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  // A whole-file JSON: {"data": [...]} (SQuAD's articles, or run_qa.py's flat rows) or a list of rows.
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (text[first] == '[' || text[first] == '{')) {
    const json whole = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!whole.is_discarded() && (whole.is_array() || whole.contains("data"))) {
      const json& rows = whole.is_array() ? whole : whole["data"];
      if (!rows.is_array()) throw DataError("\"data\" must be a list", o.path);
      if (!rows.empty() && rows[0].is_object() && rows[0].contains("paragraphs")) {
        read_squad_articles(rows, o, out);
      } else {
        for (size_t i = 0; i < rows.size(); ++i)
          out.push_back(read_example(rows[i], o, static_cast<int64_t>(i), o.path + ": row " + std::to_string(i + 1)));
      }
      return out;
    }
  }
  std::istringstream lines(text);
  std::string line;
  for (int64_t n = 1; std::getline(lines, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = o.path + ":" + std::to_string(n);
    const json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) throw DataError("not a JSON object", where);
    out.push_back(read_example(j, o, static_cast<int64_t>(out.size()), where));
  }
  return out;
}

std::vector<QaExample> load_qa_examples(const QaOptions& o) {
  std::vector<QaExample> out = read_all_examples(o);
  if (o.max_samples >= 0 && static_cast<int64_t>(out.size()) > o.max_samples) out.resize(static_cast<size_t>(o.max_samples));
  return out;
}

std::shared_ptr<const QaFeatures> make_qa_features(std::vector<QaExample> examples, const QaOptions& o) {
  if (!o.tokenizer) throw DataError("needs a tokenizer", o.path);
  if (o.max_length <= 0 || o.doc_stride < 0) throw DataError("max_length must be > 0 and doc_stride >= 0", o.path);
  const std::string source = o.dataset ? o.dataset->describe() : o.path;
  std::vector<QaFeatures::Feature> features;
  for (size_t k = 0; k < examples.size(); ++k) {
    const QaExample& e = examples[k];
    std::vector<HfTokenizer::SpannedEncoding> windows;
    try {
      // run_qa.py strips the questions' leading white space (some SQuAD questions have a lot of
      // it, which would only use up the window): Python's str.lstrip().
      const std::string question = jinja::text::strip(e.question, nullptr, true, false);
      const std::string_view context(e.context);
      windows = o.tokenizer->encode_windows(question, &context, o.max_length, o.doc_stride);
    } catch (const DataError& err) {
      throw DataError("question \"" + e.id + "\": " + err.message(), source);
    }
    // The first answer's bytes (run_qa.py trains on it alone).
    int64_t begin = -1, end = -1;
    if (!e.answers.empty()) {
      const std::vector<size_t> starts = char_starts(e.context);
      const size_t length = char_starts(e.answers[0]).size() - 1;
      if (e.answer_starts.size() != e.answers.size() || e.answer_starts[0] < 0 || static_cast<size_t>(e.answer_starts[0]) + length >= starts.size())
        throw DataError("question \"" + e.id + "\": its first answer lies outside its context", source);
      const size_t s = static_cast<size_t>(e.answer_starts[0]);
      begin = static_cast<int64_t>(starts[s]);
      end = static_cast<int64_t>(starts[s + length]);
    }
    for (auto& w : windows) {
      QaFeatures::Feature f;
      f.example = static_cast<int64_t>(k);
      int64_t cls = 0, first = -1, last = -1;
      for (size_t i = w.sequence_ids.size(); i-- > 0;) {
        if (w.sequence_ids[i] < 0) cls = static_cast<int64_t>(i);  // the first special token
        if (w.sequence_ids[i] == 1) last = last < 0 ? static_cast<int64_t>(i) : last, first = static_cast<int64_t>(i);
      }
      for (size_t i = 0; i < w.ids.size(); ++i)
        f.context_offsets.emplace_back(w.sequence_ids[i] == 1 ? std::pair<int32_t, int32_t>(static_cast<int32_t>(w.offsets[i].first),
                                                                                             static_cast<int32_t>(w.offsets[i].second))
                                                              : std::pair<int32_t, int32_t>(-1, -1));
      f.start_position = f.end_position = cls;
      const auto& off = f.context_offsets;
      if (begin >= 0 && first >= 0 && off[first].first <= begin && off[last].second >= end) {
        // The last context token starting at or before the answer, the first ending at or after it.
        int64_t s = first, t = last;
        while (s + 1 <= last && off[s + 1].first <= begin) ++s;
        while (t - 1 >= first && off[t - 1].second >= end) --t;
        f.start_position = s, f.end_position = t;
      }
      for (int64_t id : w.ids) {
        if (id < 0 || id > INT32_MAX) throw DataError("token id " + std::to_string(id) + " does not fit the features' int32 ids", source);
        f.ids.push_back(static_cast<int32_t>(id));
      }
      for (int64_t t : w.type_ids) {
        if (t < 0 || t > 255) throw DataError("token type id " + std::to_string(t) + " is outside 0..255", source);
        f.type_ids.push_back(static_cast<uint8_t>(t));
      }
      features.push_back(std::move(f));
    }
  }
  // run_qa.py caps the features at max_train_samples / max_eval_samples too, after cutting the
  // first that many questions (a question whose windows are cut off then answers "empty").
  if (o.max_samples >= 0 && static_cast<int64_t>(features.size()) > o.max_samples) features.resize(static_cast<size_t>(o.max_samples));
  return std::make_shared<QaFeatures>(std::move(examples), std::move(features), "data.qa_features(" + source + ")");
}

}  // namespace runner::data
