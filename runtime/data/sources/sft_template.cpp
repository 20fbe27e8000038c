#include "runtime/data/sources/sft_template.h"

#include <algorithm>
#include <map>

#include "runtime/core/errors.h"

namespace runner::data {

using nlohmann::ordered_json;

namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

void add(std::vector<SftSegment>& out, const std::string& text, size_t from, size_t to, bool trained) {
  if (to > from) out.push_back({text.substr(from, to - from), trained});
}

}  // namespace

SftTemplateLayout::SftTemplateLayout(std::optional<ChatTemplate> default_template, std::optional<ChatTemplate> tool_use,
                                     ordered_json variables, std::string folder)
    : default_(std::move(default_template)), tool_use_(std::move(tool_use)), variables_(std::move(variables)), folder_(std::move(folder)) {}

const ChatTemplate& SftTemplateLayout::choose(const ordered_json& tools, const std::string& where) const {
  if (!tools.is_null() && tool_use_) return *tool_use_;
  if (default_) return *default_;
  throw DataError("this line has no \"tools\", and the chat templates of " + folder_ +
                      " are named, none \"default\" (only \"tool_use\"); give the line tools or name a template with chat_template = ...",
                  where);
}

ChatTemplate::Rendered SftTemplateLayout::render(const ChatTemplate& tmpl, const ordered_json& messages, size_t count,
                                                 const ordered_json& tools, const ordered_json& kwargs, bool add_generation_prompt,
                                                 const std::string& where) const {
  ordered_json context = {{"messages", ordered_json::array()}, {"tools", tools}, {"documents", nullptr},
                          {"add_generation_prompt", add_generation_prompt}};
  for (size_t k = 0; k < count; ++k) context["messages"].push_back(messages[k]);
  context["messages"] = template_messages(context["messages"]);
  for (const auto& [k, v] : variables_.items()) context[k] = v;
  if (kwargs.is_object())  // apply_chat_template(**kwargs): the template's own variables
    for (const auto& [k, v] : kwargs.items()) context[k] = v;
  try {
    return tmpl.render(context);
  } catch (const DataError& e) {
    throw DataError("chat template " + e.where() + ": " + e.message(), where);
  }
}

std::vector<SftSegment> SftTemplateLayout::segments(const ordered_json& messages, const ordered_json& tools, const ordered_json& kwargs,
                                                    const std::string& where) const {
  std::vector<SftSegment> out;
  const ChatTemplate& tmpl = choose(tools, where);
  const ChatTemplate::Rendered full = render(tmpl, messages, messages.size(), tools, kwargs, false, where);
  if (tmpl.has_generation_markers()) {  // transformers' return_assistant_tokens_mask
    auto spans = full.generation;
    std::sort(spans.begin(), spans.end());
    size_t pos = 0;
    for (const auto& [from, to] : spans) {
      if (to <= pos) continue;
      add(out, full.text, pos, std::max(from, pos), false);
      add(out, full.text, std::max(from, pos), to, true);
      pos = to;
    }
    add(out, full.text, pos, full.text.size(), false);
    return out;
  }
  size_t pos = 0;
  for (size_t i = 0; i < messages.size(); ++i) {
    if (messages[i].value("role", "") != "assistant") continue;
    const std::string before = render(tmpl, messages, i, tools, kwargs, true, where).text;
    const std::string through = render(tmpl, messages, i + 1, tools, kwargs, false, where).text;
    if (!starts_with(full.text, before) || !starts_with(full.text, through) || through.size() < before.size() ||
        before.size() < pos)
      throw DataError("chat template " + tmpl.origin() + " is not prefix-stable: the messages up to message " +
                          std::to_string(i + 1) + " (assistant) do not render as the start of the whole conversation "
                          "(the template changes earlier text as turns are added), so the assistant text cannot be cut "
                          "out; give the template {% generation %} markers, or use chat_template = \"simple\" or \"chatml\"",
                      where);
    add(out, full.text, pos, before.size(), false);
    add(out, full.text, before.size(), through.size(), true);
    pos = through.size();
  }
  add(out, full.text, pos, full.text.size(), false);
  return out;
}

std::string SftTemplateLayout::render_text(const ordered_json& messages, const ordered_json& tools, const ordered_json& kwargs,
                                           bool add_generation_prompt, const std::string& where) const {
  return render(choose(tools, where), messages, messages.size(), tools, kwargs, add_generation_prompt, where).text;
}

// The Jinja layout chat_template asks for, or null for a built-in one.
std::unique_ptr<SftTemplateLayout> template_layout(const std::string& t, const std::string& tokenizer_path, const std::string& eos_token,
                                                   const std::string& caller) {
  const std::string folder = tokenizer_path.find('/') == std::string::npos ? "." : tokenizer_path.substr(0, tokenizer_path.rfind('/'));
  const bool jinja_text = t.find("{%") != std::string::npos || t.find("{{") != std::string::npos;
  // The model folder's templates by name (transformers' dict of chat templates).
  const std::map<std::string, ChatTemplateSource> named =
      jinja_text || tokenizer_path.empty() ? std::map<std::string, ChatTemplateSource>{} : find_chat_templates(tokenizer_path);
  std::optional<ChatTemplate> chosen, tool_use;
  auto compile = [](const ChatTemplateSource& s) { return ChatTemplate(s.text, s.origin); };
  if (jinja_text) {
    chosen = ChatTemplate(t, caller + " chat_template");
  } else if (t == "auto" || t == "tokenizer") {
    if (named.empty()) {
      if (t == "tokenizer")
        throw RecipeError(caller + ": chat_template = \"tokenizer\", but " + folder +
                          " has no chat_template.jinja and no \"chat_template\" in tokenizer_config.json");
      return nullptr;  // auto without a template: "simple"
    }
    // As apply_chat_template without a name: "tool_use" for lines with tools, else "default".
    if (auto it = named.find("default"); it != named.end()) chosen = compile(it->second);
    if (auto it = named.find("tool_use"); it != named.end()) tool_use = compile(it->second);
    if (!chosen && !tool_use)
      throw RecipeError(caller + ": the chat templates of " + folder + " are named " + template_names(named) +
                        ", none \"default\" or \"tool_use\"; choose one with chat_template = \"NAME\"");
  } else if (auto it = named.find(t); it != named.end()) {
    chosen = compile(it->second);  // a name the folder's templates have wins over a built-in layout, as in transformers
  } else if (t == "simple" || t == "chatml" || t == "plain") {
    return nullptr;
  } else {
    throw RecipeError(caller + ": chat_template must be \"auto\", \"tokenizer\", \"simple\", \"chatml\", \"plain\", a Jinja "
                      "template (text with {% or {{)" + (named.empty() ? std::string() : " or a template of " + folder + ": " + template_names(named)) +
                      ", got \"" + t + "\"");
  }
  ordered_json variables = ordered_json::object();  // what transformers passes besides the messages: the special tokens
  if (!tokenizer_path.empty())
    for (const auto& [k, v] : tokenizer_config_special_tokens(tokenizer_path)) variables[k] = v;
  if (!eos_token.empty()) variables["eos_token"] = eos_token;
  return std::make_unique<SftTemplateLayout>(std::move(chosen), std::move(tool_use), std::move(variables), folder);
}

}  // namespace runner::data
