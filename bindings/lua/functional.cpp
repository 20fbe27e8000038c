// require "runner.F": torch.nn.functional with PyTorch names; options as a table
// (F.cross_entropy(logits, labels, {weight = w, ignore_index = -100, label_smoothing = 0.1})).
#include "bindings/lua/lua_common.h"
#include "runtime/core/errors.h"
#include "runtime/kernels/gelu.h"

namespace runner::lua {

namespace {

int ret(lua_State* L, at::Tensor t) {
  push_tensor(L, std::move(t));
  return 1;
}

// Class weights written as {1, 2, 3} arrive as int64 (Lua has one number type), and a
// recipe builds them on the host while the model may train on the GPU: ATen wants them in
// the input's dtype, on its device.
at::Tensor as_dtype(const at::Tensor& t, const at::Tensor& like) {
  return t.defined() ? t.to(like.device(), like.scalar_type()) : t;
}
// A target made on the host (a recipe's own labels) follows the input to its device.
at::Tensor on_device_of(const at::Tensor& t, const at::Tensor& like) { return t.device() == like.device() ? t : t.to(like.device()); }

int64_t reduction(const std::string& r, const char* fn) {
  if (r == "mean") return at::Reduction::Mean;
  if (r == "sum") return at::Reduction::Sum;
  if (r == "none") return at::Reduction::None;
  throw RecipeError(std::string(fn) + ": reduction must be \"mean\", \"sum\" or \"none\", got \"" + r + "\"");
}

// A dim given positionally (F.softmax(x, 1)) or as {dim = 1}.
int64_t dim_option(lua_State* L, int idx, const char* fn, int64_t def, bool required) {
  if (lua_type(L, idx) == LUA_TNUMBER) return check_int(L, idx, fn);
  Options o(L, idx, fn);
  if (required && !o.has("dim")) throw RecipeError(std::string(fn) + ": needs dim");
  const int64_t d = o.integer("dim", def);
  o.finish();
  return d;
}

int f_cross_entropy(lua_State* L) {
  const at::Tensor& input = check_tensor(L, 1);
  const at::Tensor& target = check_tensor(L, 2);
  Options o(L, 3, "F.cross_entropy");
  at::Tensor weight = as_dtype(o.tensor("weight"), input);
  const int64_t ignore = o.integer("ignore_index", -100);
  const double smoothing = o.number("label_smoothing", 0.0);
  const int64_t red = reduction(o.string("reduction", "mean"), "F.cross_entropy");
  o.finish();
  return ret(L, at::cross_entropy_loss(input, on_device_of(target, input), weight, red, ignore, smoothing));
}
int f_nll_loss(lua_State* L) {
  const at::Tensor& input = check_tensor(L, 1);
  const at::Tensor& target = check_tensor(L, 2);
  Options o(L, 3, "F.nll_loss");
  at::Tensor weight = as_dtype(o.tensor("weight"), input);
  const int64_t ignore = o.integer("ignore_index", -100);
  const int64_t red = reduction(o.string("reduction", "mean"), "F.nll_loss");
  o.finish();
  return ret(L, at::nll_loss_nd(input, on_device_of(target, input), weight, red, ignore));
}
int simple_loss(lua_State* L, const char* fn, int which) {
  const at::Tensor& input = check_tensor(L, 1);
  const at::Tensor& target = check_tensor(L, 2);
  Options o(L, 3, fn);
  const int64_t red = reduction(o.string("reduction", "mean"), fn);
  const double beta = which == 2 ? o.number("beta", 1.0) : 0.0;
  o.finish();
  if (!input.sizes().equals(target.sizes()))
    throw RecipeError(std::string(fn) + ": input and target shapes differ (" + c10::str(input.sizes()) + " vs " +
                      c10::str(target.sizes()) + "); broadcasting here is almost always a bug");
  const at::Tensor t = target.to(input.device(), input.scalar_type());
  if (which == 0) return ret(L, at::mse_loss(input, t, red));
  if (which == 1) return ret(L, at::l1_loss(input, t, red));
  return ret(L, at::smooth_l1_loss(input, t, red, beta));
}
int f_mse_loss(lua_State* L) { return simple_loss(L, "F.mse_loss", 0); }
int f_l1_loss(lua_State* L) { return simple_loss(L, "F.l1_loss", 1); }
int f_smooth_l1_loss(lua_State* L) { return simple_loss(L, "F.smooth_l1_loss", 2); }
int f_bce_with_logits(lua_State* L) {
  const at::Tensor& input = check_tensor(L, 1);
  const at::Tensor& target = check_tensor(L, 2);
  Options o(L, 3, "F.binary_cross_entropy_with_logits");
  at::Tensor weight = as_dtype(o.tensor("weight"), input), pos_weight = as_dtype(o.tensor("pos_weight"), input);
  const int64_t red = reduction(o.string("reduction", "mean"), "F.binary_cross_entropy_with_logits");
  o.finish();
  return ret(L, at::binary_cross_entropy_with_logits(input, target.to(input.device(), input.scalar_type()), weight, pos_weight, red));
}
int f_kl_div(lua_State* L) {
  const at::Tensor& input = check_tensor(L, 1);
  const at::Tensor& target = check_tensor(L, 2);
  Options o(L, 3, "F.kl_div");
  const std::string r = o.string("reduction", "mean");
  const bool log_target = o.boolean("log_target", false);
  o.finish();
  if (r == "batchmean") return ret(L, at::kl_div(input, on_device_of(target, input), at::Reduction::Sum, log_target) / input.size(0));
  return ret(L, at::kl_div(input, on_device_of(target, input), reduction(r, "F.kl_div"), log_target));
}

int f_relu(lua_State* L) { return ret(L, at::relu(check_tensor(L, 1))); }
int f_silu(lua_State* L) { return ret(L, at::silu(check_tensor(L, 1))); }
int f_tanh(lua_State* L) { return ret(L, at::tanh(check_tensor(L, 1))); }
int f_sigmoid(lua_State* L) { return ret(L, at::sigmoid(check_tensor(L, 1))); }
int f_gelu(lua_State* L) {
  const at::Tensor& x = check_tensor(L, 1);
  Options o(L, 2, "F.gelu");
  const std::string approximate = o.string("approximate", "none");
  o.finish();
  if (approximate != "none" && approximate != "tanh") throw RecipeError("F.gelu: approximate must be \"none\" or \"tanh\"");
  return ret(L, approximate == "tanh" ? kernels::gelu_tanh(x) : at::gelu(x));
}
int f_softmax(lua_State* L) { return ret(L, at::softmax(check_tensor(L, 1), dim_option(L, 2, "F.softmax", -1, true))); }
int f_log_softmax(lua_State* L) {
  return ret(L, at::log_softmax(check_tensor(L, 1), dim_option(L, 2, "F.log_softmax", -1, true)));
}
int f_dropout(lua_State* L) {
  const at::Tensor& x = check_tensor(L, 1);
  double p = 0.5;
  bool training = true;
  if (lua_type(L, 2) == LUA_TNUMBER) {
    p = lua_tonumber(L, 2);
    if (!lua_isnoneornil(L, 3)) training = lua_toboolean(L, 3) != 0;
  } else {
    Options o(L, 2, "F.dropout");
    p = o.number("p", 0.5);
    training = o.boolean("training", true);
    o.finish();
  }
  if (p < 0 || p > 1) throw RecipeError("F.dropout: p must be in [0, 1]");
  return ret(L, at::dropout(x, p, training));
}
int f_layer_norm(lua_State* L) {
  const at::Tensor& x = check_tensor(L, 1);
  const auto shape = check_int_list(L, 2, "F.layer_norm normalized_shape");
  at::Tensor* w = test_tensor_values(L, 3);
  at::Tensor* b = test_tensor_values(L, 4);
  const double eps = lua_isnoneornil(L, 5) ? 1e-5 : luaL_checknumber(L, 5);
  return ret(L, at::layer_norm(x, shape, w ? *w : at::Tensor(), b ? *b : at::Tensor(), eps));
}
int f_linear(lua_State* L) {
  at::Tensor* b = test_tensor_values(L, 3);
  return ret(L, at::linear(check_tensor(L, 1), check_tensor(L, 2), b ? *b : at::Tensor()));
}
int f_embedding(lua_State* L) {
  const at::Tensor& ids = check_tensor(L, 1);
  const at::Tensor& weight = check_tensor(L, 2);
  Options o(L, 3, "F.embedding");
  int64_t pad = -1;  // ATen's "none"
  if (o.has("padding_idx")) {  // PyTorch counts a negative one from the end, as nn.Embedding does
    const int64_t n = weight.size(0), given = o.integer("padding_idx", 0);
    if (given < -n || given >= n) throw RecipeError("F.embedding: padding_idx must be within num_embeddings (" + std::to_string(n) + ")");
    pad = given < 0 ? given + n : given;
  }
  o.finish();
  return ret(L, at::embedding(weight, ids, pad));
}
int f_one_hot(lua_State* L) {
  const int64_t n = lua_isnoneornil(L, 2) ? -1 : check_int(L, 2, "F.one_hot num_classes");
  return ret(L, at::one_hot(check_tensor(L, 1), n));
}
// F.pad(x, {left, right, top, bottom, ...}, {mode = "constant", value = 0})
int f_pad(lua_State* L) {
  const at::Tensor& x = check_tensor(L, 1);
  const auto pad = check_int_list(L, 2, "F.pad");
  Options o(L, 3, "F.pad");
  const std::string mode = o.string("mode", "constant");
  const double value = o.number("value", 0.0);
  o.finish();
  if (pad.size() % 2) throw RecipeError("F.pad: the padding list needs an even number of values");
  if (mode == "constant") return ret(L, at::constant_pad_nd(x, pad, value));
  if (mode == "reflect") return ret(L, pad.size() == 2 ? at::reflection_pad1d(x, pad) : at::reflection_pad2d(x, pad));
  if (mode == "replicate") return ret(L, pad.size() == 2 ? at::replication_pad1d(x, pad) : at::replication_pad2d(x, pad));
  throw RecipeError("F.pad: mode must be \"constant\", \"reflect\" or \"replicate\", got \"" + mode + "\"");
}

// Activations with their PyTorch options.
int f_softplus(lua_State* L) {
  Options o(L, 2, "F.softplus");
  const double beta = o.number("beta", 1.0), threshold = o.number("threshold", 20.0);
  o.finish();
  return ret(L, at::softplus(check_tensor(L, 1), beta, threshold));
}
int f_leaky_relu(lua_State* L) {
  Options o(L, 2, "F.leaky_relu");
  const double slope = o.number("negative_slope", 0.01);
  o.finish();
  return ret(L, at::leaky_relu(check_tensor(L, 1), slope));
}
int f_elu(lua_State* L) {
  Options o(L, 2, "F.elu");
  const double alpha = o.number("alpha", 1.0);
  o.finish();
  return ret(L, at::elu(check_tensor(L, 1), alpha));
}
int f_logsigmoid(lua_State* L) { return ret(L, at::log_sigmoid(check_tensor(L, 1))); }
int f_softmin(lua_State* L) {
  const at::Tensor& x = check_tensor(L, 1);
  return ret(L, at::softmax(-x, dim_option(L, 2, "F.softmin", 0, true)));
}
int f_glu(lua_State* L) {
  const at::Tensor& x = check_tensor(L, 1);
  return ret(L, at::glu(x, lua_isnoneornil(L, 2) ? -1 : dim_option(L, 2, "F.glu", -1, false)));
}

// F.normalize(x, {p = 2, dim = 1, eps = 1e-12}): x / max(‖x‖_p, eps) along dim
int f_normalize(lua_State* L) {
  const at::Tensor& x = check_tensor(L, 1);
  Options o(L, 2, "F.normalize");
  const double p = o.number("p", 2.0), eps = o.number("eps", 1e-12);
  const int64_t dim = o.integer("dim", 1);
  o.finish();
  return ret(L, x / at::linalg_vector_norm(x, p, std::vector<int64_t>{dim}, /*keepdim=*/true).clamp_min(eps).expand_as(x));
}
int f_cosine_similarity(lua_State* L) {
  Options o(L, 3, "F.cosine_similarity");
  const int64_t dim = o.integer("dim", 1);
  const double eps = o.number("eps", 1e-8);
  o.finish();
  return ret(L, at::cosine_similarity(check_tensor(L, 1), check_tensor(L, 2), dim, eps));
}
// F.scaled_dot_product_attention(q, k, v, {attn_mask, dropout_p = 0, is_causal = false, scale})
int f_sdpa(lua_State* L) {
  Options o(L, 4, "F.scaled_dot_product_attention");
  const at::Tensor mask = o.tensor("attn_mask");
  const double dropout = o.number("dropout_p", 0.0);
  const bool causal = o.boolean("is_causal", false);
  c10::optional<double> scale;
  if (o.has("scale")) scale = o.number("scale", 0.0);
  o.finish();
  return ret(L, at::scaled_dot_product_attention(check_tensor(L, 1), check_tensor(L, 2), check_tensor(L, 3),
                                                 mask.defined() ? c10::optional<at::Tensor>(mask) : c10::nullopt, dropout, causal, scale));
}
int f_binary_cross_entropy(lua_State* L) {
  const at::Tensor& input = check_tensor(L, 1);
  Options o(L, 3, "F.binary_cross_entropy");
  at::Tensor weight = as_dtype(o.tensor("weight"), input);
  const int64_t red = reduction(o.string("reduction", "mean"), "F.binary_cross_entropy");
  o.finish();
  return ret(L, at::binary_cross_entropy(input, as_dtype(check_tensor(L, 2), input), weight, red));
}
int f_huber_loss(lua_State* L) {
  const at::Tensor& input = check_tensor(L, 1);
  Options o(L, 3, "F.huber_loss");
  const int64_t red = reduction(o.string("reduction", "mean"), "F.huber_loss");
  const double delta = o.number("delta", 1.0);
  o.finish();
  return ret(L, at::huber_loss(input, as_dtype(check_tensor(L, 2), input), red, delta));
}

}  // namespace

void push_functional_module(lua_State* L) {
  lua_newtable(L);
  set_functions(L, {{"cross_entropy", guarded<f_cross_entropy>}, {"nll_loss", guarded<f_nll_loss>},
                    {"mse_loss", guarded<f_mse_loss>}, {"l1_loss", guarded<f_l1_loss>},
                    {"smooth_l1_loss", guarded<f_smooth_l1_loss>},
                    {"binary_cross_entropy_with_logits", guarded<f_bce_with_logits>}, {"kl_div", guarded<f_kl_div>},
                    {"relu", guarded<f_relu>}, {"gelu", guarded<f_gelu>}, {"silu", guarded<f_silu>},
                    {"tanh", guarded<f_tanh>}, {"sigmoid", guarded<f_sigmoid>}, {"softmax", guarded<f_softmax>},
                    {"log_softmax", guarded<f_log_softmax>}, {"dropout", guarded<f_dropout>},
                    {"layer_norm", guarded<f_layer_norm>}, {"linear", guarded<f_linear>},
                    {"embedding", guarded<f_embedding>}, {"one_hot", guarded<f_one_hot>}, {"pad", guarded<f_pad>},
                    {"softplus", guarded<f_softplus>}, {"leaky_relu", guarded<f_leaky_relu>}, {"elu", guarded<f_elu>},
                    {"logsigmoid", guarded<f_logsigmoid>}, {"softmin", guarded<f_softmin>}, {"glu", guarded<f_glu>},
                    {"normalize", guarded<f_normalize>}, {"cosine_similarity", guarded<f_cosine_similarity>},
                    {"scaled_dot_product_attention", guarded<f_sdpa>},
                    {"binary_cross_entropy", guarded<f_binary_cross_entropy>}, {"huber_loss", guarded<f_huber_loss>}});
}

}  // namespace runner::lua
