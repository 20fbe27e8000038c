#include "runtime/dist/communicator.h"

#include "runtime/core/errors.h"

namespace runner::dist {

namespace {

class DoneWork : public Work {
 public:
  bool test() override { return true; }
  void wait() override {}
};

class LocalCommunicator : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string backend() const override { return "local"; }
  void broadcast(at::Tensor&, int) override {}
  void all_reduce(at::Tensor&, ReduceOp) override {}
  void reduce_scatter(const at::Tensor& in, at::Tensor& out) override {
    if (in.numel() != out.numel()) throw DistError("reduce_scatter: input has " + std::to_string(in.numel()) + " values, output " + std::to_string(out.numel()));
    out.copy_(in.view_as(out));
  }
  void all_gather(const at::Tensor& in, at::Tensor& out) override {
    if (in.numel() != out.numel()) throw DistError("all_gather: input has " + std::to_string(in.numel()) + " values, output " + std::to_string(out.numel()));
    out.copy_(in.view_as(out));
  }
  void all_to_all(const at::Tensor& in, at::Tensor& out) override {
    if (in.numel() != out.numel()) throw DistError("all_to_all: input has " + std::to_string(in.numel()) + " values, output " + std::to_string(out.numel()));
    out.copy_(in.view_as(out));
  }
  void barrier() override {}
  std::unique_ptr<Work> all_reduce_async(at::Tensor&) override { return std::make_unique<DoneWork>(); }
  std::unique_ptr<Work> all_gather_async(const at::Tensor& in, at::Tensor& out) override {
    all_gather(in, out);
    return std::make_unique<DoneWork>();
  }
};

}  // namespace

std::shared_ptr<Communicator> make_local_communicator() { return std::make_shared<LocalCommunicator>(); }

}  // namespace runner::dist
