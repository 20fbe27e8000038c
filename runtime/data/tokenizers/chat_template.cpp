#include "runtime/data/tokenizers/chat_template.h"

#include <filesystem>
#include <fstream>

#include "runtime/core/errors.h"
#include "runtime/data/sources/file_bytes.h"
#include "runtime/data/tokenizers/hf_tokenizer.h"
#include "runtime/jinja/clock.h"
#include "runtime/jinja/evaluate.h"
#include "runtime/jinja/parser.h"

namespace runner::data {

namespace {

std::string folder_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

DataError located(const jinja::TemplateError& e, const std::string& origin) {
  return DataError(e.what(), e.line > 0 ? origin + ":" + std::to_string(e.line) : origin);
}

// tokenizer_config.json beside `tokenizer_json`, or null when there is none.
nlohmann::json read_config(const std::string& tokenizer_json, std::string* path_out = nullptr) {
  const std::string path = folder_of(tokenizer_json) + "/tokenizer_config.json";
  if (path_out) *path_out = path;
  std::ifstream in(path);
  if (!in) return nullptr;
  nlohmann::json c = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (c.is_discarded() || !c.is_object()) throw DataError("not a JSON object", path);
  return c;
}

}  // namespace

ChatTemplate::ChatTemplate(const std::string& source, std::string origin) : origin_(std::move(origin)) {
  try {
    program_ = std::make_shared<const jinja::Program>(jinja::parse(source));
  } catch (const jinja::TemplateError& e) {
    throw located(e, origin_);
  }
}

ChatTemplate::Rendered ChatTemplate::render(const nlohmann::ordered_json& context) const {
  try {
    jinja::Rendered r = jinja::render(*program_, jinja::Value::from_json(context));
    return {std::move(r.text), std::move(r.generation)};
  } catch (const jinja::TemplateError& e) {
    throw located(e, origin_);
  }
}

std::string ChatTemplate::render_text(const nlohmann::json& context) const {
  return render(nlohmann::ordered_json::parse(context.dump())).text;
}

bool ChatTemplate::has_generation_markers() const { return program_->has_generation; }

nlohmann::ordered_json template_messages(const nlohmann::ordered_json& messages) {
  if (!messages.is_array()) return messages;
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& given : messages) {
    if (!given.is_object()) {
      out.push_back(given);
      continue;
    }
    nlohmann::ordered_json m = nlohmann::ordered_json::object();  // apply_chat_template drops None-valued keys first
    for (const auto& [k, v] : given.items())
      if (!v.is_null()) m[k] = v;
    const nlohmann::ordered_json* reasoning = nullptr;
    for (const char* key : {"reasoning_content", "thinking", "reasoning"})
      if (auto it = m.find(key); it != m.end()) {
        reasoning = &*it;
        break;
      }
    if (!reasoning) {
      out.push_back(std::move(m));
      continue;
    }
    // Python's {"thinking": r, **message, "reasoning_content": r}: key order as there.
    nlohmann::ordered_json aliased = {{"thinking", *reasoning}};
    for (const auto& [k, v] : m.items()) aliased[k] = v;
    aliased["reasoning_content"] = *reasoning;
    out.push_back(std::move(aliased));
  }
  return out;
}

std::map<std::string, ChatTemplateSource> find_chat_templates(const std::string& tokenizer_json) {
  std::map<std::string, ChatTemplateSource> out;
  const std::string folder = folder_of(tokenizer_json);
  std::error_code ec;
  if (const std::string jinja = folder + "/chat_template.jinja"; std::filesystem::is_regular_file(jinja, ec)) {
    out["default"] = ChatTemplateSource{read_file_bytes(jinja), jinja};
  } else {
    std::string config_path;
    const nlohmann::json config = read_config(tokenizer_json, &config_path);
    const nlohmann::json t = config.is_object() && config.contains("chat_template") ? config["chat_template"] : nlohmann::json();
    if (t.is_string()) {
      out["default"] = ChatTemplateSource{t.get<std::string>(), config_path + " (chat_template)"};
    } else if (t.is_array()) {
      for (const auto& named : t) {
        if (!named.is_object() || !named.contains("name") || !named["name"].is_string() || !named.contains("template") ||
            !named["template"].is_string())
          throw DataError("chat_template is a list whose entries must be {\"name\": ..., \"template\": ...}", config_path);
        const std::string name = named["name"].get<std::string>();
        out[name] = ChatTemplateSource{named["template"].get<std::string>(), config_path + " (chat_template \"" + name + "\")"};
      }
    } else if (!t.is_null()) {
      throw DataError("chat_template must be a string or a list of {name, template}", config_path);
    }
  }
  // transformers v5 saves the named templates besides the default here (and then reads them even
  // when chat_template.jinja is there: a file per name).
  const std::filesystem::path extra = std::filesystem::path(folder) / "additional_chat_templates";
  if (!out.empty() && std::filesystem::is_directory(extra, ec)) {
    for (const auto& entry : std::filesystem::directory_iterator(extra, ec)) {
      if (entry.path().extension() == ".jinja")
        out[entry.path().stem().string()] = ChatTemplateSource{read_file_bytes(entry.path().string()), entry.path().string()};
    }
  }
  return out;
}

std::optional<ChatTemplateSource> find_chat_template(const std::string& tokenizer_json) {
  auto all = find_chat_templates(tokenizer_json);
  if (all.empty()) return std::nullopt;
  auto it = all.find("default");
  if (it == all.end())
    throw DataError("the model folder's chat templates are named " + template_names(all) +
                        ", none \"default\"; name the one to use", folder_of(tokenizer_json));
  return it->second;
}

std::string template_names(const std::map<std::string, ChatTemplateSource>& templates) {
  std::string out;
  for (const auto& [name, t] : templates) out += (out.empty() ? "\"" : ", \"") + name + "\"";
  return out;
}

void set_template_time(std::time_t t) { jinja::set_render_time(t); }
std::time_t template_time() { return jinja::render_time(); }

std::vector<std::pair<std::string, std::string>> tokenizer_config_special_tokens(const std::string& tokenizer_json) {
  read_config(tokenizer_json);  // a tokenizer_config.json that is not a JSON object is an error naming it
  const auto tokens = folder_special_tokens(tokenizer_json);
  return {tokens.begin(), tokens.end()};
}

}  // namespace runner::data
