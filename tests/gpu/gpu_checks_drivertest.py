#!/usr/bin/env python3
"""The GPU checks' drivers, end to end, with the GPU and the programs simulated (ctest
gpu_checks_drivertest).

A GPU run is rare and short, so a typo in a driver must not be found there. Here every command
a check would start is answered by a stand-in that writes what the real program would write
(the programs' JSON, torch.profiler traces, case manifests, timings) and every report is a
canned flopspy-report document; the checks then run their real code and must end with the
expected status and numbers in result.json.
"""

import copy
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import gpu_check_common as common  # noqa: E402
import gpu_checks_selftest as canned  # noqa: E402
import ncu_csv  # noqa: E402

DATA = os.path.join(HERE, "data")


def arg(cmd, flag):
    return cmd[cmd.index(flag) + 1] if flag in cmd else None


class FakeWorld:
    """Patches gpu_check_common so that checks run without a GPU: `respond(cmd)` returns
    (exit status, seconds, {path: JSON document to write}), `reports[trace folder name]` is
    what flopspy-report --json says about that folder."""

    def __init__(self, test):
        self.test = test
        self.root = tempfile.mkdtemp(prefix="gpu-checks-driver-")
        self.build = os.path.join(self.root, "build")
        for sub in ("bin", "lib"):
            os.makedirs(os.path.join(self.build, sub))
        for path in ("bin/flopspy", "bin/flopspy-report", "lib/libflopspy.so",
                     "bin/flopspy_gpu_launch_paths_static", "bin/flopspy_gpu_launch_paths_shared",
                     "bin/flopspy_gpu_overhead_launch_loop_static",
                     "bin/flopspy_gpu_overhead_launch_loop_shared", "bin/flopspy-demo"):
            full = os.path.join(self.build, path)
            with open(full, "w") as f:
                f.write("#!/bin/sh\nexit 0\n")
            os.chmod(full, 0o755)
        self.out = os.path.join(self.root, "out")
        self.reports = {}
        self.commands = []
        self.respond = None
        self.saved = {}
        self.patch("cuda_device", lambda: (True, "1 device(s), device 0: fake H200"))
        self.patch("python_has", lambda module: True)
        self.patch("run", self.run)
        self.patch("report_json", self.report_json)
        self.saved["program_env"] = common.Tools.program_env
        common.Tools.program_env = lambda tools, program: tools.env()
        self.saved["ncu_path"] = ncu_csv.ncu_path
        ncu_csv.ncu_path = lambda: None

    def patch(self, name, value):
        self.saved[name] = getattr(common, name)
        setattr(common, name, value)

    def close(self):
        common.Tools.program_env = self.saved.pop("program_env")
        ncu_csv.ncu_path = self.saved.pop("ncu_path")
        for name, value in self.saved.items():
            setattr(common, name, value)
        shutil.rmtree(self.root, ignore_errors=True)

    def run(self, cmd, log, env=None, timeout=None, cwd=None):
        cmd = [str(c) for c in cmd]
        self.commands.append(cmd)
        rc, seconds, files = self.respond(cmd)
        for path, doc in files.items():
            with open(path, "w") as f:
                f.write(doc if isinstance(doc, str) else json.dumps(doc))
        with open(log, "w") as f:
            f.write("$ %s\n[fake exit %d]\n" % (" ".join(cmd), rc))
        return common.Run(cmd, rc, seconds, log, False)

    def report_json(self, tools, trace_dir, out_path, log, timeout=300):
        doc = self.reports.get(os.path.basename(trace_dir))
        with open(log, "w") as f:
            f.write("fake report of %s\n" % trace_dir)
        return copy.deepcopy(doc)

    def check(self, module, argv):
        """Runs module.main() with argv; returns (exit status, result.json)."""
        old = sys.argv
        sys.argv = [module.__file__] + argv + ["--build-dir", self.build, "--out", self.out]
        try:
            with self.test.assertRaises(SystemExit) as done:
                module.main()
        finally:
            sys.argv = old
        with open(os.path.join(self.out, "result.json")) as f:
            return done.exception.code, json.load(f)


def kernel(name, launches, executions, gpu_ns, **extra):
    return canned.kernel(name, launches, executions, gpu_ns, **extra)


class DriverTest(unittest.TestCase):
    def setUp(self):
        self.world = FakeWorld(self)

    def tearDown(self):
        self.world.close()

    # --- launch_check ---------------------------------------------------------------------
    def program_world(self, flopspy_launches=3):
        expected = dict(canned.ProgramCompareTest.EXPECTED, device="NVIDIA H200",
                        cluster_launch=True)

        def respond(cmd):
            return 0, 0.5, {arg(cmd, "--json"): expected}

        self.world.respond = respond
        report = canned.ProgramCompareTest().report(add_launches=flopspy_launches)
        self.world.reports["traces"] = report

    def test_launch_program_passes(self):
        import launch_check
        self.program_world()
        code, result = self.world.check(launch_check, ["--target", "shared"])
        self.assertEqual((code, result["status"]), (0, "pass"), result["failures"])
        self.assertEqual(result["numbers"]["kernels_ok"], 3)
        self.assertEqual(result["tables"]["spin_time"][0]["flopspy_mean_ns"], 200_500.0)
        self.assertTrue(any(c[0].endswith("flopspy_gpu_launch_paths_shared")
                            for c in self.world.commands))

    def test_launch_program_double_count_fails(self):
        import launch_check
        self.program_world(flopspy_launches=6)
        code, result = self.world.check(launch_check, ["--target", "static"])
        self.assertEqual((code, result["status"]), (1, "fail"))
        self.assertTrue(any("fs_add" in f for f in result["failures"]))

    def test_launch_program_without_gpu_skips(self):
        import launch_check

        def respond(cmd):
            return 77, 0.1, {}

        self.world.respond = respond
        code, result = self.world.check(launch_check, ["--target", "static"])
        self.assertEqual((code, result["status"]), (77, "skip"))

    def torch_world(self, same_process_launches=None):
        with open(os.path.join(DATA, "kineto_launch.json")) as f:
            kineto = json.load(f)

        def respond(cmd):
            files = {}
            if "--profile" in cmd:
                files[arg(cmd, "--profile")] = kineto
            return 0, 8.0, files

        self.world.respond = respond
        timed = canned.report_with([kernel(canned.ADD, 2, 2, 20_800.0),
                                    kernel("add_kernel", 1, 1, 3_050.0)])
        counted = canned.report_with([
            kernel(canned.ADD, same_process_launches or 2, 0, 0.0),
            kernel("add_kernel", 1, 0, 0.0)])
        counted["traces"][0]["gpu_timing"] = False
        self.world.reports["traces_a"] = timed
        self.world.reports["traces_c"] = counted

    def test_launch_torch_passes(self):
        import launch_check
        self.torch_world()
        code, result = self.world.check(launch_check, ["--target", "torch"])
        self.assertEqual((code, result["status"]), (0, "pass"), result["failures"])
        n = result["numbers"]
        self.assertEqual((n["kernel_executions_flopspy"], n["kernel_executions_torch_profiler"]),
                         (3, 3))
        self.assertEqual(n["signatures_within_tolerance"], 2)
        # Three runs: flopspy alone, torch.profiler alone, both with flopspy off CUPTI.
        runs = [c for c in self.world.commands]
        self.assertEqual(len(runs), 3)
        self.assertNotIn("--profile", runs[0])
        self.assertEqual(runs[1][0], sys.executable)
        self.assertIn("--gpu-timing", runs[2])

    def test_launch_torch_same_process_miscount_fails(self):
        import launch_check
        self.torch_world(same_process_launches=3)
        code, result = self.world.check(launch_check, ["--target", "torch"])
        self.assertEqual(code, 1)
        self.assertTrue(any(f.startswith("C: ") for f in result["failures"]))

    # --- cublas_check -----------------------------------------------------------------------
    def test_cublas_passes(self):
        import cublas_check
        with open(os.path.join(DATA, "cublas_cases.json")) as f:
            manifest = json.load(f)
        with open(os.path.join(DATA, "kineto_cublas.json")) as f:
            kineto = json.load(f)

        def respond(cmd):
            files = {arg(cmd, "--manifest"): manifest}
            if "--profile" in cmd:
                files[arg(cmd, "--profile")] = kineto
            return 0, 9.0, files

        self.world.respond = respond
        gemm = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_selftest"
        tile = {"kind": "tile_quantization", "lost_fraction": 0.128, "sentence": "padding"}
        calls = [canned.gemm_call(768, 512, 1024, 2, 60_500.0, 2),
                 canned.gemm_call(1792, 1792, 1792, 2, 80_400.0, 2, types="R_16BF",
                                  path="bf16_tensor", routine="cublasGemmEx"),
                 canned.gemm_call(1793, 1793, 1793, 2, 104_100.0, 2, types="R_16BF",
                                  path="bf16_tensor", routine="cublasGemmEx", diagnostics=[tile])]
        kernels = [kernel(canned.SGEMM, 2, 2, 60_500.0, inside_library=True),
                   kernel(gemm, 4, 4, 184_500.0, inside_library=True)]
        self.world.reports["traces"] = canned.report_with(kernels, calls)
        code, result = self.world.check(cublas_check, [])
        self.assertEqual((code, result["status"]), (0, "pass"), result["failures"])
        self.assertEqual(result["numbers"]["cases_ok"], 3)
        self.assertEqual(result["numbers"]["cases_unsupported"], 1)
        self.assertEqual(result["numbers"]["wave_tile_lost_1793"], 0.128)
        self.assertTrue(any("_scaled_mm" in n for n in result["notes"]))

    # --- cudnn_check ------------------------------------------------------------------------
    def cudnn_world(self, flopspy_conv_flops=4.0e9, flopspy_gpu_ns=500_000.0,
                    flop_counter_conv=1.0e9, grouped_weight_grad=0.0):
        """One case (FP16 channels last, 56x56) seen four times: a conv graph and a batch norm
        per iteration, 100 us and 25 us of kernels each in torch.profiler."""
        manifest = {"torch": "2.9.0", "cudnn": 91900,
                    "cases": [{"id": "fp16_nhwc", "size": 56, "dtype": "float16",
                               "channels_last": True, "tf32": True,
                               "flop_counter_conv": flop_counter_conv, "textbook_conv": 1.0e9,
                               "grouped_weight_grad": grouped_weight_grad, "iterations": 4}]}
        conv_kernel = "sm90_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_selftest"
        norm_kernel = "bn_fw_tr_1C11_kernel_NCHW_selftest"
        events = [{"ph": "X", "cat": "user_annotation", "name": "flopspy_case:fp16_nhwc",
                   "ts": 0.0, "dur": 10_000.0}]
        for i in range(4):
            for j, (name, dur) in enumerate(((conv_kernel, 100.0), (norm_kernel, 25.0))):
                correlation = 10 * i + j
                events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
                               "ts": 100.0 + 1000.0 * i + j, "dur": 5.0,
                               "args": {"correlation": correlation}})
                events.append({"ph": "X", "cat": "kernel", "name": name, "ts": 5000.0 + i,
                               "dur": dur, "args": {"correlation": correlation}})

        def respond(cmd):
            files = {arg(cmd, "--workload"): manifest}
            if "--profile" in cmd:
                files[arg(cmd, "--profile")] = {"traceEvents": events}
            return 0, 6.0, files

        self.world.respond = respond
        conv = {"routine": "cudnnBackendExecute", "family": "dnn_graph", "calls": 4, "kernels": 4,
                "shape_text": "graph of 1 op, conv_forward N16 C3 56x56 -> K64 56x56, "
                              "filter 3x3, channels last",
                "flops": flopspy_conv_flops, "source": "analytic",
                "gpu_ns": flopspy_gpu_ns - 100_000.0}
        norm = {"routine": "cudnnBatchNormalizationForwardTrainingEx",
                "family": "batch_norm_forward_training_ex", "calls": 4, "kernels": 4,
                "shape_text": "N16 C64 56x56, spatial, channels last", "flops": 2.6e7,
                "source": "analytic", "gpu_ns": 100_000.0}
        kernels = [kernel(conv_kernel, 4, 4, 400_000.0, inside_library=True),
                   kernel(norm_kernel, 4, 4, 100_000.0, inside_library=True)]
        report = canned.report_with(kernels, [conv, norm])
        report["traces"][0]["summary"] = {"flop_coverage": {"known": 0.991}}
        self.world.reports["traces"] = report

    def test_cudnn_compares_flops_with_flop_counter_and_time_with_torch_profiler(self):
        import cudnn_check
        self.cudnn_world()
        code, result = self.world.check(cudnn_check, [])
        self.assertEqual((code, result["status"]), (0, "pass"), result["failures"])
        self.assertEqual(result["numbers"]["known_flops_share"], 0.991)
        self.assertEqual(result["tables"]["gpu_time"][0]["torch_profiler_ns"], 500_000.0)
        self.assertEqual(result["tables"]["cases"][0]["rows"], 1)

    def test_cudnn_fails_on_flops_or_time_that_disagree(self):
        import cudnn_check
        self.cudnn_world(flopspy_conv_flops=2.0e9, flopspy_gpu_ns=530_000.0)
        code, result = self.world.check(cudnn_check, [])
        self.assertEqual(code, 1)
        failures = " | ".join(result["failures"])
        self.assertIn("fp16_nhwc: cuDNN FLOPs 2e+09, textbook count 4e+09", failures)
        self.assertIn("fp16_nhwc: cuDNN GPU time 530000 ns in flopspy, 500000 ns", failures)

    def test_cudnn_explains_flop_counters_grouped_weight_gradient_and_nothing_else(self):
        import cudnn_check
        # flop_counter 0.25e9 over per iteration: exactly its grouped weight-gradient count.
        self.cudnn_world(flop_counter_conv=1.25e9, grouped_weight_grad=0.25e9)
        code, result = self.world.check(cudnn_check, [])
        self.assertEqual((code, result["status"]), (0, "pass"), result["failures"])
        self.assertTrue(any("weight gradient counted as if ungrouped" in n
                            for n in result["notes"]), result["notes"])
        self.assertEqual(result["tables"]["cases"][0]["flop_counter"], 5.0e9)
        # Any other difference is a failure.
        self.cudnn_world(flop_counter_conv=1.3e9, grouped_weight_grad=0.25e9)
        code, result = self.world.check(cudnn_check, [])
        self.assertEqual(code, 1)
        self.assertIn("flop_counter 5.2e+09, textbook 4e+09", " | ".join(result["failures"]))

    # --- seed_check -------------------------------------------------------------------------
    def seed_reports(self, with_counters):
        n = 8192 * 8192
        kernels_a = [canned.seed_kernel(op, n, b, f, family=fam) for op, b, f, fam in (
            ("", 4, 0, "fill"), ("add", 12, 1, "x"), ("mul", 12, 1, "x"), ("mul", 8, 1, "x"),
            ("pow", 8, 1, "x"), ("sin", 8, 1, "x"), ("sqrt", 8, 1, "x"), ("sigmoid", 8, 3, "x"),
            ("log10", 8, 1, "x"), ("sum", 4, 1, "reduce"))]
        ratio = {"": 0, "add": 2.0, "mul": 1.0, "pow": 30.0, "sin": 17.0, "sqrt": 7.0,
                 "sigmoid": 8.0, "log10": 24.0, "sum": 1.02}
        kernels_b = []
        for k in copy.deepcopy(kernels_a):
            if with_counters:
                flops = k["all"]["flops"] / 3 * ratio[k["functor"]]
                k["counters"] = {"samples": 3, "flops_per_launch": flops,
                                 "bytes_per_launch": k["all"]["bytes"] / 3 * 1.01}
            kernels_b.append(k)
        report_b = canned.report_with(kernels_b)
        if not with_counters:
            report_b["traces"][0]["warnings"] = [{"code": "counters_unavailable", "time_ns": 0,
                                                  "message": "no permission to read counters"}]
        self.world.reports["traces_a"] = canned.report_with(kernels_a)
        self.world.reports["traces_b"] = report_b
        self.world.respond = lambda cmd: (0, 7.0, {})

    def test_seed_passes_with_counters(self):
        import seed_check
        self.seed_reports(with_counters=True)
        code, result = self.world.check(seed_check, [])
        self.assertEqual((code, result["status"]), (0, "pass"), result["failures"])
        self.assertEqual(result["numbers"]["kernels_with_counters"], 10)
        self.assertIn("sin executes 17.0 FP32 FLOPs per element", result["numbers"]["sin_vs_mul"])
        self.assertTrue(any("ncu" in n for n in result["notes"]))
        self.assertTrue(any("--counters" in c for c in self.world.commands))

    def test_seed_with_ncu_fills_the_comparison_table(self):
        import seed_check
        self.seed_reports(with_counters=True)
        ncu_csv.ncu_path = lambda: "ncu"
        header = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
                  '"Block Size","Grid Size","Device","CC","Section Name","Metric Name",'
                  '"Metric Unit","Metric Value"\n')
        rows = "".join('"0","1","p","h","sin_kernel","1","7","(128, 1, 1)","(4096, 1, 1)","0",'
                       '"9.0","s","%s","byte","%s"\n' % (m, v) for m, v in (
                           ("dram__bytes_read.sum", "268,435,456"),
                           ("dram__bytes_write.sum", "268,435,456")))

        def respond(cmd):
            if cmd[0] == "ncu":
                self.assertEqual(arg(cmd, "--clock-control"), "none")
                return 0, 20.0, {arg(cmd, "--log-file"): "==PROF== x\n" + header + rows}
            return 0, 7.0, {}

        self.world.respond = respond
        code, result = self.world.check(seed_check, [])
        self.assertEqual(code, 0, result["failures"])
        table = result["tables"]["ncu_comparison"]
        self.assertEqual([r["op"] for r in table], ["sin"])
        self.assertEqual(table[0]["ncu_dram_bytes"], 2 * 268_435_456)
        self.assertEqual(table[0]["catalog_vs_ncu_bytes_pct"], 0.0)
        self.assertEqual(result["numbers"]["ncu_kernels_profiled"], 1)

    def test_seed_without_counters_skips_and_keeps_the_rest(self):
        import seed_check
        self.seed_reports(with_counters=False)
        code, result = self.world.check(seed_check, [])
        self.assertEqual((code, result["status"]), (77, "skip"))
        self.assertIn("no permission to read counters", result["reason"])
        self.assertIn("memory_bound", result["numbers"]["sin_vs_mul"])

    # --- seed_mlp_check ---------------------------------------------------------------------
    def mlp_world(self, counters_seconds):
        seconds = {"plain": 10.0, "flopspy": 11.0, "counters": counters_seconds}

        def respond(cmd):
            timing = arg(cmd, "--timing")
            tag = os.path.basename(timing).split("_")[0]
            loop = {"plain": 0.2, "flopspy": 0.21, "counters": 0.9}[tag]
            return 0, seconds[tag], {timing: {"steps": 50, "loop_s": loop}}

        self.world.respond = respond
        report = canned.report_with([canned.seed_kernel("mul", 100, 12, 1, counters=(100, 1200))])
        self.world.reports["traces_counters"] = report

    def test_seed_mlp_slowdown_within_limit(self):
        import seed_mlp_check
        self.mlp_world(counters_seconds=14.0)
        code, result = self.world.check(seed_mlp_check, [])
        self.assertEqual((code, result["status"]), (0, "pass"), result["failures"])
        self.assertEqual(result["numbers"]["counters_process_slowdown"], 1.4)
        self.assertEqual(result["numbers"]["counters_loop_slowdown"], 4.5)

    def test_seed_mlp_slowdown_over_limit_fails(self):
        import seed_mlp_check
        self.mlp_world(counters_seconds=25.0)
        code, result = self.world.check(seed_mlp_check, [])
        self.assertEqual(code, 1)
        self.assertIn("2.50x slower", result["failures"][0])

    # --- nvtx_steps_check -------------------------------------------------------------------
    def nvtx_world(self, forward_ns=1_000_000.0, steps_found=30):
        pushes = {"training_step_%d" % i: 1 for i in range(30)}
        pushes.update({"forward": 30, "backward": 30, "optimizer": 30})

        def respond(cmd):
            out, mode = arg(cmd, "--out"), arg(cmd, "--mode")
            doc = {"mode": mode, "steps": 30, "loop_s": {"nvtx": 1.1}.get(mode, 1.0),
                   "pushes": pushes if mode == "nvtx" else {}}
            if mode == "profiler":
                doc["gpu_ns"] = {"forward": 1_000_000.0, "backward": 2_000_000.0,
                                 "optimizer": 300_000.0}
            return 0, 3.0, {out: doc}

        self.world.respond = respond
        ranges = [{"name": "training_step_N", "source": "nvtx", "count": 30, "gpu_ns": 4e6},
                  {"name": "forward", "source": "nvtx", "count": 30, "gpu_ns": forward_ns},
                  {"name": "backward", "source": "nvtx", "count": 30, "gpu_ns": 1e3},
                  {"name": "optimizer", "source": "nvtx", "count": 30, "gpu_ns": 301_000.0}]
        for tag, source in (("traces_nvtx", "ranges"), ("traces_unmarked", "optimizer"),
                            ("traces_nvtx_off", None)):
            report = canned.report_with([kernel("k", 3, 3, 100)])
            if source:
                report["traces"][0]["steps"] = {"source": source, "count": steps_found,
                                                "warmup": 1}
            if tag == "traces_nvtx":
                report["traces"][0]["ranges"] = ranges
            self.world.reports[tag] = report

    def test_nvtx_steps_counts_ranges_and_steps_and_compares_gpu_time(self):
        import nvtx_steps_check
        self.nvtx_world()
        code, result = self.world.check(nvtx_steps_check, [])
        self.assertEqual((code, result["status"]), (0, "pass"), result["failures"])
        self.assertEqual(result["numbers"]["pushes_made"], 120)
        self.assertEqual(result["numbers"]["ranges_recorded"], 120)
        self.assertEqual(result["numbers"]["unmarked_steps_source"], "optimizer")
        ratios = {r["range"]: r.get("ratio") for r in result["tables"]["gpu_time_per_range"]}
        self.assertEqual(ratios["optimizer"], 1.0033)

    def test_nvtx_steps_fails_on_gpu_time_off_by_more_than_two_percent_or_missed_steps(self):
        import nvtx_steps_check
        self.nvtx_world(forward_ns=1_050_000.0, steps_found=29)
        code, result = self.world.check(nvtx_steps_check, [])
        self.assertEqual(code, 1)
        failures = " | ".join(result["failures"])
        self.assertIn("forward: flopspy 1050000.0 ns", failures)
        self.assertIn("nvtx: 29 steps found, 30 run", failures)
        self.assertIn("unmarked: 29 steps found, 30 run", failures)

    # --- callsite_check ---------------------------------------------------------------------
    def callsite_world(self, misplaced_ns=0.0, backward_ns=3_000_000.0):
        lines = {"fc1": 61, "norm": 62, "act": 63, "fc2": 64, "fc3": 65}
        workload = "/src/tests/gpu/callsite_workload.py"

        def respond(cmd):
            out = arg(cmd, "--out")
            tag = os.path.basename(out)[:-len(".json")]
            doc = {"file": workload, "function": "main.<locals>.Net.forward", "lines": lines,
                   "steps": 20, "warmup": 3, "python": "3.11.7", "torch": "2.5.1",
                   "loop_s": {"plain": 1.0, "default": 1.0115, "stacks_off": 1.01}[tag]}
            return 0, 3.0, {out: doc}

        self.world.respond = respond
        kernels = [kernel("sm90_gemm_fc1", 23, 23, 400_000.0),
                   kernel("vectorized_layer_norm_kernel", 23, 23, 100_000.0),
                   kernel("vectorized_elementwise_kernel<GeluCUDAKernelImpl>", 23, 23, 50_000.0),
                   kernel("sm90_gemm_fc2", 23, 23, 300_000.0),
                   kernel("sm90_gemm_fc3", 23, 23, 150_000.0)]

        def site(layer, ns, group):
            return {"kind": "frame", "label": "callsite_workload.py:%d (Net.forward)" % lines[layer],
                    "frame": {"file": workload, "line": lines[layer],
                              "function": "main.<locals>.Net.forward"},
                    "gpu_ns": ns, "kernels": [{"name": kernels[group]["name"], "gpu_ns": ns,
                                               "launches": 23}]}

        sites = [site("fc1", 400_000.0 - misplaced_ns, 0), site("norm", 100_000.0, 1),
                 site("act", 50_000.0, 2), site("fc2", 300_000.0, 3), site("fc3", 150_000.0, 4),
                 {"kind": "frame", "label": "callsite_workload.py:80 (main.<locals>.step)",
                  "frame": {"file": workload, "line": 80}, "gpu_ns": 200_000.0 + misplaced_ns,
                  "kernels": []},
                 {"kind": "backward", "label": "backward, no call site", "gpu_ns": backward_ns,
                  "kernels": []}]
        report = canned.report_with(kernels)
        trace = report["traces"][0]
        trace["ranges"] = [{"name": "main", "source": "nvtx", "count": 1, "gpu_ns": 1_200_000.0},
                           {"name": "forward", "source": "nvtx", "count": 23,
                            "gpu_ns": 1_000_000.0}]
        trace["call_sites"] = {"kernel_ns": 4_200_000.0, "sites": sites, "stacks": [],
                               "coverage": {"samples": 300, "sampled_ns": 1_000_000.0,
                                            "estimated_ns": 3_200_000.0},
                               "modules_without_symbols": []}
        trace["launches"] = 2300
        self.world.reports["traces_default"] = report
        self.world.reports["traces_stacks_off"] = canned.report_with(kernels)
        self.stacks_env = {}
        fake_run = common.run

        def run(cmd, log, env=None, timeout=None, cwd=None):
            if "-o" in cmd:
                self.stacks_env[os.path.basename(arg(cmd, "-o"))] = (env or {}).get(
                    "FLOPSPY_STACKS")
            return fake_run(cmd, log, env=env, timeout=timeout, cwd=cwd)

        common.run = run  # FakeWorld.close puts the original back

    def test_callsite_attributes_forward_lines_and_labels_backward(self):
        import callsite_check
        self.callsite_world()
        code, result = self.world.check(callsite_check, [])
        self.assertEqual((code, result["status"]), (0, "pass"), result["failures"])
        self.assertEqual(result["numbers"]["forward_attributed_to_lines"], 1.0)
        self.assertEqual(result["numbers"]["backward_labelled_share"], 1.0)
        self.assertEqual(result["numbers"]["stacks_cost_ratio"], 1.0015)
        # 1.5 ms over the 2000 launches of the 20 timed steps (2300 with 3 warm-up steps).
        self.assertEqual(result["numbers"]["stacks_cost_ns_per_launch"], 750.0)
        rows = {r["layer"]: r for r in result["tables"]["forward_lines"]}
        self.assertEqual(rows["norm"]["line"], "callsite_workload.py:62")
        self.assertEqual(rows["norm"]["top_kernel"], "vectorized_layer_norm_kernel")
        # The cost is measured against stacks off, in an otherwise equal run.
        self.assertEqual(self.stacks_env, {"traces_default": None, "traces_stacks_off": "off"})

    def test_callsite_fails_on_time_given_to_another_line_or_backward_unlabelled(self):
        import callsite_check
        self.callsite_world(misplaced_ns=60_000.0, backward_ns=2_000_000.0)
        code, result = self.world.check(callsite_check, [])
        self.assertEqual(code, 1)
        failures = " | ".join(result["failures"])
        self.assertIn("94.0 % of the forward pass's kernel time", failures)
        self.assertIn("2000000.0 ns labelled backward, 3000000.0 ns launched outside", failures)

    # --- overhead_check ---------------------------------------------------------------------
    def test_overhead_records_added_nanoseconds(self):
        import overhead_check
        total = 1000 + 2 * 3 * 100000
        cost = {"plain": 2000.0, "flopspy": 2150.0, "off": 2100.0}

        def respond(cmd):
            mode = "plain" if cmd[1] != "run" else ("off" if "--gpu-timing" in cmd else "flopspy")
            return 0, 2.0, {arg(cmd, "--json"): {
                "total_launches": total, "call_ns_per_launch": [cost[mode]] * 3,
                "wall_ns_per_launch": [cost[mode] + 500] * 3}}

        self.world.respond = respond
        for kind in ("static", "shared"):
            self.world.reports["traces_%s_flopspy" % kind] = canned.report_with(
                [kernel("fs_empty", total, total, 1.0e9)])
            off = canned.report_with([kernel("fs_empty", total, 0, 0.0)])
            off["traces"][0]["gpu_timing"] = False
            self.world.reports["traces_%s_flopspy_no_gpu_timing" % kind] = off
        code, result = self.world.check(overhead_check, [])
        self.assertEqual((code, result["status"]), (0, "pass"), result["failures"])
        self.assertEqual(result["numbers"]["static_flopspy_added_call_ns"], 150.0)
        self.assertEqual(result["numbers"]["shared_flopspy_no_gpu_timing_added_wall_ns"], 100.0)
        self.assertEqual(len(result["tables"]["launch_costs"]), 6)

    # --- overhead_suite ---------------------------------------------------------------------
    STEP_MS = {"plain": 1.0, "flopspy": 1.04, "no_gpu_timing": 1.01, "monotonic": 1.06,
               "torch_profiler": 1.30}

    def suite_world(self, unmatched=0):
        """Every run's step times by variant, on a machine twice as slow in round 2 (the drift
        the interleaving cancels); flopspy's traces hold 1000 launches, `unmatched` of them
        without a GPU record, in 64,000 bytes."""
        def respond(cmd):
            result = arg(cmd, "--result")
            workload, rest = os.path.basename(result)[:-len(".json")].split("_", 1)
            variant, round_index = rest.rsplit("_r", 1)
            slow = 2.0 if round_index == "1" else 1.0
            ms = self.STEP_MS[variant] * slow
            files = {result: {"workload": workload, "steps": 3, "warmup": 1,
                              "step_ms": [ms * 0.9, ms, ms * 1.1], "peak_rss_kib": 2048 * 1024,
                              "device": "fake H200", "torch": "2.11"}}
            if cmd[1] == "run":
                files[os.path.join(arg(cmd, "-o"), "t.fspy")] = "x" * 64000
            return 0, 5.0 * slow + (0.5 if variant != "plain" else 0.0), files

        self.world.respond = respond
        for workload in ("decode", "gpt"):
            for variant in ("flopspy", "no_gpu_timing", "monotonic"):
                for round_index in (0, 1):
                    doc = canned.report_with([kernel("k", 1000, 1000 - unmatched, 1.0e6)])
                    doc["traces"][0]["unmatched_launches"] = unmatched
                    doc["traces"][0]["gpu_timing"] = variant != "no_gpu_timing"
                    self.world.reports["traces_%s_%s_r%d" % (workload, variant, round_index)] = doc

    def suite_args(self):
        return ["--workloads", "decode,gpt", "--rounds", "2",
                "--variants", "plain,flopspy,no_gpu_timing,monotonic,torch_profiler"]

    def test_overhead_suite_takes_ratios_within_rounds(self):
        import overhead_suite
        self.suite_world()
        code, result = self.world.check(overhead_suite, self.suite_args())
        self.assertEqual((code, result["status"]), (0, "pass"), result["failures"])
        rows = {(r["workload"], r["variant"]): r for r in result["tables"]["overhead_suite"]}
        self.assertEqual(len(rows), 10)
        decode = rows[("decode", "flopspy")]
        # Round 2 ran twice as slow for everyone: the ratio within each round is 1.04.
        self.assertAlmostEqual(decode["step_ratio"], 1.04, places=4)
        self.assertAlmostEqual(decode["step_ms"], 1.56, places=4)  # median of 1.04 and 2.08
        self.assertAlmostEqual(decode["process_ratio"], (1.1 + 1.05) / 2, places=3)
        self.assertAlmostEqual(decode["startup_s"], 0.5, places=2)
        self.assertEqual(decode["trace_bytes_per_launch"], 64.0)
        self.assertEqual(decode["launches"], 1000)
        self.assertEqual(decode["goal"], 1.10)
        self.assertAlmostEqual(rows[("gpt", "torch_profiler")]["step_ratio"], 1.30, places=4)
        self.assertNotIn("trace_bytes_per_launch", rows[("gpt", "torch_profiler")])
        notes = "\n".join(result["notes"])
        self.assertIn("decode: flopspy's steady state 1.040x plain (goal 1.10x): met", notes)
        # Of a sampled trace only the launches inside its windows owe a GPU record.
        sampled = canned.report_with([kernel("k", 1000, 90, 1.0e6)])
        sampled["traces"][0]["gpu_sampling"] = {"launches_in_windows": 100}
        sampled["traces"][0]["unmatched_launches"] = 10
        self.assertEqual(overhead_suite.join_rate(sampled), (0.9, 100, 10))
        self.assertIn("gpt: flopspy's steady state 1.040x plain (goal 1.02x): not met", notes)
        self.assertIn("gpt: flopspy 1.040x, torch.profiler 1.300x: flopspy lower", notes)
        with open(os.path.join(self.world.out, "overhead_suite.md")) as f:
            table = f.read()
        self.assertIn("| decode | flopspy | 1.560 | 1.040x | 1.10x |", table)
        # Interleaved: round 1 of every workload before any round 2.
        runs = [os.path.basename(arg(c, "--result")) for c in self.world.commands]
        self.assertEqual(len(runs), 20)
        self.assertTrue(all(r.endswith("_r0.json") for r in runs[:10]), runs[:10])
        self.assertTrue(all(r.startswith("decode_") for r in runs[:5]), runs[:5])
        self.assertEqual(overhead_suite.owed_misses(100000, 0), 100)
        self.assertEqual(overhead_suite.owed_misses(300, 3), 6)

    def test_overhead_suite_fails_when_launches_miss_their_gpu_record(self):
        import overhead_suite
        self.suite_world(unmatched=5)
        code, result = self.world.check(overhead_suite, self.suite_args())
        self.assertEqual((code, result["status"]), (1, "fail"))
        joins = [f for f in result["failures"] if "have no GPU record" in f]
        # flopspy and monotonic (GPU timed) of two workloads, two rounds; never --gpu-timing off.
        self.assertEqual(len(joins), 8, joins)
        self.assertIn("5 of 1000 launches have no GPU record (99.500 % joined", joins[0])
        self.assertFalse(any("no_gpu_timing" in f for f in joins))

    def test_overhead_suite_dry_run_plans_without_a_gpu(self):
        import contextlib
        import io
        import overhead_suite
        saved = overhead_suite.shutil.which
        overhead_suite.shutil.which = lambda name: None
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                code = overhead_suite.main(["--dry-run", "--workloads", "mlp", "--rounds", "2",
                                            "--variants", "plain,flopspy,nsys"])
        finally:
            overhead_suite.shutil.which = saved
        self.assertEqual(code, 0)
        lines = out.getvalue().splitlines()
        self.assertEqual(lines[-1], "4 runs")
        self.assertIn("nsys is not installed here: its runs are left out", lines)
        planned = [l.split()[:4] for l in lines if l.startswith("round ")]
        self.assertEqual([p[1] + ":" + p[3] for p in planned],
                         ["1:plain", "1:flopspy", "2:flopspy", "2:plain"])
        self.assertTrue(any("bin/flopspy run -o traces_mlp_flopspy_r0 --" in l for l in lines))

    # --- demo_gpu_check ---------------------------------------------------------------------
    def test_demo(self):
        import demo_gpu_check
        self.world.respond = lambda cmd: (0, 3.0, {})
        n = 1024  # the GPU side --quick runs (flopspy-demo --help)
        call = canned.gemm_call(n, n, n, 2, 3.0e7, 2)
        self.world.reports["traces"] = canned.report_with(
            [kernel("flopspy_demo::fill_kernel(int, float, float*)", 4, 4, 1.0e6)], [call])
        code, result = self.world.check(demo_gpu_check, [])
        self.assertEqual((code, result["status"]), (0, "pass"), result["failures"])
        self.assertEqual(result["numbers"]["sgemm_calls"], 2)


class TerminationTest(unittest.TestCase):
    """The runner's `timeout` sends SIGTERM: the check must kill its workload's process group
    and still leave a result.json that says what happened."""

    @staticmethod
    def dead(pid, wait=5.0):
        """Gone, or a zombie waiting for whoever adopted it to reap it."""
        import time
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                with open("/proc/%d/stat" % pid) as f:
                    if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                        return True
            except OSError:
                return True
            time.sleep(0.05)
        return False

    def test_sigterm_kills_the_workload_and_writes_the_result(self):
        import signal
        import subprocess
        import time
        out = tempfile.mkdtemp(prefix="gpu-checks-term-")
        try:
            pid_file = os.path.join(out, "workload.pid")
            code = ("import sys; sys.path.insert(0, %r)\n"
                    "import gpu_check_common as c\n"
                    "check = c.Check('slow', 'a slow check', %r)\n"
                    "check.number('before', 1)\n"
                    "c.run(['sh', '-c', 'echo $$ > %s; exec sleep 60'], %r)\n"
                    % (HERE, out, pid_file, os.path.join(out, "sleep.log")))
            proc = subprocess.Popen([sys.executable, "-c", code])
            deadline = time.monotonic() + 20
            while not os.path.exists(pid_file) and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.2)
            with open(pid_file) as f:
                workload = int(f.read())
            proc.send_signal(signal.SIGTERM)
            self.assertEqual(proc.wait(timeout=20), common.TERMINATED)
            with open(os.path.join(out, "result.json")) as f:
                result = json.load(f)
            self.assertEqual(result["status"], "fail")
            self.assertIn("time limit", result["failures"][0])
            self.assertEqual(result["numbers"]["before"], 1)
            self.assertTrue(self.dead(workload))
        finally:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    unittest.main(verbosity=2)
