#include "runtime/models/pretrained.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include <ATen/CPUGeneratorImpl.h>
#include <c10/core/GradMode.h>
#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"
#include "runtime/core/text.h"
#include "runtime/io/safetensors.h"
#include "runtime/models/batch_inputs.h"
#include "runtime/models/bert_config.h"
#include "runtime/models/builtin.h"
#include "runtime/models/gpt_config.h"
#include "runtime/models/parameter_store.h"
#include "runtime/models/llama_config.h"
#include "runtime/models/lora.h"
#include "runtime/models/saved_model.h"

namespace runner::models {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string key_list(const std::vector<std::string>& keys) {
  std::string s;
  const size_t shown = std::min<size_t>(keys.size(), 10);
  for (size_t i = 0; i < shown; ++i) s += (i ? ", " : "") + keys[i];
  if (keys.size() > shown) s += ", … (" + std::to_string(keys.size()) + " in all)";
  return s;
}

// The strict-loading error both loaders raise: every missing and unexpected key at once.
void refuse_key_differences(const std::vector<std::string>& missing, const std::vector<std::string>& unexpected, const std::string& where) {
  if (missing.empty() && unexpected.empty()) return;
  std::string msg;
  if (!missing.empty()) msg += "missing keys: " + key_list(missing);
  if (!unexpected.empty()) msg += std::string(msg.empty() ? "" : "; ") + "unexpected keys: " + key_list(unexpected);
  throw CheckpointError(msg + " (strict loading; pass strict = false to load the rest)", where);
}

// Module::load_state_dict, with every shape mismatch reported at once and tied aliases
// (a key whose tensor is also under a key the file has) not counted as missing.
Module::LoadReport load_named(Module& model, const io::NamedTensors& tensors, const std::string& where, bool strict) {
  const NamedTensorList own = model.state_dict();
  std::map<std::string, at::Tensor> own_by_name(own.begin(), own.end());
  std::vector<std::string> mismatched;
  std::set<const void*> loaded;  // TensorImpls the file gives a value for
  for (const auto& [name, t] : tensors) {
    auto it = own_by_name.find(name);
    if (it == own_by_name.end()) continue;
    if (!t.sizes().equals(it->second.sizes()))
      mismatched.push_back(name + " (file " + shape_string(t.sizes()) + ", model " + shape_string(it->second.sizes()) + ")");
    loaded.insert(it->second.unsafeGetTensorImpl());
  }
  if (!mismatched.empty())
    throw CheckpointError("shape mismatch for " + std::to_string(mismatched.size()) + " key(s): " + key_list(mismatched), where);
  Module::LoadReport report;
  try {
    report = model.load_state_dict(tensors, /*strict=*/false);
  } catch (const CheckpointError& e) {
    throw CheckpointError(e.message(), where);
  }
  std::vector<std::string> missing;
  for (const auto& name : report.missing)
    if (!loaded.count(own_by_name.at(name).unsafeGetTensorImpl())) missing.push_back(name);
  report.missing = std::move(missing);
  if (strict) refuse_key_differences(report.missing, report.unexpected, where);
  return report;
}

json read_config(const fs::path& dir) {
  const fs::path path = dir / "config.json";
  std::ifstream in(path);
  if (!in) throw CheckpointError("no config.json (a Hugging Face model folder needs config.json and model.safetensors)", dir.string());
  json config = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded() || !config.is_object()) throw CheckpointError("config.json is not a JSON object", path.string());
  // Quantized weights (bitsandbytes, GPTQ, AWQ, FP8) are packed differently: refuse by name
  // rather than fail later on missing keys or read packed integers as weights.
  if (auto q = config.find("quantization_config"); q != config.end() && !q->is_null()) {
    const std::string method = q->is_object() ? q->value("quant_method", std::string("unknown")) : "unknown";
    throw CheckpointError("quantized checkpoints are not supported (quantization_config, quant_method \"" + method +
                              "\"); use the unquantized model's folder",
                          path.string());
  }
  return config;
}

// A tensor in a model folder's files: which file, and its name there.
struct FileTensor {
  std::shared_ptr<const io::SafetensorsFile> file;
  std::string name;
};
using FileTensors = std::vector<std::pair<std::string, FileTensor>>;  // model name → where

// Every tensor of model.safetensors, or of the shards listed by model.safetensors.index.json
// (headers only: the values stay in the files until they are loaded).
FileTensors weight_files(const fs::path& dir) {
  std::vector<std::string> files;
  if (fs::exists(dir / "model.safetensors")) {
    files.push_back((dir / "model.safetensors").string());
  } else if (const fs::path index = dir / "model.safetensors.index.json"; fs::exists(index)) {
    std::ifstream in(index);
    json j = json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.contains("weight_map") || !j["weight_map"].is_object())
      throw CheckpointError("no \"weight_map\" object", index.string());
    std::set<std::string> names;
    for (const auto& [name, file] : j["weight_map"].items())
      if (file.is_string()) names.insert(file.get<std::string>());
    for (const auto& f : names) files.push_back((dir / f).string());
  } else if (fs::exists(dir / "pytorch_model.bin")) {
    throw CheckpointError("only safetensors weights can be loaded, this folder has pytorch_model.bin (convert it with "
                          "safetensors.torch.save_file(torch.load(...), \"model.safetensors\"))",
                          dir.string());
  } else {
    throw CheckpointError("no model.safetensors", dir.string());
  }
  FileTensors all;
  for (const auto& f : files) {
    auto file = std::make_shared<const io::SafetensorsFile>(f);
    for (const auto& name : file->names()) all.emplace_back(name, FileTensor{file, name});
  }
  return all;
}

// Hub checkpoints name GPT2Model's tensors ("h.0.attn.c_attn.weight"), carry the causal
// mask buffers, and often omit the tied lm_head: bring them to GPT2LMHeadModel's names
// (GPT2ForSequenceClassification's: score, and no lm_head).
FileTensors hf_gpt2_names(FileTensors tensors, const std::string& where, bool classifier) {
  FileTensors out;
  std::optional<FileTensor> head;
  for (auto& [name, t] : tensors) {
    if (ends_with(name, ".attn.bias") || ends_with(name, ".attn.masked_bias")) continue;
    if (name == "lm_head.weight") {
      if (!classifier) head = t;  // a classifier made from the LM has none (transformers drops it)
      continue;
    }
    if (name == "score.weight") out.emplace_back(name, t);  // GPT2ForSequenceClassification's head
    else out.emplace_back(name.rfind("transformer.", 0) == 0 ? name : "transformer." + name, t);
  }
  if (head) {
    for (const auto& [name, t] : out)
      if (name == "transformer.wte.weight") {
        // Compared piece by piece: no rank holds two whole embeddings for the check.
        const std::vector<int64_t> shape = t.file->shape(t.name);
        bool same = shape == head->file->shape(head->name);
        const int64_t n = std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<int64_t>());
        for (int64_t b = 0; same && b < n; b += int64_t{1} << 22) {
          const int64_t k = std::min(int64_t{1} << 22, n - b);
          const at::Tensor wte = t.file->load_elements(t.name, b, k);
          same = at::equal(wte, head->file->load_elements(head->name, b, k).to(wte.scalar_type()));
        }
        if (!same)
          throw CheckpointError("lm_head.weight differs from transformer.wte.weight; only tied GPT-2 output embeddings are supported", where);
      }
    out.emplace_back("lm_head.weight", *head);
  }
  return out;
}

// Llama-family hub files hold LlamaForCausalLM's names already; tied models often omit
// lm_head.weight (it then loads as embed_tokens'), and older exports carry rotary
// inv_freq buffers, which runner derives from the config. A classifier made from a causal LM
// has no lm_head (transformers drops it as unexpected); its score is new.
FileTensors hf_llama_names(FileTensors tensors, bool classifier) {
  FileTensors out;
  for (auto& [name, t] : tensors)
    if (!ends_with(name, ".rotary_emb.inv_freq") && !(classifier && name == "lm_head.weight")) out.emplace_back(name, std::move(t));
  return out;
}

// BERT folders: a BertForSequenceClassification's names already; a pretrained BERT's
// (BertForPreTraining, BertModel) carry pretraining heads (cls.*), a position_ids buffer, old
// LayerNorm names (gamma, beta) or no "bert." prefix, which transformers maps or drops too.
// RoBERTa's the same with "roberta." (its masked-LM head lm_head.*, and the pooler
// RobertaForSequenceClassification does not have, dropped as transformers drops them). For a
// masked-LM model (`masked_lm`) the masked-LM heads are kept and the other heads dropped.
bool masked_lm_head_key(const std::string& name) {
  return name.rfind("cls.predictions.", 0) == 0 || name.rfind("lm_head.", 0) == 0 || name.rfind("vocab_", 0) == 0 ||
         name.rfind("predictions.", 0) == 0 || name.rfind("generator_predictions.", 0) == 0 || name.rfind("generator_lm_head.", 0) == 0;
}

FileTensors hf_bert_names(FileTensors tensors, const std::string& type, bool pooler, bool masked_lm, bool question_answering) {
  const std::string prefix = encoder_prefix(type) + ".";
  FileTensors out;
  for (auto& [name, t] : tensors) {
    // Pretraining heads: BERT's cls.*, RoBERTa's lm_head.*, DistilBERT's vocab_* (masked LM),
    // ALBERT's predictions.* and sop_classifier.*, ELECTRA's discriminator and generator heads;
    // a masked-LM model keeps the masked-LM ones and drops a classifier instead.
    std::string n = name;
    if (ends_with(n, ".gamma")) n = n.substr(0, n.size() - 6) + ".weight";
    else if (ends_with(n, ".beta")) n = n.substr(0, n.size() - 5) + ".bias";
    if (masked_lm_head_key(n)) {
      if (masked_lm) out.emplace_back(n, std::move(t));
      continue;
    }
    // The task's own head is kept; a classifier beside a masked-LM or QA head, and a QA head
    // beside a classifier, are another task's (transformers drops them as unexpected).
    const bool classifier = n.rfind("classifier.", 0) == 0 || n.rfind("pre_classifier.", 0) == 0 || n.rfind("sequence_summary.", 0) == 0,
               qa = n.rfind("qa_outputs.", 0) == 0;
    const bool other_head = n.rfind("cls.", 0) == 0 || n.rfind("sop_classifier.", 0) == 0 || n.rfind("discriminator_predictions.", 0) == 0 ||
                            ((masked_lm || question_answering) && classifier) || (qa && !question_answering);
    if (other_head || ends_with(n, ".position_ids")) continue;
    if (n.rfind(prefix, 0) != 0 && !classifier && !qa) n = prefix + n;
    if (!pooler && n.rfind(prefix + "pooler.", 0) == 0) continue;  // a head without one (RoBERTa's, token classifiers)
    out.emplace_back(n, std::move(t));
  }
  return out;
}

// A parameter the files do not have but the task head needs (a pretrained BERT's classifier
// and, in some exports, pooler; a masked-LM head where the files have none: a BertModel's, an
// ELECTRA discriminator's): newly initialised as transformers does (normal(0, std) weights,
// zero biases, LayerNorm ones), in place, so the model keeps its identity.
bool new_head_parameter(const std::string& name) {
  return name.rfind("classifier.", 0) == 0 || name.rfind("pre_classifier.", 0) == 0 || name.rfind("qa_outputs.", 0) == 0 || name.rfind("bert.pooler.", 0) == 0 ||
         name.rfind("roberta.pooler.", 0) == 0 || name.rfind("sequence_summary.", 0) == 0 ||
         name.rfind("albert.pooler.", 0) == 0 || masked_lm_head_key(name);
}

void initialise_new(const std::string& name, const at::Tensor& param, double std) {
  c10::NoGradGuard no_grad;
  at::Tensor value = at::empty(param.sizes(), at::TensorOptions().dtype(param.scalar_type()));
  if (param.dim() >= 2) value.normal_(0.0, std);
  else if (ends_with(name, "LayerNorm.weight") || ends_with(name, "layer_norm.weight")) value.fill_(1.0);  // transformers' LayerNorm init
  else value.zero_();
  at::Tensor(param).set_data(value);
}

// load_named's checks for a model built under MetaInit: every parameter is recorded with
// the file tensor that holds it (ParameterStore), persistent buffers are read now. Missing
// parameters `may_be_new` accepts are initialised with normal(0, init_std) weights instead.
void defer_named(Module& model, const FileTensors& tensors, const std::string& where,
                 const std::function<bool(const std::string&)>& may_be_new = nullptr, double init_std = 0.02) {
  const NamedTensorList own = model.state_dict();
  std::map<std::string, at::Tensor> own_by_name(own.begin(), own.end());
  std::set<const void*> params;
  for (const auto& [name, p] : model.named_parameters()) params.insert(p.unsafeGetTensorImpl());
  std::vector<std::string> mismatched, unexpected, missing;
  std::set<const void*> loaded;
  std::map<const void*, std::pair<std::string, const FileTensor*>> first;  // a tied tensor's first key in the files
  auto weights = std::make_shared<ParameterStore>();
  c10::NoGradGuard no_grad;
  for (const auto& [name, t] : tensors) {
    auto it = own_by_name.find(name);
    if (it == own_by_name.end()) {
      unexpected.push_back(name);
      continue;
    }
    const std::vector<int64_t> shape = t.file->shape(t.name);
    if (!it->second.sizes().equals(shape)) {
      mismatched.push_back(name + " (file " + shape_string(shape) + ", model " + shape_string(it->second.sizes()) + ")");
      continue;
    }
    const void* impl = it->second.unsafeGetTensorImpl();
    if (auto seen = first.find(impl); seen != first.end()) {
      // Tied weights (tie_word_embeddings) stored under both names: one tensor can hold one
      // value. transformers would keep the embedding's without a word; runner refuses.
      const auto& [other, where_other] = seen->second;
      if (!t.file->load(t.name).equal(where_other->file->load(where_other->name))) {
        // Name the output head as the key to drop: a decoder's tied weight (lm_head, an
        // encoder's masked-LM decoder), not the embedding.
        auto is_head = [](const std::string& n) {
          return ends_with(n, "lm_head.weight") || ends_with(n, "decoder.weight") || ends_with(n, "vocab_projector.weight");
        };
        const bool head_first = is_head(name) || !is_head(other);
        const std::string& head = head_first ? name : other;
        const bool encoder = !ends_with(head, "lm_head.weight") || head == "generator_lm_head.weight";
        throw CheckpointError(head + " differs from " + (head_first ? other : name) +
                                  (encoder ? ", but the masked-LM head's decoder is the word embedding (tied, as transformers ties it): drop " + head +
                                                 " from the files"
                                           : ", but config.json ties them (tie_word_embeddings = true): set tie_word_embeddings = false to keep both, or drop " +
                                                 head + " from the files"),
                              where);
      }
      continue;
    }
    first.emplace(impl, std::make_pair(name, &t));
    loaded.insert(impl);
    if (params.count(impl)) weights->add(it->second, t.file, t.name);
    else it->second.copy_(t.file->load(t.name));
  }
  if (!mismatched.empty())
    throw CheckpointError("shape mismatch for " + std::to_string(mismatched.size()) + " key(s): " + key_list(mismatched), where);
  for (const auto& [name, t] : own) {
    if (loaded.count(t.unsafeGetTensorImpl())) continue;
    if (may_be_new && may_be_new(name) && params.count(t.unsafeGetTensorImpl())) initialise_new(name, t, init_std);
    else missing.push_back(name);
  }
  refuse_key_differences(missing, unexpected, where);
  model.set_parameter_store(std::move(weights));
}

std::optional<at::ScalarType> dtype_named(const std::string& name) {
  static const std::map<std::string, at::ScalarType> kNames = {
      {"float32", at::kFloat}, {"float", at::kFloat}, {"bfloat16", at::kBFloat16}, {"float16", at::kHalf},
      {"half", at::kHalf}, {"float64", at::kDouble}, {"double", at::kDouble}};
  std::string n = name.rfind("torch.", 0) == 0 ? name.substr(6) : name;
  auto it = kNames.find(n);
  return it == kNames.end() ? std::nullopt : std::optional(it->second);
}

// transformers v5's dtype="auto": the config's dtype (v5) or torch_dtype (v4), else the dtype
// of the checkpoint's first floating-point tensor.
at::ScalarType resolve_dtype(const std::string& asked, const json& config, const FileTensors& files, const std::string& where) {
  if (asked != "auto") {
    if (auto t = dtype_named(asked)) return *t;
    throw RecipeError("from_pretrained: dtype \"" + asked + "\" is not one of auto, float32, bfloat16, float16, float64");
  }
  for (const char* key : {"dtype", "torch_dtype"}) {
    auto it = config.find(key);
    if (it == config.end() || !it->is_string() || *it == "auto") continue;
    if (auto t = dtype_named(it->get<std::string>())) return *t;
    throw CheckpointError("\"" + std::string(key) + "\": " + it->dump() + " is not a floating-point dtype runner knows", where);
  }
  for (const auto& [name, t] : files)
    if (const at::ScalarType d = t.file->dtype(t.name); at::isFloatingType(d)) return d;
  return at::kFloat;
}

}  // namespace

ModulePtr from_pretrained(const std::string& dir, bool deferred, const std::string& dtype, int64_t num_labels,
                          const std::vector<std::string>& labels, const std::string& task, std::optional<int64_t> pad_token_id) {
  if (!task.empty() && task != "token_classification" && task != "sequence_classification" && task != "masked_lm" && task != "question_answering" &&
      task != "multiple_choice")
    throw RecipeError(
        "from_pretrained: task must be \"sequence_classification\", \"token_classification\", \"masked_lm\", \"question_answering\" or \"multiple_choice\", got \"" +
        task + "\"");
  if ((task == "masked_lm" || task == "question_answering" || task == "multiple_choice") && (num_labels > 0 || !labels.empty()))
    throw RecipeError("from_pretrained: num_labels and labels are for a classifier, not task = \"" + task + "\"");
  if (num_labels == 0) num_labels = static_cast<int64_t>(labels.size());
  const fs::path folder(dir);
  if (!fs::is_directory(folder)) throw CheckpointError("not a folder (from_pretrained needs a Hugging Face model folder)", dir);
  // A peft adapter folder: its base model with the adapters (peft's AutoPeftModel).
  if (!fs::exists(folder / "config.json") && fs::exists(folder / "adapter_config.json")) {
    if (num_labels > 0 || !task.empty())
      throw RecipeError("from_pretrained: num_labels, labels and task are for a classification model's folder, not a LoRA adapter's");
    return load_adapter_folder(dir, "", deferred, dtype, pad_token_id);
  }
  const json config = read_config(folder);
  const std::string where = (folder / "config.json").string();
  const std::string type = config.value("model_type", std::string());
  // The decoders have a sequence classifier (LlamaForSequenceClassification: a reward model).
  const bool decoder = is_llama_family(type) || type == "gpt2";
  const bool decoder_classifier = decoder && (num_labels > 0 || task == "sequence_classification");
  if ((num_labels > 0 || !task.empty()) && !is_encoder_type(type) && !decoder_classifier)
    throw RecipeError("from_pretrained: num_labels, labels and task are for a classification model (model_type bert, roberta, xlm-roberta, camembert, distilbert, albert, electra; "
                      "gpt2, " + llama_family_types() + " as sequence classifiers), not " +
                      (type.empty() ? "this folder" : decoder ? type + " with task = \"" + task + "\"" : type));
  if (pad_token_id && is_encoder_type(type))
    throw RecipeError("from_pretrained: pad_token_id is an encoder's embedding padding row, read from " + where + "; it cannot be changed");
  ModulePtr model;
  {
    MetaInit meta;  // no memory and no random values for weights the files replace
    const bool bert = is_encoder_type(type), llama = is_llama_family(type);
    std::optional<EncoderConfig> encoder;
    if (bert) {
      encoder = bert_config_from_hf(config, where);
      if (num_labels > 0 && num_labels != encoder->num_labels) encoder->num_labels = num_labels, encoder->labels.clear();
      if (!labels.empty()) encoder->labels = labels;
      if (!task.empty())
        encoder->per_token = task == "token_classification", encoder->masked_lm = task == "masked_lm",
        encoder->question_answering = task == "question_answering", encoder->multiple_choice = task == "multiple_choice";
      if (encoder->multiple_choice && (num_labels > 0 || !labels.empty()))
        throw RecipeError("from_pretrained: num_labels and labels are for a classifier; " + dir + " is a multiple-choice model");
      if (encoder->multiple_choice) encoder->num_labels = 1, encoder->labels.clear();  // a score per choice
      if (encoder->question_answering && (num_labels > 0 || !labels.empty()))  // a QA folder by its architectures
        throw RecipeError("from_pretrained: num_labels and labels are for a classifier; " + dir +
                          " is a question-answering model (give task = \"sequence_classification\" for a classifier on its body)");
      if (encoder->question_answering && encoder->num_labels != 2) encoder->num_labels = 2, encoder->labels.clear();  // start, end
    }
    // A causal LM's folder as a classifier: the score head is new (transformers'
    // AutoModelForSequenceClassification, num_labels 2 unless given), its lm_head dropped.
    auto size_classifier = [&](auto& c) {
      if (decoder_classifier && c.num_labels == 0) c.num_labels = num_labels > 0 ? num_labels : 2;
      else if (num_labels > 0 && num_labels != c.num_labels) c.num_labels = num_labels, c.labels.clear();
      if (!labels.empty()) c.labels = labels;
      if (pad_token_id) c.pad_token_id = {*pad_token_id};
    };
    std::optional<LlamaConfig> llama_cfg;
    if (llama) {
      llama_cfg = llama_config_from_hf(config, where);
      size_classifier(*llama_cfg);
    }
    GPTConfig gpt;
    if (!bert && !llama) {
      gpt = gpt_config(config, where);
      size_classifier(gpt);
    }
    // Config errors first, then the files.
    model = bert ? make_encoder_classifier(*encoder) : llama ? make_llama(*llama_cfg) : make_gpt(gpt);
    const FileTensors files = weight_files(folder);
    if (bert) defer_named(*model,
                          hf_bert_names(files, type,
                                        /*pooler=*/((type == "bert" || type == "albert") && !encoder->per_token && !encoder->masked_lm && !encoder->question_answering) ||
                                            (is_roberta_type(type) && encoder->multiple_choice),
                                        encoder->masked_lm, encoder->question_answering),
                          dir, new_head_parameter, encoder->initializer_range);
    else defer_named(*model, llama ? hf_llama_names(files, llama_cfg->num_labels > 0) : hf_gpt2_names(files, dir, gpt.num_labels > 0), dir,
                     [](const std::string& n) { return n == "score.weight"; }, llama ? llama_cfg->initializer_range : 0.02);
    model->to(resolve_dtype(dtype, config, files, where));  // the values are converted as they are read (parameter_store.h)
  }
  if (!deferred) materialize(*model);
  model->eval();  // as HF's from_pretrained; the Trainer switches to train mode itself
  model->set_name_or_path(dir);
  return model;
}

ModulePtr copy_model(Module& model, bool with_adapters) {
  const std::string text = model.hf_config_json();
  const json config = text.empty() ? json::object() : json::parse(text);
  const std::string type = config.value("model_type", std::string());
  if (!is_llama_family(type) && type != "gpt2")
    throw RecipeError("cannot copy a " + model.type_name() + " model: only GPT-2 and Llama-family models are copied (give the copy yourself)");
  materialize(model);  // the weights of a from_pretrained model may still be in their files
  std::optional<at::ScalarType> dtype;
  for (const auto& [name, p] : model.named_parameters())
    if (p.is_floating_point()) {
      dtype = p.scalar_type();
      break;
    }
  // Building initialises weights at random: the run's generator must not notice.
  at::Generator cpu = at::detail::getDefaultCPUGenerator();
  const at::Tensor rng = cpu.get_state();
  ModulePtr copy = is_llama_family(type) ? make_llama(llama_config_from_hf(config, "the model's config")) : make_gpt(gpt_config(config, "the model's config"));
  cpu.set_state(rng);
  if (dtype) copy->to(*dtype);
  if (auto device = model.device()) copy->to(*device);
  NamedTensorList weights;
  if (!model.lora() || with_adapters) {
    weights = model.lora() ? merged_state_dict(model) : model.state_dict();
  } else {
    for (auto& [name, t] : model.state_dict())  // the base: every tensor but the adapters'
      if (!is_adapter_name(name)) weights.emplace_back(name, t);
  }
  copy->load_state_dict(weights);
  copy->eval();
  copy->set_name_or_path(model.name_or_path());
  return copy;
}

Module::LoadReport load_weights(Module& model, const std::string& file, bool strict) {
  const io::NamedTensors tensors = io::load_safetensors(file);
  // peft's adapter_model.safetensors onto a LoRA model: the adapters, by their saved names.
  if (model.lora() && !tensors.empty() && tensors.front().first.rfind("base_model.model.", 0) == 0) {
    Module::LoadReport report = load_adapter_state_dict(model, tensors);
    if (strict && (!report.missing.empty() || !report.unexpected.empty()))
      throw CheckpointError((report.missing.empty() ? "" : "missing adapter keys: " + key_list(report.missing) + " ") +
                                (report.unexpected.empty() ? "" : "unexpected keys: " + key_list(report.unexpected) + " ") +
                                "(strict loading; pass strict = false to load the rest)",
                            file);
    return report;
  }
  return load_named(model, tensors, file, strict);
}

}  // namespace runner::models
