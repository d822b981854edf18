"""flopspy.region under `flopspy run`: traced_program.py marks regions as a context manager, a
decorator (named and bare), across exceptions, recursion and threads; flopspy-report must count
each name exactly and leave none open."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def env(name):
    value = os.environ.get(name)
    if not value:
        raise unittest.SkipTest(f"{name} is not set (run through ctest)")
    return value


class RegionUnderTheLauncher(unittest.TestCase):
    maxDiff = None
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        out = os.path.join(cls.tmp.name, "out")
        child_env = dict(os.environ, PYTHONPATH=env("FLOPSPY_PYTHON_DIR"),
                         PYTHONDONTWRITEBYTECODE="1")
        child_env.pop("LD_PRELOAD", None)
        run = subprocess.run(
            [env("FLOPSPY_LAUNCHER"), "run", "--no-summary", "-o", out, "--",
             sys.executable, os.path.join(HERE, "traced_program.py")],
            env=child_env, capture_output=True, text=True, timeout=120)
        cls.run_result = run
        report = subprocess.run([env("FLOPSPY_REPORT"), out, "--json"], capture_output=True,
                                text=True, timeout=120)
        cls.report_result = report
        cls.doc = json.loads(report.stdout) if report.returncode == 0 else None

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def setUp(self):
        self.assertEqual(self.run_result.returncode, 0,
                         f"traced_program.py under flopspy run: {self.run_result.stderr}")
        self.assertIsNotNone(self.doc, self.report_result.stderr)

    def regions(self):
        traces = self.doc["traces"]
        self.assertEqual(len(traces), 1)
        return {r["name"]: r for r in traces[0]["regions"]}

    def test_every_region_is_counted_once_per_use(self):
        counts = {name: r["count"] for name, r in self.regions().items()}
        self.assertEqual(counts, {"outer": 3, "inner": 6, "forward": 4, "Model.step": 2,
                                  "fails": 5, "recurse": 3, "worker": 80})

    def test_no_region_is_left_open(self):
        self.assertEqual({n: r["open"] for n, r in self.regions().items() if r["open"]}, {})

    def test_nesting_is_kept(self):
        r = self.regions()
        # Each outer region holds its two inner ones.
        self.assertGreaterEqual(r["outer"]["total_ns"], r["inner"]["total_ns"])
        self.assertGreater(r["inner"]["total_ns"], 0)


if __name__ == "__main__":
    unittest.main()
