// How data.sft cuts a conversation rendered by a Jinja chat template into what the model reads
// (labels -100) and what it learns to write (the assistant turns), as TRL and transformers do;
// the cut is in characters of the rendered text, which sft.cpp tokenizes whole and maps to
// tokens by their offsets:
// with {% generation %} markers, the marked text is trained (return_assistant_tokens_mask);
// without them, by rendering prefixes: for each assistant message i, the text through it
// (messages[:i+1]) minus the text before it with the generation prompt (messages[:i],
// add_generation_prompt=true) is trained, everything else is not. That needs a template whose
// rendering of a shorter conversation begins the rendering of a longer one ("prefix-stable");
// one that is not (it moves the system prompt to the last user turn, or puts an end token only
// after the last turn) is a DataError naming the line, as guessing the boundary would train on
// the wrong text.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/data/tokenizers/chat_template.h"

namespace runner::data {

struct SftSegment {
  std::string text;
  bool trained;  // assistant text: its tokens are labels
};

class SftTemplateLayout {
 public:
  // A model folder's "default" and "tool_use" templates (either may be absent; a recipe's own
  // template is the default): as transformers' apply_chat_template chooses, a line with "tools"
  // renders with tool_use when there is one. `variables`: what the templates see besides
  // messages, tools and add_generation_prompt (bos_token, eos_token and the other special tokens
  // of tokenizer_config.json). `folder`: where they came from, for the error when a line has none.
  SftTemplateLayout(std::optional<ChatTemplate> default_template, std::optional<ChatTemplate> tool_use,
                    nlohmann::ordered_json variables, std::string folder);

  // `messages`: the line's [{role, content, ...}] (keys with null values dropped, as
  // transformers drops them); `tools`: its "tools" or null; `kwargs`: its
  // "chat_template_kwargs" (TRL passes them to apply_chat_template: enable_thinking, ...) or
  // null. DataError located at `where`.
  std::vector<SftSegment> segments(const nlohmann::ordered_json& messages, const nlohmann::ordered_json& tools,
                                   const nlohmann::ordered_json& kwargs, const std::string& where) const;
  // The whole conversation's text, as apply_chat_template(tokenize=False) gives it.
  std::string render_text(const nlohmann::ordered_json& messages, const nlohmann::ordered_json& tools, const nlohmann::ordered_json& kwargs,
                          bool add_generation_prompt, const std::string& where) const;

 private:
  const ChatTemplate& choose(const nlohmann::ordered_json& tools, const std::string& where) const;
  ChatTemplate::Rendered render(const ChatTemplate& tmpl, const nlohmann::ordered_json& messages, size_t count,
                                const nlohmann::ordered_json& tools, const nlohmann::ordered_json& kwargs, bool add_generation_prompt,
                                const std::string& where) const;
  std::optional<ChatTemplate> default_, tool_use_;
  nlohmann::ordered_json variables_;
  std::string folder_;
};

// The Jinja layout `chat_template` asks for: "auto" (the folder's templates, null when it has
// none), "tokenizer" (those, required), a template name of the folder holding `tokenizer_path`,
// or a Jinja template itself; null for a built-in layout name ("simple", "chatml", "plain").
// `eos_token` (when not empty) overrides tokenizer_config.json's for the template. RecipeError
// starting with `caller` ("data.sft") for anything else.
std::unique_ptr<SftTemplateLayout> template_layout(const std::string& chat_template, const std::string& tokenizer_path,
                                                   const std::string& eos_token, const std::string& caller);

}  // namespace runner::data
