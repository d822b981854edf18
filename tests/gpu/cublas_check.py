#!/usr/bin/env python3
"""Issue 4.7: cuBLAS calls from PyTorch, checked against torch.utils.flop_counter and
torch.profiler.

  cublas_check.py --build-dir B --out O

cublas_workload.py runs mm, addmm, linear (with and without bias), bmm and baddbmm in fp32,
tf32, fp16 and bf16, torch._scaled_mm in fp8 where supported, and bf16 square GEMMs of 1792 and
1793, each case with its own shape, twice: under flopspy, and under torch.profiler alone (the
two cannot share CUPTI in one process; docs/gpu-timing.md). Checked per case:
  - flopspy recorded exactly the calls made, with FLOPs per call equal to flop_counter's
    (2MNK where flop_counter has no formula), A's element type, and TF32 exactly when allowed;
  - the kernels flopspy attributes to the calls are the cuBLAS kernels torch.profiler shows
    launched inside them (same count), and the GPU time flopspy gives a call is the sum of
    those kernels' times in torch.profiler, within 2 % or 2 us (separate runs);
and the 1793 GEMM's diagnostics show tile or wave quantization the 1792 one's do not.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cublas_compare as cc  # noqa: E402
import gpu_check_common as common  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = common.standard_arguments(argparse.ArgumentParser(description=__doc__))
    parser.add_argument("--timeout", type=float, default=240)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    check, tools = common.begin(args, "cublas",
                                "cuBLAS via PyTorch vs flop_counter and torch.profiler",
                                needs_torch=True)
    workload = [sys.executable, os.path.join(HERE, "cublas_workload.py"), "--repeat",
                str(args.repeat)]
    traces = check.path("traces")
    run_a = common.flopspy_run(tools, traces, workload + ["--manifest", check.path("cases.json")],
                               check.path("a_flopspy.log"), timeout=args.timeout)
    trace_b = check.path("b_torch_trace.json")
    run_b = common.run(workload + ["--manifest", check.path("cases_b.json"), "--profile", trace_b],
                       check.path("b_torch.log"), timeout=args.timeout)
    for name, r in (("under flopspy", run_a), ("under torch.profiler", run_b)):
        if r.rc == common.SKIP:
            check.skip("the workload says: " + r.message())
        check.expect(r.rc == 0, "the workload %s failed: %s" % (name, r.describe()))
    check.number("seconds_flopspy", round(run_a.seconds, 2))
    check.number("seconds_torch_profiler", round(run_b.seconds, 2))
    if check.failures:
        check.finish()

    manifest = common.load_json(check.path("cases.json"))
    report = common.report_json(tools, traces, check.path("report.json"), check.path("report.log"))
    kineto = common.load_json(trace_b)
    for what, doc in (("the case manifest", manifest), ("flopspy-report --json", report),
                      ("the torch.profiler trace", kineto)):
        check.expect(doc is not None, "%s is missing or not JSON" % what)
    if check.failures:
        check.finish()
    for p in common.trace_problems(report):
        check.fail(p)
    check.number("torch", manifest.get("torch"))

    by_case = cc.match_cases(manifest, report)
    case_kernels = cc.kineto_case_kernels(kineto)
    lib_names = cc.library_kernel_names(report)
    rows = []
    for case in manifest["cases"]:
        row, failures = cc.compare_case(case, by_case.get(case["id"], []),
                                        case_kernels.get(case["id"], []), lib_names)
        rows.append(row)
        for f in failures:
            check.fail(f)
        if case["id"] == "scaled_mm_fp8" and "unsupported" in case:
            check.note("torch._scaled_mm not run: " + case["unsupported"])
    check.table("cases", rows)
    check.number("cases", len(rows))
    check.number("cases_ok", sum(1 for r in rows if r.get("status") == "ok"))
    check.number("cases_unsupported", sum(1 for r in rows if str(r.get("status", "")).startswith(
        "unsupported")))

    # flopspy's own accounting: the library calls' GPU time is their kernels' time.
    lib_gpu = sum(c.get("gpu_ns", 0.0) for c in cc.library_calls(report))
    kernel_gpu = sum(k.get("gpu_ns", 0.0) for t in report["traces"] for k in t.get("kernels", [])
                     if k.get("inside_library"))
    check.number("library_gpu_ns", round(lib_gpu))
    check.number("inside_library_kernel_gpu_ns", round(kernel_gpu))
    check.expect(common.within(lib_gpu, kernel_gpu, 1e-6, 1.0),
                 "the library calls' GPU time (%.0f ns) is not the sum of the kernels inside "
                 "them (%.0f ns)" % (lib_gpu, kernel_gpu))

    numbers, failure = cc.wave_effect(by_case.get("wave_1792", []), by_case.get("wave_1793", []))
    for key, value in numbers.items():
        check.number("wave_" + key, value)
    if failure:
        check.fail(failure)
    check.finish()


if __name__ == "__main__":
    main()
