#!/usr/bin/env python3
"""Issue 20: cuDNN convolutions recorded by the hooks, checked against torch.utils.flop_counter.

  cudnn_check.py --build-dir B --out O [--timeout S]

Runs a small convolution network (3x3 and 1x1 convolutions, one grouped and one strided, batch
norm, ReLU, no bias) forward and backward under PyTorch, three ways, each with its own image
size so that its calls carry their own shapes: FP16 channels last, FP32 channels first with TF32
allowed, FP32 channels first with TF32 off. The same network runs once more under
FlopCounterMode for the reference. Checked per case, from flopspy-report --json:
  - the cuDNN rows (conv_* of the legacy API, dnn_graph of the backend API PyTorch uses) of that
    image size hold FLOPs equal to the textbook count, 2 N K (C/g) R S P Q per pass (forward,
    weight gradient, input gradient but for the first layer), times the iterations flopspy saw;
    flop_counter's convolution FLOPs must equal that plus (g - 1) times each grouped layer's
    weight gradient: it counts a grouped weight gradient as ungrouped (seen on an H200 with
    PyTorch 2.11: exactly 3 x 924,844,032 FLOPs more per iteration for 4 groups);
  - every cuDNN row (convolutions and batch normalisation) has analytic FLOPs and kernels
    attributed to it;
  - the GPU time flopspy gives each case's cuDNN calls equals the time torch.profiler shows for
    the same kernels in a second run of the same workload under torch.profiler alone (the two
    cannot share CUPTI in one process), within 2 % or 2 us per call;
  - the share of the run's kernel time with known FLOPs is recorded (issue 20 asks >= 98 %).
"""

import argparse
import contextlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cublas_compare as cc  # noqa: E402
import gpu_check_common as common  # noqa: E402

BATCH = 16
CASES = [  # (id, dtype, channels_last, allow_tf32, image size)
    ("fp16_nhwc", "float16", True, True, 56),
    ("fp32_tf32", "float32", False, True, 48),
    ("fp32_fma", "float32", False, False, 40),
]
CONV_FAMILIES = ("conv_forward", "conv_backward_data", "conv_backward_filter",
                 "conv_bias_activation", "dnn_graph")
NORM_FAMILIES = ("batch_norm_forward_training", "batch_norm_forward_training_ex",
                 "batch_norm_forward_inference", "batch_norm_backward", "batch_norm_backward_ex")


def workload(manifest_path, repeat, profile_path=None):
    """The network under flopspy (and under flop_counter once more); writes the manifest. With
    `profile_path`, the same under torch.profiler, each case inside record_function
    ("flopspy_case:<id>"), its Chrome trace written there."""
    import json

    import torch
    from torch.utils.flop_counter import FlopCounterMode

    if not torch.cuda.is_available():
        print("cudnn_check: torch sees no CUDA device")
        return common.SKIP
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = False

    def conv(i, o, k, s=1, g=1):
        return torch.nn.Conv2d(i, o, k, stride=s, padding=k // 2, groups=g, bias=False)

    def net():
        return torch.nn.Sequential(
            conv(3, 64, 3), torch.nn.BatchNorm2d(64), torch.nn.ReLU(),
            conv(64, 128, 3, s=2), torch.nn.BatchNorm2d(128), torch.nn.ReLU(),
            conv(128, 128, 3, g=4), torch.nn.BatchNorm2d(128), torch.nn.ReLU(),
            conv(128, 256, 1), torch.nn.BatchNorm2d(256), torch.nn.ReLU())

    if profile_path:
        from torch.profiler import ProfilerActivity, profile
        ctx = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
    else:
        ctx = contextlib.nullcontext()
    with ctx as prof:
        cases = run_cases(torch, FlopCounterMode, repeat, net)
    if profile_path:
        prof.export_chrome_trace(profile_path)
    with open(manifest_path, "w") as f:
        json.dump({"torch": torch.__version__, "cudnn": torch.backends.cudnn.version(),
                   "cases": cases}, f, indent=1)
    return common.PASS


def run_cases(torch, FlopCounterMode, repeat, net):
    """Each case's iterations inside its record_function window; the manifest's entries."""
    cases = []
    for case_id, dtype, channels_last, tf32, size in CASES:
        torch.backends.cudnn.allow_tf32 = tf32
        dt = getattr(torch, dtype)
        fmt = torch.channels_last if channels_last else torch.contiguous_format
        model = net().to("cuda", dt).to(memory_format=fmt)
        x = torch.randn(BATCH, 3, size, size, device="cuda", dtype=dt).to(memory_format=fmt)
        passes = []
        hooks = [m.register_forward_hook(lambda m, i, o: passes.append(conv_passes(m, i[0], o)))
                 for m in model.modules() if isinstance(m, torch.nn.Conv2d)]
        with torch.autograd.profiler.record_function(cc.CASE_PREFIX + case_id):
            for _ in range(repeat):
                model(x).float().pow(2).mean().backward()
            torch.cuda.synchronize()
            with FlopCounterMode(display=False) as counter:
                model(x).float().pow(2).mean().backward()
            torch.cuda.synchronize()
        for hook in hooks:
            hook.remove()
        conv_flops = 0
        for op, flops in counter.get_flop_counts().get("Global", {}).items():
            if "convolution" in str(op):
                conv_flops += flops
        layers = passes[-len(hooks):]  # the counted iteration's
        cases.append({"id": case_id, "size": size, "dtype": dtype, "channels_last": channels_last,
                      "tf32": tf32, "flop_counter_conv": conv_flops,
                      "textbook_conv": sum(f for f, _ in layers),
                      "grouped_weight_grad": sum(w for _, w in layers),
                      "iterations": repeat + 1})
    return cases


def conv_passes(module, x, out):
    """One Conv2d's FLOPs per iteration by the textbook count, 2 N K (C/g) R S P Q per pass
    (forward, weight gradient, and input gradient when its input needs one), and the FLOPs of
    its weight gradient times (groups - 1): what flop_counter adds for a grouped convolution
    (it counts the weight gradient as if every output channel saw every input channel)."""
    n, c = x.shape[0], x.shape[1]
    k, r, s = module.out_channels, module.kernel_size[0], module.kernel_size[1]
    g = module.groups
    per_pass = 2 * n * k * (c // g) * r * s * out.shape[2] * out.shape[3]
    passes = 3 if x.requires_grad else 2
    return per_pass * passes, per_pass * (g - 1)


def case_rows(case, rows):
    """The cuDNN rows of one case: every layer's input is `size` x `size` or half of it, and the
    shape text names the input first ("N16 C64 56x56 -> ...", "N16 C64 56x56, spatial")."""
    size = case["size"]
    sizes = ["%dx%d%s" % (n, n, end) for n in (size, size // 2) for end in (" ", ",")]
    return [r for r in rows if any(s in (r.get("shape_text") or "") for s in sizes)]


def compare_gpu_time(check, manifest, rows, kineto, report):
    """Per case: flopspy's GPU time of its cuDNN calls against torch.profiler's for the kernels
    flopspy attributed to cuDNN calls, launched inside the case's window."""
    names = cc.library_kernel_names(report)
    per_case = cc.kineto_case_kernels(kineto)
    table = []
    for case in manifest["cases"]:
        mine = case_rows(case, rows)
        flopspy_ns = sum(row.get("gpu_ns", 0) for row in mine)
        calls = sum(row.get("calls", 0) for row in mine)
        profiler_ns = sum(k["dur_ns"] for k in per_case.get(case["id"], []) if k["name"] in names)
        table.append({"case": case["id"], "calls": calls, "flopspy_ns": flopspy_ns,
                      "torch_profiler_ns": profiler_ns})
        if not common.within(flopspy_ns, profiler_ns, rel=0.02, abs_ns=2000.0 * max(calls, 1)):
            check.fail("%s: cuDNN GPU time %.0f ns in flopspy, %.0f ns in torch.profiler"
                       % (case["id"], flopspy_ns, profiler_ns))
    check.table("gpu_time", table)


def main():
    parser = common.standard_arguments(argparse.ArgumentParser(description=__doc__))
    parser.add_argument("--timeout", type=float, default=240)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    check, tools = common.begin(args, "cudnn", "cuDNN convolutions: hook FLOPs vs flop_counter",
                                needs_torch=True)
    manifest, report = common.run_manifest_workload(check, tools, __file__,
                                                    ["--repeat", str(args.repeat)], args.timeout)
    trace_b = check.path("b_torch_trace.json")
    run_b = common.run([sys.executable, os.path.abspath(__file__), "--workload",
                        check.path("cases_b.json"), "--repeat", str(args.repeat), "--profile",
                        trace_b], check.path("b_torch.log"), timeout=args.timeout)
    check.expect(run_b.rc == 0, "the workload under torch.profiler failed: %s" % run_b.describe())
    kineto = common.load_json(trace_b) if run_b.rc == 0 else None
    check.number("torch", manifest.get("torch"))
    check.number("cudnn", manifest.get("cudnn"))
    library = [row for t in report.get("traces", []) for row in t.get("library_calls", [])]
    rows = [row for row in library if row.get("family") in CONV_FAMILIES]
    norms = [row for row in library if row.get("family") in NORM_FAMILIES]
    check.expect(rows, "no cuDNN convolution in the report: the hooks saw nothing")
    check.expect(norms, "no cuDNN batch normalisation in the report")
    table = []
    for case in manifest["cases"]:
        mine = case_rows(case, rows)
        # Every iteration under flopspy: the warm-up ones and the counted one.
        iterations = case["iterations"]
        expected = case["textbook_conv"] * iterations
        flop_counter = case["flop_counter_conv"] * iterations
        got = sum(row.get("flops", 0) for row in mine)
        table.append({"case": case["id"], "rows": len(mine), "flops": got, "expected": expected,
                      "flop_counter": flop_counter,
                      "gpu_ns": sum(row.get("gpu_ns", 0) for row in mine)})
        if abs(got - expected) > 1e-6 * max(expected, 1):
            check.fail("%s: cuDNN FLOPs %.6g, textbook count %.6g (flop_counter %.6g)"
                       % (case["id"], got, expected, flop_counter))
        # flop_counter must differ from the textbook by its grouped weight gradient, no more.
        explained = expected + case["grouped_weight_grad"] * iterations
        if abs(flop_counter - explained) > 1e-6 * max(explained, 1):
            check.fail("%s: flop_counter %.6g, textbook %.6g plus its grouped-gradient count %.6g"
                       % (case["id"], flop_counter, expected, explained))
        elif flop_counter != expected:
            check.note("%s: flop_counter counts %.6g FLOPs more: a grouped convolution's weight "
                       "gradient counted as if ungrouped" % (case["id"], flop_counter - expected))
    check.table("cases", table)
    for row in rows + norms:
        what = "%s %s" % (row.get("routine"), row.get("shape_text"))
        if row.get("source") != "analytic":
            check.fail("cuDNN row without analytic FLOPs: " + what)
        if not row.get("kernels"):
            check.fail("cuDNN row with no kernel attributed: " + what)
    if kineto is not None:
        compare_gpu_time(check, manifest, rows + norms, kineto, report)
    coverage = [t.get("summary", {}).get("flop_coverage", {}) for t in report.get("traces", [])]
    known = [c.get("known") for c in coverage if c.get("known") is not None]
    check.number("known_flops_share", min(known) if known else None)
    check.finish()


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--workload":
        repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 3
        profile = sys.argv[sys.argv.index("--profile") + 1] if "--profile" in sys.argv else None
        sys.exit(workload(sys.argv[2], repeat, profile))
    main()
