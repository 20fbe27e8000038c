// Hugging Face chat templates: the Jinja program a model folder ships (chat_template.jinja, or
// tokenizer_config.json's "chat_template") that lays a conversation out as the text the model
// was trained on. Parsed once, rendered per conversation by runtime/jinja/, a
// from-scratch interpreter of the Jinja subset chat templates use, with transformers' settings
// (trim_blocks, lstrip_blocks, loopcontrols, {% generation %}, tojson without HTML escaping,
// raise_exception, strftime_now). Its output equals transformers' apply_chat_template(...,
// tokenize=False) byte for byte (tests/data/test_chat_template.cpp checks real templates).
#pragma once
#include <cstddef>
#include <ctime>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace runner::jinja {
struct Program;  // runtime/jinja/parser.h
}

namespace runner::data {

class ChatTemplate {
 public:
  // `origin` names the template in errors ("tok/chat_template.jinja"). DataError located at
  // "<origin>:<line>" for a syntax error or an unsupported tag.
  ChatTemplate(const std::string& source, std::string origin);

  struct Rendered {
    std::string text;
    std::vector<std::pair<size_t, size_t>> generation;  // byte ranges inside {% generation %}
  };
  // `context`: the template's variables (messages, add_generation_prompt, bos_token, ...). Key
  // order is kept: templates see it through tojson and items(). DataError at "<origin>:<line>"
  // when rendering fails, with raise_exception's message when the template raised.
  Rendered render(const nlohmann::ordered_json& context) const;
  std::string render_text(const nlohmann::json& context) const;  // the same with a plain json (keys sorted)

  bool has_generation_markers() const;
  const std::string& origin() const { return origin_; }

 private:
  std::shared_ptr<const jinja::Program> program_;
  std::string origin_;
};

// The messages as transformers hands them to a template: keys whose value is null dropped
// (apply_chat_template), then (render_jinja_template's _alias_reasoning_fields) a message's
// reasoning, given as "reasoning_content", "thinking" or "reasoning" (the first, in that
// order), is also its "thinking" (what gpt-oss's templates read; first in the message unless it
// has one) and its "reasoning_content" (what the others read; where the message had it, else
// last). Values that are not messages pass unchanged.
nlohmann::ordered_json template_messages(const nlohmann::ordered_json& messages);

struct ChatTemplateSource {
  std::string text;
  std::string origin;  // the file it came from, for errors
};

// The named templates of the model folder holding `tokenizer_json`, as transformers loads them:
// "default" is chat_template.jinja there (what transformers v5 saves; it wins), else
// tokenizer_config.json's "chat_template" string; a "chat_template" list of {"name", "template"}
// gives each by its name; additional_chat_templates/NAME.jinja adds NAME ("tool_use", "rag").
// Empty when the folder has none. DataError for a malformed file.
std::map<std::string, ChatTemplateSource> find_chat_templates(const std::string& tokenizer_json);
// The folder's "default" template; nullopt when it has none, DataError when it has only named ones.
std::optional<ChatTemplateSource> find_chat_template(const std::string& tokenizer_json);
// "\"rag\", \"tool_use\"": the names, for messages.
std::string template_names(const std::map<std::string, ChatTemplateSource>& templates);

// The time strftime_now renders (Llama 3.2's template prints today's date): fixed once per
// process, at the first render unless set before. Data-parallel runs set rank 0's on every
// rank at start-up, so ranks on either side of midnight still build the same dataset.
void set_template_time(std::time_t t);
std::time_t template_time();

// The named special tokens of the tokenizer_config.json beside `tokenizer_json` (bos_token,
// eos_token, unk_token, sep_token, pad_token, cls_token, mask_token; strings or {"content":
// ...}), which transformers passes to every chat template. Empty when there is no file.
std::vector<std::pair<std::string, std::string>> tokenizer_config_special_tokens(const std::string& tokenizer_json);

}  // namespace runner::data
