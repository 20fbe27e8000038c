// Chat templates rendered by runner's Jinja interpreter equal transformers' rendering:
// chat_template_reference.py renders the real templates of tests/data/chat_templates/ (Llama
// 3.1 and 3.2, Qwen 2.5, Mistral 7B v0.3, Zephyr, TinyLlama, SmolLM2, Phi-3 and 3.5, Gemma 2)
// with apply_chat_template(..., tokenize=False) over many conversations, and every string must
// match byte for byte (refusals must raise the same message). The other cases pin the Jinja
// semantics chat templates lean on, the errors (one line naming the template and its line) and
// how a model folder's template is found.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ctime>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"
#include "runtime/data/tokenizers/chat_template.h"

using namespace runner;
using nlohmann::ordered_json;

namespace {

class ChatTemplateGolden : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() / ("runner_chat_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    const std::string cmd = std::string(RUNNER_PYTHON) + " " + RUNNER_SOURCE_DIR + "/tests/data/chat_template_reference.py " +
                            dir_.string() + " " + RUNNER_SOURCE_DIR + " > " + (dir_ / "log.txt").string() + " 2>&1";
    status_ = std::system(cmd.c_str());
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }
  void SetUp() override {
    if (WEXITSTATUS(status_) == 77) GTEST_SKIP() << "transformers/jinja2 are not installed (scripts/setup installs them)";
    ASSERT_EQ(status_, 0) << "chat_template_reference.py failed; see " << (dir_ / "log.txt");
    std::ifstream in(dir_ / "expected.json");
    expected_ = ordered_json::parse(in);
  }
  static inline std::filesystem::path dir_;
  static inline int status_ = 0;
  ordered_json expected_;
};

std::string today() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char buf[64];
  return std::string(buf, std::strftime(buf, sizeof buf, "%d %b %Y", &local));
}

TEST_F(ChatTemplateGolden, RealTemplatesRenderAsTransformers) {
  // Llama 3.2 prints strftime_now's date: if the day turned between the two renderings, the
  // reference's date is today's.
  const std::string then = "Today Date: " + expected_.at("today").get<std::string>(), now = "Today Date: " + today();
  std::set<std::string> models;
  int rendered = 0, refused = 0;
  for (const auto& c : expected_.at("cases")) {
    const std::string name = c.at("model").get<std::string>() + "/" + c.at("case").get<std::string>() +
                             (c.at("add_generation_prompt").get<bool>() ? " +generation prompt" : "");
    models.insert(c.at("model").get<std::string>());
    const data::ChatTemplate tmpl(c.at("template").get<std::string>(), c.at("model").get<std::string>() + ".jinja");
    if (c.contains("error")) {
      try {
        tmpl.render(c.at("context"));
        ADD_FAILURE() << name << ": rendered, but transformers raised " << c.at("error");
      } catch (const DataError& e) {
        EXPECT_EQ(e.message(), c.at("error").get<std::string>()) << name;
        EXPECT_THAT(e.where(), ::testing::StartsWith(c.at("model").get<std::string>() + ".jinja:")) << name;
      }
      ++refused;
      continue;
    }
    std::string want = c.at("expected").get<std::string>();
    if (then != now)
      for (size_t at = want.find(then); at != std::string::npos; at = want.find(then, at + 1)) want.replace(at, then.size(), now);
    EXPECT_EQ(tmpl.render(c.at("context")).text, want) << name;
    ++rendered;
  }
  EXPECT_EQ(models.size(), 10u);
  EXPECT_GT(rendered, 180);
  EXPECT_GT(refused, 8);
}

std::string render(const std::string& source, const ordered_json& context = ordered_json::object()) {
  return data::ChatTemplate(source, "t.jinja").render(context).text;
}

// Where and what a DataError says.
std::pair<std::string, std::string> error_of(const std::string& source, const ordered_json& context = ordered_json::object()) {
  try {
    render(source, context);
  } catch (const DataError& e) {
    return {e.where(), e.message()};
  }
  return {"", "(no error)"};
}

TEST(ChatTemplate, WhitespaceRulesOfTransformers) {
  // trim_blocks, lstrip_blocks, "-" and "+" modifiers, one trailing newline dropped.
  EXPECT_EQ(render("a\n  {% if true %}\nb\n  {% endif %}\nc\n"), "a\nb\nc");
  EXPECT_EQ(render("{{ 1 }}\n  {{ 2 }}"), "1\n  2");
  EXPECT_EQ(render("x\n\t {% if 1 -%}  \n  y {%- endif %}"), "x\ny");
  EXPECT_EQ(render("a  {%+ if true %}x{% endif %}\n"), "a  x");
  EXPECT_EQ(render("{# c #}  {% if true %}y{% endif %}"), "  y");
  EXPECT_EQ(render("{% raw %}{{ x }}{% endraw %}"), "{{ x }}");
  EXPECT_EQ(render("a\r\nb\n\n"), "a\nb\n");
}

TEST(ChatTemplate, ScopesUndefinedAndPythonValues) {
  EXPECT_EQ(render("{% set x = 1 %}{% for i in [1, 2] %}{{ x }}{% set x = x + 10 %}{{ x }}|{% endfor %}{{ x }}"), "111|111|1");
  EXPECT_EQ(render("{% set ns = namespace(n=0) %}{% for i in range(4) %}{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}"), "6");
  EXPECT_EQ(render("[{{ missing }}]{{ missing is defined }}{{ missing|length }}{{ m.a is defined }}", {{"m", ordered_json::object()}}),
            "[]False0False");
  EXPECT_EQ(render("{{ [1, 'a', none, true, 1.0] }} {{ {'k': 'v'} }} {{ 7 // 2 }} {{ -7 // 2 }} {{ -7 % 3 }} {{ 3 ** 4 }} {{ 1 / 4 }} {{ 1e16 }}"),
            "[1, 'a', None, True, 1.0] {'k': 'v'} 3 -4 2 81 0.25 1e+16");
  EXPECT_EQ(render("{{ 'héllo'[1] }}{{ 'héllo'|length }}{{ 'abc'[::-1] }}{{ m[1:] }}", {{"m", {1, 2, 3}}}), "é5cba[2, 3]");
  EXPECT_EQ(render("{{ x|tojson }}|{{ x|tojson(indent=2) }}", {{"x", {{"b", {1, 2.5, "é\n"}}, {"a", nullptr}}}}),
            "{\"b\": [1, 2.5, \"é\\n\"], \"a\": null}|{\n  \"b\": [\n    1,\n    2.5,\n    \"é\\n\"\n  ],\n  \"a\": null\n}");
  EXPECT_EQ(render("{% for k, v in d.items() %}{{ loop.index }}{{ k }}={{ v }}{{ '' if loop.last else ',' }}{% endfor %}",
                   {{"d", {{"z", 1}, {"a", 2}}}}),
            "1z=1,2a=2");
  EXPECT_EQ(render("{{ ' x '.strip() ~ 'a,b'.split(',')|join('+') ~ 'x'.upper() ~ ('ab'.startswith('a')) }}"), "xa+bXTrue");
  // Python's split(None, n) keeps the remainder's far-end whitespace (rsplit: its start)
  EXPECT_EQ(render("{{ 'a b  c \\t'.split(None, 1)|join('|') }}"), "a|b  c \t");
  EXPECT_EQ(render("{{ '  a b c '.rsplit(None, 1)|join('|') }}"), "  a b|c");
  EXPECT_EQ(render("{{ 2 ** 62 }} {{ (-2) ** 63 }} {{ 1 ** 100000000000 }}"), "4611686018427387904 -9223372036854775808 1");
  // repr escapes what Python's str.isprintable() rejects (Z* and C* categories but the space)
  EXPECT_EQ(render("{{ [s] }}", {{"s", "a\u3000b\u00a0c\u2003\U0001F642\u200b\u00ad\x7f \u00e9"}}),
            "['a\\u3000b\\xa0c\\u2003\U0001F642\\u200b\\xad\\x7f \u00e9']");
}

TEST(ChatTemplate, GenerationBlocksGiveTheAssistantSpans) {
  const auto r = data::ChatTemplate("{% for m in messages %}<{{ m }}>{% generation %}{{ m|upper }}{% endgeneration %}{% endfor %}", "t")
                     .render({{"messages", {"a", "bc"}}});
  EXPECT_EQ(r.text, "<a>A<bc>BC");
  EXPECT_EQ(r.generation, (std::vector<std::pair<size_t, size_t>>{{3, 4}, {8, 10}}));
  EXPECT_TRUE(data::ChatTemplate("{% generation %}x{% endgeneration %}", "t").has_generation_markers());
  EXPECT_FALSE(data::ChatTemplate("x", "t").has_generation_markers());
}

// What transformers hands a template: null keys dropped (apply_chat_template), then a
// message's reasoning under each of its names (_alias_reasoning_fields), key order as Python's.
TEST(ChatTemplate, TemplateMessagesDropNullsAndAliasReasoning) {
  const ordered_json given = ordered_json::parse(R"([
    {"role": "user", "content": "q", "tool_calls": null},
    {"role": "assistant", "thinking": null, "content": "a", "reasoning_content": "R"},
    {"role": "assistant", "content": "b", "reasoning": "S"},
    "not a message"])");
  const ordered_json want = ordered_json::parse(R"([
    {"role": "user", "content": "q"},
    {"thinking": "R", "role": "assistant", "content": "a", "reasoning_content": "R"},
    {"thinking": "S", "role": "assistant", "content": "b", "reasoning": "S", "reasoning_content": "S"},
    "not a message"])");
  EXPECT_EQ(data::template_messages(given).dump(), want.dump());
}

TEST(ChatTemplate, ErrorsNameTheTemplateAndLine) {
  EXPECT_EQ(error_of("a\n{% if x %}\nb"), std::make_pair(std::string("t.jinja:3"), std::string("missing {% endif %}")));
  EXPECT_EQ(error_of("a\n\n{{ x |nofilter }}").first, "t.jinja:3");
  EXPECT_EQ(error_of("a\n\n{{ x |nofilter }}").second, "no filter named 'nofilter'");
  EXPECT_EQ(error_of("{% include 'x' %}").second.rfind("the 'include' tag is not supported", 0), 0u);
  EXPECT_EQ(error_of("x\n{{ raise_exception('Roles must alternate') }}"), std::make_pair(std::string("t.jinja:2"), std::string("Roles must alternate")));
  EXPECT_EQ(error_of("{{ missing.attr }}").second, "'missing' is undefined");
  EXPECT_EQ(error_of("{{ 'a' + 1 }}").second, "can only concatenate str (not \"int\") to str");
  EXPECT_EQ(error_of("{{ messages[0]['role'] }}", {{"messages", ordered_json::array()}}).second, "list object has no element 0");
  EXPECT_EQ(error_of("{{ 'unterminated }}").second, "unterminated string");
  // unknown filters and tests are refused when the template is read, as Jinja's compiler does
  EXPECT_EQ(error_of("{% if false %}\n{{ x|nofilter }}{% endif %}"), std::make_pair(std::string("t.jinja:2"), std::string("no filter named 'nofilter'")));
  EXPECT_EQ(error_of("{{ x is nothing }}").second, "no test named 'nothing'");
  EXPECT_EQ(error_of("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}").second, "maximum macro recursion depth exceeded in 'f'");
  // Python's ints are unbounded, ours 64 bits: beyond them an error, never a wrapped number
  EXPECT_EQ(error_of("x\n{{ 100000000000000000000 }}"), std::make_pair(std::string("t.jinja:2"), std::string("the number 100000000000000000000 is beyond 64 bits")));
  EXPECT_EQ(error_of("{{ 2 ** 64 }}").second, "integer overflow: 2 ** 64 exceeds 64 bits");
  EXPECT_EQ(error_of("{{ 9223372036854775807 + 1 }}").second, "integer overflow: 9223372036854775807 + 1 exceeds 64 bits");
  EXPECT_EQ(error_of("{{ 3037000500 * 3037000500 }}").second, "integer overflow: 3037000500 * 3037000500 exceeds 64 bits");
}

class ChatTemplateFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("runner_chat_folder_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "tokenizer.json") << "{}";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::string tokenizer() const { return (dir_ / "tokenizer.json").string(); }
  std::filesystem::path dir_;
};

TEST_F(ChatTemplateFolder, FindsTheFolderTemplate) {
  EXPECT_FALSE(data::find_chat_template(tokenizer()).has_value());
  write("tokenizer_config.json", R"({"eos_token": {"content": "</s>"}, "bos_token": "<s>", "chat_template": "{{ bos_token }}"})");
  auto t = data::find_chat_template(tokenizer());
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->text, "{{ bos_token }}");
  EXPECT_THAT(t->origin, ::testing::HasSubstr("tokenizer_config.json"));
  EXPECT_EQ(data::tokenizer_config_special_tokens(tokenizer()),
            (std::vector<std::pair<std::string, std::string>>{{"bos_token", "<s>"}, {"eos_token", "</s>"}}));
  write("tokenizer_config.json", R"({"chat_template": [{"name": "tool_use", "template": "T"}, {"name": "default", "template": "D"}]})");
  EXPECT_EQ(data::find_chat_template(tokenizer())->text, "D");
  write("chat_template.jinja", "J\n");  // newer transformers save it beside tokenizer_config.json; it wins
  EXPECT_EQ(data::find_chat_template(tokenizer())->text, "J\n");
  EXPECT_THAT(data::find_chat_template(tokenizer())->origin, ::testing::HasSubstr("chat_template.jinja"));
  std::filesystem::remove(dir_ / "chat_template.jinja");
  write("tokenizer_config.json", R"({"chat_template": [{"name": "tool_use", "template": "T"}]})");
  EXPECT_THROW(data::find_chat_template(tokenizer()), DataError);
}

}  // namespace
