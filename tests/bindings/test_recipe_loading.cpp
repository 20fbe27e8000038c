#include <gmock/gmock.h>

#include "bindings/lua/recipe.h"
#include "tests/bindings/lua_fixture.h"

using runner::testing::LuaFixture;
using ::testing::HasSubstr;

namespace {

class RecipeLoading : public LuaFixture {
 protected:
  std::string load_error(const std::string& code) {
    const auto path = write("recipe" + std::to_string(++n_) + ".lua", code);
    try {
      runner::lua::load_recipe(*lua_, path);
    } catch (const runner::Error& e) {
      EXPECT_EQ(e.exit_code(), 2);
      return e.what();
    }
    return "";
  }
  runner::lua::Recipe load(const std::string& code) {
    return runner::lua::load_recipe(*lua_, write("recipe" + std::to_string(++n_) + ".lua", code));
  }
};

const char* kGood = R"(local data = require "runner.data"
return {
  args = { learning_rate = 0.01, num_train_epochs = 2 },
  datasets = { train = data.table{ {x = {1.0, 2.0}, labels = 1}, {x = {0.5, 1.0}, labels = 0} } },
  model = nn.Linear(2, 2),
  input_name = "x",
  compute_loss = function(model, inputs, ctx) return F.cross_entropy(model(inputs.x), inputs.labels) end,
  callbacks = { { name = "Mine", on_log = function() end } },
})";

}  // namespace

TEST_F(RecipeLoading, AGoodRecipeBecomesCppValues) {
  auto r = load(kGood);
  EXPECT_DOUBLE_EQ(r.args.learning_rate, 0.01);
  EXPECT_DOUBLE_EQ(r.args.num_train_epochs, 2);
  EXPECT_EQ(r.args.per_device_train_batch_size, 8);  // untouched defaults
  ASSERT_TRUE(r.datasets.train);
  EXPECT_EQ(r.datasets.train->size(), 2);
  EXPECT_EQ(r.datasets.train->get(0).at("labels").scalar_type(), at::kLong);
  EXPECT_EQ(r.datasets.train->get(0).at("x").scalar_type(), at::kFloat);
  EXPECT_FALSE(r.datasets.eval);
  EXPECT_EQ(r.model->type_name(), "Linear");
  EXPECT_EQ(r.input_name, "x");
  ASSERT_EQ(r.callbacks.size(), 1u);
  EXPECT_EQ(r.callbacks[0]->name(), "Mine");
}

TEST_F(RecipeLoading, UnknownArgumentIsLocatedWithSuggestion) {
  EXPECT_THAT(load_error("return {\n  model = nn.Linear(1, 1),\n  args = {\n    lerning_rate = 0.1,\n  },\n}"),
              HasSubstr(".lua:4: args.lerning_rate: unknown argument; did you mean 'learning_rate'?"));
}

// A config key the model type's transformers class does not read is refused, not ignored.
TEST_F(RecipeLoading, LlamaKeysTheModelTypeDoesNotReadAreRefused) {
  const std::string sizes = "vocab_size = 16, hidden_size = 8, intermediate_size = 16, num_hidden_layers = 1, num_attention_heads = 2";
  const auto model = [&](const std::string& extra) {
    return load_error("local models = require 'runner.models'\nreturn { model = models.llama{ " + sizes + extra + " } }");
  };
  EXPECT_THAT(model(", model_type = 'mistral', attention_bias = true"),
              HasSubstr(":2: models.llama: model_type mistral does not take 'attention_bias' (Mistral has no biases"));
  EXPECT_THAT(model(", sliding_window = 4"), HasSubstr("model_type llama does not take 'sliding_window'"));
  EXPECT_THAT(model(", model_type = 'qwen2', mlp_bias = true"), HasSubstr("model_type qwen2 does not take 'mlp_bias'"));
  EXPECT_EQ(model(", model_type = 'mistral', sliding_window = 4"), "");
  EXPECT_EQ(model(", model_type = 'qwen2', use_sliding_window = true, sliding_window = 4, max_window_layers = 0"), "");
  EXPECT_THAT(model(", model_type = 'qwen3', mlp_bias = true"), HasSubstr("model_type qwen3 does not take 'mlp_bias'"));
  EXPECT_THAT(model(", query_pre_attn_scalar = 8"), HasSubstr("'query_pre_attn_scalar' is a key of model_type gemma3_text (Gemma3TextConfig), not of llama"));
  EXPECT_THAT(model(", model_type = 'gemma3_text', hidden_act = 'silu'"), HasSubstr("model_type gemma3_text does not take 'hidden_act'"));
  EXPECT_THAT(model(", model_type = 'gemma3_text', final_logit_softcapping = 30.0"),
              HasSubstr("final_logit_softcapping is not supported (Gemma 2's soft-capping; Gemma 3 has none)"));
  EXPECT_EQ(model(", model_type = 'gemma3_text', head_dim = 4, query_pre_attn_scalar = 4, sliding_window = 2, sliding_window_pattern = 2"), "");
}

// A JSONL of sentences not yet tokenized would give empty batches.
TEST_F(RecipeLoading, ADatasetOfTextFieldsOnlyIsRefused) {
  write("t.jsonl", "{\"text\": \"good\", \"label\": \"pos\"}\n");
  EXPECT_THAT(load_error("local data, recipe = require 'runner.data', require 'runner.recipe'\n"
                         "return { model = nn.Linear(1, 1),\n  datasets = {\n train = data.jsonl(recipe.path('t.jsonl')) } }"),
              HasSubstr(".lua:4: datasets.train has no tensor fields, only text fields (label, text): turn them into tensors with ds:map"));
}

TEST_F(RecipeLoading, WrongTypeIsLocated) {
  EXPECT_THAT(load_error("return { model = nn.Linear(1, 1),\n args = { num_train_epochs = 'three' } }"),
              HasSubstr(".lua:2: args.num_train_epochs: expected a number, got \"three\""));
}

TEST_F(RecipeLoading, UnknownRecipeFieldSuggests) {
  EXPECT_THAT(load_error("return { model = nn.Linear(1, 1),\n  compute_los = function() end }"),
              HasSubstr(".lua:2: unknown recipe field 'compute_los'; did you mean 'compute_loss'?"));
  EXPECT_THAT(load_error("return { model = nn.Linear(1, 1), datasets = { trian = 1 } }"), HasSubstr("did you mean 'train'?"));
  // one callback table given as the list: its events would never fire
  EXPECT_THAT(load_error("return { model = nn.Linear(1, 1),\n  callbacks = {\n on_train_end = function() end } }"),
              HasSubstr(".lua:3: callbacks must be a list of callback tables, got a key 'on_train_end' (wrap the table: "
                        "callbacks = {{on_train_end = ...}})"));
  EXPECT_EQ(load_error("return { model = nn.Linear(1, 1), callbacks = { { on_train_end = function() end } } }"), "");
}

TEST_F(RecipeLoading, BadShapesOfTheTable) {
  EXPECT_THAT(load_error("return 42"), HasSubstr("the recipe must return a table, got number"));
  EXPECT_THAT(load_error("return { model = 3 }"), HasSubstr("model must be a module"));
  EXPECT_THAT(load_error("return { datasets = { train = {} } }"), HasSubstr("datasets.train must be a dataset"));
  EXPECT_THAT(load_error("return { compute_loss = 1 }"), HasSubstr("compute_loss must be a function"));
  EXPECT_THAT(load_error("return { callbacks = { { on_step_ned = function() end } } }"),
              HasSubstr("unknown event 'on_step_ned'; did you mean 'on_step_end'?"));
}

TEST_F(RecipeLoading, MissingDataFileNamesRecipeLineAndFile) {
  const std::string msg = load_error("local data = require 'runner.data'\n\nlocal train = data.jsonl('/no/such/train.jsonl')\nreturn {}");
  EXPECT_THAT(msg, HasSubstr(".lua:3: /no/such/train.jsonl: cannot open: No such file or directory"));
}

TEST_F(RecipeLoading, RuntimeErrorInTheRecipeBody) {
  EXPECT_THAT(load_error("local t = nil\nreturn { x = t.y }"), HasSubstr(".lua:2: attempt to index local 't'"));
}

class RecipeWithStrayOption : public RecipeLoading {
 protected:
  void SetUp() override {
    options_ = {{"lerning_rate", "0.1"}};
    RecipeLoading::SetUp();
  }
};

TEST_F(RecipeWithStrayOption, UndeclaredCommandLineNameSuggestsAnArgument) {
  EXPECT_THAT(load_error("return { model = nn.Linear(1, 1) }"),
              HasSubstr("command line: --lerning_rate: unknown argument; did you mean 'learning_rate'?"));
}
