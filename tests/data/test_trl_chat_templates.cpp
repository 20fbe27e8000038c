// Every chat template the installed TRL ships (trl/chat_templates/: Llama 3, Qwen 2.5 / 3 /
// 3.5, Gemma 1-4, DeepSeek V3 and R1, gpt-oss, GLM-4 MoE, Phi-3, Cohere, LFM2, Nemotron,
// SmolVLM, ..., byte for byte as their models ship them, and TRL's training variants with
// {% generation %} markers) renders in runner as transformers renders it:
// trl_chat_template_reference.py renders each over conversations with tools, reasoning, content
// parts and enable_thinking, and runner must give the same text, the same {% generation %}
// spans (what SFT's assistant_only_loss trains) and refuse what the template refuses (with the
// template's own message where it raised one).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "runtime/core/errors.h"
#include "runtime/data/tokenizers/chat_template.h"

using namespace runner;
using nlohmann::ordered_json;

namespace {

std::string today(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char buf[64];
  return std::string(buf, std::strftime(buf, sizeof buf, format, &local));
}

// Where two renderings part, with a little of each around it.
std::string first_difference(const std::string& got, const std::string& want) {
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  const size_t from = i > 40 ? i - 40 : 0;
  return "at byte " + std::to_string(i) + ":\n  runner:       " + ordered_json(got.substr(from, 100)).dump() +
         "\n  transformers: " + ordered_json(want.substr(from, 100)).dump();
}

TEST(TrlChatTemplates, EveryShippedTemplateRendersAsTransformers) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("runner_trl_chat_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string cmd = std::string(RUNNER_PYTHON) + " " + RUNNER_SOURCE_DIR + "/tests/data/trl_chat_template_reference.py " +
                          dir.string() + " > " + (dir / "log.txt").string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  if (WEXITSTATUS(status) == 77) {
    std::filesystem::remove_all(dir);
    GTEST_SKIP() << "transformers, jinja2 or trl is not installed (scripts/setup installs them)";
  }
  ASSERT_EQ(status, 0) << "trl_chat_template_reference.py failed; see " << (dir / "log.txt");
  std::ifstream in(dir / "trl.json");
  const ordered_json expected = ordered_json::parse(in);
  std::filesystem::remove_all(dir);

  // Templates that print today's date: the reference's day, if it turned in between, is today's.
  std::vector<std::pair<std::string, std::string>> dates;
  const char* formats[] = {"%d %b %Y", "%Y-%m-%d", "%B %d, %Y"};
  for (size_t k = 0; k < 3; ++k) dates.emplace_back(expected.at("dates").at(k).get<std::string>(), today(formats[k]));

  std::map<std::string, int> failures;  // per template
  int rendered = 0, refused = 0, spans = 0;
  for (const auto& c : expected.at("cases")) {
    const std::string model = c.at("model").get<std::string>();
    const std::string name = model + "/" + c.at("case").get<std::string>() + (c.at("add_generation_prompt").get<bool>() ? " +generation prompt" : "");
    try {
      const data::ChatTemplate tmpl(c.at("template").get<std::string>(), model + ".jinja");
      // The conversation as the reference wrote it; the messages as runner hands them over.
      ordered_json context = c.at("context");
      context["messages"] = data::template_messages(context["messages"]);
      if (c.contains("error")) {
        try {
          tmpl.render(context);
          ADD_FAILURE() << name << ": rendered, but transformers raised " << c.at("error");
          ++failures[model];
        } catch (const DataError& e) {
          if (c.at("raised_by_template").get<bool>() && e.message() != c.at("error").get<std::string>()) {
            ADD_FAILURE() << name << ": runner raised \"" << e.message() << "\", the template " << c.at("error");
            ++failures[model];
          }
        }
        ++refused;
        continue;
      }
      const data::ChatTemplate::Rendered r = tmpl.render(context);
      std::string want = c.at("expected").get<std::string>();
      for (const auto& [then, now] : dates)
        if (then != now)
          for (size_t at = want.find(then); at != std::string::npos; at = want.find(then, at + 1)) want.replace(at, then.size(), now);
      ++rendered;
      if (r.text != want) {
        ADD_FAILURE() << name << ": differs " << first_difference(r.text, want);
        ++failures[model];
        continue;
      }
      if (c.contains("generation")) {
        std::vector<std::pair<size_t, size_t>> want_spans;
        for (const auto& s : c.at("generation")) want_spans.emplace_back(s.at(0).get<size_t>(), s.at(1).get<size_t>());
        ++spans;
        if (r.generation != want_spans) {
          std::ostringstream got;
          for (const auto& [a, b] : r.generation) got << "[" << a << ", " << b << ") ";
          ADD_FAILURE() << name << ": {% generation %} spans " << got.str() << "; transformers " << c.at("generation").dump();
          ++failures[model];
        }
      }
    } catch (const Error& e) {
      ADD_FAILURE() << name << ": " << e.what();
      ++failures[model];
    }
  }
  std::ostringstream summary;
  for (const auto& [model, n] : failures) summary << model << " " << n << ", ";
  EXPECT_TRUE(failures.empty()) << "failing renderings per template: " << summary.str();
  EXPECT_GE(expected.at("templates").get<int>(), 60) << "TRL " << expected.at("trl") << " ships fewer templates than expected";
  EXPECT_GT(rendered, 1500);
  EXPECT_GT(refused, 100);
  EXPECT_GT(spans, 400);
  std::cout << "[trl templates] " << expected.at("templates") << " templates of TRL " << expected.at("trl").get<std::string>() << ": " << rendered
            << " renderings equal, " << spans << " with equal generation spans, " << refused << " refusals\n";
}

}  // namespace
