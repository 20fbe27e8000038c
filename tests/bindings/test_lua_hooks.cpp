// Acceptance: the evaluation-side hooks a recipe can define, with HF Trainer semantics,
// checked against values computed here in C++ from the same weights and data:
// compute_metrics (EvalPrediction, include_for_metrics, batch_eval_metrics),
// preprocess_logits_for_metrics, prediction_step, named eval datasets, and hook errors
// located at the recipe's line. The training-side hooks and callbacks are in
// test_lua_hooks_train.cpp.
#include "tests/bindings/hooks_fixture.h"

using ::testing::HasSubstr;
using json = nlohmann::json;
using LuaHooks = runner::testing::HooksFixture;

namespace {

// A linear classifier evaluated on 6 examples in batches of 4 and 2.
const char* kEval = R"(local C, P = require "common", require "probe"
local x, y, ds = C.classification(6, 3)
P.x, P.y = x, y
return {
  args = { output_dir = OUT, per_device_eval_batch_size = 4, include_for_metrics = { "inputs", "loss" } },
  datasets = { eval = ds },
  model = nn.Linear(4, 3),
  compute_loss = C.ce,
  compute_metrics = function(p, compute_result)
    P.calls = (P.calls or 0) + 1
    P.p, P.compute_result = p, compute_result
    return { accuracy = p.predictions:argmax(-1):eq(p.label_ids):double():mean(), n = p.predictions:size(0) }
  end,
})";

struct Expected {
  at::Tensor logits, loss_a, loss_b;  // loss of the batch of 4 and of the batch of 2
};
Expected expected(const runner::models::Module& model, const at::Tensor& x, const at::Tensor& y) {
  auto p = runner::testing::HooksFixture::params(model);
  Expected e;
  e.logits = at::linear(x, p.at("weight"), p.at("bias"));
  e.loss_a = at::cross_entropy_loss(e.logits.narrow(0, 0, 4), y.narrow(0, 0, 4));
  e.loss_b = at::cross_entropy_loss(e.logits.narrow(0, 4, 2), y.narrow(0, 4, 2));
  return e;
}

}  // namespace

TEST_F(LuaHooks, ComputeMetricsReceivesPredictionsLabelsInputsAndLosses) {
  auto recipe = load("eval", kEval);
  auto trainer = make_trainer(recipe);
  const json m = evaluate(*trainer);
  const at::Tensor x = probe_tensor("P.x"), y = probe_tensor("P.y");
  const Expected e = expected(*recipe.model, x, y);

  EXPECT_EQ(probe("P.calls"), 1);
  EXPECT_EQ(probe("P.compute_result"), true);
  const at::Tensor pred = probe_tensor("P.p.predictions"), labels = probe_tensor("P.p.label_ids");
  EXPECT_TRUE(same(pred, e.logits)) << pred << e.logits;
  EXPECT_TRUE(at::equal(labels, y));
  EXPECT_TRUE(same(probe_tensor("P.p.inputs"), x));
  const at::Tensor losses = probe_tensor("P.p.losses");
  ASSERT_EQ(losses.sizes(), at::IntArrayRef({6}));
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(losses[i].item<double>(), (i < 4 ? e.loss_a : e.loss_b).item<double>(), 1e-5) << i;

  // Metrics come back prefixed; a tensor metric and a number metric both work.
  const double acc = e.logits.argmax(-1).eq(y).to(at::kDouble).mean().item<double>();
  EXPECT_NEAR(m.at("eval_accuracy").get<double>(), acc, 1e-12);
  EXPECT_EQ(m.at("eval_n"), 6);
  EXPECT_NEAR(m.at("eval_loss").get<double>(), (4 * e.loss_a.item<double>() + 2 * e.loss_b.item<double>()) / 6, 1e-5);
  EXPECT_FALSE(m.contains("accuracy"));
  EXPECT_FALSE(m.contains("eval_eval_loss"));
}

TEST_F(LuaHooks, WithoutIncludeForMetricsInputsAndLossesAreAbsent) {
  std::string code = kEval;
  code.replace(code.find(", include_for_metrics"), std::string(", include_for_metrics = { \"inputs\", \"loss\" }").size(), "");
  auto recipe = load("plain", code);
  auto trainer = make_trainer(recipe);
  evaluate(*trainer);
  EXPECT_EQ(probe("P.p.inputs"), nullptr);
  EXPECT_EQ(probe("P.p.losses"), nullptr);
  EXPECT_EQ(probe("P.p.predictions:size(0)"), 6);
}

TEST_F(LuaHooks, BatchEvalMetricsCallsComputeMetricsPerBatch) {
  auto recipe = load("batched", R"(local C, P = require "common", require "probe"
local x, y, ds = C.classification(10, 5)
P.x, P.y, P.flags, P.sizes = x, y, {}, {}
local correct, total = 0, 0
return {
  args = { output_dir = OUT, per_device_eval_batch_size = 4, batch_eval_metrics = true },
  datasets = { eval = ds },
  model = nn.Linear(4, 3),
  compute_loss = C.ce,
  compute_metrics = function(p, compute_result)
    table.insert(P.flags, compute_result)
    table.insert(P.sizes, p.predictions:size(0))
    correct = correct + p.predictions:argmax(-1):eq(p.label_ids):sum():item()
    total = total + p.label_ids:size(0)
    if not compute_result then return {} end
    local r = { accuracy = correct / total, total = total }
    correct, total = 0, 0
    return r
  end,
})");
  auto trainer = make_trainer(recipe);
  const json m = evaluate(*trainer);
  EXPECT_EQ(probe("P.flags"), json({false, false, true}));
  EXPECT_EQ(probe("P.sizes"), json({4, 4, 2}));
  const at::Tensor x = probe_tensor("P.x"), y = probe_tensor("P.y");
  const auto p = params(*recipe.model);
  const at::Tensor logits = at::linear(x, p.at("weight"), p.at("bias"));
  EXPECT_NEAR(m.at("eval_accuracy").get<double>(), logits.argmax(-1).eq(y).to(at::kDouble).mean().item<double>(), 1e-12);
  EXPECT_EQ(m.at("eval_total"), 10);
  EXPECT_TRUE(m.contains("eval_loss"));
  // A second evaluation starts over (the recipe reset its sums on compute_result).
  const json again = evaluate(*trainer);
  EXPECT_EQ(again.at("eval_total"), 10);
  EXPECT_EQ(probe("#P.flags"), 6);
}

TEST_F(LuaHooks, PreprocessLogitsForMetricsChangesWhatComputeMetricsSees) {
  std::string code = kEval;
  code.replace(code.find("  compute_metrics"), 0, R"(  preprocess_logits_for_metrics = function(logits, labels)
    P.pre = P.pre or {}
    table.insert(P.pre, { logits = logits, labels = labels })
    return logits:argmax(-1)
  end,
)");
  code.replace(code.find("p.predictions:argmax(-1):eq"), std::string("p.predictions:argmax(-1):eq").size(), "p.predictions:eq");
  auto recipe = load("pre", code);
  auto trainer = make_trainer(recipe);
  const json m = evaluate(*trainer);
  const at::Tensor x = probe_tensor("P.x"), y = probe_tensor("P.y");
  const Expected e = expected(*recipe.model, x, y);

  EXPECT_EQ(probe("#P.pre"), 2);  // once per batch
  EXPECT_TRUE(same(probe_tensor("P.pre[1].logits"), e.logits.narrow(0, 0, 4)));
  EXPECT_TRUE(at::equal(probe_tensor("P.pre[2].labels"), y.narrow(0, 4, 2)));
  const at::Tensor pred = probe_tensor("P.p.predictions");
  EXPECT_EQ(pred.sizes(), at::IntArrayRef({6}));
  EXPECT_EQ(pred.scalar_type(), at::kLong);
  EXPECT_TRUE(at::equal(pred, e.logits.argmax(-1)));
  EXPECT_NEAR(m.at("eval_accuracy").get<double>(), e.logits.argmax(-1).eq(y).to(at::kDouble).mean().item<double>(), 1e-12);
}

TEST_F(LuaHooks, PredictionStepReplacesTheDefault) {
  const std::string code = R"(local C, P = require "common", require "probe"
local x, y, ds = C.classification(6, 3)
P.x, P.y, P.flags = x, y, {}
return {
  args = { output_dir = OUT, per_device_eval_batch_size = 4 },
  datasets = { eval = ds },
  model = nn.Linear(4, 3),
  compute_loss = function(model, inputs) P.compute_loss_calls = (P.compute_loss_calls or 0) + 1 return C.ce(model, inputs) end,
  prediction_step = function(model, inputs, ctx)
    table.insert(P.flags, ctx.prediction_loss_only)
    return inputs.x:sum(), inputs.x * 2, inputs.labels + 1
  end,
  compute_metrics = function(p) P.p = p return { n = p.predictions:size(0) } end,
})";
  auto recipe = load("predstep", code);
  auto trainer = make_trainer(recipe);
  const json m = evaluate(*trainer);
  const at::Tensor x = probe_tensor("P.x"), y = probe_tensor("P.y");
  EXPECT_EQ(probe("P.flags"), json({false, false}));
  EXPECT_EQ(probe("P.compute_loss_calls"), nullptr);  // the default prediction step never ran
  EXPECT_TRUE(same(probe_tensor("P.p.predictions"), x * 2));
  EXPECT_TRUE(same(probe_tensor("P.p.label_ids"), y + 1));
  // eval_loss: the batch losses weighted by batch size (4 and 2 examples).
  const double sa = x.narrow(0, 0, 4).sum().item<double>(), sb = x.narrow(0, 4, 2).sum().item<double>();
  EXPECT_NEAR(m.at("eval_loss").get<double>(), (4 * sa + 2 * sb) / 6, 1e-5);
  EXPECT_EQ(m.at("eval_n"), 6);

  // prediction_loss_only = true reaches the hook (the reloaded recipe starts a new P.flags).
  auto loss_only = load("predstep_loss_only", code);
  loss_only.args.set("prediction_loss_only", true);
  auto t2 = make_trainer(loss_only);
  evaluate(*t2);
  EXPECT_EQ(probe("P.flags"), json({true, true}));
}

TEST_F(LuaHooks, NamedEvalDatasetsGetTheirOwnPrefix) {
  auto recipe = load("named", R"(local C, P = require "common", require "probe"
local xa, ya, a = C.classification(5, 1)
local xb, yb, b = C.classification(3, 2)
P.xa, P.ya, P.xb, P.yb = xa, ya, xb, yb
return {
  args = { output_dir = OUT, per_device_eval_batch_size = 8 },
  datasets = { eval = { a = a, b = b } },
  model = nn.Linear(4, 3),
  compute_loss = C.ce,
  compute_metrics = function(p) return { n = p.label_ids:size(0) } end,
})");
  auto trainer = make_trainer(recipe);
  const json m = evaluate(*trainer);
  const auto p = params(*recipe.model);
  for (const std::string name : {"a", "b"}) {
    const at::Tensor x = probe_tensor("P.x" + name), y = probe_tensor("P.y" + name);
    const double loss = at::cross_entropy_loss(at::linear(x, p.at("weight"), p.at("bias")), y).item<double>();
    EXPECT_NEAR(m.at("eval_" + name + "_loss").get<double>(), loss, 1e-5) << name;
    EXPECT_EQ(m.at("eval_" + name + "_n"), x.size(0));
  }
  EXPECT_FALSE(m.contains("eval_loss"));
  EXPECT_NE(m.at("eval_a_loss"), m.at("eval_b_loss"));
}

TEST_F(LuaHooks, HookErrorsAreHookErrorsAtTheRecipeLine) {
  const std::string code = R"(local C, P = require "common", require "probe"
local x, y, ds = C.classification(6, 3)
return {
  args = { output_dir = OUT, max_steps = 1, save_strategy = "no" },
  datasets = { train = ds, eval = ds },
  model = nn.Linear(4, 3),
  compute_loss = C.ce,
  compute_metrics = function(p)
    error("boom")
  end,
  create_optimizer = function(model, args)
    return 42
  end,
})";
  auto recipe = load("errs", code);
  auto trainer = make_trainer(recipe);
  const int top = lua_gettop(L());
  try {
    trainer->evaluate();
    ADD_FAILURE() << "compute_metrics's error was swallowed";
  } catch (const runner::HookError& e) {
    EXPECT_THAT(e.what(), HasSubstr("errs.lua:" + std::to_string(line_of(code, "error(\"boom\")")) + ": boom"));
    EXPECT_EQ(e.exit_code(), 2);
  }
  EXPECT_EQ(lua_gettop(L()), top);
  try {
    trainer->train();
    ADD_FAILURE() << "create_optimizer's result was accepted";
  } catch (const runner::HookError& e) {
    EXPECT_THAT(e.what(), HasSubstr("errs.lua:" + std::to_string(line_of(code, "create_optimizer ="))));
    EXPECT_THAT(e.what(), HasSubstr("create_optimizer: must return an optimizer table, got number"));
  }
  EXPECT_EQ(lua_gettop(L()), top);
}

TEST_F(LuaHooks, WronglyTypedFieldsOfHookResultsAreHookErrors) {
  const std::string base = R"(local C = require "common"
local x, y, ds = C.classification(6, 3)
return {
  args = { output_dir = OUT, max_steps = 1, save_strategy = "no", per_device_train_batch_size = 6 },
  datasets = { train = ds },
  model = nn.Linear(4, 3),
  compute_loss = C.ce,
  HOOK = function() return RESULT end,
})";
  const std::pair<const char*, const char*> cases[] = {
      {"create_optimizer", "{ type = 'sgd', lr = 'fast' }"},
      {"create_optimizer", "{ type = 'sgd', groups = { { match = 0 } } }"},
      {"create_optimizer", "{ type = 'sgd', groups = { { names = { 1 } } } }"},
      {"create_scheduler", "{ type = 'linear', warmup_steps = 'none' }"},
      {"create_scheduler", "{ type = 'constant_with_warmup', warmup = 2 }"},  // warmup_steps misspelt: not ignored
      {"compute_metrics", "{ accuracy = {} }"},
  };
  int i = 0;
  for (const auto& [hook, result] : cases) {
    std::string code = base;
    code.replace(code.find("HOOK"), 4, hook);
    code.replace(code.find("RESULT"), 6, result);
    auto recipe = load("typed" + std::to_string(++i), code);
    if (std::string(hook) == "compute_metrics") recipe.datasets.eval = recipe.datasets.train;
    auto trainer = make_trainer(recipe);
    const int top = lua_gettop(L());
    try {
      if (std::string(hook) == "compute_metrics") trainer->evaluate();
      else trainer->train();
      ADD_FAILURE() << hook << " accepted " << result;
    } catch (const runner::HookError& e) {
      EXPECT_THAT(e.what(), HasSubstr("typed" + std::to_string(i) + ".lua:" + std::to_string(line_of(code, hook))));
      EXPECT_THAT(e.what(), HasSubstr(hook));
    } catch (const std::exception& e) {
      ADD_FAILURE() << hook << " returning " << result << " threw a non-HookError: " << e.what();
    }
    EXPECT_EQ(lua_gettop(L()), top);
  }
}
