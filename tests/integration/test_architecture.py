"""The layout docs/architecture.md promises, checked on the sources (#24): no LibTorch internals
(a parameter's life goes through ParameterStore and public API: Tensor::set_data, Storage
handles, resize_), train() a loop that fits a screen, and every Trainer method in trainer.cpp
(its collaborators are classes of their own). Runs on the source tree; needs no build."""
import os
import re
import sys
import unittest

SOURCE = os.environ.get("RUNNER_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))

# What the next LibTorch release may change under us: rewriting a TensorImpl or a storage's
# memory pointer, autograd's private fields, c10's implementation namespace.
INTERNALS = {
    "shallow_copy_from": "rewrites a TensorImpl in place (use Tensor::set_data)",
    "grad_accumulator_": "a private autograd field",
    "autograd::impl::": "autograd's implementation namespace",
    "set_data_ptr": "swaps a storage's memory behind its views (ParameterStore::release_memory/refill_memory)",
    "StorageImpl": "the storage's implementation class (use the c10::Storage handle)",
    "unsafeGetStorageImpl": "the storage's implementation class",
    "unsafeGetTensorImpl()->": "mutates a TensorImpl (an identity key is fine, a call through it is not)",
    "c10::impl::": "c10's implementation namespace",
}


def sources(*folders):
    for folder in folders:
        for root, _, files in os.walk(os.path.join(SOURCE, folder)):
            for name in files:
                if name.endswith((".cpp", ".h", ".cu", ".cuh")):
                    yield os.path.join(root, name)


class Architecture(unittest.TestCase):
    def test_no_libtorch_internals(self):
        found = []
        for path in sources("runtime", "bindings"):
            with open(path, encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    code = line.split("//", 1)[0]
                    for needle, why in INTERNALS.items():
                        if needle in code:
                            found.append(f"{os.path.relpath(path, SOURCE)}:{n}: {needle}: {why}")
        self.assertEqual(found, [], "\n".join(found))
        self.assertGreater(len(list(sources("runtime"))), 100)  # the walk found the tree

    def test_train_is_a_short_loop(self):
        with open(os.path.join(SOURCE, "runtime/train/trainer.cpp"), encoding="utf-8") as f:
            lines = f.read().splitlines()
        start = next(i for i, l in enumerate(lines) if re.match(r"^\S.*\bTrainer::train\(\)", l))
        end = next(i for i in range(start, len(lines)) if lines[i] == "}")
        self.assertLessEqual(end - start + 1, 80, "Trainer::train() grew past one screen")

    def test_every_trainer_method_is_in_trainer_cpp(self):
        outside = []
        for path in sources("runtime", "bindings"):
            if path.endswith(os.path.join("runtime", "train", "trainer.cpp")):
                continue
            with open(path, encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    if re.match(r"^[A-Za-z].*\bTrainer::~?\w+\(", line):
                        outside.append(f"{os.path.relpath(path, SOURCE)}:{n}: {line.strip()}")
        self.assertEqual(outside, [], "\n".join(outside))


if __name__ == "__main__":
    unittest.main()
