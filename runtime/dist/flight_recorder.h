// What this rank was doing when a distributed fault stopped the job: a ring buffer of its
// last collectives (PyTorch's NCCL flight recorder, TORCH_NCCL_TRACE_BUFFER_SIZE) plus the
// step and phase the trainer is in. The communicators record every collective; the trainer
// says where it is through set_step() and Phase, which need no MPI. The fault monitor
// (fault_monitor.h) reads a snapshot for its heartbeats and dumps the whole record as JSON
// (`output_dir/flight_record/rank-K.json`) when it stops the job.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace runner::dist {

// Entries kept per rank (the oldest are dropped first).
constexpr int kFlightRecordEntries = 128;

struct CollectiveRecord {
  int64_t seq = 0;       // this rank's collective number, from 1; equal on every rank for the same call
  std::string op;        // "all_reduce", "all_gather (prefetch)", "barrier", ...
  std::string dtype;     // "float32", ...
  int64_t numel = 0, bytes = 0;
  bool async = false;
  bool completed = false;
  double started = 0, ended = 0;  // seconds since the Unix epoch (comparable across ranks)
  int64_t step = 0;      // global_step when it started
  std::string phase;     // phase when it started
};

// Where this rank is now, for the heartbeats.
struct RankActivity {
  int64_t step = 0;
  std::string phase = "set-up";
  bool in_user_code = false;  // a recipe hook or callback is running
  double phase_since = 0;     // epoch seconds
  int64_t waiting_seq = 0;    // > 0: blocked in this collective
  std::string waiting_op;
  double waiting_since = 0;
  CollectiveRecord last;      // the newest entry (seq 0: none yet)
};

// The trainer's side (no MPI): the current global step and phase.
void set_step(int64_t step);
// Sets the phase for the scope's lifetime, then restores the previous one. `in_user_code`:
// the recipe's code runs here (a hook that never returns is then a stuck rank, not work).
class Phase {
 public:
  explicit Phase(std::string name, bool in_user_code = false);
  ~Phase();
  Phase(const Phase&) = delete;
  Phase& operator=(const Phase&) = delete;

 private:
  std::string previous_;
  bool previous_user_;
  double previous_since_;
  int exceptions_;  // an exception leaving the scope keeps its phase: the error line names it
};
// Sets the phase outside any scope (e.g. "train" from on_train_begin until on_train_end).
void set_phase(const std::string& name);

// The communicators' side. start() returns the entry's seq; wait_begin/wait_end bracket the
// time the calling thread is blocked in (or waiting for) that collective.
int64_t record_start(const char* op, const std::string& dtype, int64_t numel, int64_t bytes, bool async);
void record_complete(int64_t seq);
void record_wait_begin(int64_t seq);
void record_wait_end();

RankActivity activity();
std::vector<CollectiveRecord> flight_record();  // oldest first

// The record as one JSON object: rank, world size, activity, entries (and `extra`, a JSON
// object's text, e.g. what rank 0 last heard from every peer); written to
// `folder/rank-K.json` through a temporary file and a rename. Returns the path, or "" when
// it could not be written (the caller is already stopping the job: no exception).
// `durable`: fsync before the rename (the launcher's heartbeat copies skip it).
std::string dump_flight_record(const std::string& folder, int rank, int world_size, const std::string& reason, const std::string& extra = "",
                               bool durable = true);
void set_flight_record_folder(const std::string& folder);  // output_dir/flight_record
std::string flight_record_folder();

std::string describe(const CollectiveRecord& r);  // "#41 all_reduce (float32, 6 values, 24 B, completed)"
std::string json_quoted(const std::string& s);

}  // namespace runner::dist
