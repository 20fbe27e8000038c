// "did you mean" suggestions for misspelt keys, arguments and option names.
#pragma once
#include <string>
#include <vector>

namespace runner {

// Edit distance with adjacent transpositions (so "lerning_rate" and "learnign_rate" are 1).
size_t edit_distance(const std::string& a, const std::string& b);

// The closest candidate when it is plausibly a typo of `word`, else "".
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

// "; did you mean 'x'?" or "" — ready to append to an error message.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace runner
