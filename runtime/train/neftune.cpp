#include "runtime/train/neftune.h"

#include <cmath>
#include <string>

#include "runtime/core/errors.h"

namespace runner::train {

NeftuneNoise::NeftuneNoise(std::optional<double> alpha, models::Module* model) {
  if (!alpha) return;
  if (!(*alpha >= 0)) throw ArgumentError("args.neftune_noise_alpha: must be >= 0 (the paper uses 5 to 15), got " + std::to_string(*alpha));
  if (*alpha == 0 || !model) return;  // HF adds noise of width 0: nothing
  embeddings_ = model->input_embeddings();
  if (!embeddings_)
    throw ArgumentError("args.neftune_noise_alpha: this model (" + model->type_name() +
                        ") has no input embeddings runner knows (models.gpt, models.llama, the encoders, models.from_pretrained)");
  const double a = *alpha;
  embeddings_->set_output_hook([a](const models::Module& self, const at::Tensor& out) {
    if (!self.is_training() || out.dim() < 3) return out;
    // HF: dims = output.size(1) * output.size(2), the sequence length times the width.
    const double magnitude = a / std::sqrt(static_cast<double>(out.size(1) * out.size(2)));
    return out + at::empty_like(out).uniform_(-magnitude, magnitude);
  });
}

NeftuneNoise::~NeftuneNoise() {
  if (embeddings_) embeddings_->set_output_hook(nullptr);
}

}  // namespace runner::train
