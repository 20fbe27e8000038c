// TensorBoard event files: the TFRecord container of Event protos that torch's SummaryWriter
// writes, with scalars (add_scalar), text (add_text) and the hparams plugin's session records
// (add_hparams). One writer per run folder; TensorBoard reads every events.out.tfevents.*
// file under its --logdir.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace runner::tb {
class Event;
}

namespace runner::io {

class EventWriter {
 public:
  // Creates `dir` (and its parents) and a new events.out.tfevents.<secs>.<host>.<pid>.<n> in
  // it, starting with the file-version record. Throws CheckpointError naming the path on
  // failure, as every later call does.
  explicit EventWriter(const std::string& dir);
  ~EventWriter();
  EventWriter(const EventWriter&) = delete;
  EventWriter& operator=(const EventWriter&) = delete;

  void add_scalar(const std::string& tag, double value, int64_t step);
  // Shown by TensorBoard's text plugin under `tag` (stored as "<tag>/text_summary", as torch does).
  void add_text(const std::string& tag, const std::string& text, int64_t step);
  // The hparams plugin: an experiment listing the hyperparameters and metric tags, and this
  // run's session start. Values: strings, bools and numbers; anything else is shown as JSON text.
  // `step`: the run's current step. TensorBoard's reader drops the records after a step that goes
  // backwards, so these records carry it too.
  void add_hparams(const nlohmann::json& hparams, const std::vector<std::string>& metric_tags, int64_t step);
  void end_session(bool success, int64_t step);
  void flush();

  const std::string& path() const { return path_; }

 private:
  void write(const runner::tb::Event& event);
  std::FILE* file_ = nullptr;
  std::string path_;
};

// The TFRecord checksum: CRC-32C (Castagnoli) of `data`, rotated and offset ("masked").
uint32_t masked_crc32c(const void* data, size_t size);

}  // namespace runner::io
