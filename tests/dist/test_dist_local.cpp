// Partitions, gradient buckets, the ZeRO-3 engine and every DataParallel stage, in one
// process: stage 1/2/3 over a world of one must step exactly like plain training.
#include <gtest/gtest.h>
#include <malloc.h>

#include "runtime/dist/data_parallel.h"
#include "runtime/dist/grad_reducer.h"
#include "runtime/dist/ordered_reduce.h"
#include "runtime/core/errors.h"
#include "runtime/dist/partition.h"
#include "runtime/dist/world.h"
#include "runtime/dist/zero3.h"
#include "runtime/models/layers.h"

namespace runner::dist {
namespace {

TEST(Partition, EqualPaddedShardsCoverTheBuffer) {
  for (int world : {1, 2, 3, 4}) {
    for (int64_t n : {1, 7, 10, 11, 100}) {
      int64_t covered = 0;
      for (int r = 0; r < world; ++r) {
        const Partition p = make_partition(n, world, r);
        EXPECT_EQ(p.padded() % (2 * world), 0);
        EXPECT_GE(p.padded(), n);
        EXPECT_LT(p.padded() - n, 2 * world);
        EXPECT_EQ(p.begin(), covered) << "world " << world << " n " << n;
        covered = p.end();
      }
      EXPECT_EQ(covered, n);
    }
  }
}

std::vector<BucketParam> params_of_sizes(const std::vector<int64_t>& sizes) {
  std::vector<BucketParam> out;
  int64_t offset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    at::Tensor p = at::zeros({sizes[i]}).requires_grad_(true);
    out.push_back({"p" + std::to_string(i), p, offset, sizes[i]});
    offset += sizes[i];
  }
  return out;
}

TEST(GradReducer, BucketsInReverseOrderWithASmallFirstBucket) {
  ReducerOptions o;
  o.first_bucket_bytes = 40;   // 10 floats
  o.bucket_cap_bytes = 100;    // 25 floats
  o.flat_grad = at::zeros({60});
  GradReducer r(make_local_communicator(), params_of_sizes({10, 10, 10, 10, 8, 6, 6}), o);
  const auto names = r.bucket_names();
  // PyTorch's rule: add parameters (last first) until the bucket holds at least its cap.
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[0], (std::vector<std::string>{"p5", "p6"}));        // 12 floats ≥ 10
  EXPECT_EQ(names[1], (std::vector<std::string>{"p2", "p3", "p4"}));  // 28 ≥ 25
  EXPECT_EQ(names[2], (std::vector<std::string>{"p0", "p1"}));        // what is left
}

TEST(GradReducer, CopyOutHandsOverEveryBucketAndReleasesGradients) {
  auto params = params_of_sizes({3, 4, 5});
  std::map<int64_t, at::Tensor> got;
  ReducerOptions o;
  o.bucket_cap_bytes = o.first_bucket_bytes = 16;  // 4 floats: one parameter per bucket
  o.on_reduced = [&](int64_t offset, const at::Tensor& t) { got[offset] = t.clone(); };
  GradReducer r(make_local_communicator(), params, o);
  r.prepare(true);
  at::Tensor loss = (params[0].param * 1).sum() + (params[1].param * 2).sum() + (params[2].param * 3).sum();
  loss.backward();
  r.finish();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_TRUE(at::equal(got[0], at::full({3}, 1.0)));
  EXPECT_TRUE(at::equal(got[3], at::full({4}, 2.0)));
  EXPECT_TRUE(at::equal(got[7], at::full({5}, 3.0)));
  for (auto& p : params) EXPECT_FALSE(p.param.grad().defined()) << p.name;
}

// A parameter no gradient reached is reduced as zeros in its bucket, which is not zeroed
// first (its parameters tile it: each is copied or zeroed). glibc's M_PERTURB fills new heap
// blocks, so a slot left unwritten would not read as zeros by chance.
TEST(GradReducer, CopyOutZeroesOnlyWhatNoGradientReached) {
  auto params = params_of_sizes({3, 4, 5});  // one bucket
  std::map<int64_t, at::Tensor> got;
  ReducerOptions o;
  o.on_reduced = [&](int64_t offset, const at::Tensor& t) { got[offset] = t.clone(); };
  GradReducer r(make_local_communicator(), params, o);
  ASSERT_EQ(r.bucket_names().size(), 1u);
  mallopt(M_PERTURB, 0x5a);
  r.prepare(true);
  ((params[0].param * 1).sum() + (params[2].param * 3).sum()).backward();
  r.finish();
  mallopt(M_PERTURB, 0);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(at::equal(got[0], at::cat({at::full({3}, 1.0), at::zeros({4}), at::full({5}, 3.0)}))) << got[0];
  // The tiling is checked: a gap in the flat layout would be a bucket range nobody writes.
  auto gap = params_of_sizes({3, 4});
  gap[1].offset += 1;
  EXPECT_THROW(GradReducer(make_local_communicator(), gap, o), DistError);
}

TEST(GradReducer, SecondGradientInOneStepIsAnError) {
  auto params = params_of_sizes({3});
  ReducerOptions o;
  o.flat_grad = at::zeros({3});
  params[0].param.mutable_grad() = o.flat_grad;
  GradReducer r(make_local_communicator(), params, o);
  r.prepare(true);
  (params[0].param * 2).sum().backward();
  EXPECT_THROW((params[0].param * 2).sum().backward(), DistError);
}

models::ModulePtr small_net() {
  at::manual_seed(3);
  return std::make_shared<models::Sequential>(std::vector<models::ModulePtr>{
      std::make_shared<models::Linear>(4, 8), std::make_shared<models::Activation>("Tanh"), std::make_shared<models::Linear>(8, 2)});
}

// Two AdamW steps with clipping through DataParallel at a given stage; returns the weights.
std::vector<at::Tensor> train_two_steps(int stage, std::vector<std::string> wrap = {}, bool ordered = false) {
  auto model = small_net();
  models::NamedTensorList named = model->named_parameters();
  std::vector<int> groups;
  for (const auto& [name, p] : named) groups.push_back(name.find("bias") != std::string::npos ? 1 : 0);
  ParallelConfig cfg;
  cfg.zero_stage = stage;
  cfg.zero3.wrap_classes = std::move(wrap);
  cfg.zero3.persistence_threshold = 0;
  cfg.ordered_reduction = ordered;
  DataParallel dp(make_local_communicator(), cfg);
  optim::FlatParams flat(named, groups, 2, dp.full_grad_buffer(), dp.full_data_buffer());
  auto opt = optim::make_adamw(dp.attach(flat, *model), {{0.05, 0.1}, {0.05, 0.0}}, {});
  if (dp.flat_gradient_read_only_at_the_step()) flat.write_grads_on_first_accumulation();  // as the Trainer does
  at::manual_seed(5);
  const at::Tensor x = at::randn({6, 4}), y = at::randn({6, 2});
  for (int step = 0; step < 2; ++step) {
    dp.begin_micro_step(true);
    at::mse_loss(model->forward(x), y).backward();
    dp.end_micro_step();
    dp.clip_grad_norm(0.5);
    opt->step();
    dp.after_optimizer_step();
    dp.zero_grad();
  }
  const std::vector<at::Tensor> params = model->parameters();
  std::vector<at::Tensor> out(params.size());
  dp.visit_whole(params, [&](size_t i, bool) { out[i] = params[i].detach().clone(); }, /*write_back=*/false);
  return out;
}

TEST(DataParallel, EveryStageStepsLikePlainTrainingInOneProcess) {
  const auto reference = train_two_steps(0);
  for (int stage : {1, 2, 3}) {
    const auto got = train_two_steps(stage);
    ASSERT_EQ(got.size(), reference.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(at::allclose(got[i], reference[i], 1e-6, 1e-7)) << "stage " << stage << " tensor " << i;
  }
  const auto units = train_two_steps(3, {"Linear"});  // every Linear its own unit
  for (size_t i = 0; i < units.size(); ++i) EXPECT_TRUE(at::allclose(units[i], reference[i], 1e-6, 1e-7)) << "tensor " << i;
}

// Only one process without sharding leaves the flat gradient unread until the step, so
// only there may its first gradients be written instead of added to zeros (flat_params.h);
// the stages compared with it above keep the zeroed buffer their reductions read.
// Clipping (and fp16's unscaling) folded into the optimizer (Optimizer::set_gradient_divisor):
// the divisor clip_grad_norm hands over scales each stage's gradients as its own passes
// would, with the same norm, also for a bf16 model, whose norm and factor are bf16 as in
// torch.nn.utils.clip_grad_norm_: the divisor inverts that factor without rounding it to bf16
// (a 0.4% error). With a loss scale (fp16: gradients scaled by 1024 here), the folded norm
// is the scaled gradients' norm, unscaled; without clipping the divisor is the scale alone.
TEST(DataParallel, ClipDivisorScalesTheGradientsAsTheClipsOwnPass) {
  struct Case { at::ScalarType dtype; double max_norm, unscale; };
  for (const Case c : {Case{at::kFloat, 0.37, 1.0}, Case{at::kBFloat16, 0.37, 1.0}, Case{at::kFloat, 0.37, 1.0 / 1024},
                       Case{at::kFloat, 0.0, 1.0 / 1024}}) {
    for (int stage : {0, 1, 2, 3}) {
      SCOPED_TRACE(std::string(c10::toString(c.dtype)) + " max_norm " + std::to_string(c.max_norm) + " unscale " + std::to_string(c.unscale) +
                   " stage " + std::to_string(stage));
      std::vector<at::Tensor> clipped, folded, raw;
      at::Tensor divisor;
      double norms[2] = {0, 0};
      for (bool fold : {false, true}) {
        auto model = small_net();
        model->to(c.dtype);
        ParallelConfig cfg;
        cfg.zero_stage = stage;
        cfg.zero3.persistence_threshold = 0;
        DataParallel dp(make_local_communicator(), cfg);
        optim::FlatParams flat(model->named_parameters(), std::vector<int>(4, 0), 1, dp.full_grad_buffer(), dp.full_data_buffer());
        optim::FlatParams& mine = dp.attach(flat, *model);
        at::manual_seed(5);
        const at::Tensor x = at::randn({64, 4}).to(c.dtype) * 30, y = at::randn({64, 2}).to(c.dtype);
        dp.begin_micro_step(true);
        (at::mse_loss(model->forward(x), y) / c.unscale).backward();
        dp.end_micro_step();
        // One process's slots, or a sharded stage's flat shard (it has no slots).
        auto grads_of = [&mine] {
          mine.ensure_grad_views();
          std::vector<at::Tensor> out = mine.slot_grads();
          if (out.empty()) out.push_back(mine.grad());
          for (at::Tensor& g : out) g = g.clone();
          return out;
        };
        if (!fold) raw = grads_of();
        norms[fold] = dp.clip_grad_norm(c.max_norm, c.unscale, fold ? &divisor : nullptr).item<double>();
        ASSERT_GT(norms[fold], 1.0) << "the clip must act";
        (fold ? folded : clipped) = grads_of();
      }
      EXPECT_EQ(norms[1], norms[0]) << "the norm, unscaled, bit for bit (a power-of-two scale)";
      ASSERT_TRUE(divisor.defined());
      EXPECT_EQ(divisor.scalar_type(), at::kFloat);
      EXPECT_EQ(divisor.dim(), 0);
      if (c.max_norm == 0) EXPECT_EQ(divisor.item<double>(), 1.0 / c.unscale);
      ASSERT_EQ(folded.size(), clipped.size());
      ASSERT_FALSE(folded.empty());
      // What the fused kernels do with it: each gradient divided in fp32, stored in its dtype.
      int64_t differ = 0, total = 0;
      for (size_t i = 0; i < folded.size(); ++i) {
        const at::Tensor mine = folded[i].to(at::kFloat).div(divisor).to(c.dtype);
        differ += mine.ne(clipped[i]).sum().item<int64_t>();
        total += mine.numel();
        EXPECT_TRUE(at::allclose(mine.to(at::kFloat), clipped[i].to(at::kFloat), c.dtype == at::kFloat ? 1e-6 : 8e-3, 1e-9)) << "gradient " << i;
      }
      // In fp32, dividing by the factor's reciprocal and multiplying by the factor differ by an
      // ulp in some values (allclose above bounds them at 1e-6); rounded to bf16 they agree
      // but for the few near a rounding boundary, where a factor off by its own bf16 rounding
      // (0.4%) moved 24 of 58.
      if (c.dtype != at::kFloat) EXPECT_LE(differ * 20, total) << differ << " of " << total << " values differ from the clip's own pass";
      // The sharded stages' fp64 factor is rounded to the gradients' dtype, as torch's is (on
      // CUDA a 0-dim device factor is read in the tensor's dtype: CPU and GPU agree only so).
      if (stage >= 2 && c.max_norm > 0) {
        const at::Tensor factor = at::scalar_tensor(std::min(1.0, c.max_norm / (norms[0] + 1e-6)), at::kDouble).to(c.dtype).to(at::kFloat);
        for (size_t i = 0; i < raw.size(); ++i)
          EXPECT_TRUE(at::equal(clipped[i], raw[i].to(at::kFloat).mul(c.unscale).to(c.dtype).to(at::kFloat).mul(factor).to(c.dtype)))
              << "gradient " << i << ": scaled by the factor in its dtype";
      }
    }
  }
  // Nothing to scale, nothing to fold.
  auto model = small_net();
  DataParallel dp(make_local_communicator(), ParallelConfig{});
  optim::FlatParams flat(model->named_parameters(), std::vector<int>(4, 0), 1, dp.full_grad_buffer(), dp.full_data_buffer());
  dp.attach(flat, *model);
  at::mse_loss(model->forward(at::randn({8, 4})), at::randn({8, 2})).backward();
  at::Tensor divisor;
  dp.clip_grad_norm(0.0, 1.0, &divisor);
  EXPECT_FALSE(divisor.defined());
}

TEST(DataParallel, OnlyOneUnshardedProcessReadsTheFlatGradientAtTheStepAlone) {
  for (int stage : {0, 1, 2}) {
    ParallelConfig cfg;
    cfg.zero_stage = stage;
    EXPECT_EQ(DataParallel(make_local_communicator(), cfg).flat_gradient_read_only_at_the_step(), stage == 0) << "stage " << stage;
  }
  ParallelConfig ordered;
  ordered.ordered_reduction = true;
  EXPECT_FALSE(DataParallel(make_local_communicator(), ordered).flat_gradient_read_only_at_the_step());
}

TEST(DataParallel, OrderedReductionStepsLikePlainTraining) {
  const auto reference = train_two_steps(0);
  const auto flat = train_two_steps(0, {}, true);
  for (int stage : {0, 1, 2, 3}) {
    const auto got = train_two_steps(stage, {}, true);
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_TRUE(at::allclose(got[i], reference[i], 1e-6, 1e-7)) << "stage " << stage << " tensor " << i;
      // Stages 0–2 share one flat layout, so the ordered norm adds the same chunks.
      if (stage < 3) EXPECT_TRUE(at::equal(got[i], flat[i])) << "stage " << stage << " tensor " << i;
    }
  }
}

TEST(OrderedReduce, SumsChunksInGlobalOrderAndAddsBlocks) {
  auto comm = make_local_communicator();
  at::manual_seed(0);
  const at::Tensor x = at::randn({3 * kOrderedChunk});
  const double expected = x.to(at::kDouble).pow(2).sum().item<double>();
  EXPECT_NEAR(ordered_sum_of_squares(*comm, x, {{0, 2 * kOrderedChunk}, {2 * kOrderedChunk, kOrderedChunk}}), expected, 1e-9 * expected);
  EXPECT_THROW(ordered_sum_of_squares(*comm, x, {{0, 100}}), DistError);
  at::Tensor acc = at::ones({5});
  ordered_reduce_scatter_add(*comm, at::full({5}, 2.0), acc);
  EXPECT_TRUE(at::equal(acc, at::full({5}, 3.0)));
  EXPECT_THROW(ordered_reduce_scatter_add(*comm, at::ones({4}), acc), DistError);
  EXPECT_EQ(ordered_shard_size(1), kOrderedChunk);
  EXPECT_EQ(ordered_shard_size(kOrderedChunk), kOrderedChunk);
}

TEST(Zero3, ParametersAreFreedBetweenStepsAndGatheredForForward) {
  auto model = small_net();
  models::NamedTensorList named = model->named_parameters();
  optim::FlatParams flat(named, std::vector<int>(named.size(), 0), 1, false, false);
  Zero3 z(make_local_communicator(), flat, *model, Zero3Options{{"Linear"}, 0, 0});
  const at::Tensor w = named[0].second;
  EXPECT_EQ(w.storage().nbytes(), 0u) << "units start released";
  const at::Tensor x = at::randn({3, 4});
  z.begin_micro_step();
  model->forward(x).sum().backward();
  z.end_micro_step();
  EXPECT_EQ(w.storage().nbytes(), 0u) << "released after the step";
  EXPECT_GT(z.shard_grad().abs().sum().item<double>(), 0.0);
  z.gather_all();
  EXPECT_GE(w.storage().nbytes(), static_cast<size_t>(w.numel()) * sizeof(float));  // the unit buffer (weight and bias)
  EXPECT_EQ(z.unit_names(), (std::vector<std::string>{"(root)", "0", "2"}));
}

// Five Linear units, the middle three frozen (a LoRA model's base between trainable layers).
models::ModulePtr partly_frozen_net() {
  at::manual_seed(5);
  std::vector<models::ModulePtr> layers;
  for (int i = 0; i < 5; ++i) {
    if (i) layers.push_back(std::make_shared<models::Activation>("Tanh"));
    layers.push_back(std::make_shared<models::Linear>(8, 8));
  }
  auto net = std::make_shared<models::Sequential>(layers);
  for (const auto& [name, p] : net->named_parameters())
    if (name[0] != '0' && name[0] != '8') p.requires_grad_(false);
  return net;
}

TEST(Zero3, FrozenWeightsAreShardedGatheredForBackwardAndFreedBehindIt) {
  auto reference = partly_frozen_net();
  auto model = partly_frozen_net();
  const at::Tensor x = at::randn({3, 8});
  reference->forward(x).pow(2).sum().backward();
  models::NamedTensorList trainable;
  for (const auto& [name, p] : model->named_parameters())
    if (p.requires_grad()) trainable.emplace_back(name, p);
  optim::FlatParams flat(trainable, std::vector<int>(trainable.size(), 0), 1, false, false);
  Zero3 z(make_local_communicator(), flat, *model, Zero3Options{{"Linear"}, 0, 0});
  std::vector<at::Tensor> weights;  // each unit's weight, frozen ones included
  for (const auto& [name, p] : model->named_parameters())
    if (name.find("weight") != std::string::npos) weights.push_back(p);
  for (const auto& w : weights) EXPECT_EQ(w.storage().nbytes(), 0u) << "frozen units are sharded too";
  EXPECT_GT(z.frozen_param_bytes(), 0);
  z.begin_micro_step();
  model->forward(x).pow(2).sum().backward();
  // Backward has left every unit: each was freed behind it (a frozen one once backward
  // entered the unit before it), not only at the micro-step's end.
  for (size_t i = 0; i < weights.size(); ++i) EXPECT_EQ(weights[i].storage().nbytes(), 0u) << "unit " << i << " still gathered";
  z.end_micro_step();
  z.gather_all();
  const auto want = reference->named_parameters(), got = model->named_parameters();
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(at::equal(got[i].second, want[i].second)) << got[i].first;
  // The trainable layers' reduced gradients are plain autograd's (shard = whole at W = 1).
  const at::Tensor expected = at::cat({want[0].second.grad().reshape(-1), want[1].second.grad().reshape(-1),
                                       want[8].second.grad().reshape(-1), want[9].second.grad().reshape(-1)});
  EXPECT_TRUE(at::allclose(z.shard_grad().narrow(0, 0, expected.numel()), expected, 1e-6, 1e-7));
}

TEST(Zero3, VisitWholeGathersOneUnitAtATimeAndWritesLoadedValuesBack) {
  // What a checkpoint's save and load do under ZeRO-3: no rank may hold the whole model.
  auto reference = partly_frozen_net();
  auto model = partly_frozen_net();
  models::NamedTensorList trainable;
  for (const auto& [name, p] : model->named_parameters())
    if (p.requires_grad()) trainable.emplace_back(name, p);
  optim::FlatParams flat(trainable, std::vector<int>(trainable.size(), 0), 1, false, false);
  Zero3 z(make_local_communicator(), flat, *model, Zero3Options{{"Linear"}, 0, 0});
  std::vector<at::Tensor> tensors, weights;  // every parameter; each unit's weight
  for (const auto& [name, p] : model->named_parameters()) {
    tensors.push_back(p);
    if (name.find("weight") != std::string::npos) weights.push_back(p);
  }
  auto units_whole = [&] {
    size_t n = 0;
    for (const auto& w : weights) n += w.storage().nbytes() > 0;
    return n;
  };
  const auto want = reference->named_parameters();
  std::vector<at::Tensor> copies(tensors.size());
  size_t most = 0;
  z.visit_whole(tensors, [&](size_t i, bool transient) {
    most = std::max(most, units_whole());
    EXPECT_TRUE(transient);
    copies[i] = tensors[i].clone();
  }, /*write_back=*/false);
  EXPECT_EQ(most, 1u) << "units gathered at once";
  for (size_t i = 0; i < tensors.size(); ++i) EXPECT_TRUE(at::equal(copies[i], want[i].second)) << want[i].first;
  EXPECT_EQ(units_whole(), 0u) << "released after";
  // Only the units holding a listed tensor are gathered.
  const int64_t before = z.gather_counts().first;
  z.visit_whole({tensors[0], tensors[1]}, [](size_t, bool) {}, false);
  EXPECT_EQ(z.gather_counts().first - before, 1);
  // Loading: the values written into the whole parameters reach this rank's shards.
  z.visit_whole(tensors, [&](size_t i, bool) { tensors[i].fill_(static_cast<double>(i + 1)); }, /*write_back=*/true);
  z.gather_all();
  for (size_t i = 0; i < tensors.size(); ++i) EXPECT_TRUE(tensors[i].eq(static_cast<double>(i + 1)).all().item<bool>()) << want[i].first;
}

TEST(World, RanksThatChoseDifferentBackendsAllTakeMpi) {
  // Each rank picks its default backend from its own node; a node with more processes than
  // GPUs needs mpi. Ranks on different backends would wait in different set-up calls.
  EXPECT_EQ(common_backend({"nccl", "nccl", "nccl"}), "nccl");
  EXPECT_EQ(common_backend({"mpi", "mpi"}), "mpi");
  EXPECT_EQ(common_backend({"nccl", "nccl", "mpi"}), "mpi");
  EXPECT_EQ(common_backend({"mpi", "nccl"}), "mpi");
}

TEST(World, RanksShareAGpuOnlyWhenTheirUuidsMeetOnANode) {
  // srun --gpus-per-task: four tasks on a node each see one GPU (cuda:0), four different ones.
  EXPECT_EQ(shared_gpus({{0, "a"}, {0, "b"}, {0, "c"}, {0, "d"}}), std::make_pair(0, 0));
  // The same UUID on two nodes is two GPUs (UUIDs are unique; this only says nodes count apart).
  EXPECT_EQ(shared_gpus({{0, "a"}, {1, "a"}}), std::make_pair(0, 0));
  // Two ranks on one GPU, and a node of 3 ranks on 2 GPUs.
  EXPECT_EQ(shared_gpus({{0, "a"}, {0, "a"}}), std::make_pair(2, 1));
  EXPECT_EQ(shared_gpus({{0, "a"}, {0, "b"}, {1, "c"}, {1, "d"}, {1, "c"}}), std::make_pair(3, 2));
  // Ranks on the CPU drive no GPU.
  EXPECT_EQ(shared_gpus({{0, ""}, {0, ""}}), std::make_pair(0, 0));
}

}  // namespace
}  // namespace runner::dist
