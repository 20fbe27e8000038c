// Acceptance: the training-side hooks and the callbacks a recipe can define, with HF
// Trainer semantics: training_step with its own ctx.backward, data_collator,
// create_optimizer (groups, options), create_scheduler (function, name, table),
// model_init, runner.callbacks.early_stopping, Lua callbacks steering the loop, and
// stateful callbacks in checkpoints. Expected values are computed here, independently.
#include <fstream>

#include "bindings/lua/lua_module.h"
#include "tests/bindings/hooks_fixture.h"

using ::testing::HasSubstr;
using json = nlohmann::json;
using LuaHooksTrain = runner::testing::HooksFixture;

namespace {

std::string with(std::string code, const std::string& placeholder, const std::string& text) {
  code.replace(code.find(placeholder), placeholder.size(), text);
  return code;
}

// 3 SGD steps of batch 4 × accumulation 2 (an epoch is 2 steps, so the data reshuffles).
const char* kSgd = R"(local C, P = require "common", require "probe"
local x, y, ds = C.classification(16, 7)
torch.manual_seed(11)
return {
  args = { output_dir = OUT, optim = "sgd", learning_rate = 0.5, max_steps = 3, per_device_train_batch_size = 4,
           gradient_accumulation_steps = 2, max_grad_norm = 0, lr_scheduler_type = "constant", save_strategy = "no" },
  datasets = { train = ds },
  model = nn.Linear(4, 3),
  HOOK
})";

}  // namespace

TEST_F(LuaHooksTrain, TrainingStepWithItsOwnBackwardTrainsLikeComputeLoss) {
  const std::pair<const char*, const char*> variants[] = {
      {"compute_loss", "compute_loss = C.ce,"},
      // two forward passes, two ctx.backward calls: halves of the micro-batch, each half the mean
      {"two_backwards", R"(training_step = function(model, inputs, ctx)
    P.two = (P.two or 0) + 1
    local h = inputs.x:size(0) / 2
    local a = F.cross_entropy(model(inputs.x:narrow(0, 0, h)), inputs.labels:narrow(0, 0, h)) * 0.5
    ctx.backward(a)
    local b = F.cross_entropy(model(inputs.x:narrow(0, h, h)), inputs.labels:narrow(0, h, h)) * 0.5
    ctx.backward(b)
    return a + b
  end,)"},
      // no ctx.backward: the runtime calls it
      {"runtime_backward", R"(training_step = function(model, inputs, ctx)
    P.runtime = (P.runtime or 0) + 1
    return (C.ce(model, inputs))
  end,)"},
      // already divided by num_items_in_batch: flagged before calling ctx.backward
      {"normalized", R"(training_step = function(model, inputs, ctx)
    ctx.loss_is_normalized = true
    local loss = F.cross_entropy(model(inputs.x), inputs.labels, { reduction = "sum" }) / ctx.num_items_in_batch
    ctx.backward(loss)
    return loss
  end,)"},
  };
  std::map<std::string, at::Tensor> reference;
  std::map<std::string, at::Tensor> initial;
  double reference_loss = 0;
  for (const auto& [name, hook] : variants) {
    SCOPED_TRACE(name);
    auto recipe = load(name, with(kSgd, "HOOK", hook));
    if (initial.empty()) initial = params(*recipe.model);
    auto trainer = make_trainer(recipe);
    const auto out = train(*trainer);
    ASSERT_EQ(out.global_step, 3);
    const auto final_params = params(trainer->model());
    if (reference.empty()) {
      reference = final_params, reference_loss = out.training_loss;
      for (const auto& [p, t] : reference) EXPECT_GT((t - initial.at(p)).abs().max().item<double>(), 1e-2) << p << " did not train";
      continue;
    }
    for (const auto& [p, t] : reference) EXPECT_LE(rel_diff(t, final_params.at(p)), 1e-6) << p;
    EXPECT_NEAR(out.training_loss, reference_loss, 1e-6 * reference_loss);
  }
  EXPECT_EQ(probe("P.two"), 6);  // 3 steps × 2 micro-batches went through each training_step
  EXPECT_EQ(probe("P.runtime"), 6);
}

TEST_F(LuaHooksTrain, CtxBackwardKeptPastItsTrainingStepIsAnError) {
  // ctx.backward belongs to one micro-step; called later it must not reach a stale context.
  auto recipe = load("stale", with(kSgd, "HOOK", R"(training_step = function(model, inputs, ctx)
    P.backward, P.model, P.inputs = ctx.backward, model, inputs
    return (C.ce(model, inputs))
  end,
  callbacks = { { on_step_begin = function() if P.backward then P.backward((C.ce(P.model, P.inputs))) end end } },)"));
  auto trainer = make_trainer(recipe);
  const int top = lua_gettop(L());
  try {
    trainer->train();
    ADD_FAILURE() << "a stale ctx.backward was accepted";
  } catch (const runner::HookError& e) {
    EXPECT_THAT(e.what(), HasSubstr("ctx.backward"));
  }
  EXPECT_EQ(lua_gettop(L()), top);
}

TEST_F(LuaHooksTrain, DataCollatorBuildsTheBatchComputeLossReceives) {
  auto recipe = load("collate", R"(local C, P = require "common", require "probe"
local x, y, ds = C.classification(9, 5)
P.x, P.collated, P.received = x, {}, {}
return {
  args = { output_dir = OUT, max_steps = 2, per_device_train_batch_size = 3, save_strategy = "no" },
  datasets = { train = ds },
  model = nn.Linear(4, 3),
  data_collator = function(examples)
    P.example = P.example or examples[1]
    local xs, ys = {}, {}
    for i, ex in ipairs(examples) do xs[i], ys[i] = ex.x, ex.labels end
    local batch = { x = torch.stack(xs), labels = torch.stack(ys), count = torch.full({#examples}, #examples) }
    table.insert(P.collated, batch)
    return batch
  end,
  compute_loss = function(model, inputs, ctx)
    table.insert(P.received, inputs)
    return C.ce(model, inputs)
  end,
})");
  auto trainer = make_trainer(recipe);
  train(*trainer);
  // Each example is a table of its fields (one row of the dataset).
  EXPECT_EQ(probe("P.example.x:dim()"), 1);
  EXPECT_EQ(probe("P.example.x:size(0)"), 4);
  EXPECT_EQ(probe("P.example.labels:dim()"), 0);
  ASSERT_EQ(probe("#P.collated"), 2);
  ASSERT_EQ(probe("#P.received"), 2);
  const at::Tensor x = probe_tensor("P.x");
  for (int b = 1; b <= 2; ++b) {
    const std::string i = std::to_string(b);
    const at::Tensor got = probe_tensor("P.received[" + i + "].x");
    EXPECT_TRUE(at::equal(got, probe_tensor("P.collated[" + i + "].x")));
    EXPECT_TRUE(at::equal(probe_tensor("P.received[" + i + "].labels"), probe_tensor("P.collated[" + i + "].labels")));
    EXPECT_TRUE(same(probe_tensor("P.received[" + i + "].count"), at::full({3}, 3.0)));  // the field the collator added
    ASSERT_EQ(got.size(0), 3);
    for (int64_t r = 0; r < 3; ++r)  // every row is one of the dataset's rows
      EXPECT_TRUE(x.eq(got[r]).all(1).any().item<bool>()) << "batch " << b << " row " << r;
  }
}

TEST_F(LuaHooksTrain, CreateOptimizerGroupsAndOptions) {
  auto recipe = load("optim", R"(local C, P = require "common", require "probe"
local x, y, ds = C.classification(8, 9)
P.x, P.y = x, y
torch.manual_seed(2)
return {
  args = { output_dir = OUT, max_steps = 3, per_device_train_batch_size = 8, max_grad_norm = 0,
           lr_scheduler_type = "constant", logging_steps = 1, save_strategy = "no" },
  datasets = { train = ds },
  model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 3)),
  compute_loss = C.ce,
  create_optimizer = function(model, args)
    P.args_lr = args.learning_rate
    return { type = "sgd", lr = 0.1, momentum = 0.9,
             groups = { { match = "^0\\.", lr = 0 }, { names = { "2.bias" }, lr = 0.05 } } }
  end,
})");
  const auto p0 = params(*recipe.model);
  auto trainer = make_trainer(recipe);
  train(*trainer);
  const auto p1 = params(trainer->model());
  EXPECT_EQ(probe("P.args_lr"), 5e-5);  // the hook receives the training arguments
  // lr = 0: the first layer did not move at all
  EXPECT_TRUE(at::equal(p1.at("0.weight"), p0.at("0.weight")));
  EXPECT_TRUE(at::equal(p1.at("0.bias"), p0.at("0.bias")));

  // SGD with momentum 0.9 on the second layer, lr 0.1 (weight) and 0.05 (bias), full batch.
  const at::Tensor x = probe_tensor("P.x"), y = probe_tensor("P.y");
  at::Tensor w = p0.at("2.weight").clone(), b = p0.at("2.bias").clone(), buf_w, buf_b;
  const at::Tensor h = at::relu(at::linear(x, p0.at("0.weight"), p0.at("0.bias")));
  for (int s = 0; s < 3; ++s) {
    at::Tensor wg = w.clone().requires_grad_(), bg = b.clone().requires_grad_();
    at::cross_entropy_loss(at::linear(h, wg, bg), y).backward();
    buf_w = s == 0 ? wg.grad().clone() : buf_w * 0.9 + wg.grad();
    buf_b = s == 0 ? bg.grad().clone() : buf_b * 0.9 + bg.grad();
    w = w - 0.1 * buf_w;
    b = b - 0.05 * buf_b;
  }
  EXPECT_TRUE(same(p1.at("2.weight"), w)) << p1.at("2.weight") << w;
  EXPECT_TRUE(same(p1.at("2.bias"), b)) << p1.at("2.bias") << b;
  EXPECT_GT((w - p0.at("2.weight")).abs().max().item<double>(), 1e-3);
  // HF logs the learning rate of param group 0: here the frozen group.
  const json& history = trainer->state().log_history;
  ASSERT_FALSE(history.empty());
  EXPECT_EQ(history[0].at("learning_rate"), 0.0);
}

// HF's order: the clipped gradient before the optimizer step, then model.zero_grad()
// (set_to_none) before on_step_end, so a callback there sees no gradient.
TEST_F(LuaHooksTrain, CallbacksSeeTheGradientBeforeTheOptimizerStepAndNoneAtTheStepsEnd) {
  auto recipe = load("grads", R"(local C, P = require "common", require "probe"
local x, y, ds = C.classification(8, 9)
P.x, P.y, P.pre, P.none_at_end = x, y, {}, {}
torch.manual_seed(2)
local model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 3))
return {
  args = { output_dir = OUT, max_steps = 2, per_device_train_batch_size = 8, max_grad_norm = 0,
           lr_scheduler_type = "constant", save_strategy = "no" },
  datasets = { train = ds },
  model = model,
  compute_loss = C.ce,
  callbacks = { {
    on_pre_optimizer_step = function(args, state, control) table.insert(P.pre, model[2].weight:grad():clone()) end,
    on_step_end = function(args, state, control) table.insert(P.none_at_end, model[2].weight:grad() == nil and 1 or 0) end,
  } },
})");
  const auto p0 = params(*recipe.model);
  auto trainer = make_trainer(recipe);
  train(*trainer);
  ASSERT_EQ(probe("#P.pre"), 2);
  const at::Tensor x = probe_tensor("P.x"), y = probe_tensor("P.y");
  at::Tensor w = p0.at("2.weight").clone().requires_grad_();
  at::cross_entropy_loss(at::linear(at::relu(at::linear(x, p0.at("0.weight"), p0.at("0.bias"))), w, p0.at("2.bias")), y).backward();
  EXPECT_TRUE(same(probe_tensor("P.pre[1]"), w.grad())) << probe_tensor("P.pre[1]") << w.grad();
  EXPECT_EQ(probe("P.none_at_end[1] + P.none_at_end[2]"), 2);
}

TEST_F(LuaHooksTrain, CreateOptimizerRejectsUnknownOptionsByName) {
  const std::string base = R"(local C = require "common"
local x, y, ds = C.classification(8, 9)
return {
  args = { output_dir = OUT, max_steps = 1, save_strategy = "no" },
  datasets = { train = ds },
  model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 3)),
  compute_loss = C.ce,
  create_optimizer = function(model, args) return SPEC end,
})";
  const std::pair<const char*, const char*> cases[] = {
      {"{ type = 'sgd', lr = 0.1, momentun = 0.9 }", "momentun"},
      {"{ type = 'sgd', groups = { { match = '^0\\\\.', lrr = 0 } } }", "lrr"},
      {"{ type = 'sgd', groups = { { match = '^0%.', lr = 0 } } }", "selects no parameters"},  // a Lua pattern is not a regex
      {"{ type = 'sgd', lr = -1 }", "create_optimizer: lr: must be a finite number >= 0, got -1"},  // gradient ascent
      {"{ type = 'sgd', lr = 1e39 }", "create_optimizer: lr: must be a finite number >= 0, got 1e+39"},
      {"{ type = 'sgd', weight_decay = -5 }", "create_optimizer: weight_decay: must be a finite number >= 0, got -5"},
      {"{ type = 'sgd', groups = { { match = '^0', lr = -2 } } }", "create_optimizer: group 1 lr: must be a finite number >= 0"},
      {"{ type = 'sgd', momentum = -1 }", "create_optimizer.momentum: must be >= 0"},
  };
  int i = 0;
  for (const auto& [spec, message] : cases) {
    auto recipe = load("unknown" + std::to_string(++i), with(base, "SPEC", spec));
    auto trainer = make_trainer(recipe);
    try {
      trainer->train();
      ADD_FAILURE() << spec << " was accepted";
    } catch (const runner::Error& e) {
      EXPECT_THAT(e.what(), HasSubstr(message));
      EXPECT_THAT(e.what(), HasSubstr("create_optimizer"));
    }
  }
}

TEST_F(LuaHooksTrain, CreateSchedulerDrivesTheLoggedLearningRate) {
  const std::string base = R"(local C, P = require "common", require "probe"
local x, y, ds = C.classification(8, 4)
P.lrs = {}
return {
  args = { output_dir = OUT, optim = "sgd", learning_rate = 0.1, max_steps = 4, per_device_train_batch_size = 2,
           logging_steps = 1, save_strategy = "no" },
  datasets = { train = ds },
  model = nn.Linear(4, 3),
  compute_loss = C.ce,
  create_scheduler = function(num_training_steps, args)
    P.n, P.base = num_training_steps, args.learning_rate
    return SCHEDULE
  end,
  callbacks = { { on_log = function(args, state, control, logs)
    if logs.learning_rate then table.insert(P.lrs, logs.learning_rate) end
  end } },
})";
  const std::pair<const char*, std::vector<double>> cases[] = {
      {"function(step) return 1 / (step + 1) end", {0.1, 0.1 / 2, 0.1 / 3, 0.1 / 4}},
      {"'constant'", {0.1, 0.1, 0.1, 0.1}},  // the args say linear
      {"{ type = 'polynomial', kwargs = { power = 2, lr_end = 0 } }", {0.1, 0.1 * 0.5625, 0.1 * 0.25, 0.1 * 0.0625}},
  };
  int i = 0;
  for (const auto& [schedule, want] : cases) {
    SCOPED_TRACE(schedule);
    run("require('probe').lrs = {}");
    auto recipe = load("sched" + std::to_string(++i), with(base, "SCHEDULE", schedule));
    auto trainer = make_trainer(recipe);
    train(*trainer);
    EXPECT_EQ(probe("P.n"), 4);
    EXPECT_EQ(probe("P.base"), 0.1);
    std::vector<double> logged;
    for (const auto& entry : trainer->state().log_history)
      if (entry.contains("learning_rate")) logged.push_back(entry["learning_rate"].get<double>());
    const json from_callback = probe("P.lrs");
    ASSERT_EQ(logged.size(), want.size());
    ASSERT_EQ(from_callback.size(), want.size());
    for (size_t s = 0; s < want.size(); ++s) {
      EXPECT_NEAR(logged[s], want[s], 1e-12) << "step " << s + 1;
      EXPECT_NEAR(from_callback[s].get<double>(), want[s], 1e-12) << "step " << s + 1;
    }
  }
}

TEST_F(LuaHooksTrain, ModelInitReplacesModelAndRunsOncePerTrain) {
  auto recipe = load("init", R"(local C, P = require "common", require "probe"
local x, y, ds = C.classification(8, 4)
P.inits = {}
return {
  args = { output_dir = OUT, max_steps = 2, per_device_train_batch_size = 4, save_strategy = "no" },
  datasets = { train = ds },
  model_init = function()
    local m = nn.Linear(4, 3)
    table.insert(P.inits, { model = m, weight = m.weight:detach():clone() })
    return m
  end,
  compute_loss = C.ce,
})");
  EXPECT_EQ(recipe.model, nullptr);
  EXPECT_EQ(probe("#P.inits"), 0);
  auto trainer = make_trainer(recipe);
  EXPECT_EQ(probe("#P.inits"), 0);  // not called before train()
  train(*trainer);
  EXPECT_EQ(probe("#P.inits"), 1);
  run("return require('probe').inits[1].model");
  EXPECT_EQ(runner::lua::test_module(L(), -1).get(), trainer->model_ptr().get());
  lua_pop(L(), 1);
  const auto first = params(trainer->model());
  EXPECT_FALSE(at::equal(first.at("weight"), probe_tensor("P.inits[1].weight")));  // it trained

  train(*trainer);
  EXPECT_EQ(probe("#P.inits"), 2);
  // Seeded with args.seed before model_init: the same fresh start, so the same result.
  EXPECT_TRUE(at::equal(probe_tensor("P.inits[1].weight"), probe_tensor("P.inits[2].weight")));
  EXPECT_TRUE(at::equal(params(trainer->model()).at("weight"), first.at("weight")));
}

TEST_F(LuaHooksTrain, EarlyStoppingStopsWhenTheMetricStopsImproving) {
  auto recipe = load("early", R"(local C, P = require "common", require "probe"
local callbacks = require "runner.callbacks"
local x, y, ds = C.classification(8, 4)
local scores = { 1, 2, 3, 3, 3, 3, 3, 3, 3, 3 }
P.evals = 0
return {
  args = { output_dir = OUT, max_steps = 10, per_device_train_batch_size = 2, eval_strategy = "steps", eval_steps = 1,
           metric_for_best_model = "score", save_strategy = "no" },
  datasets = { train = ds, eval = ds },
  model = nn.Linear(4, 3),
  compute_loss = C.ce,
  compute_metrics = function(p)
    P.evals = P.evals + 1
    return { score = scores[P.evals] }
  end,
  callbacks = { callbacks.early_stopping{ patience = 2 } },
})");
  auto trainer = make_trainer(recipe);
  train(*trainer);
  // Best at evaluation 3; evaluations 4 and 5 do not improve: patience 2 is used up.
  EXPECT_EQ(trainer->state().global_step, 5);
  EXPECT_EQ(trainer->state().max_steps, 10);
  EXPECT_EQ(probe("P.evals"), 5);
  EXPECT_EQ(trainer->state().best_metric.value_or(-1), 3.0);
}

TEST_F(LuaHooksTrain, CallbacksStopTrainingInPlaceOrByReturningControl) {
  const std::string base = R"(local C, P = require "common", require "probe"
local x, y, ds = C.classification(8, 4)
return {
  args = { output_dir = OUT, max_steps = 10, per_device_train_batch_size = 2, save_strategy = "no" },
  datasets = { train = ds },
  model = nn.Linear(4, 3),
  compute_loss = C.ce,
  callbacks = { { name = "Stopper", on_step_end = function(args, state, control)
    P.steps = state.global_step
    BODY
  end } },
})";
  // In place at step 2; by returning a new control table at step 3 (the passed one untouched).
  auto in_place = load("in_place", with(base, "BODY", "if state.global_step == 2 then control.should_training_stop = true end"));
  auto t1 = make_trainer(in_place);
  train(*t1);
  EXPECT_EQ(t1->state().global_step, 2);
  auto returned = load("returned", with(base, "BODY", R"(if state.global_step == 3 then
      local c = {}
      for k, v in pairs(control) do c[k] = v end
      c.should_training_stop = true
      return c
    end)"));
  auto t2 = make_trainer(returned);
  train(*t2);
  EXPECT_EQ(t2->state().global_step, 3);
  EXPECT_EQ(probe("P.steps"), 3);
  // A returned table changes only the flags it names: the stop the loop set at max_steps stays
  // (clearing the others trained on to the epoch's end, past max_steps).
  auto partial = load("partial", with(base, "BODY", "if state.global_step >= 9 then return { should_save = true } end"));
  auto t3 = make_trainer(partial);
  train(*t3);
  EXPECT_EQ(t3->state().global_step, 10);  // 4 steps an epoch: the third epoch would run to 12
  EXPECT_TRUE(std::filesystem::is_directory(partial.args.output_dir + "/checkpoint-9"));
  // A misspelt flag or another return value is an error, not a flag nobody reads.
  const std::pair<const char*, const char*> bad[] = {
      {"control.should_training_stopp = true", "Stopper.on_step_end: unknown control flag 'should_training_stopp'; did you mean 'should_training_stop'"},
      {"return { should_save = 1 }", "Stopper.on_step_end: control.should_save must be true or false, got a number"},
      {"return 5", "Stopper.on_step_end must return nil or a control table, got a number"}};
  int i = 0;
  for (const auto& [body, message] : bad) {
    auto recipe = load("bad_control" + std::to_string(++i), with(base, "BODY", body));
    auto trainer = make_trainer(recipe);
    try {
      trainer->train();
      ADD_FAILURE() << body << " was accepted";
    } catch (const runner::Error& e) {
      EXPECT_THAT(e.what(), HasSubstr(message));
    }
  }
}

TEST_F(LuaHooksTrain, StatefulCallbackIsCheckpointedAndRestoredOnlyWhenAsked) {
  const std::string code = R"(local C, P = require "common", require "probe"
local x, y, ds = C.classification(8, 4)
local count = 0
return {
  args = { output_dir = OUT, max_steps = 4, per_device_train_batch_size = 2, save_steps = 2 },
  datasets = { train = ds },
  model = nn.Linear(4, 3),
  compute_loss = C.ce,
  callbacks = { {
    name = "Counter",
    on_step_end = function(args, state, control) count = count + 1 end,
    on_train_end = function() P.final = count end,
    state = function() return { count = count, tag = "steps seen" } end,
    load_state = function(s) P.loaded = s.count; count = s.count end,
  } },
})";
  auto first = load("first", code);
  auto t1 = make_trainer(first);
  train(*t1);
  auto read_state = [](const std::string& path) {
    std::ifstream in(path);
    return json::parse(in);
  };
  const std::string ckpt2 = first.args.output_dir + "/checkpoint-2";
  const json s2 = read_state(ckpt2 + "/trainer_state.json");
  EXPECT_EQ(s2.at("stateful_callbacks").at("Counter").at("attributes"), json({{"count", 2}, {"tag", "steps seen"}}));
  const json s4 = read_state(first.args.output_dir + "/checkpoint-4/trainer_state.json");
  EXPECT_EQ(s4.at("stateful_callbacks").at("Counter").at("attributes").at("count"), 4);
  EXPECT_EQ(probe("P.final"), 4);
  EXPECT_EQ(probe("P.loaded"), nullptr);

  for (const bool restore : {true, false}) {
    SCOPED_TRACE(restore ? "restore" : "no restore");
    run("require('probe').loaded = nil");
    auto resumed = load(restore ? "restored" : "not_restored", code);
    resumed.args.set("resume_from_checkpoint", ckpt2);
    resumed.args.set("restore_callback_states_from_checkpoint", restore);
    auto t = make_trainer(resumed);
    train(*t);
    EXPECT_EQ(t->state().global_step, 4);
    EXPECT_EQ(probe("P.loaded"), restore ? json(2) : json(nullptr));
    EXPECT_EQ(probe("P.final"), restore ? 4 : 2);  // steps 3 and 4 counted on top of what was restored
  }
}

TEST_F(LuaHooksTrain, HooksRunWithoutALineHookAfterTheirFirstCall) {
  // A line hook keeps LuaJIT from compiling: only each function's first call is traced.
  // Recipes have no `debug` library: the probe gets a C function that reads the hook mask.
  run("return require 'probe'");
  lua_pushcfunction(L(), [](lua_State* L) -> int {
    lua_pushboolean(L, lua_gethookmask(L) != 0);
    return 1;
  });
  lua_setfield(L(), -2, "hooked_now");
  lua_pop(L(), 1);
  auto recipe = load("jit", with(kSgd, "HOOK", R"(compute_loss = function(model, inputs, ctx)
    P.hooked = P.hooked or {}
    P.hooked[#P.hooked + 1] = P.hooked_now()
    return C.ce(model, inputs)
  end,)"));
  auto trainer = make_trainer(recipe);
  train(*trainer);
  EXPECT_EQ(probe("P.hooked"), nlohmann::json({true, false, false, false, false, false}));
}

TEST_F(LuaHooksTrain, AnErrorInALaterTailCallNamesTheFunction) {
  // A failing tail call (`return F.mse_loss(...)`) leaves no frame to name its line; on the
  // first call the line hook knows it, later the function's definition is named.
  auto recipe = load("tail", with(kSgd, "HOOK", R"(compute_loss = function(model, inputs, ctx)
    P.n = (P.n or 0) + 1
    if P.n == 3 then return F.mse_loss(nil, inputs.labels) end
    return C.ce(model, inputs)
  end,)"));
  auto trainer = make_trainer(recipe);
  try {
    trainer->train();
    ADD_FAILURE() << "the failing hook was not reported";
  } catch (const runner::HookError& e) {
    EXPECT_THAT(e.what(), HasSubstr("tail.lua:9: in this function: "));
    EXPECT_THAT(e.what(), HasSubstr("expected a tensor, got nil"));
  }
}
