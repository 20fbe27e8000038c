#include "runtime/train/loss_scaler.h"

#include <algorithm>
#include <cmath>

#include "runtime/core/errors.h"

namespace runner::train {

LossScaler::LossScaler(LossScalerConfig config)
    : config_(config), scale_(config.init_scale), hysteresis_left_(std::max(1, config.hysteresis)) {}

bool LossScaler::update(bool finite) {
  if (!finite) {
    ++skipped_;
    good_steps_ = 0;
    if (!config_.dynamic) return false;
    if (hysteresis_left_ > 1) {
      --hysteresis_left_;  // DeepSpeed: tolerate a few overflows before shrinking
    } else {
      scale_ = std::max(scale_ * config_.backoff, config_.min_scale);
    }
    return false;
  }
  if (!config_.dynamic) return true;
  if (config_.consecutive_hysteresis) hysteresis_left_ = std::max(1, config_.hysteresis);
  if (++good_steps_ == config_.growth_interval) {
    good_steps_ = 0;
    const double grown = scale_ * config_.growth;
    if (std::isfinite(grown)) scale_ = grown;  // PyTorch never grows the scale to inf
    if (!config_.consecutive_hysteresis) hysteresis_left_ = std::max(1, config_.hysteresis);
  }
  return true;
}

nlohmann::json LossScaler::state_dict() const {
  return {{"scale", scale_}, {"growth_tracker", good_steps_}, {"hysteresis_left", hysteresis_left_}, {"skipped_steps", skipped_},
          {"growth_factor", config_.growth}, {"backoff_factor", config_.backoff}, {"growth_interval", config_.growth_interval}};
}

void LossScaler::load_state_dict(const nlohmann::json& state) {
  try {
    scale_ = state.at("scale").get<double>();
    good_steps_ = state.at("growth_tracker").get<int64_t>();
    hysteresis_left_ = state.value("hysteresis_left", std::max(1, config_.hysteresis));
    skipped_ = state.value("skipped_steps", int64_t{0});
  } catch (const nlohmann::json::exception& e) {
    throw CheckpointError(std::string("scaler.json: ") + e.what());
  }
  if (!(scale_ > 0) || !std::isfinite(scale_)) throw CheckpointError("scaler.json: scale must be a positive finite number");
}

}  // namespace runner::train
