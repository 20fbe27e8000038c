#pragma once
// RUNNER_FUSED_KERNELS=0 in the environment turns runner's fused ops (tanh-GELU, RMSNorm,
// SwiGLU, rotary embeddings, GPT's LayerNorm written in autocast's dtype on a GPU, the
// cross-entropy row kernel inside the fused linear
// cross-entropy on a GPU, the varlen attention of packed rows and the unrepeated grouped
// key/value heads on a GPU) off for the whole process: the models then run the plain ATen op
// chains they replace, with those chains' memory. For benchmarks and for ruling the kernels out
// when chasing a numerical difference; read once.
namespace runner::kernels {

bool fused_kernels_enabled();

}  // namespace runner::kernels
