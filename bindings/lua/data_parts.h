// The pieces of `require "runner.data"`, split by concern across data.cpp (dataset userdata,
// in-memory and JSONL/CSV sources), data_sources.cpp (synthetic, IDX, text, token files,
// data.lua), data_transforms.cpp (map, filter, shuffle, select, split, text helpers) and
// data_collators.cpp (collator userdata). data.cpp's register/push functions call the rest.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "bindings/lua/lua_call.h"
#include "bindings/lua/lua_common.h"
#include "runtime/data/dataset.h"
#include "runtime/data/tokenizers/hf_tokenizer.h"

namespace runner::lua {

at::Tensor tensor_from_lua(lua_State* L, int idx, std::optional<at::ScalarType> dtype);  // torch_module.cpp

void add_source_functions(lua_State* L);    // into the module table on top of the stack
void add_dataset_methods(lua_State* L);     // into the dataset __index table on top of the stack
void register_collator_type(lua_State* L);
void add_collator_functions(lua_State* L);  // into the module table on top of the stack
void add_tokenizer_functions(lua_State* L);  // data.tokenizer (data_tokenizer.cpp)
// The tokenizer userdata at idx (data.tokenizer), or nullptr when it is something else.
std::shared_ptr<data::HfTokenizer> tokenizer_at(lua_State* L, int idx);
// The id of the tokenizer folder's `key` token (tokenizer_config.json's pad_token, mask_token,
// ...), else of the first of `defaults` the tokenizer has as a special added token; -1 when none.
int64_t special_token_id(const data::HfTokenizer& t, const char* key, std::initializer_list<const char*> defaults);
// What data.sft, data.qa_features and data.preference read their rows from: path = "file" or
// dataset = <a data.parquet/arrow/hf_dataset> (one of them), and tokenizer = data.tokenizer(...)
// or its tokenizer.json path (required). `o` is the call's options table (argument 1);
// RecipeError starting with o's function name.
// The option `tokenizer` (a data.tokenizer or its tokenizer.json path) of the options table at
// argument 1; RecipeError starting with `fn` when absent (data_sft.cpp).
std::shared_ptr<data::HfTokenizer> tokenizer_option(lua_State* L, Options& o, const std::string& fn);
// transformers' tokenizer.eos_token_id: the folder's tokenizer_config.json eos_token; -1 when none
// (data_tokenizer.cpp).
int64_t config_eos_token_id(const data::HfTokenizer& t);
struct RowSource {
  std::string path;
  data::DatasetPtr dataset;
  std::shared_ptr<data::HfTokenizer> tokenizer;
};
RowSource row_source(lua_State* L, Options& o, const std::string& fn, const char* example_file);  // data_sft.cpp
// The eos_token option: given, else the folder's tokenizer_config.json's (TRL appends it to every
// text completion); RecipeError when the tokenizer has no such token (data_sft.cpp).
std::string eos_token_option(Options& o, const data::HfTokenizer& tok, const std::string& fn);
int d_sft(lua_State* L);  // data.sft (data_sft.cpp)
void add_qa_functions(lua_State* L);  // data.qa_features, data.qa_predictions, data.qa_metrics (data_qa.cpp)
void add_preference_functions(lua_State* L);  // data.preference, data.preference_collator (data_preference.cpp)
void add_arrow_source_functions(lua_State* L);  // data.parquet, data.arrow, data.hf_dataset (data_arrow.cpp)
// Example `e` (row `index` of `ds`) as a Lua table: its tensors, and ds's text fields (strings,
// tables) for that row (data_arrow.cpp).
void push_row(lua_State* L, const data::Dataset& ds, const data::Example& e, int64_t index);

// A recipe's Lua function used by a dataset (data.lua, ds:map, ds:filter). It runs on the
// thread that owns the Lua state, so datasets using it report thread_safe() == false.
// Errors inside it come back as DataErrors carrying its file:line.
class LuaDataFunction {
 public:
  LuaDataFunction(lua_State* L, int idx, std::string what);  // what: "data.lua", "map", ...
  // Calls fn with the values `push_args` pushes; returns the example fn returned, or, with
  // `truthy`, whether its result was truthy (example then empty).
  template <class PushArgs>
  data::Example call(PushArgs push_args, int nargs, bool* truthy = nullptr) const;
  const std::string& where() const { return defined_; }
  // Reads the first examples of `ds` (whose examples this function makes) to learn each
  // field's dtype, as datasets infers a column's type from its first writer batch: a field
  // whole in some of them and fractional in others is float32. Later examples keep it.
  void learn_dtypes(const data::Dataset& ds) const;
  static constexpr int64_t kDtypeExamples = 16;

 private:
  lua_State* state() const;  // DataError once the Lua state is closed
  data::Example result_to_example(lua_State* L) const;  // the value on top of the stack
  at::Tensor with_field_dtype(const std::string& key, const at::Tensor& v) const;
  void call_raw(int nargs) const;
  std::shared_ptr<LuaRef> ref_;
  std::string what_, defined_;
  // Each field's dtype: Lua has one number type, so a field whose values happen to be whole
  // in one example would otherwise be int64 there and float32 in the next, and fail in the
  // model's step far from here. Settled once learn_dtypes has read the first examples.
  struct Dtypes {
    std::map<std::string, at::ScalarType> of;
    bool settled = false;
  };
  std::shared_ptr<Dtypes> dtypes_ = std::make_shared<Dtypes>();
};

template <class PushArgs>
data::Example LuaDataFunction::call(PushArgs push_args, int nargs, bool* truthy) const {
  lua_State* L = state();
  StackScope scope(L);
  ref_->push();
  push_args(L);
  call_raw(nargs);
  if (truthy) {
    *truthy = lua_toboolean(L, -1) != 0;
    return {};
  }
  return result_to_example(L);
}

}  // namespace runner::lua
