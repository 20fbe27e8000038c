#include "runtime/dist/grad_reducer.h"

#include <torch/csrc/autograd/function.h>

#include "runtime/core/errors.h"
#include "runtime/dist/grad_ready.h"
#include <c10/core/GradMode.h>

namespace runner::dist {

struct Bucket {
  std::vector<size_t> params;  // indices into State::params, increasing offset
  int64_t begin = 0, end = 0;  // flat range
  size_t ready = 0;
  at::Tensor buffer;           // what is being reduced
  std::unique_ptr<Work> work;
};

struct GradReducer::State {
  std::shared_ptr<Communicator> comm;
  std::vector<BucketParam> params;
  std::vector<size_t> bucket_of;  // param → bucket
  std::vector<char> seen;         // param got its gradient this micro-step
  std::vector<Bucket> buckets;
  ReducerOptions options;
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators;  // keep hooks' owners alive
  size_t next = 0;  // first bucket not started
  bool sync = false;

  bool in_place() const { return options.flat_grad.defined(); }

  void start(Bucket& b) {
    if (in_place()) {
      b.buffer = options.flat_grad.narrow(0, b.begin, b.end - b.begin);
    } else {
      // Copy the gradients out and release them: after this, only the bucket holds them. The
      // bucket's parameters tile its range, so only those without a gradient are zeroed (not
      // the whole bucket first: 4 bytes per parameter and micro-step fewer).
      b.buffer = at::empty({b.end - b.begin}, params[b.params.front()].param.options().requires_grad(false));
      c10::NoGradGuard no_grad;
      for (size_t i : b.params) {
        at::Tensor& g = params[i].param.mutable_grad();
        at::Tensor slot = b.buffer.narrow(0, params[i].offset - b.begin, params[i].numel);
        if (g.defined()) slot.copy_(g.reshape(-1));
        else slot.zero_();
        g = at::Tensor();
      }
    }
    b.work = comm->all_reduce_async(b.buffer);
  }

  void on_ready(size_t i) {
    if (!sync) return;
    if (seen[i])
      throw DistError("parameter '" + params[i].name +
                      "' received a second gradient in one step after it was counted ready; data-parallel training supports one backward per micro-batch");
    seen[i] = 1;
    buckets[bucket_of[i]].ready += 1;
    while (next < buckets.size() && buckets[next].ready == buckets[next].params.size()) start(buckets[next++]);
    for (size_t b = 0; b < next; ++b)  // MPI progresses only inside MPI calls
      if (buckets[b].work) buckets[b].work->test();
  }
};

GradReducer::GradReducer(std::shared_ptr<Communicator> comm, std::vector<BucketParam> params, ReducerOptions options)
    : state_(std::make_shared<State>()) {
  State& s = *state_;
  s.comm = std::move(comm);
  s.params = std::move(params);
  s.options = std::move(options);
  if (!s.in_place() && !s.options.on_reduced) throw DistError("GradReducer: give a flat gradient buffer or an on_reduced callback");
  for (size_t k = 1; k < s.params.size(); ++k)  // buckets are ranges their parameters tile
    if (s.params[k].offset != s.params[k - 1].offset + s.params[k - 1].numel)
      throw DistError("GradReducer: parameter '" + s.params[k].name + "' does not follow '" + s.params[k - 1].name + "' in the flat layout");
  s.bucket_of.assign(s.params.size(), 0);
  s.seen.assign(s.params.size(), 0);
  // Reverse order; as in PyTorch, a bucket closes once it holds at least its cap (the first
  // bucket's cap is small so the last layers' gradients start moving early).
  int64_t bytes = 0;
  bool open = false;
  for (size_t k = s.params.size(); k-- > 0;) {
    const BucketParam& p = s.params[k];
    if (!open) {
      s.buckets.emplace_back();
      bytes = 0;
      open = true;
    }
    Bucket& b = s.buckets.back();
    b.params.insert(b.params.begin(), k);
    b.begin = p.offset;
    if (b.params.size() == 1) b.end = p.offset + p.numel;
    bytes += p.numel * p.param.element_size();
    s.bucket_of[k] = s.buckets.size() - 1;
    const int64_t cap = s.buckets.size() == 1 ? s.options.first_bucket_bytes : s.options.bucket_cap_bytes;
    if (bytes >= cap) open = false;
  }
  std::weak_ptr<State> weak = state_;
  for (size_t i = 0; i < s.params.size(); ++i) {
    s.accumulators.push_back(on_grad_accumulated(s.params[i].param, s.params[i].name, [weak, i] {
      if (auto st = weak.lock()) st->on_ready(i);  // the model may outlive the trainer
    }));
  }
}

GradReducer::~GradReducer() = default;

void GradReducer::prepare(bool sync) {
  State& s = *state_;
  s.sync = sync;
  s.next = 0;
  std::fill(s.seen.begin(), s.seen.end(), 0);
  for (auto& b : s.buckets) b.ready = 0;
}

void GradReducer::finish() {
  State& s = *state_;
  if (!s.sync) return;
  if (s.options.before_leftovers) s.options.before_leftovers();
  while (s.next < s.buckets.size()) s.start(s.buckets[s.next++]);
  for (auto& b : s.buckets) {
    b.work->wait();
    b.work.reset();
    if (!s.in_place()) s.options.on_reduced(b.begin, b.buffer);
    b.buffer = at::Tensor();
  }
  s.sync = false;
}

std::vector<std::vector<std::string>> GradReducer::bucket_names() const {
  std::vector<std::vector<std::string>> out;
  for (const auto& b : state_->buckets) {
    out.emplace_back();
    for (size_t i : b.params) out.back().push_back(state_->params[i].name);
  }
  return out;
}

}  // namespace runner::dist
