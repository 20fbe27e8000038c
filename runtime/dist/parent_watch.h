#pragma once

namespace runner::dist {

// A rank started by a process manager (hydra's proxy, slurmstepd) ends itself when that
// manager is gone. Its job has then failed (mpiexec or srun has said so, and `runner launch`
// restarts it), and a rank that trained on would write checkpoints into the output_dir the
// restarted job resumes from. The rank is killed, not stopped with a save: its last committed
// checkpoint is intact, and a save now would race the restarted job.
void watch_process_manager();

}  // namespace runner::dist
