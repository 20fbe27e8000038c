#pragma once
#include <sys/types.h>

namespace runner::dist {

// A rank started by a process manager (hydra's proxy, slurmstepd) ends itself when that
// manager is gone. Its job has then failed (mpiexec or srun has said so, and `runner launch`
// restarts it), and a rank that trained on would write checkpoints into the output_dir the
// restarted job resumes from. The rank is killed, not stopped with a save: its last committed
// checkpoint is intact, and a save now would race the restarted job.
// `manager` is the parent the rank had when it started; the watch begins before MPI_Init, which
// a node lost at start-up can outlast (the rank, reparented by then, would otherwise watch its
// new parent). `manager_is_a_proxy`: the launcher always puts a process manager between
// itself and the rank (hydra's proxy, slurmstepd), so a parent of 1 at the start is a manager
// already gone, and the rank ends at once; other parents of 0 or 1 are not watched.
void watch_process_manager(pid_t manager, bool manager_is_a_proxy);

}  // namespace runner::dist
