// save_on_each_node is for nodes without a shared filesystem: each node's first process
// writes its own copy. On a folder the nodes share, they would all write the same files, so
// at the start the node leaders each leave a marker there and look for the others'; rank 0
// warns once when any leader saw another's (HF trusts the user here and says nothing), and the
// Trainer then writes from rank 0 only, as without save_on_each_node (the leaders would race to
// rename the same checkpoint folder into place).
#pragma once
#include <string>

namespace runner::dist {
class DataParallel;
}

namespace runner::train {

// Collective (every rank calls it); does nothing unless save_on_each_node with several nodes.
// Returns whether the node leaders share `output_dir`.
bool check_node_local_storage(const std::string& output_dir, bool save_on_each_node, const dist::DataParallel& dp, int local_rank);

}  // namespace runner::train
