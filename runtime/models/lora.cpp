#include "runtime/models/lora.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <ATen/autocast_mode.h>
#include <c10/core/GradMode.h>

#include "runtime/core/errors.h"
#include "runtime/core/regex.h"
#include "runtime/core/text.h"
#include "runtime/models/fusable_linear.h"
#include "runtime/models/llama_config.h"
#include "runtime/models/layers.h"
#include "runtime/models/parameter_store.h"

namespace runner::models {

namespace {

thread_local int adapters_off = 0;  // AdaptersDisabled scopes alive on this thread

const std::string kPrefix = "base_model.model.";

// out + scaling · down · Bᵀ as one GEMM whose epilogue scales and adds (the adapter's form
// under autocast, and the fused nodes' through add_lora_branch).
at::Tensor add_scaled_branch(const at::Tensor& out, const at::Tensor& down, const at::Tensor& b_weight, double scaling) {
  return at::addmm(out.reshape({-1, out.size(-1)}), down.reshape({-1, down.size(-1)}), b_weight.t(), 1.0, scaling).view(out.sizes());
}

// Every descendant with its dotted name ("model.layers.0.self_attn.q_proj"), parents first.
void collect_modules(const std::string& prefix, const Module& m, std::vector<std::pair<std::string, ModulePtr>>& out) {
  for (const auto& [name, child] : m.children()) {
    const std::string full = prefix.empty() ? name : prefix + "." + name;
    out.emplace_back(full, child);
    collect_modules(full, *child, out);
  }
}

std::vector<std::pair<std::string, ModulePtr>> named_modules(const Module& root) {
  std::vector<std::pair<std::string, ModulePtr>> out;
  collect_modules("", root, out);
  return out;
}

bool is_linear(const Module& m) { return dynamic_cast<const Linear*>(&m) || dynamic_cast<const Conv1D*>(&m); }


// peft's LoRA Embedding: out + scaling · embedding(ids, Aᵀ)·Bᵀ with A (r, num) zeros and B (dim, r)
// normal(0, 1), so training starts from the base model (init_lora_weights = false: both
// normal); no dropout, as peft applies none to embeddings. The branch is added in the wider
// dtype and rounded once, as peft does.
void adapt_embedding(Embedding& e, const LoraConfig& c, bool on_device) {
  const int64_t num = e.weight.size(0), dim = e.weight.size(1);
  const at::ScalarType dtype = e.weight.scalar_type() == at::kHalf || e.weight.scalar_type() == at::kBFloat16 ? at::kFloat : e.weight.scalar_type();
  at::TensorOptions o = at::TensorOptions().dtype(dtype);
  if (on_device) o = o.device(e.weight.device());
  at::Tensor a = c.init_lora_weights ? at::zeros({c.r, num}, o) : at::randn({c.r, num}, o);
  at::Tensor b = at::randn({dim, c.r}, o);
  e.register_parameter("lora_embedding_A", a);
  e.register_parameter("lora_embedding_B", b);
  const double scaling = c.scaling();
  const int64_t padding = e.padding_idx.value_or(-1);
  const Embedding* owner = &e;  // owns the branch, so outlives it; looked up per call, wherever the store has put them
  e.set_adapter([owner, scaling, padding](const at::Tensor& ids, const at::Tensor& out) {
    if (adapters_disabled()) return out;
    const at::Tensor A = owner->parameter("lora_embedding_A"), B = owner->parameter("lora_embedding_B");
    at::Tensor extra = at::matmul(at::embedding(A.t(), ids, padding), B.t()) * scaling;  // (*, dim)
    if (owner->output_scale != 1.0) extra = extra * owner->rounded_scale().to(extra.scalar_type());  // peft's embed_scale
    if (extra.scalar_type() == out.scalar_type()) return out + extra;
    return (out.to(at::promote_types(out.scalar_type(), extra.scalar_type())) + extra).to(out.scalar_type());
  });
}

// peft's check_target_module_exists: a string is a Python regular expression the whole name
// must match (re.fullmatch; `regex` is it compiled), a list matches names or name suffixes.
bool name_or_suffix(const std::string& name, const std::string& t) {
  return name == t || (name.size() > t.size() && name.compare(name.size() - t.size() - 1, t.size() + 1, "." + t) == 0);
}

bool targeted(const std::string& name, const LoraConfig& c, const Regex* regex, const Regex* exclude) {
  // Excluded first, as peft's check_target_module_exists does.
  if (exclude ? exclude->full_match(name)
              : std::any_of(c.exclude_modules.begin(), c.exclude_modules.end(), [&](const std::string& e) { return name_or_suffix(name, e); }))
    return false;
  if (regex) return regex->full_match(name);
  for (const auto& t : c.target_modules) {
    if (t == "all-linear") return true;  // the linear check and the head exclusion come after
    if (name_or_suffix(name, t)) return true;
  }
  return false;
}

// The parameter-free submodules transformers' classes have and runner's do not (an activation,
// a dropout, the rotary embedding), by runner's module type: a target pattern that reaches one
// is refused, as peft refuses it, instead of saving adapters peft cannot load.
std::vector<std::pair<const char*, const char*>> hf_only_children(const std::string& type) {
  if (type == "GPT2MLP") return {{"act", "NewGELUActivation"}, {"dropout", "Dropout"}};
  if (type == "GPT2Attention") return {{"attn_dropout", "Dropout"}, {"resid_dropout", "Dropout"}};
  if (type == "GPT2Model") return {{"drop", "Dropout"}};
  if (type == "Gemma3MLP") return {{"act_fn", "GELUTanh"}};
  if (ends_with(type, "MLP")) return {{"act_fn", "SiLUActivation"}};  // the rest of the Llama family's
  if (is_llama_body_class(type)) return {{"rotary_emb", "RotaryEmbedding"}};
  if (type == "BertEmbeddings" || type == "BertSelfAttention" || type == "BertOutput") return {{"dropout", "Dropout"}};
  if (type == "BertIntermediate") return {{"intermediate_act_fn", "GELUActivation"}};
  if (type == "BertPooler") return {{"activation", "Tanh"}};
  if (type == "AlbertEmbeddings") return {{"dropout", "Dropout"}};
  if (type == "AlbertAttention") return {{"attention_dropout", "Dropout"}, {"output_dropout", "Dropout"}};
  if (type == "AlbertLayer") return {{"activation", "NewGELUActivation"}, {"dropout", "Dropout"}};
  if (type == "AlbertModel") return {{"pooler_activation", "Tanh"}};
  if (type == "ElectraClassificationHead") return {{"activation", "GELUActivation"}, {"dropout", "Dropout"}};
  if (ends_with(type, "RobertaClassificationHead") || type == "CamembertClassificationHead" || type == "DistilBertSelfAttention" || type == "Embeddings") return {{"dropout", "Dropout"}};
  if (type == "FFN") return {{"dropout", "Dropout"}, {"activation", "GELUActivation"}};
  if (ends_with(type, "ForSequenceClassification") || ends_with(type, "ForTokenClassification")) return {{"dropout", "Dropout"}};
  return {};
}

// peft's TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING for the models runner has.
std::vector<std::string> default_targets(const Module& model) {
  std::string type;
  if (const std::string config = model.hf_config_json(); !config.empty()) type = nlohmann::json::parse(config).value("model_type", "");
  if (is_llama_family(type)) return {"q_proj", "v_proj"};  // peft's for llama, qwen2, qwen3, mistral and gemma3_text alike
  if (type == "gpt2" || model.type_name() == "GPT2LMHeadModel") return {"c_attn"};
  if (type == "bert" || type == "roberta" || type == "xlm-roberta" || type == "electra") return {"query", "value"};  // peft has none for ALBERT, CamemBERT
  if (type == "distilbert") return {"q_lin", "v_lin"};
  throw RecipeError("models.lora: give target_modules (a list of layer names, a regular expression or \"all-linear\"): " +
                    model.type_name() + " has no default");
}

// The adapted layer's weight, and whether it is stored (in, out) like GPT-2's Conv1D.
std::pair<at::Tensor, bool> base_weight(const Module& m) {
  if (const auto* l = dynamic_cast<const Linear*>(&m)) return {l->weight, false};
  return {dynamic_cast<const Conv1D&>(m).weight, true};
}

ModulePtr find_module(const Module& root, const std::string& name) {
  for (const auto& [n, m] : named_modules(root))
    if (n == name) return m;
  return nullptr;
}

}  // namespace

// The heads peft's task models train whole (their modules_to_save): SEQ_CLS's and TOKEN_CLS's
// classifier or score, QUESTION_ANS's qa_outputs.
static std::vector<const char*> peft_heads(const std::string& task_type) {
  if (task_type == "SEQ_CLS" || task_type == "TOKEN_CLS") return {"classifier", "score"};
  if (task_type == "QUESTION_ANS") return {"qa_outputs"};
  return {};
}

void apply_lora(Module& model, LoraConfig c) {
  if (model.lora()) throw RecipeError("models.lora: the model already has LoRA adapters");
  // Its adapters would be reloaded onto a classifier (peft has no masked-LM task type to
  // record the head by), and its head is tied to the embedding, so modules_to_save cannot train it.
  if (const std::string& type = model.type_name(); type.size() > 11 && type.compare(type.size() - 11, 11, "ForMaskedLM") == 0)
    throw RecipeError("models.lora: LoRA of a masked language model (" + type + ") is not supported; train it in full");
  // peft has no multiple-choice task type: its head would be neither trained nor saved.
  if (ends_with(model.type_name(), "ForMultipleChoice"))
    throw RecipeError("models.lora: LoRA of a multiple-choice model (" + model.type_name() + ") is not supported (peft has no task type for it); train it in full");
  if (c.r < 1) throw RecipeError("models.lora: r must be >= 1, got " + std::to_string(c.r));
  if (!(c.dropout >= 0.0 && c.dropout < 1.0)) throw RecipeError("models.lora: dropout must be in [0, 1)");
  if (!std::isfinite(c.alpha)) throw RecipeError("models.lora: alpha must be a finite number");
  if (c.target_modules.empty() && c.target_regex.empty()) c.target_modules = default_targets(model);
  const bool all_linear = std::find(c.target_modules.begin(), c.target_modules.end(), "all-linear") != c.target_modules.end();
  if (all_linear && c.target_modules.size() > 1) throw RecipeError("models.lora: \"all-linear\" stands alone in target_modules");
  const std::unique_ptr<Regex> regex =
      c.target_regex.empty() ? nullptr : std::make_unique<Regex>(c.target_regex, "models.lora: target_modules", ErrorKind::kRecipe);
  const std::unique_ptr<Regex> exclude =
      c.exclude_regex.empty() ? nullptr : std::make_unique<Regex>(c.exclude_regex, "models.lora: exclude_modules", ErrorKind::kRecipe);
  // peft's modules_to_save: trained whole (SEQ_CLS: the classification head, which a
  // pretrained body does not have).
  for (const char* head : peft_heads(c.task_type))
    if (std::find(c.modules_to_save.begin(), c.modules_to_save.end(), head) == c.modules_to_save.end()) c.modules_to_save.push_back(head);
  // peft matches them by a plain suffix (DistilBERT's "pre_classifier" ends with "classifier"),
  // an enclosing module once.
  std::vector<ModulePtr> kept;
  for (const auto& [name, m] : named_modules(model)) {
    if (std::any_of(c.saved.begin(), c.saved.end(), [&](const std::string& s) { return name.rfind(s + ".", 0) == 0; })) continue;
    for (const auto& key : c.modules_to_save)
      if (ends_with(name, key)) {
        c.saved.push_back(name), kept.push_back(m);
        break;
      }
  }
  std::vector<std::pair<std::string, ModulePtr>> chosen;
  for (const auto& [name, m] : named_modules(model)) {
    if (!targeted(name, c, regex.get(), exclude.get())) continue;
    const bool head = name == "lm_head" || (name.size() > 8 && name.compare(name.size() - 8, 8, ".lm_head") == 0);
    // all-linear leaves out the output head and what modules_to_save trains whole (peft's
    // _maybe_include_all_linear_layers: a classifier's head).
    const bool kept_whole = std::any_of(c.saved.begin(), c.saved.end(), [&](const std::string& k) { return name == k || name.rfind(k + ".", 0) == 0; });
    if (all_linear && (!is_linear(*m) || head || kept_whole)) continue;
    if (kept_whole) throw RecipeError("models.lora: '" + name + "' is both a target module and in modules_to_save");
    if (!is_linear(*m) && !dynamic_cast<const Embedding*>(m.get()))
      throw RecipeError("models.lora: target module '" + name + "' (" + m->type_name() + ") cannot be adapted: " +
                        (m->type_name() == "Linear" ? "its model applies the weight itself (an output head)" : "it is not a linear layer") +
                        "; LoRA adapts Linear, GPT-2's Conv1D and Embedding layers");
    chosen.emplace_back(name, m);
  }
  if (!all_linear) {
    std::vector<std::pair<std::string, ModulePtr>> parents = named_modules(model);
    parents.emplace(parents.begin(), "", nullptr);  // the root itself
    for (const auto& [name, m] : parents)
      for (const auto& [child, kind] : hf_only_children(m ? m->type_name() : model.type_name())) {
        const std::string full = name.empty() ? child : name + "." + child;
        if (targeted(full, c, regex.get(), exclude.get()))
          throw RecipeError("models.lora: target module '" + full + "' is a " + kind +
                            " in transformers' model, which peft refuses to adapt (it is not a linear layer); narrow target_modules");
      }
  }
  if (chosen.empty())
    throw RecipeError("models.lora: target modules " + nlohmann::json(c.target_regex.empty() ? c.target_modules : std::vector{c.target_regex}).dump() +
                      " not found in the base model");
  if (c.base_model_name_or_path.empty()) c.base_model_name_or_path = model.name_or_path();
  for (const auto& key : c.modules_to_save) {
    const std::vector<const char*> heads = peft_heads(c.task_type);
    const bool peft_default = std::any_of(heads.begin(), heads.end(), [&](const char* h) { return key == h; });
    if (!peft_default && std::none_of(c.saved.begin(), c.saved.end(), [&](const std::string& n) { return ends_with(n, key); }))
      throw RecipeError("models.lora: modules_to_save '" + key + "' matches no module of the base model");
  }
  // peft trains a copy of each such module; runner trains it in place, which is the same
  // unless a weight is shared with a module outside it (a tied output head and embedding).
  for (size_t i = 0; i < kept.size(); ++i) {
    std::set<const void*> own;
    for (const auto& [n, p] : kept[i]->state_dict()) own.insert(p.unsafeGetTensorImpl());
    for (const auto& [n, p] : model.state_dict())
      if (own.count(p.unsafeGetTensorImpl()) && n.rfind(c.saved[i] + ".", 0) != 0)
        throw RecipeError("models.lora: modules_to_save '" + c.saved[i] + "' shares its weight with " + n + " (tied); it cannot be trained alone");
  }
  {
    c10::NoGradGuard no_grad;
    for (auto& [name, p] : model.named_parameters()) p.requires_grad_(false);
    for (const auto& m : kept)
      for (auto& [name, p] : m->named_parameters()) p.requires_grad_(true);
  }
  const double scaling = c.scaling();
  const StoreList stores = stores_in(model);
  for (auto& [name, m] : chosen) {
    if (auto* e = dynamic_cast<Embedding*>(m.get())) {
      adapt_embedding(*e, c, !in_file(stores, e->weight));
      c.adapted.push_back(name);
      continue;
    }
    const auto [w, transposed] = base_weight(*m);
    const int64_t in = transposed ? w.size(0) : w.size(1), out = transposed ? w.size(1) : w.size(0);
    auto a = std::make_shared<Linear>(in, c.r, /*bias=*/false);  // PyTorch's default init: kaiming_uniform(a=√5)
    auto b = std::make_shared<Linear>(c.r, out, /*bias=*/false);
    if (c.init_lora_weights) {
      c10::NoGradGuard no_grad;
      b->weight.zero_();
      if (c.gaussian_init) a->weight.normal_(0.0, 1.0 / static_cast<double>(c.r));  // peft: std 1/r
    }
    // peft's autocast_adapter_dtype: adapters of a bf16 / fp16 base are fp32 (so are their
    // gradients and optimizer state); a float64 base keeps its dtype.
    const at::ScalarType adapter_dtype = w.scalar_type() == at::kHalf || w.scalar_type() == at::kBFloat16 ? at::kFloat : w.scalar_type();
    a->to(adapter_dtype), b->to(adapter_dtype);
    // The adapters of a base still in its files (parameter_store.h) are real CPU tensors;
    // moving the model moves them with everything else.
    if (!in_file(stores, w)) a->to(w.device()), b->to(w.device());
    m->register_module("lora_A", a);
    m->register_module("lora_B", b);
    const Module* owner = m.get();  // owns the branch, so outlives it
    const double p = c.dropout;
    m->set_adapter([a, b, owner, p, scaling](const at::Tensor& x, const at::Tensor& out) {
      if (adapters_disabled()) return out;
      const at::Tensor h = p > 0.0 && owner->dropout_active() ? at::dropout(x, p, true) : x;
      const at::DeviceType device = h.device().type();
      if (at::autocast::is_autocast_enabled(device) && out.scalar_type() == at::autocast::get_autocast_dtype(device) &&
          !b->has_forward_hooks()) {
        // Under autocast every matmul runs in autocast's dtype, so peft's cast of the input to
        // the adapters' fp32 would be undone at once (two copies of the input forward, two
        // back); and out + scaling·(h·Aᵀ)·Bᵀ is one GEMM whose epilogue scales and adds, where
        // peft writes the branch, scales it and adds it in three passes over (tokens, out).
        return add_scaled_branch(out, a->forward(h), b->weight, scaling);
      }
      // As peft: the input in the adapters' dtype (not under autocast, which casts it back), the
      // branch added to the layer's output in the wider of the two dtypes (a bf16 base with fp32
      // adapters adds in fp32) and the sum rounded once to the output's.
      const at::ScalarType dtype = a->weight.scalar_type();
      const bool cast = h.scalar_type() != dtype && !at::autocast::is_autocast_enabled(device);
      const at::Tensor extra = b->forward(a->forward(cast ? h.to(dtype) : h)) * scaling;
      if (extra.scalar_type() == out.scalar_type()) return out + extra;
      return (out.to(at::promote_types(out.scalar_type(), extra.scalar_type())) + extra).to(out.scalar_type());
    }, std::make_shared<const Module::LowRankBranch>(Module::LowRankBranch{a, b, scaling, p}));
    if (transposed) c.fan_in_fan_out = true;  // peft switches it on for Conv1D and warns
    c.adapted.push_back(name);
  }
  model.set_lora(std::make_shared<const LoraConfig>(std::move(c)));
}

std::optional<kernels::LinearWeights> fusable_linear(const Linear& layer) {
  if (layer.has_forward_hooks() || layer.checkpointing()) return std::nullopt;
  kernels::LinearWeights w;
  w.weight = layer.weight, w.bias = layer.bias;
  if (!layer.has_adapter() || adapters_disabled()) return w;
  const auto& branch = layer.adapter_parts();
  if (!branch || (branch->dropout > 0.0 && layer.dropout_active())) return std::nullopt;
  const auto a = std::dynamic_pointer_cast<Linear>(branch->a), b = std::dynamic_pointer_cast<Linear>(branch->b);
  if (!a || !b || a->has_forward_hooks() || b->has_forward_hooks() || a->checkpointing() || b->checkpointing() || a->bias.defined() ||
      b->bias.defined())
    return std::nullopt;
  w.lora_a = a->weight, w.lora_b = b->weight, w.scaling = branch->scaling;
  return w;
}

std::optional<at::Tensor> add_lora_branch(const at::Tensor& out, const at::Tensor& down, const kernels::LinearWeights& w) {
  const at::DeviceType device = out.device().type();
  if (at::autocast::is_autocast_enabled(device)) {
    if (out.scalar_type() != at::autocast::get_autocast_dtype(device)) return std::nullopt;
    return add_scaled_branch(out, down, w.lora_b, w.scaling);
  }
  if (down.scalar_type() != out.scalar_type() || w.lora_b.scalar_type() != out.scalar_type()) return std::nullopt;
  return out + at::linear(down, w.lora_b) * w.scaling;
}

namespace {

// peft's save_embedding_layers "auto": when target_modules names an embedding layer
// (EMBEDDING_LAYER_NAMES, "in" a list or a regular expression's text), the adapted embeddings'
// own weights are saved too, as "<layer>.base_layer.weight" (a resized vocabulary survives).
std::set<std::string> embeddings_saved_whole(const Module& model) {
  const auto& c = *model.lora();
  auto named = [&](const char* layer) {
    if (!c.target_regex.empty()) return c.target_regex.find(layer) != std::string::npos;
    return std::find(c.target_modules.begin(), c.target_modules.end(), layer) != c.target_modules.end();
  };
  std::set<std::string> out;
  if (!named("embed_tokens") && !named("lm_head")) return out;
  for (const auto& name : c.adapted)
    if (dynamic_cast<const Embedding*>(find_module(model, name).get())) out.insert(name);
  return out;
}

}  // namespace

NamedTensorList adapter_state_dict(const Module& model) {
  if (!model.lora()) throw RecipeError("the model has no LoRA adapters");
  const auto& saved = model.lora()->saved;
  const std::set<std::string> whole = embeddings_saved_whole(model);
  NamedTensorList out;
  for (const auto& [name, t] : model.state_dict()) {
    const bool adapter = is_adapter_name(name);
    // A modules_to_save module's tensors under its own name, as peft saves them.
    const bool kept = std::any_of(saved.begin(), saved.end(), [&](const std::string& m) { return name.rfind(m + ".", 0) == 0; });
    if (adapter || kept) out.emplace_back(kPrefix + name, t);
    if (ends_with(name, ".weight") && whole.count(name.substr(0, name.size() - 7)))
      out.emplace_back(kPrefix + name.substr(0, name.size() - 7) + ".base_layer.weight", t);
  }
  return out;
}

Module::LoadPlan plan_adapter_load(Module& model, const NamedTensorList& tensors) {
  const NamedTensorList mine = adapter_state_dict(model);
  std::set<std::string> own, given;
  for (const auto& [name, t] : mine) own.insert(name);
  NamedTensorList matched;
  Module::LoadReport report;
  const std::string base_layer = ".base_layer.weight";
  for (const auto& [name, t] : tensors) {
    given.insert(name);
    if (!own.count(name)) report.unexpected.push_back(name);
    else if (ends_with(name, base_layer))  // an adapted embedding's own weight (peft's save_embedding_layers)
      matched.emplace_back(name.substr(kPrefix.size(), name.size() - kPrefix.size() - base_layer.size()) + ".weight", t);
    else matched.emplace_back(name.substr(kPrefix.size()), t);
  }
  for (const auto& [name, t] : mine)  // an embedding's weight may stay the base model's
    if (!given.count(name) && !ends_with(name, base_layer)) report.missing.push_back(name);
  Module::LoadPlan plan = model.plan_load(matched, /*strict=*/false);  // shapes are still checked
  plan.report = std::move(report);
  return plan;
}

Module::LoadReport load_adapter_state_dict(Module& model, const NamedTensorList& tensors) {
  return plan_adapter_load(model, tensors).copy_all();
}

NamedTensorList merged_state_dict(const Module& model) {
  const auto& c = model.lora();
  if (!c) throw RecipeError("the model has no LoRA adapters");
  c10::NoGradGuard no_grad;
  std::map<std::string, at::Tensor> merged;  // "<layer>.weight" -> merged value
  for (const auto& name : c->adapted) {
    const ModulePtr m = find_module(model, name);
    if (const auto* e = dynamic_cast<const Embedding*>(m.get())) {  // (num, dim) += ((B·A)ᵀ)·scaling
      const at::Tensor delta = at::mm(e->parameter("lora_embedding_B").to(at::kFloat), e->parameter("lora_embedding_A").to(at::kFloat)).t();
      merged[name + ".weight"] = (e->weight.to(at::kFloat) + delta * c->scaling()).to(e->weight.scalar_type());
      continue;
    }
    const auto [w, transposed] = base_weight(*m);
    const at::Tensor a = m->child("lora_A")->parameter("weight").to(at::kFloat), b = m->child("lora_B")->parameter("weight").to(at::kFloat);
    const at::Tensor delta = at::mm(b, a) * c->scaling();  // (out, in)
    merged[name + ".weight"] = (w.to(at::kFloat) + (transposed ? delta.t() : delta)).to(w.scalar_type());
  }
  NamedTensorList out;
  std::vector<const void*> seen;  // a tied alias (lm_head.weight) is written once, as save_pretrained does, unless merging changed it
  for (const auto& [name, t] : model.state_dict()) {
    if (is_adapter_name(name)) continue;
    const auto it = merged.find(name);
    const void* impl = t.unsafeGetTensorImpl();
    if (it == merged.end() && std::find(seen.begin(), seen.end(), impl) != seen.end()) continue;
    seen.push_back(impl);
    out.emplace_back(name, it == merged.end() ? t : it->second);
  }
  return out;
}

bool is_adapter_name(const std::string& name) {
  return name.find(".lora_A.") != std::string::npos || name.find(".lora_B.") != std::string::npos || ends_with(name, ".lora_embedding_A") ||
         ends_with(name, ".lora_embedding_B");
}

AdaptersDisabled::AdaptersDisabled() { ++adapters_off; }
AdaptersDisabled::~AdaptersDisabled() { --adapters_off; }
bool adapters_disabled() { return adapters_off > 0; }

}  // namespace runner::models
