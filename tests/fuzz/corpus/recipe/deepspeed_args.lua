local data = require "runner.data"
return {
  args = { output_dir = "runs/ds", max_steps = 2, per_device_train_batch_size = 2, gradient_accumulation_steps = 2,
           deepspeed = { zero_optimization = { stage = 2, reduce_bucket_size = "auto" }, gradient_clipping = "auto",
                         train_micro_batch_size_per_gpu = "auto", fp16 = { enabled = false } },
           lr_scheduler_type = "reduce_lr_on_plateau", lr_scheduler_kwargs = { patience = 1, factor = 0.5 } },
  datasets = { train = data.tensors{ x = torch.randn(8, 2), labels = torch.randint(0, 2, {8}) } },
  model = nn.Linear(2, 2),
}
