#include "runtime/models/loss_only.h"

namespace runner::models {

namespace {
thread_local bool g_loss_only = false;  // per thread: a DataLoader worker never calls a model, but a test may run two trainers
}  // namespace

LossOnlyScope::LossOnlyScope() : previous_(g_loss_only) { g_loss_only = true; }
LossOnlyScope::~LossOnlyScope() { g_loss_only = previous_; }

bool loss_only() { return g_loss_only; }

}  // namespace runner::models
