#include "runtime/data/collator.h"

#include <algorithm>

#include "runtime/core/errors.h"

namespace runner::data {

namespace {
std::string shape_str(at::IntArrayRef sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + "]";
}
std::string renamed(const std::string& name) { return name == "label" || name == "label_ids" ? "labels" : name; }

// The field's tensors, one per example; a DataError when an example lacks it.
std::vector<at::Tensor> column(const std::vector<Example>& examples, const std::string& name) {
  std::vector<at::Tensor> parts;
  parts.reserve(examples.size());
  for (size_t i = 0; i < examples.size(); ++i) {
    auto it = examples[i].find(name);
    if (it == examples[i].end())
      throw DataError("example " + std::to_string(i) + " has no field '" + name + "' (the first example has it)");
    parts.push_back(it->second);
  }
  return parts;
}

at::Tensor stack_same_shape(const std::vector<at::Tensor>& parts, const std::string& name) {
  for (const auto& t : parts)
    if (!t.sizes().equals(parts.front().sizes()))
      throw DataError("field '" + name + "': examples have different shapes " + shape_str(parts.front().sizes()) + " and " +
                      shape_str(t.sizes()) + "; variable-length fields need a padding collator");
  return at::stack(parts, 0);
}

// Pads every part along dim 0 to the longest, rounded up to a multiple of `multiple` (> 0),
// after it (before it when `left`); the other dims must agree.
at::Tensor pad_stack(const std::vector<at::Tensor>& parts, const std::string& name, int64_t value, std::vector<int64_t>& lengths,
                     bool left, int64_t multiple) {
  int64_t longest = 0;
  for (const auto& t : parts) {
    if (t.dim() == 0) throw DataError("field '" + name + "' is a scalar in some example; only fields with a length can be padded");
    if (!t.sizes().slice(1).equals(parts.front().sizes().slice(1)))
      throw DataError("field '" + name + "': examples differ beyond the padded dim, " + shape_str(parts.front().sizes()) + " and " +
                      shape_str(t.sizes()));
    if (t.scalar_type() != parts.front().scalar_type())
      throw DataError("field '" + name + "': examples have different dtypes");
    longest = std::max(longest, t.size(0));
  }
  longest = (longest + multiple - 1) / multiple * multiple;
  std::vector<int64_t> shape{static_cast<int64_t>(parts.size()), longest};
  for (int64_t d = 1; d < parts.front().dim(); ++d) shape.push_back(parts.front().size(d));
  at::Tensor out = at::full(shape, value, parts.front().options());
  lengths.clear();
  for (size_t i = 0; i < parts.size(); ++i) {
    out.select(0, static_cast<int64_t>(i)).narrow(0, left ? longest - parts[i].size(0) : 0, parts[i].size(0)).copy_(parts[i]);
    lengths.push_back(parts[i].size(0));
  }
  return out;
}

// 1 for the first lengths[i] positions of row i, 0 after (the last ones with left padding):
// (batch, width) int64.
at::Tensor length_mask(const std::vector<int64_t>& lengths, int64_t width, bool left) {
  at::Tensor len = at::tensor(lengths, at::kLong).unsqueeze(1);
  const at::Tensor pos = at::arange(width, at::kLong).unsqueeze(0);
  return (left ? pos.ge(width - len) : pos.lt(len)).to(at::kLong);
}

struct Padded {
  Batch batch;
  std::string mask_field;  // the field the attention mask follows ("" if nothing was padded)
  at::Tensor mask;         // its real-token mask
};

Padded pad_examples(const std::vector<Example>& examples, const PadOptions& o) {
  if (examples.empty()) throw DataError("cannot collate an empty list of examples");
  const Example& first = examples.front();
  std::vector<std::string> to_pad;
  if (o.fields) {
    for (const auto& f : *o.fields) {
      if (!first.count(f)) throw DataError("pad_collate: the examples have no field '" + f + "' to pad");
      to_pad.push_back(f);
    }
  } else {
    for (const auto& [name, t] : first) {
      bool all_1d = true;
      for (const auto& ex : examples) {
        auto it = ex.find(name);
        if (it != ex.end() && it->second.dim() != 1) all_1d = false;
      }
      if (all_1d) to_pad.push_back(name);
    }
  }
  Padded p;
  std::map<std::string, std::vector<int64_t>> lengths;
  // pad_to_multiple_of rounds the token fields only: those as long as input_ids (or the first
  // of `fields`) in every example, as transformers rounds the tokenizer's outputs and the labels
  // aligned with them, not a multi-label vector.
  const std::string tokens = std::find(to_pad.begin(), to_pad.end(), "input_ids") != to_pad.end() ? "input_ids"
                             : o.fields && !o.fields->empty()                                   ? o.fields->front()
                                                                                                  : "";
  auto token_aligned = [&](const std::string& name) {
    if (tokens.empty()) return false;
    for (const auto& ex : examples) {
      auto a = ex.find(name), b = ex.find(tokens);
      if (a == ex.end() || b == ex.end() || a->second.dim() == 0 || b->second.dim() == 0 || a->second.size(0) != b->second.size(0)) return false;
    }
    return true;
  };
  for (const auto& [name, t0] : first) {
    const auto parts = column(examples, name);
    const std::string out_name = renamed(name);
    if (p.batch.count(out_name)) throw DataError("the examples have both '" + name + "' and another field that becomes '" + out_name + "'");
    if (std::find(to_pad.begin(), to_pad.end(), name) == to_pad.end()) {
      p.batch[out_name] = stack_same_shape(parts, name);
      continue;
    }
    // As tokenizer.pad: the mask and token types pad with 0 (pad_token_type_id), the special
    // tokens mask with 1 (a pad is special), labels with label_pad_id, the rest with pad_token_id.
    const int64_t value = out_name == "labels"                                 ? o.label_pad_id
                          : name == "attention_mask" || name == "token_type_ids" ? 0
                          : name == "special_tokens_mask"                       ? 1
                                                                                : o.pad_token_id;
    const int64_t multiple = o.pad_to_multiple_of > 1 && token_aligned(name) ? o.pad_to_multiple_of : 1;
    p.batch[out_name] = pad_stack(parts, name, value, lengths[out_name], o.pad_left, multiple);
  }
  // The mask follows input_ids; without it, the first field the recipe asked to pad. Fields
  // padded by default (every 1-D one, like a feature vector) do not earn a mask by themselves.
  std::string follow;
  if (lengths.count("input_ids")) follow = "input_ids";
  else if (o.fields && !o.fields->empty()) follow = renamed(o.fields->front());
  if (!follow.empty()) {
    p.mask_field = follow;
    p.mask = length_mask(lengths[follow], p.batch[follow].size(1), o.pad_left);
  }
  if (o.attention_mask && !p.mask_field.empty() && !p.batch.count("attention_mask")) p.batch["attention_mask"] = p.mask;
  return p;
}

}  // namespace

BatchOrigin BatchOrigin::sequential(size_t n) {
  BatchOrigin o;
  o.indices.resize(n);
  for (size_t i = 0; i < n; ++i) o.indices[i] = static_cast<int64_t>(i);
  return o;
}

Batch default_collate(const std::vector<Example>& examples) {
  if (examples.empty()) throw DataError("cannot collate an empty list of examples");
  Batch batch;
  for (const auto& [name, t0] : examples.front()) batch[renamed(name)] = stack_same_shape(column(examples, name), name);
  return batch;
}

int64_t batch_size_of(const Batch& batch) {
  for (const auto& [name, t] : batch)
    if (t.dim() > 0) return t.size(0);
  return 0;
}

Collator pad_collate(PadOptions options) {
  return [options](const std::vector<Example>& examples) { return pad_examples(examples, options).batch; };
}

Collator lm_collate(PadOptions options) {
  return [options](const std::vector<Example>& examples) {
    Padded p = pad_examples(examples, options);
    if (p.batch.count("labels")) return p.batch;
    auto ids = p.batch.find("input_ids");
    if (ids == p.batch.end()) throw DataError("lm_collate: the examples have no 'input_ids' field to make labels from");
    at::Tensor labels = ids->second.clone();
    if (p.mask_field == "input_ids") labels.masked_fill_(p.mask.eq(0), options.label_pad_id);
    p.batch["labels"] = labels;
    return p.batch;
  };
}

Collator multiple_choice_collate(PadOptions o) {
  return [o](const std::vector<Example>& examples) {
    if (examples.empty()) return Batch{};
    std::vector<std::string> padded;
    for (const auto& [name, v] : examples.front()) {
      const bool two_d = std::all_of(examples.begin(), examples.end(), [&, n = name](const Example& e) {
        auto it = e.find(n);
        return it != e.end() && it->second.dim() == 2;
      });
      if (two_d) padded.push_back(name);
    }
    if (std::find(padded.begin(), padded.end(), "input_ids") == padded.end())
      throw DataError("multiple_choice_collate: each example's input_ids must be (choices, tokens), e.g. tok({context, ...}, {ending, ...})");
    std::vector<Example> rest = examples;
    for (auto& e : rest)
      for (const auto& n : padded) e.erase(n);
    Batch b = default_collate(rest);
    const int64_t choices = examples.front().at("input_ids").size(0);
    for (const auto& n : padded) {
      int64_t width = 0;
      for (const auto& e : examples) {
        if (e.at(n).size(0) != choices)
          throw DataError("multiple_choice_collate: every example needs " + std::to_string(choices) + " choices in '" + n + "', one has " +
                          std::to_string(e.at(n).size(0)));
        width = std::max(width, e.at(n).size(1));
      }
      if (o.pad_to_multiple_of > 0) width = (width + o.pad_to_multiple_of - 1) / o.pad_to_multiple_of * o.pad_to_multiple_of;
      const at::Tensor& first = examples.front().at(n);
      at::Tensor out = at::full({static_cast<int64_t>(examples.size()), choices, width}, n == "input_ids" ? o.pad_token_id : 0, first.options());
      for (size_t i = 0; i < examples.size(); ++i) {
        const at::Tensor& v = examples[i].at(n);
        out[static_cast<int64_t>(i)].narrow(1, o.pad_left ? width - v.size(1) : 0, v.size(1)).copy_(v);
      }
      b[n] = out;
    }
    return b;
  };
}

Collator flattening_collate(int64_t separator_id) {
  return [separator_id](const std::vector<Example>& examples) {
    if (examples.empty()) throw DataError("cannot collate an empty list of examples");
    std::vector<at::Tensor> ids, labels, positions;
    for (size_t i = 0; i < examples.size(); ++i) {
      auto it = examples[i].find("input_ids");
      if (it == examples[i].end()) throw DataError("flattening_collate: example " + std::to_string(i) + " has no 'input_ids' field");
      const at::Tensor x = it->second.to(at::kLong).reshape(-1);
      if (x.numel() == 0) throw DataError("flattening_collate: example " + std::to_string(i) + " has no tokens");
      auto l = examples[i].find("labels");
      at::Tensor y = (l == examples[i].end() ? x : l->second.to(at::kLong).reshape(-1)).clone();
      if (y.numel() != x.numel())
        throw DataError("flattening_collate: example " + std::to_string(i) + " has " + std::to_string(y.numel()) + " labels for " +
                        std::to_string(x.numel()) + " input_ids");
      y[0] = separator_id;
      ids.push_back(x);
      labels.push_back(y);
      positions.push_back(at::arange(x.numel(), at::kLong));
    }
    return Batch{{"input_ids", at::cat(ids).unsqueeze(0)}, {"labels", at::cat(labels).unsqueeze(0)}, {"position_ids", at::cat(positions).unsqueeze(0)}};
  };
}

}  // namespace runner::data
