// runner generate MODEL_DIR|RECIPE.lua --prompt TEXT [...]: text from a causal language model
// on the command line, as transformers' text-generation pipeline gives it (prompt followed by
// the continuation). A Hugging Face folder brings its tokenizer.json and generation_config.json
// (the defaults the flags override); a recipe brings its model, with the trained weights of
// its output_dir when there are some, and needs --tokenizer unless tokenizer.json sits next
// to it. The model runs on cuda:0 when a GPU is visible (--device cpu | cuda | cuda:N).
#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "bindings/lua/lua_state.h"
#include "bindings/lua/recipe.h"
#include "runtime/cli/commands.h"
#include "runtime/cli/stdout_to_stderr.h"
#include "runtime/core/did_you_mean.h"
#include "runtime/core/errors.h"
#include "runtime/data/tokenizers/hf_tokenizer.h"
#include "runtime/io/safetensors.h"
#include "runtime/log/log.h"
#include "runtime/models/generation.h"
#include "runtime/models/lora.h"
#include "runtime/models/pretrained.h"
#include "runtime/models/saved_model.h"
#include "runtime/device/device.h"

namespace runner::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

double number_arg(const std::string& name, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v)) throw ArgumentError("--" + name + " takes a number, got \"" + text + "\"", "command line");
  return v;
}

int64_t int_arg(const std::string& name, const std::string& text) {
  const double v = number_arg(name, text);
  if (v != std::floor(v) || std::fabs(v) > 1e15) throw ArgumentError("--" + name + " takes an integer, got \"" + text + "\"", "command line");
  return static_cast<int64_t>(v);
}

struct GenerateArgs {
  std::vector<std::string> prompts;
  std::string tokenizer;
  std::string device;  // "" → cuda:0 when a GPU is visible, else the CPU
  int64_t seed = 42;
  std::vector<std::pair<std::string, std::string>> overrides;  // applied after the model's defaults
  bool do_sample_given = false;
};

GenerateArgs parse(const std::vector<std::string>& a) {
  static const std::vector<std::string> kValued = {"prompt", "tokenizer", "seed", "max_new_tokens", "temperature", "top_k",
                                                   "top_p", "num_beams", "length_penalty", "do_sample", "device"};
  GenerateArgs g;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string position = "command line:" + std::to_string(i + 3);
    if (a[i].rfind("--", 0) != 0) throw ArgumentError("expected --name value, got \"" + a[i] + "\"", position);
    const std::string name = a[i].substr(2);
    if (std::find(kValued.begin(), kValued.end(), name) == kValued.end())
      throw ArgumentError("unknown argument --" + name + " for runner generate" + did_you_mean(name, kValued), position);
    const bool has_value = i + 1 < a.size() && a[i + 1].rfind("--", 0) != 0;
    if (name == "do_sample" && !has_value) {
      g.overrides.emplace_back("do_sample", "true");
      continue;
    }
    if (!has_value) throw ArgumentError("--" + name + " needs a value", position);
    const std::string value = a[++i];
    if (name == "prompt") g.prompts.push_back(value);
    else if (name == "tokenizer") g.tokenizer = value;
    else if (name == "device") g.device = value;
    else if (name == "seed") g.seed = int_arg(name, value);
    else g.overrides.emplace_back(name, value);
  }
  if (g.prompts.empty()) throw ArgumentError("runner generate needs at least one --prompt TEXT", "command line");
  return g;
}

// --device: as the Trainer places models (cuda:0 when a GPU is visible), or as given.
at::Device generation_device(const std::string& name) {
  if (name.empty()) return device::cuda_available() ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU);
  std::optional<at::Device> d;
  try {
    d = at::Device(name);
  } catch (const c10::Error&) {
  }
  if (!d || !(d->is_cpu() || d->is_cuda()))
    throw ArgumentError("--device takes cpu, cuda or cuda:N, got \"" + name + "\"", "command line");
  if (d->is_cuda() && !device::cuda_available()) throw ArgumentError("--device " + name + ": no GPU is visible", "command line");
  if (d->is_cuda() && d->has_index() && d->index() >= device::cuda_device_count())
    throw ArgumentError("--device " + name + ": only " + std::to_string(device::cuda_device_count()) + " GPU(s) are visible", "command line");
  return *d;
}

void apply_overrides(const GenerateArgs& a, models::GenerationConfig& g) {
  for (const auto& [name, value] : a.overrides) {
    if (name == "do_sample") {
      if (value != "true" && value != "false") throw ArgumentError("--do_sample takes true or false, got \"" + value + "\"", "command line");
      g.do_sample = value == "true";
    } else if (name == "max_new_tokens") g.max_new_tokens = int_arg(name, value);
    else if (name == "temperature") g.temperature = number_arg(name, value);
    else if (name == "top_k") g.top_k = int_arg(name, value);
    else if (name == "top_p") g.top_p = number_arg(name, value);
    else if (name == "num_beams") g.num_beams = int_arg(name, value);
    else if (name == "length_penalty") g.length_penalty = number_arg(name, value);
  }
}

}  // namespace

int generate(const CommandLine& cl) {
  const GenerateArgs a = parse(cl.command_args);
  StdoutToStderr quiet_stdout(true);  // stdout carries the generated text only
  const fs::path target(cl.recipe);
  models::ModulePtr model;
  fs::path tokenizer_path = a.tokenizer;
  std::unique_ptr<lua::LuaState> lua;  // keeps a recipe's Lua modules alive while generating
  if (fs::is_directory(target)) {
    model = models::from_pretrained(target.string());
    // A peft adapter folder often holds no tokenizer: its base model's then.
    fs::path files = target;
    if (model->lora() && !fs::exists(target / "tokenizer.json")) files = model->lora()->base_model_name_or_path;
    if (tokenizer_path.empty()) tokenizer_path = files / "tokenizer.json";
  } else if (target.extension() == ".lua") {
    lua = std::make_unique<lua::LuaState>(std::map<std::string, std::string>{}, lua::default_lib_dirs());
    lua::Recipe recipe = lua::load_recipe(*lua, target.string());
    model = recipe.model;
    const std::string weights = models::weights_file_name(*model), trained = recipe.args.output_dir + "/" + weights;
    if (fs::exists(trained)) {
      const auto report = models::load_saved_weights(*model, recipe.args.output_dir);
      if (!report.missing.empty() || !report.unexpected.empty())
        throw CheckpointError("does not fit the recipe's model (" + (report.missing.empty() ? "unexpected " + report.unexpected.front() : "missing " + report.missing.front()) + ")", trained);
      log::info("generate: the trained weights of " + trained);
    } else {
      log::info("generate: " + recipe.args.output_dir + " has no " + weights + " yet: the recipe's model as built");
    }
    if (tokenizer_path.empty()) tokenizer_path = target.parent_path() / "tokenizer.json";
  } else {
    throw ArgumentError("runner generate: \"" + cl.recipe + "\" is neither a model folder nor a .lua recipe", "command line");
  }
  if (!fs::exists(tokenizer_path))
    throw ArgumentError("runner generate: no tokenizer at " + tokenizer_path.string() + " (give --tokenizer tokenizer.json)", "command line");
  const auto tokenizer = data::HfTokenizer::load(tokenizer_path.string());

  model->to(generation_device(a.device));
  models::GenerationConfig g = models::generation_defaults(*model);  // config.json, then generation_config.json
  apply_overrides(a, g);
  at::manual_seed(static_cast<uint64_t>(a.seed));

  // Prompts of different lengths: left padding with a mask, as HF's pipeline batches them.
  std::vector<std::vector<int64_t>> encoded;
  int64_t longest = 0;
  for (const auto& p : a.prompts) {
    encoded.push_back(tokenizer->encode(p));
    if (encoded.back().empty()) throw ArgumentError("runner generate: a prompt encodes to no tokens", "command line");
    longest = std::max<int64_t>(longest, static_cast<int64_t>(encoded.back().size()));
  }
  const int64_t pad = g.pad_token_id >= 0 ? g.pad_token_id : (g.eos_token_id.empty() ? 0 : g.eos_token_id[0]);
  const int64_t b = static_cast<int64_t>(encoded.size());
  at::Tensor ids = at::full({b, longest}, pad, at::kLong), mask = at::zeros({b, longest}, at::kLong);
  for (int64_t r = 0; r < b; ++r) {
    const auto& e = encoded[static_cast<size_t>(r)];
    const int64_t n = static_cast<int64_t>(e.size());
    ids[r].narrow(0, longest - n, n).copy_(at::tensor(e, at::kLong));
    mask[r].narrow(0, longest - n, n).fill_(1);
  }
  const at::Tensor out = models::generate(*model, ids, mask, g);
  quiet_stdout.restore();
  for (int64_t r = 0; r < b; ++r) {
    const at::Tensor fresh = out[r].narrow(0, longest, out.size(1) - longest).to(at::kCPU).contiguous();
    std::vector<int64_t> new_ids(fresh.data_ptr<int64_t>(), fresh.data_ptr<int64_t>() + fresh.numel());
    // Tokens after a row's end token are padding.
    for (size_t k = 0; k < new_ids.size(); ++k)
      if (std::find(g.eos_token_id.begin(), g.eos_token_id.end(), new_ids[k]) != g.eos_token_id.end()) {
        new_ids.resize(k + 1);
        break;
      }
    // As HF's pipeline: decode prompt + continuation together (SentencePiece decoders treat a
    // sequence's first token specially) and keep what follows the decoded prompt.
    const auto& prompt_ids = encoded[static_cast<size_t>(r)];
    std::vector<int64_t> all = prompt_ids;
    all.insert(all.end(), new_ids.begin(), new_ids.end());
    const std::string full = tokenizer->decode(all, /*skip_special_tokens=*/true);
    const size_t prompt_chars = tokenizer->decode(prompt_ids, /*skip_special_tokens=*/true).size();
    std::cout << a.prompts[static_cast<size_t>(r)] << full.substr(std::min(prompt_chars, full.size())) << "\n";
    if (r + 1 < b) std::cout << "\n";
  }
  std::cout.flush();
  return 0;
}

}  // namespace runner::cli
