#include "runtime/data/squad_metric.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include <unicode/uchar.h>

#include "runtime/jinja/text.h"

namespace runner::data {

namespace {

// Python's re `\w` (str patterns): letters, digits (Unicode's) and '_'.
bool word_char(char32_t c) { return c == U'_' || u_isalnum(static_cast<UChar32>(c)); }

// str.split(): runs of Unicode white space.
std::vector<std::string> split(const std::string& s) { return jinja::text::split(s, nullptr, -1); }

double overlap_f1(const std::vector<std::string>& pred, const std::vector<std::string>& gold, bool v2) {
  if (v2 && (pred.empty() || gold.empty())) return pred == gold ? 1.0 : 0.0;
  std::map<std::string, int> counts;
  for (const auto& w : gold) ++counts[w];
  int same = 0;
  for (const auto& w : pred)
    if (counts[w]-- > 0) ++same;
  if (same == 0) return 0.0;
  const double precision = static_cast<double>(same) / static_cast<double>(pred.size());
  const double recall = static_cast<double>(same) / static_cast<double>(gold.size());
  return 2 * precision * recall / (precision + recall);
}

}  // namespace

std::string normalize_answer(const std::string& s) {
  // white_space_fix(remove_articles(remove_punc(lower(s)))), with Python's str semantics.
  static const std::u32string kPunctuation = U"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";  // string.punctuation
  std::u32string text;
  for (char32_t c : jinja::text::decode(jinja::text::lower(s)))
    if (kPunctuation.find(c) == std::u32string::npos) text += c;
  // re.sub(r"\b(a|an|the)\b", " ", text): a whole word that is an article.
  std::u32string out;
  for (size_t i = 0; i < text.size();) {
    if (!word_char(text[i])) {
      out += text[i++];
      continue;
    }
    size_t j = i;
    while (j < text.size() && word_char(text[j])) ++j;
    const std::u32string word = text.substr(i, j - i);
    out += word == U"a" || word == U"an" || word == U"the" ? std::u32string(U" ") : word;
    i = j;
  }
  std::string joined;
  for (const auto& w : split(jinja::text::encode(out))) joined += (joined.empty() ? "" : " ") + w;
  return joined;
}

std::map<std::string, double> squad_scores(const std::vector<std::string>& predictions, const std::vector<std::vector<std::string>>& references,
                                           bool v2) {
  double exact[2] = {0, 0}, f1[2] = {0, 0};  // sums over [0] unanswerable, [1] answerable questions
  int64_t count[2] = {0, 0};
  std::vector<double> raw_exact, raw_f1;
  for (size_t q = 0; q < predictions.size(); ++q) {
    std::vector<std::string> golds;
    for (const auto& r : references.at(q))
      if (!v2 || !normalize_answer(r).empty()) golds.push_back(r);  // squad_v2 drops references that normalise to nothing
    if (golds.empty()) golds.push_back("");
    const std::string pred = normalize_answer(predictions[q]);
    const std::vector<std::string> pred_words = split(pred);
    double e = 0, f = 0;
    for (const auto& g : golds) {
      const std::string gold = normalize_answer(g);
      e = std::max(e, gold == pred ? 1.0 : 0.0);
      f = std::max(f, overlap_f1(pred_words, split(gold), v2));
    }
    const int k = references[q].empty() ? 0 : 1;
    exact[k] += e, f1[k] += f, ++count[k];
    raw_exact.push_back(e), raw_f1.push_back(f);
  }
  const double total = static_cast<double>(count[0] + count[1]);
  auto percent = [](double sum, double n) { return n > 0 ? 100.0 * sum / n : 0.0; };
  if (!v2) return {{"exact_match", percent(exact[0] + exact[1], total)}, {"f1", percent(f1[0] + f1[1], total)}};
  std::map<std::string, double> out{{"exact", percent(exact[0] + exact[1], total)}, {"f1", percent(f1[0] + f1[1], total)}, {"total", total}};
  // evaluate's find_all_best_thresh with run_qa.py's no_answer_probability 0 for every question:
  // the best score over the prefixes of the questions, in order, counting an unanswerable
  // question right until a prefix reaches it with a non-empty answer.
  auto best = [&](const std::vector<double>& raw) {
    double cur = static_cast<double>(count[0]), top = cur;
    for (size_t q = 0; q < predictions.size(); ++q) {
      cur += !references[q].empty() ? raw[q] : predictions[q].empty() ? 0.0 : -1.0;
      top = std::max(top, cur);
    }
    return percent(top, total);
  };
  out["best_exact"] = best(raw_exact), out["best_exact_thresh"] = 0.0;
  out["best_f1"] = best(raw_f1), out["best_f1_thresh"] = 0.0;
  const char* names[2] = {"NoAns", "HasAns"};
  for (int k = 0; k < 2; ++k)
    if (count[k] > 0) {
      const double n = static_cast<double>(count[k]);
      out[std::string(names[k]) + "_exact"] = percent(exact[k], n);
      out[std::string(names[k]) + "_f1"] = percent(f1[k], n);
      out[std::string(names[k]) + "_total"] = n;
    }
  return out;
}

}  // namespace runner::data
