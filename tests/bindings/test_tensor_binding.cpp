#include <c10/core/GradMode.h>
#include <gmock/gmock.h>

#include "tests/bindings/lua_fixture.h"

using runner::testing::LuaFixture;
using ::testing::HasSubstr;
using TensorBinding = LuaFixture;

TEST_F(TensorBinding, ConstructorsAndDtypeInference) {
  EXPECT_EQ(tensor("return torch.tensor{1, 2, 3}").scalar_type(), at::kLong);  // like torch.tensor([1, 2, 3])
  EXPECT_EQ(tensor("return torch.tensor{1, 2.5}").scalar_type(), at::kFloat);
  EXPECT_EQ(tensor("return torch.tensor{true, false}").scalar_type(), at::kBool);
  EXPECT_EQ(tensor("return torch.tensor({1, 2}, {dtype = torch.float64})").scalar_type(), at::kDouble);
  EXPECT_TRUE(tensor("return torch.tensor{{1, 2}, {3, 4}}").equal(at::tensor({1, 2, 3, 4}, at::kLong).view({2, 2})));
  EXPECT_EQ(tensor("return torch.zeros(2, 3)").sizes(), at::IntArrayRef({2, 3}));
  EXPECT_EQ(tensor("return torch.ones({4, 1}, {dtype = torch.long})").scalar_type(), at::kLong);
  EXPECT_TRUE(tensor("return torch.full({2}, 7)").equal(at::full({2}, 7, at::kLong)));
  EXPECT_EQ(tensor("return torch.randn(3, 2)").sizes(), at::IntArrayRef({3, 2}));
  const auto r = tensor("return torch.rand(1000)");
  EXPECT_GE(r.min().item<double>(), 0.0);
  EXPECT_LT(r.max().item<double>(), 1.0);
  const auto ri = tensor("return torch.randint(2, 5, {100})");
  EXPECT_EQ(ri.scalar_type(), at::kLong);
  EXPECT_GE(ri.min().item<int64_t>(), 2);
  EXPECT_LT(ri.max().item<int64_t>(), 5);
  EXPECT_TRUE(tensor("return torch.arange(4)").equal(at::arange(4, at::kLong)));
  EXPECT_EQ(tensor("return torch.arange(0, 1, 0.25)").numel(), 4);
  EXPECT_TRUE(tensor("return torch.linspace(0, 1, 5)").allclose(at::linspace(0, 1, 5)));
  EXPECT_TRUE(tensor("return torch.eye(3)").equal(at::eye(3)));
  EXPECT_TRUE(tensor("return torch.tensor({1.5}, {requires_grad = true})").requires_grad());
  EXPECT_THAT(error_of("return torch.tensor{{1, 2}, {3}}"), HasSubstr("ragged"));
  EXPECT_THAT(error_of("return torch.zeros(2, {dtype = 'flaot32'})"), HasSubstr("did you mean 'float32'"));
}

TEST_F(TensorBinding, ManualSeedIsReproducible) {
  const auto a = tensor("torch.manual_seed(3) return torch.randn(5)");
  const auto b = tensor("torch.manual_seed(3) return torch.randn(5)");
  EXPECT_TRUE(a.equal(b));
}

TEST_F(TensorBinding, ArithmeticWithNumbersInEitherOrder) {
  EXPECT_TRUE(tensor("return 10 - torch.tensor{1, 2}").equal(at::tensor({9, 8}, at::kLong)));
  EXPECT_TRUE(tensor("return torch.tensor{1, 2} * 2").equal(at::tensor({2, 4}, at::kLong)));  // integers stay integers
  EXPECT_EQ(tensor("return torch.tensor{1, 2} * 0.5").scalar_type(), at::kFloat);
  EXPECT_TRUE(tensor("return 1 / torch.tensor{2.0, 4.0}").allclose(at::tensor({0.5f, 0.25f})));
  EXPECT_TRUE(tensor("return 2 ^ torch.tensor{1.5, 3}").allclose(at::tensor({2.8284271f, 8.0f})));
  EXPECT_TRUE(tensor("return 2 ^ torch.tensor{1, 3}").equal(at::tensor({2, 8}, at::kLong)));  // as 2 ** t
  EXPECT_TRUE(tensor("local e = torch.tensor({1.0, 3.0}, {requires_grad = true}); (2 ^ e):sum():backward() return e:grad()")
                  .allclose(at::tensor({2.0f, 8.0f}) * std::log(2.0f)));
  EXPECT_TRUE(tensor("return -torch.tensor{1.5}").equal(at::tensor({-1.5f})));
  EXPECT_TRUE(tensor("local a = torch.tensor({1, 2}, {dtype = torch.float32}) return a + a * a").equal(at::tensor({2.0f, 6.0f})));
  EXPECT_TRUE(tensor("return torch.tensor{{1.5, 2}}:matmul(torch.tensor{{2.5}, {4}})").allclose(at::tensor({11.75f}).view({1, 1})));
}

TEST_F(TensorBinding, ComparisonsAreMethods) {
  EXPECT_TRUE(tensor("return torch.tensor{1, 2, 3}:gt(1)").equal(at::tensor({0, 1, 1}, at::kLong).to(at::kBool)));
  EXPECT_TRUE(tensor("local a = torch.tensor{1, 2} return a:eq(torch.tensor{1, 5})").equal(at::tensor({1, 0}, at::kLong).to(at::kBool)));
  // == compares tensor objects (Lua 5.1 coerces __eq to a boolean), not values
  EXPECT_EQ(number("local a = torch.tensor{1} local b = torch.tensor{1} return (a == b) and 1 or 0"), 0);
  EXPECT_EQ(number("local a = torch.tensor{1} return (a == a) and 1 or 0"), 1);
}

TEST_F(TensorBinding, DimsAreZeroBasedButSizeTableIsOneBased) {
  // The trap, pinned: t:size() is a Lua table, so its first entry is [1] and holds dim 0.
  EXPECT_EQ(number("local t = torch.zeros(2, 3, 4) return t:size()[1]"), 2);
  EXPECT_EQ(number("local t = torch.zeros(2, 3, 4) return t:size(0)"), 2);
  EXPECT_EQ(number("local t = torch.zeros(2, 3, 4) return t:size(-1)"), 4);
  EXPECT_EQ(number("return #torch.zeros(5, 2)"), 5);
  EXPECT_EQ(tensor("return torch.ones(2, 3):sum(0)").sizes(), at::IntArrayRef({3}));
  EXPECT_EQ(tensor("return torch.ones(2, 3):sum(1, true)").sizes(), at::IntArrayRef({2, 1}));
  EXPECT_EQ(tensor("return torch.ones(2, 3):sum{dim = -1, keepdim = true}").sizes(), at::IntArrayRef({2, 1}));
  EXPECT_THAT(error_of("return torch.ones(2, 3):softmax(2)"), HasSubstr("dim 2 out of range for a 2-d tensor (dims are 0-based"));
}

TEST_F(TensorBinding, ReductionsShapesAndIndexing) {
  run("local t = torch.tensor{{1.0, 5.0}, {3.0, 2.0}} local v, i = t:max(1) return v, i");
  EXPECT_TRUE(runner::lua::test_tensor(L(), -2)->equal(at::tensor({5.0f, 3.0f})));
  EXPECT_TRUE(runner::lua::test_tensor(L(), -1)->equal(at::tensor({1, 0}, at::kLong)));
  lua_pop(L(), 2);
  EXPECT_EQ(number("return torch.tensor{{1.0, 5.0}, {3.0, 2.0}}:argmax():item()"), 1);
  EXPECT_EQ(tensor("return torch.zeros(2, 3):view(3, 2)").sizes(), at::IntArrayRef({3, 2}));
  EXPECT_EQ(tensor("return torch.zeros(2, 3):view{6}").sizes(), at::IntArrayRef({6}));
  EXPECT_EQ(tensor("return torch.zeros(2, 3, 4):permute(2, 0, 1)").sizes(), at::IntArrayRef({4, 2, 3}));
  EXPECT_EQ(tensor("return torch.zeros(2, 1, 3):squeeze(1):unsqueeze(0)").sizes(), at::IntArrayRef({1, 2, 3}));
  EXPECT_TRUE(tensor("return torch.arange(6):view(2, 3):select(1, 2)").equal(at::tensor({2, 5}, at::kLong)));
  EXPECT_TRUE(tensor("return torch.arange(6):narrow(0, 1, 2)").equal(at::tensor({1, 2}, at::kLong)));
  EXPECT_TRUE(tensor("return torch.arange(5):index_select(0, torch.tensor{4, 0})").equal(at::tensor({4, 0}, at::kLong)));
  EXPECT_TRUE(tensor("local t = torch.arange(4) return t:masked_fill(t:gt(1), -1)").equal(at::tensor({0, 1, -1, -1}, at::kLong)));
  EXPECT_TRUE(tensor("return torch.cat({torch.zeros(1), torch.ones(2)})").equal(at::tensor({0.f, 1.f, 1.f})));
  EXPECT_EQ(tensor("return torch.stack({torch.zeros(2), torch.ones(2)}, 1)").sizes(), at::IntArrayRef({2, 2}));
  EXPECT_TRUE(tensor("return torch.where(torch.tensor{true, false}, 1.0, torch.tensor{5.0, 6.0})").equal(at::tensor({1.f, 6.f})));
  EXPECT_EQ(number("return torch.tensor{1.5, 2.5}:mean():item()"), 2.0);
  EXPECT_EQ(number("return torch.exp(torch.zeros(1)):item()"), 1.0);  // methods are torch.* functions too
}

TEST_F(TensorBinding, ItemTolistDtypeAndPrinting) {
  EXPECT_EQ(number("return torch.tensor{{7}}:item()"), 7);
  EXPECT_THAT(error_of("return torch.zeros(2):item()"), HasSubstr("item: the tensor has 2 elements, not 1"));
  EXPECT_EQ(number("local l = torch.tensor{{1, 2}, {3, 4}}:tolist() return l[2][1]"), 3);
  run("return torch.zeros(1):dtype(), torch.zeros(1):long():dtype(), tostring(torch.tensor{{1.5, 2}, {3, 4}})");
  EXPECT_STREQ(lua_tostring(L(), -3), "float32");
  EXPECT_STREQ(lua_tostring(L(), -2), "int64");
  EXPECT_STREQ(lua_tostring(L(), -1), "tensor([[1.5000, 2.0000],\n        [3.0000, 4.0000]])");
  lua_pop(L(), 3);
}

TEST_F(TensorBinding, AutogradFromLua) {
  run("local x = torch.tensor({1.0, 2.0}, {requires_grad = true}) local y = (x * x):sum() y:backward() return x:grad()");
  EXPECT_TRUE(runner::lua::test_tensor(L(), -1)->allclose(at::tensor({2.0f, 4.0f})));
  lua_pop(L(), 1);
  EXPECT_EQ(number("local x = torch.ones(1, {requires_grad = true}) local y = torch.no_grad(function() return x * 2 end) "
                   "return y:requires_grad() and 1 or 0"),
            0);
  EXPECT_EQ(number("local x = torch.ones(1, {requires_grad = true}) return x:detach():requires_grad() and 1 or 0"), 0);
  // an error inside no_grad propagates, and gradient recording is back on afterwards
  EXPECT_THAT(error_of("torch.no_grad(function() error('inner') end)"), HasSubstr("inner"));
  EXPECT_TRUE(c10::GradMode::is_enabled());
}

TEST_F(TensorBinding, ReleaseFreesNowAndLaterUseIsAnError) {
  EXPECT_THAT(error_of("local t = torch.zeros(1000) t:release() return t:sum()"), HasSubstr("released"));
}

TEST_F(TensorBinding, BindingErrorsCarryTheRecipeLine) {
  const std::string msg = error_of("local a = torch.zeros(2, 3)\nlocal b = torch.zeros(4, 5)\nreturn a:matmul(b)\n");
  EXPECT_THAT(msg, HasSubstr(".lua:3: "));
  EXPECT_THAT(msg, HasSubstr("cannot be multiplied"));
  EXPECT_EQ(msg.find('\n'), std::string::npos);  // one line
}

TEST_F(TensorBinding, LuaHeldBytesAreCountedAndCollected) {
  const int64_t before = runner::lua::lua_tensor_bytes();
  run("for i = 1, 200 do local t = torch.zeros(1024, 1024) end return 0");  // 800 MiB of garbage
  lua_pop(L(), 1);
  // The deliberate collector kept the bytes referenced from Lua bounded.
  EXPECT_LT(runner::lua::lua_tensor_bytes() - before, int64_t{300} << 20);
}

TEST_F(TensorBinding, DevicesByName) {
  EXPECT_TRUE(tensor("return torch.zeros(2, {device = 'cpu'})").device().is_cpu());
  EXPECT_TRUE(tensor("return torch.tensor({1, 2}, {device = 'cpu'}):to('cpu')").device().is_cpu());
  EXPECT_EQ(number("return torch.zeros(1):device() == 'cpu' and 1 or 0"), 1);
  EXPECT_EQ(tensor("return torch.ones(2):to{dtype = torch.float64, device = 'cpu'}").scalar_type(), at::kDouble);
  EXPECT_EQ(tensor("return torch.ones(2):to(torch.float64)").scalar_type(), at::kDouble);  // a dtype still works
  EXPECT_THAT(error_of("return torch.zeros(2, {device = 'tpu'})"), HasSubstr("unknown device \"tpu\""));
  EXPECT_THAT(error_of("return torch.ones(2):to{}"), HasSubstr("give a dtype or a device"));
  if (!at::hasCUDA() || at::getNumGPUs() == 0)
    EXPECT_THAT(error_of("return torch.zeros(2):to('cuda:0')"), HasSubstr("is not available"));
}

// Where the Lua API differed from PyTorch without a word (each value is PyTorch's).
TEST_F(TensorBinding, PyTorchsArgumentOrderAndDefaultsWhereTheyDiffered) {
  const std::string a = "local A = torch.tensor{{1.5, -2, 3}, {4, 5.5, -6}} ";
  // std/var: (dim, unbiased, keepdim), not (dim, keepdim)
  EXPECT_TRUE(tensor(a + "return A:std(0, false)").allclose(at::tensor({1.25, 3.75, 4.5}).to(at::kFloat)));
  EXPECT_EQ(tensor(a + "return A:var(1, true, true)").sizes(), at::IntArrayRef({2, 1}));
  // all/any reduce along dim
  const std::string b = "local B = torch.tensor{{true, false, true}, {false, false, true}} ";
  EXPECT_TRUE(tensor(b + "return B:all(1)").equal(at::tensor({0, 0}).to(at::kBool)));
  EXPECT_TRUE(tensor(b + "return B:any(0)").equal(at::tensor({1, 0, 1}).to(at::kBool)));
  EXPECT_EQ(tensor(b + "return B:any(1, true)").sizes(), at::IntArrayRef({2, 1}));
  // torch.tensor(t) is a copy outside the graph
  EXPECT_FALSE(tensor("local w = torch.ones(2):requires_grad_() return torch.tensor(w)").requires_grad());
  // torch.full with -inf is a float mask value, not an int64 overflow
  EXPECT_TRUE(tensor("return torch.full({2}, -math.huge)").equal(at::full({2}, -INFINITY)));
  // F.embedding's negative padding_idx counts from the end: no gradient reaches that row
  EXPECT_TRUE(tensor("local w = torch.randn(4, 2):requires_grad_() "
                     "F.embedding(torch.tensor{0, 3, 1}, w, {padding_idx = -1}):sum():backward() return w:grad()")[3]
                  .equal(at::zeros({2})));
  // options PyTorch has and runner does not: refused, not dropped
  EXPECT_THAT(error_of("return torch.tensor{7, -7}:div(2, {rounding_mode = 'floor'})"), HasSubstr("div: takes one operand"));
  EXPECT_THAT(error_of("local t = {} t[1] = t return torch.tensor(t)"), HasSubstr("nested more than 64 deep"));
  EXPECT_EQ(tensor("return torch.ones_like(torch.tensor{1, 2}, {dtype = torch.float32})").scalar_type(), at::kFloat);
  EXPECT_THAT(error_of("return torch.zeros_like(torch.ones(2), {bogus = 1})"), HasSubstr("bogus"));
}

// `head.weight = emb.weight` ties them in PyTorch: the layer's forward must use the new tensor.
TEST_F(TensorBinding, AssigningALayersParameterReachesItsForward) {
  const auto out = tensor(R"(torch.manual_seed(0)
local emb, head = nn.Embedding(5, 3), nn.Linear(3, 5, {bias = false})
head.weight = emb.weight
local x = torch.tensor{{0.5, -1.5, 2.0}}
local y = head(x)
y:sum():backward()
return torch.cat({y - x:matmul(emb.weight:t()), emb.weight:grad():sum():reshape({1, 1}):expand(1, 5)}, 0))");
  EXPECT_TRUE(out[0].abs().max().item<double>() < 1e-6);
  EXPECT_NE(out[1][0].item<double>(), 0.0);  // the gradient reached the embedding
}

// PyTorch's module.training is a flag that forwards test; t[i] is not PyTorch's indexing here.
TEST_F(TensorBinding, ModuleTrainingIsAFlagAndTensorsSayHowToIndex) {
  EXPECT_EQ(number("local m = nn.Linear(2, 2) return m.training and 1 or 0"), 1);
  EXPECT_EQ(number("local m = nn.Sequential(nn.Linear(2, 2)) m:eval() return (m.training or m[0].training) and 1 or 0"), 0);
  EXPECT_EQ(number("local m = nn.Sequential(nn.Linear(2, 2)) m:train(false) m:train() return m[0].training and 1 or 0"), 1);
  // a Lua model's forward sees the flag (a method would always be truthy)
  EXPECT_EQ(number(R"(local Net = nn.Module{ name = "Net", fc = nn.Linear(1, 1),
    forward = function(self, x) if self.training then return x * 0 + 1 end return x * 0 + 2 end }
Net:eval() return Net(torch.ones(1, 1)):item())"), 2);
  EXPECT_THAT(error_of("local m = nn.Linear(2, 2) m.training = false"), HasSubstr("m:train([mode]) and m:eval()"));
  EXPECT_THAT(error_of("local t = torch.ones(3) return t[1] + 1"), HasSubstr("not indexed with t[i]: use t:select"));
  EXPECT_EQ(tensor("local t = torch.tensor{4, 5, 6} return t:select(0, 1)").item<int64_t>(), 5);
}
