// runner merge-adapters ADAPTER_DIR OUT_DIR [--base_model DIR]: a peft LoRA adapter folder
// (runner's or peft's) merged into its base model, W + (α/r)·B·A per adapted layer, and
// written as a plain Hugging Face folder (model.safetensors + config.json) that transformers,
// runner generate and models.from_pretrained load without peft: peft's merge_and_unload +
// save_pretrained. The tokenizer files come along, so the folder is complete.
#include <filesystem>
#include <iostream>

#include "runtime/cli/commands.h"
#include "runtime/core/errors.h"
#include "runtime/io/atomic_file.h"
#include "runtime/io/safetensors.h"
#include "runtime/log/log.h"
#include "runtime/models/lora.h"
#include "runtime/models/saved_model.h"

namespace runner::cli {

namespace fs = std::filesystem;

int merge_adapters(const CommandLine& cl) {
  const std::string& adapters = cl.recipe;
  const std::string& out = cl.output;
  std::string base;
  const auto& a = cl.command_args;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == "--base_model" && i + 1 < a.size()) base = a[++i];
    else throw ArgumentError("runner merge-adapters: unknown argument \"" + a[i] + "\" (only --base_model DIR)", "command line");
  }
  if (!fs::is_directory(adapters) || !fs::exists(fs::path(adapters) / "adapter_config.json"))
    throw ArgumentError("runner merge-adapters: " + adapters + " is not an adapter folder (no adapter_config.json)", "command line");
  std::error_code ec;
  if (fs::exists(out) && !(fs::is_directory(out) && fs::is_empty(out, ec)))
    throw ArgumentError("runner merge-adapters: " + out + " exists and is not an empty folder: pick a new one", "command line");
  const models::ModulePtr model = models::load_adapter_folder(adapters, base);
  const std::string base_dir = model->lora()->base_model_name_or_path;
  const std::string config = model->hf_config_json();
  if (config.empty()) throw CheckpointError("the base model has no Hugging Face config to write", base_dir);

  io::StagedDir staged(out);  // all or nothing
  io::save_safetensors(staged.path() + "/model.safetensors", models::merged_state_dict(*model), {{"format", "pt"}});
  io::write_json_atomic(staged.path() + "/config.json", nlohmann::json::parse(config));
  std::vector<std::string> files = models::tokenizer_file_names();
  files.push_back("generation_config.json");
  for (const auto& f : files) {
    for (const std::string& from : {adapters, base_dir})
      if (fs::exists(fs::path(from) / f)) {
        fs::copy_file(fs::path(from) / f, fs::path(staged.path()) / f, fs::copy_options::overwrite_existing);
        break;
      }
  }
  io::fsync_dir(staged.path());
  staged.commit();
  std::cout << "merged " << model->lora()->adapted.size() << " LoRA layers of " << adapters << " into " << base_dir << ": wrote " << out
            << "\n";
  return 0;
}

}  // namespace runner::cli
