#!/usr/bin/env python3
"""Tests of the GPU checks' comparison code, without a GPU (ctest gpu_checks_selftest).

  gpu_checks_selftest.py [--build-dir B] [unittest options]

Canned inputs (tests/gpu/data): torch.profiler Chrome traces in Kineto's format, a cuBLAS case
manifest, ncu CSV output. With --build-dir, also the real flopspy-report's JSON of traces that
flopspy_gpu_checks_trace writes (shaped like the checks' runs), so that a report field the
checks read cannot be renamed without this test failing.
"""

import copy
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
sys.path.insert(0, HERE)

import cublas_compare as cc  # noqa: E402
import demo_traces  # noqa: E402
import gpu_check_common as common  # noqa: E402
import gpu_validate_summary as summary  # noqa: E402
import launch_compare as lc  # noqa: E402
import ncu_csv  # noqa: E402
import seed_compare as sc  # noqa: E402

BUILD_DIR = None
ADD = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
       "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)")


def load(name):
    with open(os.path.join(DATA, name)) as f:
        return json.load(f)


def report_with(kernels=(), library_calls=()):
    """A flopspy-report document with one trace holding these entries (fields as json_report.cpp
    writes them)."""
    return {"schema": "flopspy-report", "schema_version": 2,
            "traces": [{"path": "t.fspy", "read": {"status": "ok", "message": ""},
                        "lost": {}, "lost_total": 0, "warnings": [], "gpu_timing": True,
                        "launches": sum(k.get("launches", 0) for k in kernels),
                        "kernels": list(kernels), "library_calls": list(library_calls)}]}


def kernel(name, launches, executions, gpu_ns, grid=(4096, 1, 1), block=(128, 1, 1), **extra):
    k = {"name": name, "grid": list(grid), "block": list(block), "launches": launches,
         "executions": executions, "gpu_ns": gpu_ns, "inside_library": False}
    k.update(extra)
    return k


class ToleranceTest(unittest.TestCase):
    def test_two_percent_or_two_microseconds(self):
        self.assertTrue(common.within(101_900, 100_000))   # 1.9 %
        self.assertFalse(common.within(102_100, 100_000))  # 2.1 %
        self.assertTrue(common.within(11_900, 10_000))     # 1.9 us on a 10 us kernel
        self.assertFalse(common.within(12_100, 10_000))
        self.assertTrue(common.within(8_100, 10_000))


class KinetoTest(unittest.TestCase):
    def test_kernel_events_only_with_times_in_ns(self):
        events = lc.kineto_events(load("kineto_launch.json"))
        self.assertEqual([e["name"] for e in events], [ADD, ADD, "add_kernel"])
        self.assertAlmostEqual(events[0]["dur_ns"], 10_250.0)
        self.assertEqual(events[2]["grid"], (4096, 1, 1))

    def test_kernels_grouped_by_signature_and_name(self):
        sigs = lc.kineto_kernels(load("kineto_launch.json"))
        row = sigs[(ADD, (4096, 1, 1), (128, 1, 1))]
        self.assertEqual(row["executions"], 2)
        self.assertAlmostEqual(row["gpu_ns"], 21_000.0)
        self.assertEqual(lc.by_name(sigs, "executions"), {ADD: 2, "add_kernel": 1})


class LaunchCompareTest(unittest.TestCase):
    def setUp(self):
        self.kineto = lc.kineto_kernels(load("kineto_launch.json"))

    def test_equal_counts_and_times_pass(self):
        report = report_with([kernel(ADD, 2, 2, 20_800.0), kernel("add_kernel", 1, 1, 3_100.0)])
        sigs = lc.flopspy_kernels(report)
        rows, failures = lc.compare_counts(lc.by_name(sigs, "executions"),
                                           lc.by_name(self.kineto, "executions"), "torch")
        self.assertEqual(failures, [])
        self.assertEqual(len(rows), 2)
        rows, failures = lc.compare_times(sigs, self.kineto)
        self.assertEqual(failures, [])
        self.assertEqual(len(rows), 2)
        self.assertAlmostEqual(rows[1]["diff_pct"], -0.95, places=2)

    def test_a_missing_kernel_and_an_extra_one_fail(self):
        report = report_with([kernel(ADD, 1, 1, 10_400.0), kernel("other", 1, 1, 1_000.0)])
        sigs = lc.flopspy_kernels(report)
        _, failures = lc.compare_counts(lc.by_name(sigs, "executions"),
                                        lc.by_name(self.kineto, "executions"), "torch")
        self.assertEqual(len(failures), 3)  # add counted 1 of 2, add_kernel 0 of 1, other 1 of 0

    def test_a_slow_kernel_fails_the_time_comparison(self):
        # 10.5 us against 10.5 us is fine; 14 us is 3.5 us and 33 % off.
        report = report_with([kernel(ADD, 2, 2, 28_000.0)])
        _, failures = lc.compare_times(lc.flopspy_kernels(report), self.kineto)
        self.assertEqual(len(failures), 1)
        self.assertIn("allowed: 2% or 2 us", failures[0])

    def test_groups_of_one_signature_merge_across_shapes_and_traces(self):
        report = report_with([kernel(ADD, 1, 1, 10_000.0, shape="n=1"),
                              kernel(ADD, 1, 1, 11_000.0, shape="n=2")])
        report["traces"].append(copy.deepcopy(report["traces"][0]))
        sigs = lc.flopspy_kernels(report)
        row = sigs[(ADD, (4096, 1, 1), (128, 1, 1))]
        self.assertEqual((row["launches"], row["executions"], row["gpu_ns"]), (4, 4, 42_000.0))


class ProgramCompareTest(unittest.TestCase):
    EXPECTED = {"kernels": [
        {"name": "fs_add", "path": "<<<>>>", "launches": 3, "executions": 3},
        {"name": "fs_graph_node", "path": "CUDA graph: 2 captured launches, replayed",
         "launches": 0, "executions": 4},
        {"name": "fs_spin", "path": "<<<>>> between cudaEvents", "launches": 2,
         "executions": 2}],
        "event_ns": {"fs_spin": [201_000.0, 201_400.0]}, "spin_ns_requested": 200_000}

    def report(self, graph_launches=0, add_launches=3):
        return report_with([kernel("fs_add", add_launches, 3, 24_000.0),
                            kernel("fs_graph_node", graph_launches, 4, 28_000.0),
                            kernel("fs_spin", 2, 2, 401_000.0, grid=(1, 1, 1), block=(1, 1, 1))])

    def test_exact_counts_pass(self):
        rows, failures, notes = lc.compare_program(self.EXPECTED, self.report())
        self.assertEqual(failures, [])
        self.assertEqual(notes, [])
        self.assertTrue(all(r["ok"] for r in rows))

    def test_captured_graph_launches_are_a_note(self):
        _, failures, notes = lc.compare_program(self.EXPECTED, self.report(graph_launches=2))
        self.assertEqual(failures, [])
        self.assertEqual(len(notes), 1)

    def test_a_double_counted_launch_fails(self):
        _, failures, _ = lc.compare_program(self.EXPECTED, self.report(add_launches=6))
        self.assertEqual(len(failures), 1)
        self.assertIn("fs_add", failures[0])

    def test_an_unexpected_kernel_fails(self):
        report = self.report()
        report["traces"][0]["kernels"].append(kernel("cudart_internal", 1, 1, 1.0))
        _, failures, _ = lc.compare_program(self.EXPECTED, report)
        self.assertEqual(len(failures), 1)
        self.assertIn("did not launch", failures[0])

    def test_spin_time_against_the_spin_and_the_events(self):
        row, failure = lc.spin_time(self.EXPECTED, self.report())
        self.assertIsNone(failure)
        self.assertEqual(row["flopspy_mean_ns"], 200_500.0)
        self.assertEqual(row["diff_pct"], 0.25)
        # Events 10 us wider than the kernel (an H200: the start event is timed before the
        # kernel is launched): they only bound flopspy's time from above.
        expected = copy.deepcopy(self.EXPECTED)
        expected["event_ns"]["fs_spin"] = [210_000.0, 210_000.0]
        self.assertIsNone(lc.spin_time(expected, self.report())[1])
        # Shorter than the kernel spins, 5 % longer, or longer than the events: wrong.
        for requested, events in ((202_000, 210_000.0), (190_000, 210_000.0),
                                  (200_000, 196_000.0)):
            expected = copy.deepcopy(self.EXPECTED)
            expected["spin_ns_requested"] = requested
            expected["event_ns"]["fs_spin"] = [events, events]
            self.assertIsNotNone(lc.spin_time(expected, self.report())[1], (requested, events))


def gemm_call(m, n, k, calls, gpu_ns, kernels, types="R_32F", compute="32F", path="fp32",
              batch=1, diagnostics=(), routine="cublasSgemm_v2"):
    return {"routine": routine, "family": "gemm", "m": m, "n": n, "k": k, "batch": batch,
            "types": [types] * 4, "compute_type": compute, "epilogue": "DEFAULT", "calls": calls,
            "kernels": kernels, "gpu_ns": gpu_ns, "flops": 2.0 * m * n * k * batch * calls,
            "epilogue_flops": 0.0, "path": path, "diagnostics": list(diagnostics)}


SGEMM = "sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x64x16_selftest"


class CublasCompareTest(unittest.TestCase):
    def setUp(self):
        self.manifest = load("cublas_cases.json")
        self.cases = {c["id"]: c for c in self.manifest["cases"]}
        self.kineto = cc.kineto_case_kernels(load("kineto_cublas.json"))

    def test_kernels_are_assigned_to_cases_by_their_launch_time(self):
        self.assertEqual(sorted(self.kineto), ["mm_fp32", "wave_1792", "wave_1793"])
        self.assertEqual([k["name"] for k in self.kineto["mm_fp32"]][:2], [SGEMM, SGEMM])
        self.assertEqual(len(self.kineto["mm_fp32"]), 3)  # two GEMMs and a copy
        self.assertEqual(self.kineto["wave_1793"][0]["grid"], [15, 15, 1])

    def test_column_major_shapes_match(self):
        # PyTorch's 512 x 768 output reaches cuBLAS as m = 768, n = 512.
        report = report_with(library_calls=[gemm_call(768, 512, 1024, 2, 60_500.0, 2)])
        self.assertEqual(len(cc.match_cases(self.manifest, report)["mm_fp32"]), 1)
        other = report_with(library_calls=[gemm_call(768, 512, 1056, 2, 60_500.0, 2)])
        self.assertEqual(cc.match_cases(self.manifest, other)["mm_fp32"], [])

    def compare(self, call, case="mm_fp32"):
        return cc.compare_case(self.cases[case], [call], self.kineto[case], {SGEMM})

    def test_a_matching_case_passes_and_ignores_non_library_kernels(self):
        row, failures = self.compare(gemm_call(768, 512, 1024, 2, 60_500.0, 2))
        self.assertEqual(failures, [])
        self.assertEqual(row["status"], "ok")
        self.assertEqual(row["torch_other_kernels"], 1)
        self.assertEqual(row["torch_gpu_ns_per_call"], 30_250.0)

    def test_flops_calls_kernels_time_and_tf32_mismatches_fail(self):
        call = gemm_call(768, 512, 1024, 2, 60_500.0, 2)
        call["flops"] *= 1.5
        _, failures = self.compare(call)
        self.assertTrue(any("FLOPs per call" in f for f in failures))
        _, failures = self.compare(gemm_call(768, 512, 1024, 3, 90_000.0, 3))
        self.assertTrue(any("3 calls made" in f or "2 calls made" in f for f in failures))
        _, failures = self.compare(gemm_call(768, 512, 1024, 2, 80_000.0, 2))
        self.assertTrue(any("GPU time per call" in f for f in failures))
        _, failures = self.compare(gemm_call(768, 512, 1024, 2, 60_500.0, 4))
        self.assertTrue(any("attributed 4 kernels" in f for f in failures))
        _, failures = self.compare(gemm_call(768, 512, 1024, 2, 60_500.0, 2,
                                             compute="32F_FAST_TF32", path="tf32_tensor"))
        self.assertTrue(any("TF32 not allowed" in f for f in failures))
        _, failures = self.compare(gemm_call(768, 512, 1024, 2, 60_500.0, 2, types="R_16F"))
        self.assertTrue(any("A's type" in f for f in failures))

    def test_no_call_and_unsupported_cases(self):
        _, failures = cc.compare_case(self.cases["mm_fp32"], [], [], set())
        self.assertEqual(len(failures), 1)
        row, failures = cc.compare_case(self.cases["scaled_mm_fp8"], [], [], set())
        self.assertEqual(failures, [])
        self.assertTrue(row["status"].startswith("unsupported"))

    def test_flop_counter_without_a_formula_falls_back_to_2mnk(self):
        case = dict(self.cases["mm_fp32"], flop_counter_flops_per_call=0)
        row, failures = cc.compare_case(case, [gemm_call(768, 512, 1024, 2, 60_500.0, 2)],
                                        self.kineto["mm_fp32"], {SGEMM})
        self.assertEqual(failures, [])
        self.assertIn("2MNK", row["flop_reference"])

    def test_wave_effect(self):
        tile = {"kind": "tile_quantization", "lost_fraction": 0.128, "sentence": "padding"}
        wave_a = {"kind": "wave_quantization", "lost_fraction": 0.26, "sentence": "1.48 waves"}
        wave_b = {"kind": "wave_quantization", "lost_fraction": 0.15, "sentence": "1.70 waves"}
        a = [gemm_call(1792, 1792, 1792, 2, 80_000.0, 2, diagnostics=[wave_a])]
        b = [gemm_call(1793, 1793, 1793, 2, 104_000.0, 2, diagnostics=[tile, wave_b])]
        numbers, failure = cc.wave_effect(a, b)
        self.assertIsNone(failure)
        self.assertEqual(numbers["time_ratio_1793_over_1792"], 1.3)
        _, failure = cc.wave_effect(a, [gemm_call(1793, 1793, 1793, 2, 1.0, 2)])
        self.assertIsNotNone(failure)
        _, failure = cc.wave_effect([], b)
        self.assertIn("no call for 1792", failure)


def seed_kernel(functor, elements, bytes_per_elt, flops_per_elt, counters=None, family="x",
                mean_ns=125_000.0, regime="memory_bound"):
    n = 3
    k = {"name": functor + "_kernel", "functor": functor, "family": family, "executions": n,
         "launches": n, "gpu_ns": mean_ns * n, "mean_ns": mean_ns,
         "all": {"flops": flops_per_elt * elements * n, "bytes": bytes_per_elt * elements * n,
                 "launches_with_flops": n, "launches_with_bytes": n,
                 "flops_source": "catalog", "bytes_source": "catalog"},
         "placement": {"regime": regime, "intensity": flops_per_elt / bytes_per_elt,
                       "ridge": 14.0, "achieved_bytes_per_s": 4.3e12,
                       "pct_of_bandwidth": 89.0, "pct_of_peak": 0.8},
         "counters": None}
    if counters:
        k["counters"] = {"samples": 3, "flops_per_launch": counters[0],
                         "bytes_per_launch": counters[1]}
    return k


class SeedCompareTest(unittest.TestCase):
    N = 8192 * 8192

    def test_kernels_found_by_functor_and_bytes(self):
        report = report_with([seed_kernel("mul", self.N, 12, 1), seed_kernel("mul", self.N, 8, 1),
                              seed_kernel("sin", self.N, 8, 1),
                              seed_kernel("", self.N, 4, 0, family="fill")])
        found = sc.seed_kernels(report, self.N)
        self.assertEqual(sorted(found), ["fill", "mul", "mul_scalar", "sin"])
        self.assertEqual(sc.per_launch(found["mul_scalar"]["all"], "bytes"), 8 * self.N)

    def test_cross_check_follows_the_convention(self):
        n = self.N
        ok = {"mul": seed_kernel("mul", n, 12, 1, counters=(1.0 * n, 12.1 * n)),
              "add": seed_kernel("add", n, 12, 1, counters=(2.0 * n, 12.0 * n)),
              "sin": seed_kernel("sin", n, 8, 1, counters=(17.0 * n, 8.2 * n)),
              "fill": seed_kernel("", n, 4, 0, counters=(0.0, 4.0 * n), family="fill"),
              "sum": seed_kernel("sum", n, 4, 1, counters=(1.03 * n, 4.0 * n))}
        for op, k in ok.items():
            row, failures = sc.cross_check(op, k)
            self.assertEqual(failures, [], op)
            self.assertEqual(row["status"], "ok")
        bad = {"add": seed_kernel("add", n, 12, 1, counters=(1.0 * n, 12.0 * n)),
               "mul": seed_kernel("mul", n, 12, 1, counters=(1.0 * n, 12.0 * n * 1.06)),
               "sin": seed_kernel("sin", n, 8, 1, counters=(0.5 * n, 8.0 * n)),
               "fill": seed_kernel("", n, 4, 0, counters=(5.0, 4.0 * n), family="fill")}
        for op, k in bad.items():
            _, failures = sc.cross_check(op, k)
            self.assertEqual(len(failures), 1, op)

    def test_counters_left_in_a_group_of_their_own_are_found_and_marked(self):
        k = seed_kernel("sin", self.N, 8, 1)
        orphan = seed_kernel("sin", self.N, 8, 1, counters=(17.0 * self.N, 8.0 * self.N))
        orphan.update(launches=0, executions=0, gpu_ns=0.0, shape="")
        found = sc.seed_kernels(report_with([k, orphan]), self.N)
        self.assertTrue(found["sin"]["counters_orphaned"])
        self.assertEqual(sc.kernel_counters(found["sin"])[1], 17.0 * self.N)
        self.assertEqual(found["sin"]["launches"], 3)
        self.assertEqual(len(sc.orphan_counters(report_with([k, orphan]))), 1)

    def test_no_counters_is_reported_not_failed(self):
        row, failures = sc.cross_check("sin", seed_kernel("sin", self.N, 8, 1))
        self.assertEqual((row["status"], failures), ("no counters", []))

    def test_renamed_counter_fields_are_read_too(self):
        k = seed_kernel("sin", self.N, 8, 1)
        del k["counters"]
        k["counter_samples"] = 2
        k["cross_check"] = {"counter_flops": 17.0, "counter_bytes": 8.0}
        self.assertEqual(sc.kernel_counters(k), (2, 17.0, 8.0))

    def test_sin_vs_mul(self):
        found = {"sin": seed_kernel("sin", self.N, 8, 1, mean_ns=126_000.0),
                 "mul_scalar": seed_kernel("mul", self.N, 8, 1, mean_ns=124_000.0)}
        sentence, failure = sc.sin_vs_mul(found)
        self.assertIsNone(failure)
        self.assertIn("536870912 bytes", sentence)
        self.assertIn("ratio 1.02", sentence)
        found["sin"] = seed_kernel("sin", self.N, 8, 1, mean_ns=200_000.0)
        _, failure = sc.sin_vs_mul(found)
        self.assertIn("1.61 times", failure)
        found["sin"] = seed_kernel("sin", self.N, 8, 1, regime="compute_bound")
        _, failure = sc.sin_vs_mul(found)
        self.assertIn("not both placed memory bound", failure)


class AttentionCudnnTest(unittest.TestCase):
    """The cuDNN SDPA case's graphs as an H200 with PyTorch 2.11 recorded them (2026-11-28): a
    fused sdpa_forward node for the forward, a graph of matmuls for the backward."""

    CASE = {"id": "cudnn", "backend": "cudnn", "causal": False, "b": 4, "h": 16, "d": 64,
            "s": 1024, "flop_counter_forward": 17179869184, "flop_counter_backward": 42949672960,
            "launches": 2}

    @staticmethod
    def graph(text, flops):
        return {"routine": "cudnnBackendExecute", "family": "dnn_graph", "calls": 3,
                "kernels": 3, "shape_text": text, "flops": flops, "source": "analytic"}

    def test_a_fused_forward_node_and_a_matmul_backward_both_count(self):
        import attention_check
        rows = [self.graph("graph of 1 op, sdpa_forward b4 h16 s_q1024 s_k1024 d64",
                           5.1539607552e10),
                self.graph("graph of 18 ops, matmul 1024x1024x64 b64, 3 without a model",
                           1.2884901888e11),
                self.graph("graph of 14 ops, matmul 1152x1152x64 b64", 6.523e10)]
        row, failures = attention_check.compare_cudnn(self.CASE, rows)
        self.assertEqual(failures, [])
        self.assertEqual(row["graphs"], 2)
        row, failures = attention_check.compare_cudnn(self.CASE, rows[1:])
        self.assertIn("cuDNN graphs' FLOPs 1.28849e+11", failures[0])


class NcclCheckTest(unittest.TestCase):
    MANIFEST = {"calls": [{"collective": "all_reduce", "bytes": 4096, "calls": 3},
                          {"collective": "all_gather", "bytes": 4096, "calls": 3}]}

    @staticmethod
    def report(rows):
        return {"traces": [{"communication": {"calls": 6, "rows": rows}}]}

    def test_calls_per_collective_and_size_on_one_rank(self):
        import nccl_check
        rows = [{"collective": "all_reduce", "bytes": 4096, "nranks": 1, "calls": 4,
                 "gpu_ns": 100.0},
                {"collective": "all_gather", "bytes": 4096, "nranks": 1, "calls": 3,
                 "gpu_ns": 0.0}]
        table, failures = nccl_check.compare(self.MANIFEST, self.report(rows))
        self.assertEqual(failures, [])
        self.assertEqual(table[0]["calls"], 4)
        # A missing call, a wrong size or rank count: failures.
        rows[1]["calls"] = 2
        rows[0]["nranks"] = 2
        _, failures = nccl_check.compare(self.MANIFEST, self.report(rows))
        self.assertEqual(len(failures), 2, failures)
        self.assertIn("all_gather of 4096 bytes: 2 calls recorded on one rank, 3 made",
                      failures[1])
        _, failures = nccl_check.compare(self.MANIFEST, {"traces": [{}]})
        self.assertIn("no communication section", failures[0])


class GraphsCheckTest(unittest.TestCase):
    def test_replays_kernels_and_flops(self):
        import graphs_check as gc
        gemm = gc.BATCH * gc.WIDTH * gc.HIDDEN
        manifest = {"forward_flops": 4.0 * gemm, "compiled": None}
        runs = gc.REPLAYS + gc.EAGER_FORWARDS
        report = {"traces": [{
            "cuda_graphs": [{"made_by": "capture", "replays": gc.REPLAYS,
                             "kernel_executions": 3 * gc.REPLAYS, "kernels_per_replay": 3.0,
                             "unjoined_kernel_executions": 0}],
            "library_calls": [
                {"m": gc.BATCH, "n": gc.HIDDEN, "k": gc.WIDTH, "captured_calls": 1,
                 "flops": 2.0 * gemm * runs},
                {"m": gc.BATCH, "n": gc.WIDTH, "k": gc.HIDDEN, "captured_calls": 1,
                 "flops": 2.0 * gemm * runs},
                {"m": 1024, "n": 256, "k": 256, "captured_calls": 5, "flops": 1e12}]}]}
        numbers, failures, _ = gc.judge(manifest, {"kernels": 3 * gc.REPLAYS}, report)
        self.assertEqual(failures, [])
        self.assertEqual(numbers["mlp_captured_calls"], 2)
        # torch.profiler saw another kernel per replay; one GEMM was never captured.
        report["traces"][0]["library_calls"][1]["captured_calls"] = 0
        report["traces"][0]["library_calls"][1]["flops"] = 2.0 * gemm * gc.EAGER_FORWARDS
        _, failures = gc.judge(manifest, {"kernels": 4 * gc.REPLAYS}, report)[:2]
        self.assertEqual(len(failures), 3, failures)
        self.assertIn("replayed kernels: flopspy 60, torch.profiler 80", failures[0])
        _, failures, _ = gc.judge(manifest, {}, {"traces": [{}]})
        self.assertIn("no captured graph replayed", failures[0])


class NcuTest(unittest.TestCase):
    def test_csv_with_progress_lines(self):
        with open(os.path.join(DATA, "ncu_seed.csv")) as f:
            rows = ncu_csv.parse(f.read())
        self.assertEqual(len(rows), 2)
        self.assertEqual(rows[0]["dram_bytes"], 268_502_528 + 268_435_456)
        self.assertEqual(rows[0]["fp32_flops"], 67_108_864)
        self.assertEqual(rows[1]["fp32_flops"], 134_217_728 + 268_435_456 + 2 * 402_653_184)

    def test_names_compare_across_demanglers(self):
        with open(os.path.join(DATA, "ncu_seed.csv")) as f:
            ncu_name = ncu_csv.parse(f.read())[0]["name"]
        ours = ("void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, "
                "float, float, at::native::binary_internal::MulFunctor<float> >, std::array<char*, "
                "2ul> >(int, at::native::AUnaryFunctor<float, float, float, at::native::"
                "binary_internal::MulFunctor<float> >, std::array<char*, 2ul>)")
        self.assertEqual(ncu_csv.normalize_name(ncu_name), ncu_csv.normalize_name(ours))

    # Nsight Compute 2025.3 on an H200 (2026-11-26) prints shortened names ("vectorized_elementwise_
    # kernel<4, FillFunctor<float>, ...>(int, T2, T3)", lambdas as "[lambda() (instance 2)]"):
    # flopspy's names, from the same run, still find their rows (and only their own).
    with open(os.path.join(DATA, "h200_seed_kernels.json")) as f:
        REAL = [(k["op"], k["name"], k["grid"], k["block"]) for k in json.load(f)["kernels"]]

    def test_real_h200_names_find_their_rows(self):
        with open(os.path.join(DATA, "ncu_h200_seed.csv")) as f:
            rows = ncu_csv.parse(f.read())
        self.assertEqual([r["id"] for r in rows], ["0", "5", "6", "7", "11"])
        found = {}
        for op, name, grid, block in self.REAL:
            row = ncu_csv.find_kernel(rows, name, grid, block)
            self.assertIsNotNone(row, op)
            found[op] = row["id"]
        self.assertEqual(found, {"fill": "0", "mul_scalar": "5", "pow": "6", "sin": "7",
                                 "sum": "11"})
        # The sum kernel: 268.5 MB read, 2.5 MB written, as measured.
        self.assertEqual(rows[4]["dram_bytes"], 268_502_016 + 2_491_648)
        # Another launch shape is another kernel.
        self.assertIsNone(ncu_csv.find_kernel(rows, self.REAL[3][1], [1024, 1, 1], [128, 1, 1]))

    def test_loose_keys(self):
        self.assertEqual(ncu_csv.loose_key(self.REAL[3][1]),
                         "vectorized_elementwise_kernel:sin_kernel_cuda")
        self.assertEqual(ncu_csv.loose_key(self.REAL[2][1]),
                         "vectorized_elementwise_kernel:pow_tensor_scalar_kernel_impl")
        self.assertEqual(ncu_csv.loose_key(self.REAL[4][1]), "reduce_kernel:ReduceOp")
        self.assertEqual(ncu_csv.loose_key("fs_spin"), "fs_spin")

    def test_clocks_are_left_alone(self):
        cmd = ncu_csv.ncu_command("ncu", "log.csv", ["python3", "x.py"])
        self.assertEqual(cmd[cmd.index("--clock-control") + 1], "none")
        self.assertEqual(cmd[-2:], ["python3", "x.py"])


class CheckAndSummaryTest(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="gpu-checks-selftest-")

    def tearDown(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def write_check(self, name, action):
        check = common.Check(name, "title of " + name, os.path.join(self.work, name))
        check.number("answer", 42)
        check.table("rows", [{"a": 1, "b": "x|y"}])
        with self.assertRaises(SystemExit) as exit_:
            action(check)
        return exit_.exception.code

    def test_statuses_exit_codes_and_summary(self):
        self.assertEqual(self.write_check("good", lambda c: c.finish()), 0)
        self.assertEqual(self.write_check("bad", lambda c: (c.fail("a planted failure"), c.finish())), 1)
        self.assertEqual(self.write_check("skipped", lambda c: c.skip("no GPU here")), 77)
        with open(os.path.join(self.work, "order.txt"), "w") as f:
            f.write("good pass 0 3\nbad fail 1 4\nskipped skip 77 1\n"
                    "killed timeout 124 150\nlate not_run 0 0 the time budget was spent\n")
        doc = summary.build(self.work, {"date_utc": "2026-01-01T00:00:00Z"}, 12.0, 540.0)
        statuses = [(c["check"], c["status"]) for c in doc["checks"]]
        self.assertEqual(statuses, [("good", "pass"), ("bad", "fail"), ("skipped", "skip"),
                                    ("killed", "fail"), ("late", "not run")])
        self.assertIn("time limit", doc["checks"][3]["failures"][0])
        text = summary.markdown(doc)
        self.assertIn("| bad | FAIL | 4.0 | a planted failure |", text)
        self.assertIn("## bad: title of bad: FAIL", text)
        self.assertIn("a planted failure", text)
        self.assertIn("x\\|y", text)
        self.assertIn("no GPU here", text)
        json.dumps(doc)  # serialisable


class DemoTracesTest(unittest.TestCase):
    """The seed and training-loop traces kept for demo/traces/, with their provenance."""

    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="demo-traces-selftest-")
        self.out = os.path.join(self.work, "out")
        os.makedirs(self.out)

    def tearDown(self):
        shutil.rmtree(self.work, ignore_errors=True)

    def recording(self, check, folder, log, command, sizes):
        os.makedirs(os.path.join(self.work, check, folder))
        for i, size in enumerate(sizes):
            with open(os.path.join(self.work, check, folder, "host-%d.fspy" % i), "wb") as f:
                f.write(b"x" * size)
        with open(os.path.join(self.work, check, log), "w") as f:
            f.write("$ " + command + "\nworkload output\n[exit 0 after 3.00 s]\n")

    ENV = {"date_utc": "2026-11-26T10:11:12Z", "git_commit": "abc123",
           "gpus": [{"name": "NVIDIA H200", "driver_version": "580.159.04"}],
           "nvidia_smi_q": {"CUDA Version": "13.0"},
           "torch": {"torch": "2.11.0+cu130", "cuda": "13.0"}}

    def test_keeps_small_traces_with_provenance_and_leaves_big_ones_out(self):
        self.recording("seed", "traces_a", "a_flopspy.log",
                       "/b/bin/flopspy run -o /w/seed/traces_a -- python3 seed_workload.py",
                       [1000, 24])
        self.recording("seed_mlp", "traces_flopspy", "flopspy.log", "/b/bin/flopspy run ...",
                       [5000])
        # The counters run of seed is not kept: not in the recordings.
        self.recording("seed", "traces_b", "b_counters.log", "flopspy run --counters", [10])
        with open(os.path.join(self.work, "order.txt"), "w") as f:
            f.write("seed fail 1 90\nseed_mlp pass 0 120\n")
        results = demo_traces.collect(self.work, self.ENV, self.out, max_bytes=4096)
        self.assertEqual([(n, k) for n, k, _ in results],
                         [("h200-seed", True), ("h200-seed_mlp", False)])
        self.assertIn("5000 bytes, over the cap of 4096", results[1][2])
        with tarfile.open(os.path.join(self.out, "demo-traces.tar.gz")) as tar:
            names = sorted(tar.getnames())
            self.assertEqual(names, ["demo-traces", "demo-traces/h200-seed",
                                     "demo-traces/h200-seed/host-0.fspy",
                                     "demo-traces/h200-seed/host-1.fspy",
                                     "demo-traces/h200-seed/provenance.txt"])
            prov = tar.extractfile("demo-traces/h200-seed/provenance.txt").read().decode()
        fields = dict(l.split(": ", 1) for l in prov.splitlines())
        self.assertEqual(fields["gpu"], "NVIDIA H200")
        self.assertEqual(fields["driver"], "580.159.04")
        self.assertEqual(fields["cuda"], "13.0")
        self.assertEqual(fields["date"], "2026-11-26")
        self.assertEqual(fields["command"],
                         "/b/bin/flopspy run -o /w/seed/traces_a -- python3 seed_workload.py")
        self.assertEqual(fields["recorded by"], "scripts/gpu-validate, check seed (status fail)")
        self.assertEqual(fields["commit"], "abc123")
        self.assertIn("host-0.fspy (1000 bytes)", fields["files"])
        self.assertTrue(fields["title"].startswith("the seed workload"))

    def test_nothing_recorded_writes_no_archive(self):
        self.assertEqual(demo_traces.collect(self.work, {}, self.out), [])
        self.assertEqual(os.listdir(self.out), [])

    def test_gpu_folder_names(self):
        self.assertEqual(demo_traces.gpu_slug("NVIDIA H100 80GB HBM3"), "h100-80gb-hbm3")
        self.assertEqual(demo_traces.gpu_slug("Tesla T4"), "tesla-t4")
        self.assertEqual(demo_traces.gpu_slug(""), "gpu")


class RealReportTest(unittest.TestCase):
    """The real flopspy-report on traces shaped like the checks' runs."""

    @classmethod
    def setUpClass(cls):
        build = os.environ.get("GPU_CHECKS_BUILD_DIR")
        if not build:
            raise unittest.SkipTest("needs --build-dir")
        cls.tools = common.Tools(build)
        writer = os.path.join(build, "bin", "flopspy_gpu_checks_trace")
        if cls.tools.missing() or not os.path.exists(writer):
            raise unittest.SkipTest("flopspy-report or flopspy_gpu_checks_trace not built")
        cls.dir = tempfile.mkdtemp(prefix="gpu-checks-traces-")
        subprocess.check_call([writer, cls.dir])
        cls.reports = {}
        for part in ("program", "cublas", "seed"):
            out = subprocess.check_output([cls.tools.report, "--json", os.path.join(cls.dir, part)],
                                          env=cls.tools.env())
            cls.reports[part] = json.loads(out)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_program_trace(self):
        report = self.reports["program"]
        self.assertEqual(common.trace_problems(report), [])
        rows, failures, notes = lc.compare_program(ProgramCompareTest.EXPECTED, report)
        self.assertEqual(failures, [])
        self.assertEqual([r["flopspy_executions"] for r in rows], [3, 4, 2])
        row, failure = lc.spin_time(ProgramCompareTest.EXPECTED, report)
        self.assertIsNone(failure)
        self.assertEqual(row["flopspy_mean_ns"], 200_500.0)
        wrong = copy.deepcopy(ProgramCompareTest.EXPECTED)
        wrong["kernels"][0]["executions"] = 4
        _, failures, _ = lc.compare_program(wrong, report)
        self.assertEqual(len(failures), 1)

    def test_cublas_trace(self):
        report = self.reports["cublas"]
        self.assertEqual(common.trace_problems(report), [])
        manifest = load("cublas_cases.json")
        by_case = cc.match_cases(manifest, report)
        self.assertEqual(len(by_case["wave_1792"]), 1)
        self.assertEqual(len(by_case["wave_1793"]), 1)
        self.assertEqual(by_case["mm_fp32"], [])
        kineto = cc.kineto_case_kernels(load("kineto_cublas.json"))
        names = cc.library_kernel_names(report)
        self.assertEqual(len(names), 1)
        cases = {c["id"]: c for c in manifest["cases"]}
        for cid in ("wave_1792", "wave_1793"):
            row, failures = cc.compare_case(cases[cid], by_case[cid], kineto[cid], names)
            self.assertEqual(failures, [], cid)
            self.assertEqual(row["routines"], ["cublasGemmEx"])
        numbers, failure = cc.wave_effect(by_case["wave_1792"], by_case["wave_1793"])
        self.assertIsNone(failure, numbers)
        self.assertGreater(numbers["tile_lost_1793"], 0.1)
        self.assertEqual(numbers["tile_lost_1792"], 0.0)

    def test_seed_trace(self):
        report = self.reports["seed"]
        self.assertEqual(common.trace_problems(report), [])
        n = 8192 * 8192
        found = sc.seed_kernels(report, n)
        self.assertEqual(sorted(found), ["mul_scalar", "sin"])
        for op in found:
            row, failures = sc.cross_check(op, found[op])
            self.assertEqual(failures, [], (op, row))
            self.assertEqual(row["samples"], 3)
            self.assertAlmostEqual(row["bytes_diff_pct"], -0.99, places=2)
        sentence, failure = sc.sin_vs_mul(found)
        self.assertIsNone(failure, sentence)
        self.assertIn("memory_bound", sentence)


def main():
    args = sys.argv[1:]
    if "--build-dir" in args:
        i = args.index("--build-dir")
        os.environ["GPU_CHECKS_BUILD_DIR"] = os.path.abspath(args[i + 1])
        del args[i:i + 2]
    unittest.main(argv=[sys.argv[0]] + args, verbosity=2)


if __name__ == "__main__":
    main()
