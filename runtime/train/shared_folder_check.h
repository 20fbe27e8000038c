// Whether output_dir is one folder for all nodes matters twice: save_on_each_node is for
// nodes without a shared filesystem (each node's first process writes its own copy; on a
// shared folder they would all write the same files), and ZeRO's sharded checkpoints need a
// shared folder (rank 0 moves every rank's shard file into the checkpoint). At the start the
// node leaders each leave a marker there and look for the others'. HF trusts the user here
// and says nothing; a wrong guess shows at the first save, hours later.
#pragma once
#include <string>

namespace runner {
struct TrainingArguments;
}

namespace runner::dist {
class DataParallel;
}

namespace runner::train {

// Collective (every rank calls it), with several nodes only. save_on_each_node on a folder
// the nodes share: warned once and turned off (rank 0 writes each checkpoint once). Sharded
// checkpoints (ZeRO/FSDP over several ranks, saving on, save_on_each_node off) on a folder
// the nodes do not share: an ArgumentError at the start, not a failed move at the first save.
void check_output_dir_sharing(TrainingArguments& args, const dist::DataParallel& dp, int local_rank);

}  // namespace runner::train
