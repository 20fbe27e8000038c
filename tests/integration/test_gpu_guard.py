"""RUNNER_EXPECT_GPU=1 (set by scripts/gpu_check.sh on the GPU machines) turns every skipped
`gpu` case into a failure, so a GPU machine whose runner cannot see its GPU never reports
green. This runs where no GPU is visible (CI): the gpu cases skip, and fail when a GPU is
expected."""
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from runner_test_util import BINARY  # noqa: E402

GTEST = os.environ["RUNNER_GPU_TEST_BINARY"]
PY_GPU_TESTS = os.path.join(os.path.dirname(__file__), "test_gpu.py")


def env(expect):
    e = dict(os.environ)
    e.pop("RUNNER_EXPECT_GPU", None)
    if expect:
        e["RUNNER_EXPECT_GPU"] = "1"
    return e


class GpuExpectation(unittest.TestCase):
    def test_gtest_gpu_cases_skip_unless_a_gpu_is_expected(self):
        cmd = [GTEST, "--gtest_filter=GpuTraining.MemoryMetricsArePresentAndPlausible:GpuFeatures.Tf32*"]
        free = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env(False))
        self.assertEqual(free.returncode, 0, free.stdout[-2000:])
        self.assertIn("[  SKIPPED ]", free.stdout)
        expected = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env(True))
        self.assertNotEqual(expected.returncode, 0, expected.stdout[-2000:])
        self.assertIn("RUNNER_EXPECT_GPU is set but this binary sees no CUDA device", expected.stdout)
        self.assertNotIn("[  SKIPPED ]", expected.stdout)

    def test_python_gpu_suite_skips_unless_a_gpu_is_expected(self):
        free = subprocess.run([sys.executable, PY_GPU_TESTS], capture_output=True, text=True, timeout=120, env=env(False))
        self.assertEqual(free.returncode, 77, free.stdout + free.stderr)
        expected = subprocess.run([sys.executable, PY_GPU_TESTS], capture_output=True, text=True, timeout=120, env=env(True))
        self.assertEqual(expected.returncode, 1, expected.stdout + expected.stderr)
        self.assertIn("RUNNER_EXPECT_GPU is set but runner sees no GPU", expected.stdout)

    def test_the_gpu_check_runs_every_python_gpu_case(self):
        # scripts/gpu_check.sh names the cases one by one (each its own time limit): a case
        # added to test_gpu.py but not to the script would never run on a GPU machine.
        import re
        with open(PY_GPU_TESTS) as f:
            cases = re.findall(r"^    def (test_\w+)\(self", f.read(), re.M)
        with open(os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "gpu_check.sh")) as f:
            script = f.read()
        self.assertGreater(len(cases), 10)
        self.assertEqual([c for c in cases if not re.search(rf"\b{c}\b", script)], [])

    def test_the_gpu_check_ships_and_runs_every_gtest_gpu_binary(self):
        # A GoogleTest binary labelled gpu but not packed by scripts/gpu_package.sh and listed
        # in scripts/gpu_env.sh would never run on a GPU machine.
        import glob
        import re
        root = os.path.join(os.path.dirname(__file__), "..", "..")
        binaries = set()
        for cmake in glob.glob(os.path.join(root, "tests", "**", "CMakeLists.txt"), recursive=True):
            with open(cmake) as f:
                binaries |= set(re.findall(r"runner_test\((\w+)[^)]*LABELS gpu", f.read()))
        self.assertIn("test_kernels_gpu", binaries)
        for script in ("gpu_package.sh", "gpu_env.sh"):
            with open(os.path.join(root, "scripts", script)) as f:
                text = f.read()
            self.assertEqual(sorted(b for b in binaries if not re.search(rf"\b{b}\b", text)), [], script)


if __name__ == "__main__":
    version = subprocess.run([BINARY, "--version"], capture_output=True, text=True, timeout=120).stdout
    if "GPU 0:" in version:
        print("SKIPPED: this machine has a GPU (the guard is tested where none is visible)")
        sys.exit(77)
    unittest.main()
