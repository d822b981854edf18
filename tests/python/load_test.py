"""flopspy.load on reports that flopspy-report writes in the test (the HTML tests' demo trace,
alone and with its CPU twin) and on the golden four-rank report: every table's rows and values
are checked against the JSON document itself, and the files load() must refuse are refused
with one line."""

import json
import math
import os
import subprocess
import tempfile
import unittest

import flopspy


def env(name):
    value = os.environ.get(name)
    if not value:
        raise unittest.SkipTest(f"{name} is not set (run through ctest)")
    return value


def same(a, b):
    """Equal, a missing value (None in JSON, NaN in pandas) matching a missing one."""
    missing_a = a is None or (isinstance(a, float) and math.isnan(a))
    missing_b = b is None or (isinstance(b, float) and math.isnan(b))
    if missing_a or missing_b:
        return missing_a and missing_b
    return a == b


class ReportFixture(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.demo = cls.path("demo.fspy")
        cls.demo_cpu = cls.path("demo_cpu.fspy")
        subprocess.run([env("FLOPSPY_DEMO_TRACE"), cls.demo], check=True)
        subprocess.run([env("FLOPSPY_DEMO_TRACE"), "--cpu", cls.demo_cpu], check=True)
        cls.single = cls.report("single.json", [cls.demo])
        cls.pair = cls.report("pair.json", [cls.demo, cls.demo_cpu])
        cls.diff = cls.report("diff.json", ["--diff", cls.demo, cls.demo_cpu])
        cls.multi_rank = os.path.join(env("FLOPSPY_GOLDEN_DIR"), "multi_rank.json")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @classmethod
    def path(cls, name):
        return os.path.join(cls.tmp.name, name)

    @classmethod
    def report(cls, name, args):
        out = cls.path(name)
        with open(out, "w") as f:
            subprocess.run([env("FLOPSPY_REPORT"), *args, "--json"], stdout=f, check=True)
        return out

    @staticmethod
    def doc(path):
        with open(path) as f:
            return json.load(f)


class TablesMatchTheJson(ReportFixture):
    def check_per_trace_table(self, frame, doc, key, fields):
        """Rows in the JSON's order, each with its trace's identity and the given fields
        (column -> function of the JSON row)."""
        expected = [(i, t, row) for i, t in enumerate(doc["traces"]) for row in t.get(key, [])]
        self.assertEqual(len(frame), len(expected), key)
        self.assertGreater(len(expected), 0, key)
        for (i, trace, row), (_, got) in zip(expected, frame.iterrows()):
            self.assertEqual(got["trace"], i)
            self.assertEqual(got["pid"], trace["process"]["pid"])
            self.assertEqual(got["rank"], trace["process"]["rank"])
            for column, value_of in fields.items():
                self.assertTrue(same(got[column], value_of(row)),
                                f"{key}.{column}: {got[column]!r} != {value_of(row)!r}")

    def test_kernels(self):
        report, doc = flopspy.load(self.single), self.doc(self.single)
        self.check_per_trace_table(report.kernels, doc, "kernels", {
            "name": lambda k: k["name"], "gpu_ns": lambda k: k["gpu_ns"],
            "launches": lambda k: k["launches"], "grid_x": lambda k: k["grid"][0],
            "block_x": lambda k: k["block"][0], "inside_library": lambda k: k["inside_library"],
            "timed_flops": lambda k: k["timed"]["flops"],
            "placement_regime": lambda k: (k["placement"] or {}).get("regime")})
        k = report.kernels
        self.assertEqual(str(k["gpu_ns"].dtype), "float64")
        self.assertEqual(str(k["launches"].dtype), "int64")
        self.assertEqual(str(k["grid_x"].dtype), "int64")
        self.assertEqual(str(k["inside_library"].dtype), "bool")
        self.assertEqual(str(k["name"].dtype), "object")
        # Some kernel has no FLOP figure: its intensity is NaN in a numeric column.
        self.assertTrue(any(row["intensity"] is None for row in doc["traces"][0]["kernels"]))
        self.assertEqual(str(k["intensity"].dtype), "float64")

    def test_top_kernels_by_gpu_time(self):
        report, doc = flopspy.load(self.single), self.doc(self.single)
        top = report.kernels.nlargest(10, "gpu_ns")
        expected = sorted(doc["traces"][0]["kernels"], key=lambda k: -k["gpu_ns"])[:10]
        self.assertEqual(list(top["gpu_ns"]), [k["gpu_ns"] for k in expected])

    def test_library_calls(self):
        report, doc = flopspy.load(self.single), self.doc(self.single)
        self.check_per_trace_table(report.library_calls, doc, "library_calls", {
            "routine": lambda c: c["routine"], "m": lambda c: c["m"], "k": lambda c: c["k"],
            "calls": lambda c: c["calls"], "gpu_ns": lambda c: c["gpu_ns"],
            "flops": lambda c: c["flops"], "types_a": lambda c: c["types"][0],
            "types_d": lambda c: c["types"][3]})
        self.assertEqual(str(report.library_calls["m"].dtype), "int64")
        self.assertEqual(str(report.library_calls["flops"].dtype), "float64")

    def test_copies_advice_and_launch_overhead(self):
        report, doc = flopspy.load(self.single), self.doc(self.single)
        self.check_per_trace_table(report.copies, doc, "copies", {
            "bytes": lambda c: c["bytes"], "direction": lambda c: c["direction"]})
        self.check_per_trace_table(report.advice, doc, "advice", {"kind": lambda a: a["kind"]})
        lo = doc["traces"][0]["launch_overhead"]
        self.assertEqual(len(report.launch_overhead), 1)
        row = report.launch_overhead.iloc[0]
        self.assertEqual(row["verdict_rule"], lo["verdict"]["rule"])
        self.assertEqual(row["launches_launch_cost_mean_ns"],
                         lo["launches"]["launch_cost"]["mean_ns"])
        self.assertEqual(str(report.launch_overhead["launches_kernel_launches"].dtype), "int64")
        signatures = report.table("launch_overhead.signatures")
        self.assertEqual(len(signatures), len(lo["signatures"]))
        self.assertEqual(list(signatures["launch_ns"]), [s["launch_ns"] for s in lo["signatures"]])

    def test_regions_and_processes(self):
        report, doc = flopspy.load(self.pair), self.doc(self.pair)
        self.check_per_trace_table(report.regions, doc, "regions", {
            "name": lambda r: r["name"], "count": lambda r: r["count"],
            "open": lambda r: r["open"], "total_ns": lambda r: r["total_ns"]})
        self.assertEqual(set(report.regions["trace"]), {1})  # only the CPU twin marks regions
        p = report.processes
        self.assertEqual(list(p["path"]), [t["path"] for t in doc["traces"]])
        self.assertEqual(list(p["pid"]), [t["process"]["pid"] for t in doc["traces"]])
        self.assertEqual(list(p["read_status"]), ["ok", "ok"])
        self.assertEqual(list(p["summary_kernel_gpu_ns"]),
                         [t["summary"]["kernel_gpu_ns"] for t in doc["traces"]])
        self.assertEqual(str(p["span_ns"].dtype), "int64")
        self.assertEqual(str(p["gpu_timing"].dtype), "bool")

    def test_merged_tables_and_ranks_of_several_traces(self):
        report, doc = flopspy.load(self.pair), self.doc(self.pair)
        merged = doc["aggregate"]["kernels"]
        self.assertEqual(list(report.merged_kernels["gpu_ns"]), [k["gpu_ns"] for k in merged])
        self.assertEqual(list(report.merged_kernels["traces"]), [k["traces"] for k in merged])
        self.assertEqual(len(report.merged_library_calls), len(doc["aggregate"]["library_calls"]))
        self.assertEqual(len(report.ranks), len(doc["ranks"]))

    def test_four_ranks_and_a_straggler(self):
        report, doc = flopspy.load(self.multi_rank), self.doc(self.multi_rank)
        self.assertEqual(len(report.processes), len(doc["traces"]))
        self.assertEqual(list(report.ranks["rank"]), [r["rank"] for r in doc["ranks"]])
        self.assertEqual(list(report.ranks["step_mean_ns"]),
                         [r["step"]["mean_ns"] for r in doc["ranks"]])
        self.assertEqual(str(report.ranks["gpu_busy_ns"].dtype), "int64")
        self.assertEqual(list(report.stragglers["rank"]), [s["rank"] for s in doc["stragglers"]])
        self.assertEqual(list(report.stragglers["metric"]),
                         [s["metric"] for s in doc["stragglers"]])
        # Above two traces the report holds the whole run: each trace's rows need --per-trace.
        self.assertFalse(doc["aggregate"]["traces_in_full"])
        self.assertTrue(report.kernels.empty)
        self.assertEqual(list(report.merged_kernels["gpu_ns"]),
                         [k["gpu_ns"] for k in doc["aggregate"]["kernels"]])

    def test_per_trace_keeps_each_traces_rows(self):
        third = self.path("demo_third.fspy")
        subprocess.run([env("FLOPSPY_DEMO_TRACE"), third], check=True)
        path = self.report("three.json", ["--per-trace", self.demo, self.demo_cpu, third])
        report, doc = flopspy.load(path), self.doc(path)
        self.assertTrue(doc["aggregate"]["traces_in_full"])
        self.assertEqual(len(doc["traces"]), 3)
        per_trace = report.kernels.groupby("trace")["gpu_ns"].sum()
        for i, trace in enumerate(doc["traces"]):
            self.assertAlmostEqual(per_trace[i], sum(k["gpu_ns"] for k in trace["kernels"]))

    def test_steps_and_ranges_are_read_once_the_report_writes_them(self):
        doc = self.doc(self.single)
        doc["traces"][0]["steps"] = [{"index": 0, "gpu_ns": 5, "phases": {"forward_ns": 2}}]
        doc["traces"][0]["ranges"] = [{"name": "data", "count": 3}]
        path = self.path("future_tables.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        report = flopspy.load(path)
        self.assertEqual(report.steps.loc[0, "phases_forward_ns"], 2)
        self.assertEqual(list(report.ranges["name"]), ["data"])
        self.assertEqual(report.ranges.loc[0, "pid"], doc["traces"][0]["process"]["pid"])

    def test_tables_a_report_lacks_are_empty(self):
        report = flopspy.load(self.single)
        for name in ("ranks", "stragglers", "merged_kernels", "merged_library_calls", "steps",
                     "ranges", "regions"):
            self.assertTrue(getattr(report, name).empty, name)
        self.assertTrue(report.table("no_such_table").empty)
        self.assertEqual(report.schema_version, 2)
        self.assertIn("kernels=", repr(report))


class RefusedFiles(ReportFixture):
    def refused(self, path, *words):
        with self.assertRaises(ValueError) as caught:
            flopspy.load(path)
        message = str(caught.exception)
        self.assertNotIn("\n", message)
        self.assertIn(os.fspath(path), message)
        for word in words:
            self.assertIn(word, message)

    def write(self, name, text):
        path = self.path(name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_missing_file(self):
        self.refused(self.path("absent.json"), "no such file")

    def test_folder(self):
        self.refused(self.tmp.name, "folder")

    def test_a_trace_is_not_a_report(self):
        self.refused(self.demo, "not a flopspy report JSON")

    def test_other_json(self):
        self.refused(self.write("other.json", '{"schema": "something-else"}'),
                     "not a flopspy report JSON")
        self.refused(self.write("list.json", "[1, 2]"), "not a flopspy report JSON")
        self.refused(self.write("cut.json", '{"schema": "flopspy-report", '),
                     "not a flopspy report JSON")

    def test_unsupported_schema_version(self):
        doc = self.doc(self.single)
        doc["schema_version"] = 99
        self.refused(self.write("future.json", json.dumps(doc)), "schema_version 99",
                     "not supported")

    def test_diff_document(self):
        self.refused(self.diff, "--diff")

    def test_pathlike_is_accepted(self):
        import pathlib

        self.assertEqual(flopspy.load(pathlib.Path(self.single)).schema_version, 2)


if __name__ == "__main__":
    unittest.main()
