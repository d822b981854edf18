#!/usr/bin/env python3
"""Issue 3.7: every kernel seen once, with GPU times that agree with another tool's.

  launch_check.py --build-dir B --out O --target static|shared|torch|triton

static, shared: tests/gpu/launch_paths.cu built with nvcc's default static cudart or with
  -cudart shared. It launches each kernel a known number of times through every path a program
  can take (<<<>>>, cudaLaunchKernel, cudaLaunchKernelEx with a cluster, cooperative, the
  per-thread stream, a CUDA graph, cuLaunchKernel[Ex] through dlsym, a driver entry point from
  the runtime) and writes what it did. flopspy must count exactly those launches and GPU
  executions and nothing else, and time fs_spin within 2 % or 2 us of the time it spins on the
  GPU clock, and within the program's cudaEvents.

torch, triton: launch_torch_workload.py (elementwise ops, matmul, a small MLP training loop; or
  two Triton kernels) compared with torch.profiler. torch.profiler (Kineto) and flopspy both use
  CUPTI, and CUPTI gives its activity records to one client per process (docs/gpu-timing.md,
  "One CUPTI client per process"), so the comparison is made in three runs of the same
  deterministic workload:
    A. under flopspy:                    per-kernel executions and GPU times;
    B. under torch.profiler alone:       per-kernel counts and GPU times;
    C. under both, flopspy with --gpu-timing off (flopspy then leaves CUPTI to Kineto):
                                         flopspy's launch counts against Kineto's, same process.
  Checked: counts A == B and C(flopspy) == C(Kineto), exactly, per kernel name; A's launches
  equal its executions; the mean GPU time per execution of every kernel signature
  (name, grid, block) in A within 2 % or 2 us of B's.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gpu_check_common as common  # noqa: E402
import launch_compare as lc  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def check_program(check, tools, kind, timeout):
    program = tools.program("flopspy_gpu_launch_paths_" + kind)
    if not program:
        check.skip("flopspy_gpu_launch_paths_%s is not built (no nvcc when it was configured?)"
                   % kind)
    env = tools.program_env(program)
    plain = common.run([program, "--json", check.path("plain.json")], check.path("plain.log"),
                       env=env, timeout=timeout)
    if plain.rc == common.SKIP:
        check.skip("launch_paths: " + plain.message())
    if not check.expect(plain.rc == 0, "the program alone failed: " + plain.describe()):
        check.finish()
    traces = check.path("traces")
    under = common.flopspy_run(tools, traces, [program, "--json", check.path("flopspy.json")],
                               check.path("flopspy.log"), timeout=timeout, base_env=env)
    if not check.expect(under.rc == 0, "the program under flopspy failed: " + under.describe()):
        check.finish()
    report = common.report_json(tools, traces, check.path("report.json"),
                                check.path("report.log"))
    if not check.expect(report is not None, "flopspy-report --json failed (report.log)"):
        check.finish()
    expected = common.load_json(check.path("flopspy.json"))
    for p in common.trace_problems(report):
        check.fail(p)
    rows, failures, notes = lc.compare_program(expected, report)
    check.table("kernels", rows)
    for f in failures:
        check.fail(f)
    for n in notes:
        check.note(n)
    row, failure = lc.spin_time(expected, report)
    if row:
        check.table("spin_time", [row])
        check.number("fs_spin_diff_pct", row["diff_pct"])
    if failure:
        check.fail(failure)
    check.number("kernels_expected", len(rows))
    check.number("kernels_ok", sum(1 for r in rows if r["ok"]))
    check.number("device", expected.get("device"))
    check.number("cluster_launch", expected.get("cluster_launch"))
    for t in report.get("traces", []):
        check.number("unmatched_launches", t.get("unmatched_launches"))
        check.number("unmatched_gpu_records", t.get("unmatched_gpu_records"))
    check.number("seconds_plain", round(plain.seconds, 2))
    check.number("seconds_flopspy", round(under.seconds, 2))
    check.finish()


def check_workload(check, tools, part, timeout):
    if part == "triton" and not common.python_has("triton"):
        check.skip("%s cannot import triton" % sys.executable)
    workload = [sys.executable, os.path.join(HERE, "launch_torch_workload.py"), "--part", part]

    # A: flopspy alone.
    traces_a = check.path("traces_a")
    run_a = common.flopspy_run(tools, traces_a, workload, check.path("a_flopspy.log"),
                               timeout=timeout)
    # B: torch.profiler alone.
    trace_b = check.path("b_torch_trace.json")
    run_b = common.run(workload + ["--profile", trace_b], check.path("b_torch.log"),
                       timeout=timeout)
    # C: both in one process, flopspy away from CUPTI.
    traces_c = check.path("traces_c")
    trace_c = check.path("c_torch_trace.json")
    run_c = common.flopspy_run(tools, traces_c, workload + ["--profile", trace_c],
                               check.path("c_both.log"), flags=["--gpu-timing", "off"],
                               timeout=timeout)
    for name, r in (("A (flopspy)", run_a), ("B (torch.profiler)", run_b),
                    ("C (both)", run_c)):
        check.number("seconds_" + name.split()[0], round(r.seconds, 2))
        if r.rc == common.SKIP:
            check.skip("the workload says: " + r.message())
        check.expect(r.rc == 0, "run %s failed: %s" % (name, r.describe()))
    if check.failures:
        check.finish()

    report_a = common.report_json(tools, traces_a, check.path("a_report.json"),
                                  check.path("a_report.log"))
    report_c = common.report_json(tools, traces_c, check.path("c_report.json"),
                                  check.path("c_report.log"))
    kineto_b = common.load_json(trace_b)
    kineto_c = common.load_json(trace_c)
    for what, doc in (("flopspy-report A", report_a), ("flopspy-report C", report_c),
                      ("torch.profiler trace B", kineto_b), ("torch.profiler trace C", kineto_c)):
        check.expect(doc is not None, "%s is missing or not JSON" % what)
    if check.failures:
        check.finish()
    for p in common.trace_problems(report_a):
        check.fail("A: " + p)
    for p in common.trace_problems(report_c, need_gpu_timing=False):
        check.fail("C: " + p)

    sigs_a = lc.flopspy_kernels(report_a)
    sigs_b = lc.kineto_kernels(kineto_b)
    sigs_c = lc.flopspy_kernels(report_c)
    sigs_ck = lc.kineto_kernels(kineto_c)
    if not sigs_b or not sigs_ck:
        check.fail("torch.profiler recorded no kernels (B: %d, C: %d signatures): is CUPTI "
                   "usable here?" % (len(sigs_b), len(sigs_ck)))

    # Counts.
    rows_ab, fails_ab = lc.compare_counts(lc.by_name(sigs_a, "executions"),
                                          lc.by_name(sigs_b, "executions"), "torch_profiler")
    rows_c, fails_c = lc.compare_counts(lc.by_name(sigs_c, "launches"),
                                        lc.by_name(sigs_ck, "executions"),
                                        "torch_profiler_same_process")
    rows_aa, fails_aa = lc.compare_counts(lc.by_name(sigs_a, "launches"),
                                          lc.by_name(sigs_a, "executions"), "gpu_executions")
    check.table("counts_flopspy_vs_torch_profiler", rows_ab)
    check.table("counts_same_process", rows_c)
    for f in fails_ab:
        check.fail("A vs B: " + f)
    for f in fails_c:
        check.fail("C: " + f)
    for f in fails_aa:
        check.fail("A, launches vs executions: " + f)
    check.number("kernel_names", len(rows_ab))
    check.number("kernel_executions_flopspy", sum(r["flopspy"] for r in rows_ab))
    check.number("kernel_executions_torch_profiler", sum(r["torch_profiler"] for r in rows_ab))
    check.number("same_process_launches_flopspy", sum(r["flopspy"] for r in rows_c))
    check.number("same_process_kernels_torch_profiler",
                 sum(r["torch_profiler_same_process"] for r in rows_c))

    # Times.
    rows_t, fails_t = lc.compare_times(sigs_a, sigs_b)
    check.table("gpu_time_per_signature", rows_t)
    for f in fails_t:
        check.fail("GPU time: " + f)
    check.number("signatures_timed", len(rows_t))
    check.number("signatures_within_tolerance", sum(1 for r in rows_t if r["within"]))
    total_a = sum(r["gpu_ns"] for r in sigs_a.values())
    total_b = sum(r["gpu_ns"] for r in sigs_b.values())
    check.number("total_gpu_ns_flopspy", round(total_a))
    check.number("total_gpu_ns_torch_profiler", round(total_b))
    if total_b:
        check.number("total_gpu_diff_pct", round(100.0 * (total_a - total_b) / total_b, 2))
    check.finish()


def main():
    parser = common.standard_arguments(argparse.ArgumentParser(description=__doc__))
    parser.add_argument("--target", choices=("static", "shared", "torch", "triton"), required=True)
    parser.add_argument("--timeout", type=float, default=240,
                        help="seconds for each run of the workload")
    args = parser.parse_args()
    titles = {
        "static": "nvcc program, static cudart: every launch path seen once",
        "shared": "nvcc program, -cudart shared: every launch path seen once",
        "torch": "PyTorch (elementwise, matmul, MLP training) vs torch.profiler",
        "triton": "Triton kernels vs torch.profiler",
    }
    torch_needed = args.target in ("torch", "triton")
    check, tools = common.begin(args, "launch_" + args.target, titles[args.target],
                                needs_torch=torch_needed)
    if torch_needed:
        check_workload(check, tools, args.target, args.timeout)
    else:
        check_program(check, tools, args.target, args.timeout)


if __name__ == "__main__":
    main()
