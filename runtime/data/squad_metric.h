// The SQuAD scores of predicted answers, as the official evaluation scripts (and the `evaluate`
// library's "squad" and "squad_v2" metrics) compute them: each answer and reference normalised
// (lower case, punctuation and the articles a/an/the removed, white space collapsed), exact
// match and token-overlap F1 against the best of the question's references, averaged and ×100.
// SQuAD 1.1 gives {exact_match, f1}. SQuAD 2.0 (`v2`) counts a question without references as
// answered correctly only by "", and gives {exact, f1, total, HasAns_exact, HasAns_f1,
// HasAns_total, NoAns_exact, NoAns_f1, NoAns_total} (the HasAns/NoAns entries when there are
// such questions) and best_exact, best_exact_thresh, best_f1, best_f1_thresh as `evaluate`
// computes them with run_qa.py's no-answer probability of 0 for every question.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace runner::data {

// The scripts' normalize_answer, with Python's str semantics (Unicode lower case, white space and
// word characters).
std::string normalize_answer(const std::string& s);

// predictions[i] answers the question whose references are references[i].
std::map<std::string, double> squad_scores(const std::vector<std::string>& predictions, const std::vector<std::vector<std::string>>& references,
                                           bool v2);

}  // namespace runner::data
