// A trial as JSON: what `runner search` exchanges between ranks after each round and saves
// in hp_search.json. Round-trips exactly (parameter order, distributions, intermediates).
#pragma once
#include <nlohmann/json.hpp>

#include "runtime/search/trial.h"

namespace runner::search {

nlohmann::json distribution_to_json(const Distribution& d);
Distribution distribution_from_json(const nlohmann::json& j);
nlohmann::json trial_to_json(const Trial& t);
Trial trial_from_json(const nlohmann::json& j);  // nlohmann::json exceptions on malformed input

}  // namespace runner::search
