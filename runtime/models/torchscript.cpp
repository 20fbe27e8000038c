#include "runtime/models/torchscript.h"

#include <filesystem>

#include <torch/script.h>

#include "runtime/core/errors.h"
#include "runtime/models/batch_inputs.h"

namespace runner::models {

namespace {

// Registers the script module's own parameters and buffers in `dst` (sharing the tensors,
// so in-place updates and set_data on either side are seen by both), then its children.
void mirror(const torch::jit::Module& src, Module& dst) {
  for (const auto& p : src.named_parameters(/*recurse=*/false)) dst.register_parameter(p.name, p.value, p.value.requires_grad());
  for (const auto& b : src.named_buffers(/*recurse=*/false)) dst.register_buffer(b.name, b.value);
  for (const auto& c : src.named_children()) {
    const auto& qualified = c.value.type()->name();
    auto child = std::make_shared<Module>(qualified ? qualified->name() : "ScriptModule");
    mirror(c.value, *child);
    dst.register_module(c.name, child);
  }
}

// The interpreter's errors carry two tracebacks; errors here print as one line, so keep the
// final message and the first frame of the original Python code.
std::string one_line(const std::string& what) {
  auto trim = [](std::string s) {
    const auto b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  };
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= what.size()) {
    size_t end = what.find('\n', start);
    if (end == std::string::npos) end = what.size();
    std::string line = trim(what.substr(start, end - start));
    if (!line.empty()) lines.push_back(line);
    start = end + 1;
  }
  if (lines.size() <= 1) return lines.empty() ? what : lines.front();
  std::string where;
  bool original = false;
  for (const auto& l : lines) {
    if (l.rfind("Traceback of TorchScript, original code", 0) == 0) original = true;
    else if (original && l.rfind("File \"", 0) == 0) {
      where = l;
      break;
    }
  }
  return lines.back() + (where.empty() ? "" : " (" + where + ")");
}

bool is_str_tensor_dict(const c10::TypePtr& t) {
  auto dict = t->cast<c10::DictType>();
  return dict && dict->getKeyType()->kind() == c10::TypeKind::StringType && dict->getValueType()->kind() == c10::TypeKind::TensorType;
}

class TorchScriptModule : public Module {
 public:
  TorchScriptModule(torch::jit::Module script, std::string path)
      : Module("TorchScript"), script_(std::move(script)), path_(std::move(path)) {
    if (!script_.find_method("forward")) throw CheckpointError("the TorchScript module has no forward method", path_);
    mirror(script_, *this);
    const auto& args = script_.get_method("forward").function().getSchema().arguments();  // [self, ...]
    takes_dict_ = args.size() == 2 && is_str_tensor_dict(args[1].type());
    if (!takes_dict_)
      for (size_t i = 1; i < args.size(); ++i) arg_names_.push_back(args[i].name());
    train(script_.is_training());  // start in the mode it was saved in
  }

  bool takes_batch() const override { return true; }
  std::vector<std::string> input_names() const override { return arg_names_; }

  void train(bool mode = true) override {
    Module::train(mode);
    script_.train(mode);
  }

  TensorMap forward_batch_impl(const TensorMap& batch) override {
    std::vector<c10::IValue> inputs;
    bool labels_passed = false;
    if (takes_dict_) {
      c10::Dict<std::string, at::Tensor> dict;
      for (const auto& [k, v] : batch) dict.insert(k, v);
      inputs.emplace_back(dict);
      labels_passed = batch.count("labels") != 0;
    } else {
      const auto& args = script_.get_method("forward").function().getSchema().arguments();
      for (size_t i = 1; i < args.size(); ++i) {
        auto it = batch.find(args[i].name());
        if (it != batch.end() && it->second.defined()) {
          inputs.emplace_back(it->second);
          labels_passed |= args[i].name() == "labels";
        } else if (args[i].default_value()) {
          inputs.push_back(*args[i].default_value());
        } else {
          throw RecipeError("TorchScript model " + path_ + ": forward() needs the argument \"" + args[i].name() +
                            "\", which the batch does not have (fields: " + field_list(batch) + ")");
        }
      }
    }
    c10::IValue result;
    try {
      result = script_.forward(std::move(inputs));
    } catch (const c10::Error& e) {
      throw RecipeError("TorchScript model " + path_ + ": forward failed: " + one_line(e.what_without_backtrace()));
    } catch (const std::runtime_error& e) {  // the interpreter's errors (torch::jit::JITException, ...)
      throw RecipeError("TorchScript model " + path_ + ": forward failed: " + one_line(e.what()));
    }
    return outputs(result, labels_passed);
  }

 private:
  TensorMap outputs(const c10::IValue& r, bool labels_passed) const {
    TensorMap out;
    if (r.isTensor()) {
      out["logits"] = r.toTensor();
      return out;
    }
    if (r.isGenericDict()) {
      for (const auto& entry : r.toGenericDict()) {
        if (!entry.key().isString()) throw RecipeError("TorchScript model " + path_ + ": forward returned a dict with non-string keys");
        if (entry.value().isTensor()) out[entry.key().toStringRef()] = entry.value().toTensor();
        else if (!entry.value().isNone())
          throw RecipeError("TorchScript model " + path_ + ": output \"" + entry.key().toStringRef() + "\" is not a tensor");
      }
      return out;
    }
    std::vector<c10::IValue> items;
    if (r.isTuple()) items = r.toTupleRef().elements().vec();
    else if (r.isList()) items = r.toListRef().vec();
    else throw RecipeError("TorchScript model " + path_ + ": forward must return a Tensor, a tuple or a Dict[str, Tensor], got " +
                           r.tagKind());
    for (const auto& item : items)
      if (!item.isTensor() && !item.isNone())
        throw RecipeError("TorchScript model " + path_ + ": forward returned a tuple holding a " + item.tagKind());
    if (labels_passed && items.size() >= 2) {
      if (items[0].isTensor()) out["loss"] = items[0].toTensor();
      if (items[1].isTensor()) out["logits"] = items[1].toTensor();
      return out;
    }
    // Without labels the loss slot of a (loss, logits) tuple is typically None.
    for (const auto& item : items)
      if (item.isTensor()) {
        out["logits"] = item.toTensor();
        break;
      }
    return out;
  }

  torch::jit::Module script_;
  std::string path_;
  bool takes_dict_ = false;
  std::vector<std::string> arg_names_;
};

}  // namespace

ModulePtr load_torchscript(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) throw CheckpointError("no such TorchScript file", path);
  torch::jit::Module script;
  try {
    script = torch::jit::load(path, c10::Device(c10::kCPU));
  } catch (const c10::Error& e) {
    throw CheckpointError(std::string("not a loadable TorchScript module: ") + e.what_without_backtrace(), path);
  }
  return std::make_shared<TorchScriptModule>(std::move(script), path);
}

}  // namespace runner::models
