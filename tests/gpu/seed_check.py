#!/usr/bin/env python3
"""Issue 5.6: the seed workload (8192 x 8192 fp32: fill, add, mul, pow, sin, sqrt, sigmoid,
log10, sum), catalog figures against hardware counters, and why sin costs as much as mul.

  seed_check.py --build-dir B --out O

Runs seed_workload.py three times:
  A. under flopspy: GPU times and roofline placement of every kernel; checked: sin and mul by a
     scalar (the same bytes) both memory bound, within 10 % of each other in time, and the
     sentence that says so in numbers;
  B. under flopspy --counters (FLOPSPY_COUNTERS=1, default sampling): for every seed kernel,
     catalog bytes within 5 % of counter-measured DRAM bytes, and catalog FLOPs against counter
     FLOPs as docs/kernel-catalog.md's convention says (seed_compare.FLOP_RATIO);
  C. under ncu (if present) with the same metrics, for comparison (not pass/fail).
Without counter records in B (counter mode not built, or no permission to read counters) the
check reports A and C and ends skipped, saying why.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gpu_check_common as common  # noqa: E402
import ncu_csv  # noqa: E402
import seed_compare as sc  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def counters_missing_reason(report):
    reasons = [w.get("message") for t in report.get("traces", []) for w in t.get("warnings", [])
               if w.get("code") == "counters_unavailable"]
    metrics = sum(t.get("records", {}).get("kernel_metrics", 0) for t in report.get("traces", []))
    if reasons:
        return "; ".join(sorted(set(reasons)))
    return "the trace has no counter records (kernel_metrics: %d) and no warning saying why" % (
        metrics)


def run_ncu(check, workload, elements, kernels, timeout):
    ncu = ncu_csv.ncu_path()
    if not ncu:
        check.note("ncu is not on PATH: no Nsight Compute comparison")
        return
    log_file = check.path("c_ncu.csv")
    r = common.run(ncu_csv.ncu_command(ncu, log_file, workload + ["--repeat", "1"]),
                   check.path("c_ncu.log"), timeout=timeout)
    text = ""
    try:
        with open(log_file, errors="replace") as f:
            text = f.read()
    except OSError:
        pass
    rows = ncu_csv.parse(text)
    check.number("ncu_seconds", round(r.seconds, 1))
    if r.rc != 0 or not rows:
        check.note("ncu gave no metrics (%s): %s" % (r.describe(),
                                                    ncu_csv.problem(text + r.tail(1500)) or
                                                    r.message()))
        return
    table = []
    for op, k in sorted(kernels.items()):
        n = ncu_csv.find_kernel(rows, k.get("name"), k.get("grid"), k.get("block"))
        if n is None:
            continue
        counters = sc.kernel_counters(k)
        cat_bytes = sc.per_launch(k.get("all", {}), "bytes")
        # Reads and writes apart: a write stream larger than L2 may leave dirty lines behind
        # (written back during the next kernel), which moves bytes between kernels.
        entry = {"op": op, "ncu_dram_bytes": n["dram_bytes"],
                 "ncu_dram_read": n["metrics"].get("dram__bytes_read.sum"),
                 "ncu_dram_write": n["metrics"].get("dram__bytes_write.sum"),
                 "ncu_fp32_flops": n["fp32_flops"],
                 "catalog_bytes": cat_bytes,
                 "catalog_flops": sc.per_launch(k.get("all", {}), "flops"),
                 "flopspy_counter_bytes": counters[2] if counters else None,
                 "flopspy_counter_flops": counters[1] if counters else None}
        if n["dram_bytes"] and cat_bytes:
            entry["catalog_vs_ncu_bytes_pct"] = round(100.0 * (cat_bytes - n["dram_bytes"]) /
                                                      n["dram_bytes"], 2)
        if counters and counters[2] and n["dram_bytes"]:
            entry["flopspy_vs_ncu_bytes_pct"] = round(100.0 * (counters[2] - n["dram_bytes"]) /
                                                      n["dram_bytes"], 2)
        table.append(entry)
    check.table("ncu_comparison", table)
    check.number("ncu_kernels_profiled", len(rows))


def main():
    parser = common.standard_arguments(argparse.ArgumentParser(description=__doc__))
    parser.add_argument("--timeout", type=float, default=240)
    parser.add_argument("--size", type=int, default=8192)
    parser.add_argument("--no-ncu", action="store_true", help="skip the Nsight Compute run")
    args = parser.parse_args()
    check, tools = common.begin(args, "seed",
                                "seed workload: catalog vs counters, why sin costs as much as mul",
                                needs_torch=True)
    elements = args.size * args.size
    workload = [sys.executable, os.path.join(HERE, "seed_workload.py"), "--size", str(args.size)]

    traces_a = check.path("traces_a")
    run_a = common.flopspy_run(tools, traces_a, workload, check.path("a_flopspy.log"),
                               timeout=args.timeout)
    if run_a.rc == common.SKIP:
        check.skip("the workload says: " + run_a.message())
    if not check.expect(run_a.rc == 0, "the workload under flopspy failed: " + run_a.describe()):
        check.finish()
    report_a = common.report_json(tools, traces_a, check.path("a_report.json"),
                                  check.path("a_report.log"))
    if not check.expect(report_a is not None, "flopspy-report --json failed (a_report.log)"):
        check.finish()
    for p in common.trace_problems(report_a):
        check.fail("A: " + p)
    kernels_a = sc.seed_kernels(report_a, elements)
    missing = [op for op in sc.SEED_OPS if op not in kernels_a]
    check.expect(not missing, "A: no kernel found for " + ", ".join(missing))
    check.table("times", [sc.time_row(op, kernels_a[op]) for op in sc.SEED_OPS if op in kernels_a])
    sentence, failure = sc.sin_vs_mul(kernels_a)
    if sentence:
        check.number("sin_vs_mul", sentence)
    if failure:
        check.fail(failure)

    traces_b = check.path("traces_b")
    run_b = common.flopspy_run(tools, traces_b, workload, check.path("b_counters.log"),
                               flags=["--counters"], timeout=args.timeout)
    check.number("seconds_flopspy", round(run_a.seconds, 2))
    check.number("seconds_flopspy_counters", round(run_b.seconds, 2))
    counters_reason = None
    report_b = None
    if check.expect(run_b.rc == 0, "the workload under flopspy --counters failed: " +
                    run_b.describe()):
        report_b = common.report_json(tools, traces_b, check.path("b_report.json"),
                                      check.path("b_report.log"))
        check.expect(report_b is not None, "flopspy-report --json failed (b_report.log)")
    kernels_b = {}
    if report_b is not None:
        kernels_b = sc.seed_kernels(report_b, elements)
        rows = []
        for op in sc.SEED_OPS:
            if op not in kernels_b:
                continue
            row, failures = sc.cross_check(op, kernels_b[op])
            rows.append(row)
            for f in failures:
                check.fail("B: " + f)
        check.table("catalog_vs_counters", rows)
        orphans = [op for op, k in kernels_b.items() if k.get("counters_orphaned")]
        if orphans:
            check.fail("B: the counter samples of %s are in a kernel group of their own (empty "
                       "shape, no launches), not joined to their launches: the report's own "
                       "cross-check of those kernels is empty (compared here all the same)"
                       % ", ".join(sorted(orphans)))
        with_counters = [r for r in rows if r.get("status") != "no counters"]
        check.number("kernels_with_counters", len(with_counters))
        if not with_counters:
            counters_reason = counters_missing_reason(report_b)
        elif len(with_counters) < len(rows):
            check.fail("B: no counter samples for " + ", ".join(
                r["op"] for r in rows if r.get("status") == "no counters"))
        sin = next((r for r in rows if r["op"] == "sin" and r.get("counter_over_catalog")), None)
        if sin and sentence:
            check.number("sin_vs_mul", sentence + " Counters: sin executes %.1f FP32 FLOPs per "
                         "element where the catalog counts 1, and is still memory bound."
                         % sin["counter_over_catalog"])

    if not args.no_ncu:
        run_ncu(check, workload, elements, kernels_b or kernels_a, args.timeout)
    if counters_reason and not check.failures:
        check.skip("no counter data in the counters run: " + counters_reason)
    check.finish()


if __name__ == "__main__":
    main()
