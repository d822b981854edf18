#!/usr/bin/env python3
"""Issue 20: cuDNN convolutions recorded by the hooks, checked against torch.utils.flop_counter.

  cudnn_check.py --build-dir B --out O [--timeout S]

Runs a small convolution network (3x3 and 1x1 convolutions, one grouped and one strided, batch
norm, ReLU, no bias) forward and backward under PyTorch, three ways, each with its own image
size so that its calls carry their own shapes: FP16 channels last, FP32 channels first with TF32
allowed, FP32 channels first with TF32 off. The same network runs once more under
FlopCounterMode for the reference. Checked per case, from flopspy-report --json:
  - the cuDNN rows (conv_* of the legacy API, dnn_graph of the backend API PyTorch uses) of that
    image size hold FLOPs equal to flop_counter's convolution FLOPs (forward and backward) times
    the iterations flopspy saw;
  - every cuDNN row (convolutions and batch normalisation) has analytic FLOPs and kernels
    attributed to it;
  - the share of the run's kernel time with known FLOPs is recorded (issue 20 asks >= 98 %).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

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


def workload(manifest_path, repeat):
    """The network under flopspy (and under flop_counter once more); writes the manifest."""
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

    cases = []
    for case_id, dtype, channels_last, tf32, size in CASES:
        torch.backends.cudnn.allow_tf32 = tf32
        dt = getattr(torch, dtype)
        fmt = torch.channels_last if channels_last else torch.contiguous_format
        model = net().to("cuda", dt).to(memory_format=fmt)
        x = torch.randn(BATCH, 3, size, size, device="cuda", dtype=dt).to(memory_format=fmt)
        for _ in range(repeat):
            model(x).float().pow(2).mean().backward()
        torch.cuda.synchronize()
        with FlopCounterMode(display=False) as counter:
            model(x).float().pow(2).mean().backward()
        torch.cuda.synchronize()
        conv_flops = 0
        for op, flops in counter.get_flop_counts().get("Global", {}).items():
            if "convolution" in str(op):
                conv_flops += flops
        cases.append({"id": case_id, "size": size, "dtype": dtype, "channels_last": channels_last,
                      "tf32": tf32, "flop_counter_conv": conv_flops, "iterations": repeat + 1})
    with open(manifest_path, "w") as f:
        json.dump({"torch": torch.__version__, "cudnn": torch.backends.cudnn.version(),
                   "cases": cases}, f, indent=1)
    return common.PASS


def case_rows(case, rows):
    """The cuDNN rows of one case: every layer's input is `size` x `size` or half of it, and the
    shape text names the input first ("N16 C64 56x56 -> ...")."""
    size = case["size"]
    sizes = ("%dx%d " % (size, size), "%dx%d " % (size // 2, size // 2))
    return [r for r in rows if any(s in (r.get("shape_text") or "") for s in sizes)]


def main():
    parser = common.standard_arguments(argparse.ArgumentParser(description=__doc__))
    parser.add_argument("--timeout", type=float, default=240)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    check, tools = common.begin(args, "cudnn", "cuDNN convolutions: hook FLOPs vs flop_counter",
                                needs_torch=True)
    manifest, report = common.run_manifest_workload(check, tools, __file__,
                                                    ["--repeat", str(args.repeat)], args.timeout)
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
        expected = case["flop_counter_conv"] * case["iterations"]
        got = sum(row.get("flops", 0) for row in mine)
        table.append({"case": case["id"], "rows": len(mine), "flops": got, "expected": expected,
                      "gpu_ns": sum(row.get("gpu_ns", 0) for row in mine)})
        if abs(got - expected) > 1e-6 * max(expected, 1):
            check.fail("%s: cuDNN FLOPs %.6g, flop_counter %.6g" % (case["id"], got, expected))
    check.table("cases", table)
    for row in rows + norms:
        what = "%s %s" % (row.get("routine"), row.get("shape_text"))
        if row.get("source") != "analytic":
            check.fail("cuDNN row without analytic FLOPs: " + what)
        if not row.get("kernels"):
            check.fail("cuDNN row with no kernel attributed: " + what)
    coverage = [t.get("summary", {}).get("flop_coverage", {}) for t in report.get("traces", [])]
    known = [c.get("known") for c in coverage if c.get("known") is not None]
    check.number("known_flops_share", min(known) if known else None)
    check.finish()


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--workload":
        repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 3
        sys.exit(workload(sys.argv[2], repeat))
    main()
