#!/usr/bin/env python3
"""Issue 2: the demo's GPU part, alone and under flopspy, on a real GPU.

  demo_gpu_check.py --build-dir B --out O

flopspy-demo --quick --gpu-only checks its own results; under flopspy the trace must be whole
(no loss, GPU times present), every kernel launch must have its GPU execution, and the
cublasSgemm call must be recorded with 2N^3 FLOPs. The text report goes to report.txt.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gpu_check_common as common  # noqa: E402
import launch_compare as lc  # noqa: E402

N = 1024  # the side --quick gives the GPU part (flopspy-demo --help)


def main():
    parser = common.standard_arguments(argparse.ArgumentParser(description=__doc__))
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args()
    check, tools = common.begin(args, "demo_gpu", "flopspy-demo's GPU part under flopspy")
    demo = tools.program("flopspy-demo")
    if not demo:
        check.skip("flopspy-demo is not built")
    cmd = [demo, "--quick", "--gpu-only"]
    env = tools.program_env(demo)
    plain = common.run(cmd, check.path("plain.log"), env=env, timeout=args.timeout)
    out = plain.tail(20000)
    if "no usable CUDA GPU" in out or "built without CUDA" in out:
        check.skip("the demo ran no GPU part: " + out.strip().splitlines()[-1])
    check.expect(plain.rc == 0 and "FAIL" not in out, "the demo alone: " + plain.describe())
    traces = check.path("traces")
    under = common.flopspy_run(tools, traces, cmd, check.path("flopspy.log"),
                               timeout=args.timeout, base_env=env)
    check.expect(under.rc == 0 and "FAIL" not in under.tail(20000),
                 "the demo under flopspy: " + under.describe())
    check.number("seconds_plain", round(plain.seconds, 2))
    check.number("seconds_flopspy", round(under.seconds, 2))
    if under.rc != 0:
        check.finish()
    report = common.report_json(tools, traces, check.path("report.json"), check.path("report.log"))
    if not check.expect(report is not None, "flopspy-report --json failed"):
        check.finish()
    common.run([tools.report, traces], check.path("report.txt"), env=tools.env(), timeout=120)
    for p in common.trace_problems(report):
        check.fail(p)
    sigs = lc.flopspy_kernels(report)
    rows, failures = lc.compare_counts(lc.by_name(sigs, "launches"),
                                       lc.by_name(sigs, "executions"), "gpu_executions")
    check.table("kernels", rows)
    for f in failures:
        check.fail("launches vs GPU executions: " + f)
    sgemm = [c for t in report["traces"] for c in t.get("library_calls", [])
             if c.get("m") == N and c.get("n") == N and c.get("k") == N]
    if check.expect(sgemm, "no cuBLAS call of %d^3 recorded" % N):
        calls = sum(c["calls"] for c in sgemm)
        flops = sum(c["flops"] for c in sgemm)
        check.number("sgemm_calls", calls)
        check.expect(calls and abs(flops / calls - 2.0 * N ** 3) < 1.0,
                     "sgemm: %.6g FLOPs per call, expected 2N^3 = %.6g" % (
                         flops / max(calls, 1), 2.0 * N ** 3))
    check.number("kernel_names", len(rows))
    check.finish()


if __name__ == "__main__":
    main()
