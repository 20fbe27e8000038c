#include "runtime/train/report_callbacks.h"

#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "runtime/core/errors.h"
#include "runtime/io/event_writer.h"
#include "runtime/io/json_text.h"
#include "runtime/log/log.h"

namespace runner::train {

namespace {

using nlohmann::json;

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

class TensorBoardCallback : public Callback {
 public:
  std::string name() const override { return "TensorBoardCallback"; }

  void on_event(Event event, const TrainingArguments& args, const TrainerState& state, TrainerControl&, const json& payload) override {
    if (!state.is_world_process_zero) return;
    switch (event) {
      case Event::kTrainBegin: {
        io::EventWriter& w = writer(args);
        const json a = args.to_json();
        w.add_text("args", io::dump_json_python(a), state.global_step);
        // hparams: HF's to_sanitized_dict shape (scalars as they are, anything else as text).
        w.add_hparams(a, {"train/loss", "eval/loss"}, state.global_step);
        w.flush();
        break;
      }
      case Event::kLog: {
        io::EventWriter& w = writer(args);
        for (const auto& [key, value] : payload.items()) {
          const std::string tag = tensorboard_tag(key);
          if (value.is_number()) {
            w.add_scalar(tag, value.get<double>(), state.global_step);
          } else if (value.is_string()) {
            w.add_text(tag, value.get<std::string>(), state.global_step);
          } else if (!value.is_boolean()) {
            log::warn("tensorboard: the logged value " + value.dump() + " of '" + key + "' is not a number or text; not written");
          } else {
            w.add_scalar(tag, value.get<bool>() ? 1.0 : 0.0, state.global_step);
          }
        }
        w.flush();
        break;
      }
      case Event::kTrainEnd:
        if (writer_) {
          writer_->end_session(true, state.global_step);
          writer_.reset();  // HF closes its writer here; a later evaluate opens a new file
        }
        break;
      default: break;
    }
  }

 private:
  io::EventWriter& writer(const TrainingArguments& args) {
    if (!writer_) {
      writer_ = std::make_unique<io::EventWriter>(tensorboard_dir(args));
      log::info("TensorBoard events: " + writer_->path());
    }
    return *writer_;
  }
  std::unique_ptr<io::EventWriter> writer_;
};

// One line per log event, flushed at once, for tools that tail the file. Appends: a resumed
// run continues the file of the run it resumes.
class JsonlCallback : public Callback {
 public:
  std::string name() const override { return "JsonlCallback"; }
  void on_event(Event event, const TrainingArguments& args, const TrainerState& state, TrainerControl&, const json& payload) override {
    if (event != Event::kLog || !state.is_world_process_zero) return;
    const std::string path = (std::filesystem::path(args.output_dir) / "log_history.jsonl").string();
    if (!out_.is_open()) {
      std::filesystem::create_directories(args.output_dir);
      out_.open(path, std::ios::app);
      if (!out_) throw CheckpointError("cannot open the JSON Lines log for writing", path);
    }
    json entry = payload;
    entry["step"] = state.global_step;  // as in log_history
    out_ << io::dump_json_python(entry, -1) << '\n' << std::flush;
    if (!out_) throw CheckpointError("cannot write the JSON Lines log", path);
  }

 private:
  std::ofstream out_;
};

}  // namespace

std::vector<std::string> report_integrations(const TrainingArguments& args) {
  std::vector<std::string> names;
  auto add_one = [&](const std::string& n) {
    for (const auto& existing : names)
      if (existing == n) return;
    names.push_back(n);
  };
  auto add = [&](const std::string& n) {
    if (n == "all") {
      add_one("tensorboard");
      add_one("jsonl");
    } else if (n != "none") {
      add_one(n);
    }
  };
  if (args.report_to.is_string()) add(args.report_to.get<std::string>());
  if (args.report_to.is_array())
    for (const auto& r : args.report_to) add(r.get<std::string>());
  return names;
}

std::string tensorboard_dir(const TrainingArguments& args) {
  if (args.logging_dir) return *args.logging_dir;
  if (const char* env = std::getenv("TENSORBOARD_LOGGING_DIR"); env && *env) {
    std::string d = env;
    if (d[0] == '~')
      if (const char* home = std::getenv("HOME")) d = home + d.substr(1);
    return d;
  }
  static const std::string run = [] {
    char stamp[64];
    const std::time_t t = std::time(nullptr);
    std::tm local{};
    localtime_r(&t, &local);
    std::strftime(stamp, sizeof stamp, "%b%d_%H-%M-%S", &local);
    char host[256] = {0};
    if (::gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "localhost");
    return std::string(stamp) + "_" + host;
  }();
  return (std::filesystem::path(args.output_dir) / "runs" / run).string();
}

std::string tensorboard_tag(const std::string& key) {
  if (starts_with(key, "eval_")) return "eval/" + key.substr(5);
  if (starts_with(key, "test_")) return "test/" + key.substr(5);
  return "train/" + key;
}

std::vector<std::shared_ptr<Callback>> make_report_callbacks(const TrainingArguments& args) {
  std::vector<std::shared_ptr<Callback>> out;
  for (const std::string& n : report_integrations(args)) {
    if (n == "tensorboard") out.push_back(std::make_shared<TensorBoardCallback>());
    if (n == "jsonl") out.push_back(std::make_shared<JsonlCallback>());
  }
  return out;
}

}  // namespace runner::train
