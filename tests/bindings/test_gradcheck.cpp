// Every differentiable op bound to Lua, checked three ways on a float64 input:
//   1. value: the Lua expression equals the same ATen op called from C++;
//   2. gradient: autograd through the binding equals ATen autograd of the reference;
//   3. finite differences: the analytic gradient matches central differences of the Lua
//      function itself, so a wrong backward could not hide behind a matching reference.
#include "bindings/lua/lua_module.h"
#include "tests/bindings/lua_fixture.h"
#include <c10/core/GradMode.h>

using runner::testing::LuaFixture;

namespace {

using Ref = std::function<at::Tensor(const at::Tensor&)>;

struct Case {
  std::string name;
  std::string lua;  // body of function(x, aux) returning a tensor
  Ref ref;
  std::vector<int64_t> shape{3, 4};
  bool positive = false;  // input domain (0.5, 1.5) for log, sqrt, pow, ...
};

at::Tensor aux() {  // a fixed second operand, also given to Lua
  at::manual_seed(11);
  return at::rand({3, 4}, at::kDouble) + 0.5;
}
at::Tensor idx() { return at::tensor({2, 0, 1}, at::kLong); }
at::Tensor targets() { return at::tensor({3, -100, 1}, at::kLong); }

std::vector<Case> cases() {
  const auto A = aux();
  auto opts = at::TensorOptions().dtype(at::kDouble);
  return {
      {"add", "return x + aux", [=](auto& x) { return x + A; }},
      {"add_number", "return 2 + x", [](auto& x) { return x + 2; }},
      {"sub", "return aux - x", [=](auto& x) { return A - x; }},
      {"sub_number", "return 3 - x", [](auto& x) { return 3 - x; }},
      {"mul", "return x * aux", [=](auto& x) { return x * A; }},
      {"div", "return x / aux", [=](auto& x) { return x / A; }},
      {"div_number", "return 1.5 / x", [](auto& x) { return 1.5 / x; }, {3, 4}, true},
      {"method_add", "return x:add(aux):sub(1):mul(2):div(aux)", [=](auto& x) { return (x + A - 1) * 2 / A; }},
      {"pow_number", "return x ^ 3", [](auto& x) { return x.pow(3); }},
      {"pow_tensor", "return x:pow(aux)", [=](auto& x) { return x.pow(A); }, {3, 4}, true},
      {"number_pow", "return 2 ^ x", [](auto& x) { return at::pow(2, x); }},
      {"unm", "return -x", [](auto& x) { return -x; }},
      {"matmul", "return x:matmul(aux:t())", [=](auto& x) { return x.matmul(A.t()); }},
      {"exp", "return x:exp()", [](auto& x) { return x.exp(); }},
      {"log", "return x:log()", [](auto& x) { return x.log(); }, {3, 4}, true},
      {"sqrt", "return x:sqrt()", [](auto& x) { return x.sqrt(); }, {3, 4}, true},
      {"rsqrt", "return x:rsqrt()", [](auto& x) { return x.rsqrt(); }, {3, 4}, true},
      {"abs", "return x:abs()", [](auto& x) { return x.abs(); }},
      {"neg", "return x:neg()", [](auto& x) { return x.neg(); }},
      {"tanh", "return x:tanh()", [](auto& x) { return x.tanh(); }},
      {"sigmoid", "return x:sigmoid()", [](auto& x) { return x.sigmoid(); }},
      {"relu", "return x:relu()", [](auto& x) { return x.relu(); }},
      {"sin_cos", "return x:sin() + x:cos()", [](auto& x) { return x.sin() + x.cos(); }},
      {"square_log1p", "return x:square() + x:log1p()", [](auto& x) { return x.square() + x.log1p(); }, {3, 4}, true},
      {"clamp", "return x:clamp(-0.3, 0.4)", [](auto& x) { return x.clamp(-0.3, 0.4); }},
      {"clamp_table", "return x:clamp{min = 0.1}", [](auto& x) { return x.clamp_min(0.1); }},
      {"maximum", "return x:maximum(aux - 1)", [=](auto& x) { return at::maximum(x, A - 1); }},
      {"minimum", "return x:minimum(aux - 1)", [=](auto& x) { return at::minimum(x, A - 1); }},
      {"sum", "return x:sum()", [](auto& x) { return x.sum(); }},
      {"sum_dim", "return x:sum(1, true)", [](auto& x) { return x.sum(1, true); }},
      {"mean_dims", "return x:mean{dim = {0, 1}}", [](auto& x) { return x.mean(at::IntArrayRef{0, 1}); }},
      {"max_all", "return x:max()", [](auto& x) { return x.max(); }},
      {"max_dim", "local v = x:max(1) return v", [](auto& x) { return std::get<0>(x.max(1)); }},
      {"min_dim", "local v = x:min(0, true) return v", [](auto& x) { return std::get<0>(x.min(0, true)); }},
      {"logsumexp", "return x:logsumexp(1)", [](auto& x) { return x.logsumexp(1); }},
      {"std", "return x:std(1)", [](auto& x) { return at::std(x, at::IntArrayRef{1}, true, false); }},
      {"var", "return x:var{dim = 0, unbiased = false}", [](auto& x) { return at::var(x, at::IntArrayRef{0}, false, false); }},
      {"softmax", "return x:softmax(1)", [](auto& x) { return x.softmax(1); }},
      {"log_softmax", "return x:log_softmax(-1)", [](auto& x) { return x.log_softmax(-1); }},
      {"view_reshape", "return x:view(4, 3):reshape{2, 6}", [](auto& x) { return x.view({4, 3}).reshape({2, 6}); }},
      {"flatten", "return x:view(3, 2, 2):flatten(1)", [](auto& x) { return x.view({3, 2, 2}).flatten(1); }},
      {"squeeze_unsqueeze", "return x:unsqueeze(1):squeeze(1)", [](auto& x) { return x.unsqueeze(1).squeeze(1); }},
      {"permute", "return x:view(3, 2, 2):permute(2, 0, 1)", [](auto& x) { return x.view({3, 2, 2}).permute({2, 0, 1}); }},
      {"transpose_contiguous", "return x:transpose(0, 1):contiguous()", [](auto& x) { return x.transpose(0, 1).contiguous(); }},
      {"expand", "return x:narrow(0, 0, 1):expand(5, 4)", [](auto& x) { return x.narrow(0, 0, 1).expand({5, 4}); }},
      {"index_select", "return x:index_select(0, idx)", [](auto& x) { return x.index_select(0, idx()); }},
      {"gather", "return x:gather(1, idx:view(3, 1))", [](auto& x) { return x.gather(1, idx().view({3, 1})); }},
      {"masked_fill", "return x:masked_fill(aux:gt(1), 0)", [=](auto& x) { return x.masked_fill(A.gt(1), 0); }},
      {"narrow_select", "return x:narrow(1, 1, 2):select(0, 2)", [](auto& x) { return x.narrow(1, 1, 2).select(0, 2); }},
      {"clone", "return x:clone()", [](auto& x) { return x.clone(); }},
      {"cat_stack", "return torch.stack({torch.cat({x, aux}, 1), torch.cat({aux, x}, 1)})",
       [=](auto& x) { return at::stack({at::cat({x, A}, 1), at::cat({A, x}, 1)}); }},
      {"where", "return torch.where(aux:gt(1), x, x * 2)", [=](auto& x) { return at::where(A.gt(1), x, x * 2); }},
      {"F.cross_entropy", "return F.cross_entropy(x, tgt, {weight = aux:select(0, 0), label_smoothing = 0.1})",
       [=](auto& x) { return at::cross_entropy_loss(x, targets(), A.select(0, 0), at::Reduction::Mean, -100, 0.1); }},
      {"F.cross_entropy_sum", "return F.cross_entropy(x, tgt, {reduction = 'sum'})",
       [](auto& x) { return at::cross_entropy_loss(x, targets(), {}, at::Reduction::Sum, -100); }},
      {"F.nll_loss", "return F.nll_loss(x:log_softmax(1), tgt)",
       [](auto& x) { return at::nll_loss_nd(x.log_softmax(1), targets(), {}, at::Reduction::Mean, -100); }},
      {"F.mse_loss", "return F.mse_loss(x, aux)", [=](auto& x) { return at::mse_loss(x, A); }},
      {"F.l1_loss", "return F.l1_loss(x, aux, {reduction = 'sum'})", [=](auto& x) { return at::l1_loss(x, A, at::Reduction::Sum); }},
      {"F.smooth_l1_loss", "return F.smooth_l1_loss(x, aux, {beta = 0.5})", [=](auto& x) { return at::smooth_l1_loss(x, A, at::Reduction::Mean, 0.5); }},
      {"F.bce_with_logits", "return F.binary_cross_entropy_with_logits(x, aux:gt(1))",
       [=](auto& x) { return at::binary_cross_entropy_with_logits(x, A.gt(1).to(at::kDouble)); }},
      {"F.kl_div", "return F.kl_div(x:log_softmax(1), aux:softmax(1), {reduction = 'batchmean'})",
       [=](auto& x) { return at::kl_div(x.log_softmax(1), A.softmax(1), at::Reduction::Sum) / 3; }},
      {"F.activations", "return F.relu(x) + F.silu(x) + F.tanh(x) + F.sigmoid(x)",
       [](auto& x) { return at::relu(x) + at::silu(x) + at::tanh(x) + at::sigmoid(x); }},
      {"F.gelu", "return F.gelu(x)", [](auto& x) { return at::gelu(x); }},
      {"F.gelu_tanh", "return F.gelu(x, {approximate = 'tanh'})", [](auto& x) { return at::gelu(x, "tanh"); }},
      {"F.softmax", "return F.softmax(x, 1) + F.log_softmax(x, {dim = 0})", [](auto& x) { return x.softmax(1) + x.log_softmax(0); }},
      {"F.dropout_eval", "return F.dropout(x, 0.5, false)", [](auto& x) { return x; }},
      {"F.layer_norm", "return F.layer_norm(x, {4}, aux:select(0, 1), aux:select(0, 2))",
       [=](auto& x) { return at::layer_norm(x, {4}, A.select(0, 1), A.select(0, 2)); }},
      {"F.linear", "return F.linear(x, aux, aux:select(1, 0))", [=](auto& x) { return at::linear(x, A, A.select(1, 0)); }},
      {"F.embedding", "return F.embedding(idx, x)", [](auto& x) { return at::embedding(x, idx()); }},
      {"F.pad", "return F.pad(x, {1, 2}, {value = 0.5})", [](auto& x) { return at::constant_pad_nd(x, {1, 2}, 0.5); }},
  };
}

class GradCheck : public LuaFixture {
 protected:
  // Calls the Lua function at stack index `fn` with x; returns its tensor result.
  at::Tensor call(int fn, const at::Tensor& x) {
    lua_pushvalue(L(), fn);
    runner::lua::push_tensor(L(), x);
    runner::lua::pcall_or_throw(L(), 1, 1);
    at::Tensor* y = runner::lua::test_tensor(L(), -1);
    at::Tensor out = y ? *y : at::Tensor();
    lua_pop(L(), 1);
    return out;
  }
};

}  // namespace

TEST_F(GradCheck, EveryBoundDifferentiableOp) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    // The snippet (run in the recipe sandbox) returns a factory taking the fixed operands.
    run("return function(aux, idx, tgt) return function(x) " + c.lua + " end end");
    runner::lua::push_tensor(L(), aux());
    runner::lua::push_tensor(L(), idx());
    runner::lua::push_tensor(L(), targets());
    lua_call(L(), 3, 1);
    const int fn = lua_gettop(L());

    at::manual_seed(5);
    at::Tensor x0 = at::rand(c.shape, at::kDouble);
    x0 = c.positive ? x0 + 0.5 : x0 * 2 - 1;
    at::Tensor x = x0.clone().requires_grad_(true);
    at::Tensor y = call(fn, x);
    ASSERT_TRUE(y.defined());
    at::Tensor xr = x0.clone().requires_grad_(true);
    at::Tensor yr = c.ref(xr);
    ASSERT_TRUE(y.sizes().equals(yr.sizes()));
    EXPECT_TRUE(at::allclose(y, yr, 1e-10, 1e-12)) << "values differ";

    at::Tensor w = at::randn(y.sizes(), at::kDouble);
    (y * w).sum().backward();
    (yr * w).sum().backward();
    ASSERT_TRUE(x.grad().defined()) << "no gradient reached the input";
    EXPECT_TRUE(at::allclose(x.grad(), xr.grad(), 1e-9, 1e-11)) << "gradients differ from ATen";

    // central differences of sum(f(x) · w) through the Lua function
    c10::NoGradGuard no_grad;
    const double eps = 1e-6;
    at::Tensor numeric = at::zeros_like(x0);
    auto flat = x0.view(-1);
    for (int64_t i = 0; i < flat.numel(); ++i) {
      const double v = flat[i].item<double>();
      flat[i] = v + eps;
      const double up = (call(fn, x0) * w).sum().item<double>();
      flat[i] = v - eps;
      const double down = (call(fn, x0) * w).sum().item<double>();
      flat[i] = v;
      numeric.view(-1)[i] = (up - down) / (2 * eps);
    }
    EXPECT_TRUE(at::allclose(x.grad(), numeric, 1e-4, 1e-5)) << "analytic gradient disagrees with finite differences";
    lua_settop(L(), fn - 1);
  }
}

namespace {

// nn layers built in Lua: the output and the gradients (input and parameters) through the
// Lua call path equal ATen ops on the same parameters, and the input gradient passes a
// finite-difference check.
struct ModuleCase {
  std::string name;
  std::string lua;  // an expression building the module
  std::vector<int64_t> shape;
  std::function<at::Tensor(const at::Tensor&, runner::models::Module&)> ref;
  bool integer_input = false;
};

at::Tensor p(runner::models::Module& m, const std::string& path) {
  for (auto& [name, t] : m.named_parameters())
    if (name == path) return t;
  return {};
}

std::vector<ModuleCase> module_cases() {
  return {
      {"Linear", "nn.Linear(4, 3)", {2, 4}, [](auto& x, auto& m) { return at::linear(x, p(m, "weight"), p(m, "bias")); }},
      {"LinearNoBias", "nn.Linear(4, 3, {bias = false})", {2, 4}, [](auto& x, auto& m) { return at::linear(x, p(m, "weight")); }},
      {"LayerNorm", "nn.LayerNorm({4}, {eps = 1e-3})", {2, 4},
       [](auto& x, auto& m) { return at::layer_norm(x, {4}, p(m, "weight"), p(m, "bias"), 1e-3); }},
      {"Conv2d", "nn.Conv2d(2, 3, 3, {padding = 1, stride = 2})", {1, 2, 5, 5},
       [](auto& x, auto& m) { return at::conv2d(x, p(m, "weight"), p(m, "bias"), 2, 1); }},
      {"MaxPool2dFlatten", "nn.Sequential(nn.MaxPool2d(2), nn.Flatten())", {2, 1, 4, 4},
       [](auto& x, auto&) { return at::max_pool2d(x, 2, 2).flatten(1); }},
      {"Activations", "nn.Sequential(nn.ReLU(), nn.GELU{approximate = 'tanh'}, nn.Tanh(), nn.Sigmoid(), nn.SiLU())", {3, 4},
       [](auto& x, auto&) { return at::silu(at::sigmoid(at::tanh(at::gelu(at::relu(x), "tanh")))); }},
      {"DropoutEval", "nn.Dropout(0.3):eval()", {3, 4}, [](auto& x, auto&) { return x; }},
      {"SequentialMLP", "nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 2))", {3, 4},
       [](auto& x, auto& m) { return at::linear(at::tanh(at::linear(x, p(m, "0.weight"), p(m, "0.bias"))), p(m, "2.weight"), p(m, "2.bias")); }},
      {"LuaModule", "nn.Module{ a = nn.Linear(4, 2), forward = function(self, x) return self.a(x):exp() end }", {3, 4},
       [](auto& x, auto& m) { return at::linear(x, p(m, "a.weight"), p(m, "a.bias")).exp(); }},
  };
}

}  // namespace

TEST_F(GradCheck, EveryBoundLayer) {
  for (const ModuleCase& c : module_cases()) {
    SCOPED_TRACE(c.name);
    run("torch.manual_seed(2) local m = " + c.lua + " m:double() return m");
    auto module = runner::lua::test_module(L(), -1);
    ASSERT_TRUE(module);
    const int mod = lua_gettop(L());
    auto call_lua = [&](const at::Tensor& x) {
      lua_pushvalue(L(), mod);
      runner::lua::push_tensor(L(), x);
      runner::lua::pcall_or_throw(L(), 1, 1);
      at::Tensor y = *runner::lua::test_tensor(L(), -1);
      lua_pop(L(), 1);
      return y;
    };
    at::manual_seed(9);
    at::Tensor x0 = at::randn(c.shape, at::kDouble);
    at::Tensor x = x0.clone().requires_grad_(true);
    at::Tensor y = call_lua(x);
    at::Tensor w = at::randn(y.sizes(), at::kDouble);
    (y * w).sum().backward();
    std::vector<at::Tensor> lua_grads;
    for (auto& [name, t] : module->named_parameters()) {
      lua_grads.push_back(t.grad().clone());
      t.mutable_grad() = at::Tensor();
    }
    at::Tensor xr = x0.clone().requires_grad_(true);
    at::Tensor yr = c.ref(xr, *module);
    EXPECT_TRUE(at::allclose(y, yr, 1e-10, 1e-12)) << "values differ";
    (yr * w).sum().backward();
    EXPECT_TRUE(at::allclose(x.grad(), xr.grad(), 1e-9, 1e-11)) << "input gradients differ";
    size_t i = 0;
    for (auto& [name, t] : module->named_parameters()) EXPECT_TRUE(at::allclose(lua_grads[i++], t.grad(), 1e-9, 1e-11)) << name;

    c10::NoGradGuard no_grad;
    const double eps = 1e-6;
    auto flat = x0.view(-1);
    at::Tensor numeric = at::zeros_like(x0);
    for (int64_t k = 0; k < flat.numel(); ++k) {
      const double v = flat[k].item<double>();
      flat[k] = v + eps;
      const double up = (call_lua(x0) * w).sum().item<double>();
      flat[k] = v - eps;
      const double down = (call_lua(x0) * w).sum().item<double>();
      flat[k] = v;
      numeric.view(-1)[k] = (up - down) / (2 * eps);
    }
    EXPECT_TRUE(at::allclose(x.grad(), numeric, 1e-4, 1e-5)) << "finite differences disagree";
    lua_settop(L(), mod - 1);
  }
}
