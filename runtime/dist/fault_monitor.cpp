#include "runtime/dist/fault_monitor.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include <mpi.h>

#include "runtime/dist/flight_recorder.h"
#include "runtime/dist/world.h"

namespace runner::dist {

namespace {

using Clock = std::chrono::steady_clock;
constexpr uint32_t kMagic = 0x52464d31;  // "RFM1"
enum Kind : int32_t { kBeat = 0, kFault = 1, kBye = 2 };

// One datagram: what a rank is doing. Durations, not times: clocks differ between nodes.
// Ranks of one job run one build of runner, so the layout is the same on both ends.
struct Beat {
  uint32_t magic = kMagic;
  int32_t kind = kBeat;
  int32_t rank = 0;
  int32_t in_user_code = 0;
  int64_t step = 0;
  int64_t waiting_seq = 0;
  double waiting_for = 0;  // seconds blocked in waiting_seq
  double phase_for = 0;    // seconds in the phase
  int64_t last_seq = 0, last_numel = 0, last_bytes = 0;
  int32_t last_completed = 0;
  char phase[64] = {};
  char waiting_op[32] = {};
  char last_op[32] = {};
  char last_dtype[16] = {};
};

struct Peer {
  sockaddr_in addr{};
  Beat last;
  Clock::time_point heard;
  bool heard_once = false, left = false;
};

struct Monitor {
  std::mutex mu;
  // Atomic: a recipe's dist.main_process_first starts the monitor before the arguments are
  // known; set_fault_timeout then changes it under the running thread (0: no verdicts).
  std::atomic<double> timeout{60};
  void (*exit_hook)() = nullptr;
  int rank = 0, size = 1;
  int fd = -1;
  std::vector<Peer> peers;
  std::thread thread;
  std::atomic<bool> stop{false};
  bool running = false;
  std::string launch_folder;  // set before start
  std::atomic<bool> left_launch_folder{false};  // this rank spoke for itself: no more copies
};
Monitor& monitor() {
  static Monitor* m = new Monitor;  // never destroyed: its thread may run while the process exits
  return *m;
}

double now_epoch() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

template <size_t N>
void copy_text(char (&to)[N], const std::string& from) {
  std::strncpy(to, from.c_str(), N - 1);
  to[N - 1] = '\0';
}

Beat my_beat(int rank, Kind kind) {
  const RankActivity a = activity();
  const double t = now_epoch();
  Beat b;
  b.kind = kind;
  b.rank = rank;
  b.in_user_code = a.in_user_code;
  b.step = a.step;
  b.waiting_seq = a.waiting_seq;
  b.waiting_for = a.waiting_seq > 0 ? t - a.waiting_since : 0;
  b.phase_for = t - a.phase_since;
  b.last_seq = a.last.seq;
  b.last_numel = a.last.numel;
  b.last_bytes = a.last.bytes;
  b.last_completed = a.last.completed;
  copy_text(b.phase, a.phase);
  copy_text(b.waiting_op, a.waiting_op);
  copy_text(b.last_op, a.last.op);
  copy_text(b.last_dtype, a.last.dtype);
  return b;
}

std::string last_collective(const Beat& b) {
  CollectiveRecord r;
  r.seq = b.last_seq;
  r.op = b.last_op;
  r.dtype = b.last_dtype;
  r.numel = b.last_numel;
  r.bytes = b.last_bytes;
  r.completed = b.last_completed;
  return describe(r);
}

std::string where(const Beat& b) {
  return "at step " + std::to_string(b.step) + ", phase " + b.phase + "; its last collective " + last_collective(b);
}

std::string waits(const Beat& b) {
  char s[32];
  std::snprintf(s, sizeof s, "%.0f", b.waiting_for);
  return "rank " + std::to_string(b.rank) + " has waited " + s + " s in collective #" + std::to_string(b.waiting_seq) + " " + b.waiting_op;
}

void send(Monitor& m, const Beat& b, const sockaddr_in& to) {
  ::sendto(m.fd, &b, sizeof b, MSG_DONTWAIT, reinterpret_cast<const sockaddr*>(&to), sizeof to);
}

std::string peers_json(const Monitor& m, const std::vector<Beat>& states, const std::vector<double>& silent_for) {
  std::string j = "[";
  for (size_t r = 0; r < states.size(); ++r) {
    const Beat& b = states[r];
    char num[64];
    std::snprintf(num, sizeof num, "%.3f", silent_for[r]);
    j += std::string(r ? ",\n    " : "\n    ") + "{\"rank\": " + std::to_string(r) + ", \"silent_for\": " + num + ", \"left\": " +
         (m.peers[r].left ? "true" : "false") + ", \"step\": " + std::to_string(b.step) + ", \"phase\": " + json_quoted(b.phase) +
         ", \"in_user_code\": " + (b.in_user_code ? "true" : "false") + ", \"waiting_seq\": " + std::to_string(b.waiting_seq) +
         ", \"waiting_op\": " + json_quoted(b.waiting_op) + ", \"last_seq\": " + std::to_string(b.last_seq) + ", \"last_op\": " + json_quoted(b.last_op) +
         ", \"last_state\": \"" + (b.last_completed ? "completed" : "started") + "\"}";
  }
  return j + "\n  ]";
}

void remove_launch_record(Monitor& m) {
  m.left_launch_folder = true;
  if (!m.launch_folder.empty()) std::remove((m.launch_folder + "/rank-" + std::to_string(m.rank) + ".json").c_str());
}

// Tells the launcher that a rank explained the fault itself (it then adds nothing).
void mark_spoken(const std::string& folder, int rank) {
  if (folder.empty()) return;
  if (std::FILE* f = std::fopen((folder + "/spoke-" + std::to_string(rank)).c_str(), "w")) std::fclose(f);
}

[[noreturn]] void end_job(Monitor& m, const std::string& line, const std::string& peers) {
  remove_launch_record(m);
  mark_spoken(m.launch_folder, m.rank);
  const std::string path = dump_flight_record(flight_record_folder(), m.rank, m.size, line, peers);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the peers write theirs
  if (m.exit_hook) m.exit_hook();
  const std::string folder = flight_record_folder();
  std::fprintf(stderr, "runner: error: %s%s; aborting every rank (exit 1)\n", line.c_str(),
               path.empty() ? "" : ("; flight records in " + folder).c_str());
  std::fflush(stderr);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // let the launcher forward the line
  std::_Exit(1);  // the launcher sees the exit and takes the other ranks down
}

// Rank 0's verdict on what it has heard; "" when all is well.
std::string verdict(const Monitor& m, const std::vector<Beat>& states, const std::vector<double>& silent_for) {
  const double t = m.timeout;
  char s[32];
  for (int r = 1; r < m.size; ++r)
    if (!m.peers[r].left && silent_for[r] > t) {
      std::snprintf(s, sizeof s, "%.0f", silent_for[r]);
      const Beat& b = states[r];
      return "rank " + std::to_string(r) + " stopped answering " + s + " s ago (killed, stopped or frozen; fault_timeout = " + std::to_string(static_cast<int>(t)) +
             " s) " + where(b) + (b.waiting_seq > 0 ? ", waiting in #" + std::to_string(b.waiting_seq) + " " + b.waiting_op : std::string());
    }
  for (const Beat& w : states) {
    if (w.waiting_seq == 0 || w.waiting_for <= t) continue;
    for (int c = 0; c < m.size; ++c) {
      if (c == w.rank) continue;
      const Beat& b = states[c];
      if (m.peers[c].left) return waits(w) + ", but rank " + std::to_string(c) + " has left training " + where(b);
      if (b.waiting_seq == w.waiting_seq && std::strcmp(b.waiting_op, w.waiting_op) == 0) continue;
      if (b.waiting_seq > 0 && b.waiting_for > t)
        return waits(w) + ", but rank " + std::to_string(c) + " waits in another collective, #" + std::to_string(b.waiting_seq) + " " + b.waiting_op +
               " (step " + std::to_string(b.step) + ", phase " + b.phase + "): the ranks diverged";
      if (b.waiting_seq == 0 && b.in_user_code && b.phase_for > t) {
        std::snprintf(s, sizeof s, "%.0f", b.phase_for);
        return "rank " + std::to_string(c) + " is stuck in the recipe's " + b.phase + " for " + s + " s at step " + std::to_string(b.step) +
               " (its last collective " + last_collective(b) + ") while " + waits(w);
      }
    }
  }
  return "";
}

void run(Monitor& m) {
  const auto tick = std::chrono::milliseconds(std::clamp<int64_t>(static_cast<int64_t>(m.timeout * 100), 50, 1000));
  const auto started = Clock::now();
  auto next_send = started;
  // The launcher names the step and phase a silently killed rank died in from this record, so it
  // is also rewritten (at most every 100 ms) when the step, phase or last collective moved, not
  // only once per heartbeat tick.
  const bool records = !m.launch_folder.empty();
  const auto record_every = std::chrono::milliseconds(100);
  auto next_record = started;
  int64_t recorded_step = -1, recorded_seq = -1;
  std::string recorded_phase;
  while (!m.stop) {
    const auto now = Clock::now();
    if (records && !m.left_launch_folder && now >= next_record) {
      const RankActivity a = activity();
      if (a.step != recorded_step || a.last.seq != recorded_seq || a.phase != recorded_phase) {
        recorded_step = a.step, recorded_seq = a.last.seq, recorded_phase = a.phase;
        dump_flight_record(m.launch_folder, m.rank, m.size, "heartbeat", "", /*durable=*/false);
      }
      next_record = now + record_every;
    }
    if (now >= next_send) {
      const Beat mine = my_beat(m.rank, kBeat);
      if (m.rank == 0)
        for (int r = 1; r < m.size; ++r) send(m, mine, m.peers[r].addr);
      else
        send(m, mine, m.peers[0].addr);
      next_send = now + tick;
      if (!m.launch_folder.empty() && !m.left_launch_folder) dump_flight_record(m.launch_folder, m.rank, m.size, "heartbeat", "", /*durable=*/false);
    }
    pollfd p{m.fd, POLLIN, 0};
    ::poll(&p, 1, static_cast<int>(records ? std::min<int64_t>(tick.count() / 2, record_every.count()) : tick.count() / 2));
    Beat b;
    while (::recv(m.fd, &b, sizeof b, MSG_DONTWAIT) == static_cast<ssize_t>(sizeof b)) {
      if (b.magic != kMagic || b.rank < 0 || b.rank >= m.size) continue;
      if (b.kind == kFault && m.rank != 0) {
        remove_launch_record(m);
        dump_own_flight_record("rank 0 stopped the job: a distributed fault");
        std::this_thread::sleep_for(std::chrono::seconds(5));  // rank 0's exit ends the job; this is a fallback
        std::_Exit(1);
      }
      Peer& peer = m.peers[b.rank];
      peer.heard = Clock::now();
      peer.heard_once = true;
      if (b.kind == kBye) peer.left = true;
      else peer.last = b;
    }
    if (m.stop) break;
    if (m.timeout <= 0) continue;
    // Silence counts from the monitor's start for a peer not heard yet.
    std::vector<Beat> states(m.size);
    std::vector<double> silent_for(m.size, 0.0);
    const auto t = Clock::now();
    for (int r = 0; r < m.size; ++r) {
      if (r == m.rank) {
        states[r] = my_beat(r, kBeat);
        continue;
      }
      states[r] = m.peers[r].last;
      states[r].rank = r;
      silent_for[r] = std::chrono::duration<double>(t - (m.peers[r].heard_once ? m.peers[r].heard : started)).count();
    }
    if (m.rank != 0) {
      if (!m.peers[0].left && silent_for[0] > m.timeout) {
        char s[32];
        std::snprintf(s, sizeof s, "%.0f", silent_for[0]);
        const std::string line = "[rank " + std::to_string(m.rank) + "] rank 0 stopped answering " + s + " s ago (killed, stopped or frozen) " +
                                 where(states[0]);
        end_job(m, line, "");
      }
      continue;
    }
    const std::string fault = verdict(m, states, silent_for);
    if (fault.empty()) continue;
    Beat f;
    f.kind = kFault;
    for (int i = 0; i < 3; ++i)
      for (int r = 1; r < m.size; ++r) send(m, f, m.peers[r].addr);
    end_job(m, fault, peers_json(m, states, silent_for));
  }
}

}  // namespace

void set_fault_timeout(double seconds) {
  std::lock_guard<std::mutex> lock(monitor().mu);
  monitor().timeout = seconds;
}

double fault_timeout() {
  std::lock_guard<std::mutex> lock(monitor().mu);
  return monitor().timeout;
}

void set_fault_exit_hook(void (*hook)()) {
  std::lock_guard<std::mutex> lock(monitor().mu);
  monitor().exit_hook = hook;
}

namespace {

// The first up, non-loopback IPv4 address of this host (network order), 0 if none.
uint32_t first_ipv4() {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return 0;
  uint32_t found = 0;
  for (const ifaddrs* i = list; i && !found; i = i->ifa_next)
    if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && (i->ifa_flags & IFF_UP) && !(i->ifa_flags & IFF_LOOPBACK))
      found = reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr;
  ::freeifaddrs(list);
  return found;
}

// RUNNER_FAULT_HOST_LOOKUP=fail: host names do not resolve (tests: a cloud VM's unlisted name).
bool host_lookup_fails() {
  const char* v = std::getenv("RUNNER_FAULT_HOST_LOOKUP");
  return v && std::strcmp(v, "fail") == 0;
}

}  // namespace

void start_fault_monitor() {
  Monitor& m = monitor();
  std::lock_guard<std::mutex> lock(m.mu);
  if (m.running || m.timeout <= 0) return;
  MPI_Comm_rank(MPI_COMM_WORLD, &m.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &m.size);
  if (m.size < 2) return;
  // Each rank's host name and UDP port, exchanged once. A socket that cannot be made still
  // takes part (port 0), so the allgather never hangs; its rank is then heard by nobody
  // and reported as silent, which is the truth.
  struct Address {
    char host[248];
    int32_t port;
    uint32_t ipv4;  // this host's first non-loopback IPv4 address (network order), 0 if none
  } mine{}, none{};
  m.fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in any{};
  any.sin_family = AF_INET;
  any.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof any;
  if (m.fd >= 0 && ::bind(m.fd, reinterpret_cast<sockaddr*>(&any), sizeof any) == 0 && ::getsockname(m.fd, reinterpret_cast<sockaddr*>(&any), &len) == 0)
    mine.port = ntohs(any.sin_port);
  ::gethostname(mine.host, sizeof mine.host - 1);
  mine.ipv4 = first_ipv4();
  std::vector<Address> all(static_cast<size_t>(m.size), none);
  MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, MPI_COMM_WORLD);
  m.peers.assign(static_cast<size_t>(m.size), Peer{});
  for (int r = 0; r < m.size; ++r) {
    sockaddr_in& a = m.peers[r].addr;
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(all[r].port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);  // same host
    if (std::strncmp(all[r].host, mine.host, sizeof mine.host) != 0) {
      addrinfo hints{}, *found = nullptr;
      hints.ai_family = AF_INET;
      hints.ai_socktype = SOCK_DGRAM;
      // The name MPI's launcher used, else the address the peer gave (a cloud VM or an IP
      // hostfile: its name need not resolve here). Neither: its beats would go astray, and it
      // would be reported silent, so the log says why first.
      if (!host_lookup_fails() && ::getaddrinfo(all[r].host, nullptr, &hints, &found) == 0 && found) {
        a.sin_addr = reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr;
        ::freeaddrinfo(found);
      } else if (all[r].ipv4 != 0) {
        a.sin_addr.s_addr = all[r].ipv4;
      } else {
        std::fprintf(stderr, "runner: warning: [rank %d] rank %d's host \"%s\" does not resolve and gave no address: heartbeats to it go astray\n",
                     m.rank, r, all[r].host);
      }
    }
  }
  if (m.fd < 0 || mine.port == 0) return;
  m.running = true;
  m.thread = std::thread([&m] { run(m); });
}

void stop_fault_monitor() {
  Monitor& m = monitor();
  std::lock_guard<std::mutex> lock(m.mu);
  if (!m.running) return;
  m.stop = true;
  m.thread.join();
  m.running = false;
  remove_launch_record(m);
  // Rank 0 then knows that this rank's silence is an end, not a fault.
  const Beat bye = my_beat(m.rank, kBye);
  for (int i = 0; i < 3; ++i)
    for (int r = 0; r < m.size; ++r)
      if (r != m.rank) send(m, bye, m.peers[r].addr);
}

void set_launch_folder(const std::string& folder) {
  std::lock_guard<std::mutex> lock(monitor().mu);
  monitor().launch_folder = ::access(folder.c_str(), W_OK) == 0 ? folder : "";
}

[[noreturn]] void abort_job(const std::string& line) {
  static std::atomic<bool> once{false};
  if (once.exchange(true)) {  // a second thread with a second fault: the first one speaks
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  const std::string record = dump_own_flight_record(line);
  leave_launch_folder();
  void (*hook)() = nullptr;
  {
    std::lock_guard<std::mutex> lock(monitor().mu);
    hook = monitor().exit_hook;
  }
  if (hook) hook();
  std::fprintf(stderr, "runner: error: rank %d: %s; aborting every rank%s\n", world().rank, line.c_str(),
               record.empty() ? "" : ("; flight record in " + record).c_str());
  std::fflush(stderr);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // let the launcher forward the line
  int initialized = 0, finalized = 0;
  if (world().mpi && (MPI_Initialized(&initialized), initialized) && (MPI_Finalized(&finalized), !finalized)) MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

void leave_launch_folder() {  // the rank has said what went wrong
  Monitor& m = monitor();
  m.left_launch_folder = true;
  std::string folder;
  {
    std::lock_guard<std::mutex> lock(m.mu);
    folder = m.launch_folder;
  }
  if (!folder.empty()) std::remove((folder + "/rank-" + std::to_string(world().rank) + ".json").c_str());
  mark_spoken(folder, world().rank);
}

std::string fault_context() {
  const RankActivity a = activity();
  if (a.phase == "set-up") return "";
  return "at step " + std::to_string(a.step) + ", phase " + a.phase + "; last collective " + describe(a.last);
}

std::string dump_own_flight_record(const std::string& reason) {
  return dump_flight_record(flight_record_folder(), world().rank, world().size, reason);
}

}  // namespace runner::dist
