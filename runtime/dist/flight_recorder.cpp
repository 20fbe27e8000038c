#include "runtime/dist/flight_recorder.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <deque>
#include <exception>
#include <mutex>

namespace runner::dist {

namespace {

double now() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

// Never destroyed: the fault monitor's thread may read it while the process exits.
struct Recorder {
  std::mutex mu;
  std::deque<CollectiveRecord> entries;
  int64_t next_seq = 1;
  RankActivity activity;
  std::string folder;
};
Recorder& recorder() {
  static Recorder* r = new Recorder;
  return *r;
}

std::string fixed(double v, int digits) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

std::string entry_json(const CollectiveRecord& e) {
  return "{\"seq\": " + std::to_string(e.seq) + ", \"op\": " + json_quoted(e.op) + ", \"dtype\": " + json_quoted(e.dtype) +
         ", \"numel\": " + std::to_string(e.numel) + ", \"bytes\": " + std::to_string(e.bytes) + ", \"async\": " + (e.async ? "true" : "false") +
         ", \"state\": \"" + (e.completed ? "completed" : "started") + "\", \"time_started\": " + fixed(e.started, 6) +
         ", \"time_completed\": " + (e.completed ? fixed(e.ended, 6) : "null") + ", \"step\": " + std::to_string(e.step) +
         ", \"phase\": " + json_quoted(e.phase) + "}";
}

}  // namespace

std::string json_quoted(const std::string& s) {
  std::string q = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') q += '\\', q += static_cast<char>(c);
    else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      q += b;
    } else q += static_cast<char>(c);
  }
  return q + "\"";
}

void set_step(int64_t step) {
  std::lock_guard<std::mutex> lock(recorder().mu);
  recorder().activity.step = step;
}

void set_phase(const std::string& name) {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mu);
  r.activity.phase = name;
  r.activity.in_user_code = false;
  r.activity.phase_since = now();
}

Phase::Phase(std::string name, bool in_user_code) : exceptions_(std::uncaught_exceptions()) {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mu);
  previous_ = std::move(r.activity.phase);
  previous_user_ = r.activity.in_user_code;
  previous_since_ = r.activity.phase_since;
  r.activity.phase = std::move(name);
  r.activity.in_user_code = in_user_code;
  r.activity.phase_since = now();
}

Phase::~Phase() {
  if (std::uncaught_exceptions() > exceptions_) return;
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mu);
  r.activity.phase = std::move(previous_);
  r.activity.in_user_code = previous_user_;
  r.activity.phase_since = previous_since_;
}

int64_t record_start(const char* op, const std::string& dtype, int64_t numel, int64_t bytes, bool async) {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mu);
  CollectiveRecord e;
  e.seq = r.next_seq++;
  e.op = op;
  e.dtype = dtype;
  e.numel = numel;
  e.bytes = bytes;
  e.async = async;
  e.started = now();
  e.step = r.activity.step;
  e.phase = r.activity.phase;
  r.entries.push_back(e);
  if (static_cast<int>(r.entries.size()) > kFlightRecordEntries) r.entries.pop_front();
  r.activity.last = std::move(e);
  return r.activity.last.seq;
}

void record_complete(int64_t seq) {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mu);
  const double t = now();
  for (auto it = r.entries.rbegin(); it != r.entries.rend(); ++it)
    if (it->seq == seq) {
      it->completed = true;
      it->ended = t;
      break;
    }
  if (r.activity.last.seq == seq) r.activity.last.completed = true, r.activity.last.ended = t;
}

void record_wait_begin(int64_t seq) {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mu);
  r.activity.waiting_seq = seq;
  r.activity.waiting_since = now();
  r.activity.waiting_op.clear();
  for (auto it = r.entries.rbegin(); it != r.entries.rend(); ++it)
    if (it->seq == seq) {
      r.activity.waiting_op = it->op;
      break;
    }
}

void record_wait_end() {
  std::lock_guard<std::mutex> lock(recorder().mu);
  recorder().activity.waiting_seq = 0;
}

RankActivity activity() {
  std::lock_guard<std::mutex> lock(recorder().mu);
  return recorder().activity;
}

std::vector<CollectiveRecord> flight_record() {
  std::lock_guard<std::mutex> lock(recorder().mu);
  return {recorder().entries.begin(), recorder().entries.end()};
}

void set_flight_record_folder(const std::string& folder) {
  std::lock_guard<std::mutex> lock(recorder().mu);
  recorder().folder = folder;
}

std::string flight_record_folder() {
  std::lock_guard<std::mutex> lock(recorder().mu);
  return recorder().folder;
}

std::string describe(const CollectiveRecord& r) {
  if (r.seq == 0) return "none yet";
  return "#" + std::to_string(r.seq) + " " + r.op + " (" + r.dtype + ", " + std::to_string(r.numel) + " values, " + std::to_string(r.bytes) + " B, " +
         (r.completed ? "completed" : "started") + ")";
}

std::string dump_flight_record(const std::string& folder, int rank, int world_size, const std::string& reason, const std::string& extra, bool durable) {
  if (folder.empty()) return "";
  const RankActivity a = activity();
  const std::vector<CollectiveRecord> entries = flight_record();
  std::string text = "{\n  \"version\": 1,\n  \"rank\": " + std::to_string(rank) + ",\n  \"world_size\": " + std::to_string(world_size) +
                     ",\n  \"pid\": " + std::to_string(::getpid()) + ",\n  \"flight_record_folder\": " + json_quoted(flight_record_folder()) + ",\n  \"time\": " + fixed(now(), 6) + ",\n  \"reason\": " + json_quoted(reason) +
                     ",\n  \"step\": " + std::to_string(a.step) + ",\n  \"phase\": " + json_quoted(a.phase) +
                     ",\n  \"in_user_code\": " + (a.in_user_code ? "true" : "false") + ",\n  \"waiting_in\": " +
                     (a.waiting_seq > 0 ? "{\"seq\": " + std::to_string(a.waiting_seq) + ", \"op\": " + json_quoted(a.waiting_op) +
                                              ", \"since\": " + fixed(a.waiting_since, 6) + "}"
                                        : std::string("null")) +
                     ",\n  \"buffer_size\": " + std::to_string(kFlightRecordEntries) + ",\n  \"entries\": [";
  for (size_t i = 0; i < entries.size(); ++i) text += (i ? ",\n    " : "\n    ") + entry_json(entries[i]);
  text += entries.empty() ? "]" : "\n  ]";
  if (!extra.empty()) text += ",\n  \"peers\": " + extra;
  text += "\n}\n";
  // mkdir -p of two levels at most (output_dir may not exist yet on this rank); the
  // launcher's folder must exist already (it is on the launcher's node only).
  if (durable) {
    const std::string parent = folder.substr(0, folder.find_last_of('/'));
    if (!parent.empty() && parent != folder) ::mkdir(parent.c_str(), 0777);
    ::mkdir(folder.c_str(), 0777);
  }
  const std::string path = folder + "/rank-" + std::to_string(rank) + ".json";
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) return "";
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0 && (!durable || ::fsync(::fileno(f)) == 0);
  std::fclose(f);
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return "";
  }
  return path;
}

}  // namespace runner::dist
