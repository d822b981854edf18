#!/usr/bin/env python3
"""Issue 5.6: counter mode with sampling on a 50-step PyTorch MLP training loop costs at most
2x, and the same run under ncu for comparison.

  seed_mlp_check.py --build-dir B --out O

Runs seed_mlp_workload.py plain, under flopspy, under flopspy --counters (default sampling:
FLOPSPY_COUNTERS_SAMPLES launches per kernel signature) and under ncu with the FLOP and DRAM
metrics. "Total slowdown" is the wall time of the whole process (what a user waits for: start,
PyTorch import, CUDA start-up, the loop, exit) against the plain run; the loop's own slowdown
is reported beside it. Pass: counter mode at most 2x. Without counter records the check ends
skipped, saying why, with the other numbers kept.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gpu_check_common as common  # noqa: E402
import ncu_csv  # noqa: E402
import seed_compare as sc  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
LIMIT = 2.0


def main():
    parser = common.standard_arguments(argparse.ArgumentParser(description=__doc__))
    parser.add_argument("--timeout", type=float, default=180, help="seconds per flopspy run")
    parser.add_argument("--ncu-timeout", type=float, default=180)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--no-ncu", action="store_true")
    args = parser.parse_args()
    check, tools = common.begin(args, "seed_mlp",
                                "counter mode on a 50-step MLP training loop: slowdown, and ncu",
                                needs_torch=True)

    def workload(tag):
        return [sys.executable, os.path.join(HERE, "seed_mlp_workload.py"), "--steps",
                str(args.steps), "--timing", check.path(tag + "_timing.json")]

    plain = common.run(workload("plain"), check.path("plain.log"), timeout=args.timeout)
    if plain.rc == common.SKIP:
        check.skip("the workload says: " + plain.message())
    if not check.expect(plain.rc == 0, "the plain run failed: " + plain.describe()):
        check.finish()
    runs = {"plain": plain}
    runs["flopspy"] = common.flopspy_run(tools, check.path("traces_flopspy"), workload("flopspy"),
                                         check.path("flopspy.log"), timeout=args.timeout)
    runs["counters"] = common.flopspy_run(tools, check.path("traces_counters"),
                                          workload("counters"), check.path("counters.log"),
                                          flags=["--counters"], timeout=args.timeout)
    ncu = None if args.no_ncu else ncu_csv.ncu_path()
    if ncu:
        runs["ncu"] = common.run(ncu_csv.ncu_command(ncu, check.path("ncu.csv"), workload("ncu")),
                                 check.path("ncu.log"), timeout=args.ncu_timeout)
    else:
        check.note("ncu not run (%s)" % ("--no-ncu" if args.no_ncu else "not on PATH"))

    rows = []
    base = common.load_json(check.path("plain_timing.json")) or {}
    for tag, r in runs.items():
        timing = common.load_json(check.path(tag + "_timing.json")) or {}
        row = {"run": tag, "exit": r.rc, "timed_out": r.timed_out,
               "process_s": round(r.seconds, 2), "loop_s": timing.get("loop_s")}
        if plain.seconds:
            row["process_slowdown"] = round(r.seconds / plain.seconds, 3)
        if timing.get("loop_s") and base.get("loop_s"):
            row["loop_slowdown"] = round(timing["loop_s"] / base["loop_s"], 3)
        if r.timed_out:
            row["note"] = "stopped after %.0f s: the slowdown is at least %.1fx" % (
                r.seconds, r.seconds / plain.seconds)
        rows.append(row)
        if tag != "ncu":
            check.expect(r.rc == 0, "the %s run failed: %s" % (tag, r.describe()))
        elif r.rc != 0:
            text = ""
            try:
                with open(check.path("ncu.csv"), errors="replace") as f:
                    text = f.read()
            except OSError:
                pass
            check.note("ncu: %s %s" % (r.describe(), ncu_csv.problem(text + r.tail(1500))))
    check.table("runs", rows)
    for row in rows:
        for key in ("process_slowdown", "loop_slowdown"):
            if key in row:
                check.number("%s_%s" % (row["run"], key), row[key])

    reason = None
    if runs["counters"].rc == 0:
        report = common.report_json(tools, check.path("traces_counters"),
                                    check.path("counters_report.json"),
                                    check.path("counters_report.log"))
        if check.expect(report is not None, "flopspy-report --json failed on the counters run"):
            for p in common.trace_problems(report):
                check.fail("counters run: " + p)
            sampled = [k for t in report.get("traces", []) for k in t.get("kernels", [])
                       if sc.kernel_counters(k)]
            signatures = sum(len(t.get("kernels", [])) for t in report.get("traces", []))
            check.number("kernel_signatures", signatures)
            check.number("signatures_with_counter_samples", len(sampled))
            check.number("counter_samples", sum(sc.kernel_counters(k)[0] for k in sampled))
            if not sampled:
                reason = "no counter records in the counters run: " + "; ".join(sorted({
                    w.get("message", "") for t in report.get("traces", [])
                    for w in t.get("warnings", []) if w.get("code") == "counters_unavailable"})
                    or ["no warning says why"])
    slowdown = next((r.get("process_slowdown") for r in rows if r["run"] == "counters"), None)
    if slowdown is not None and reason is None:
        check.expect(slowdown <= LIMIT, "counter mode made the run %.2fx slower (limit %.1fx)"
                     % (slowdown, LIMIT))
    if reason and not check.failures:
        check.skip(reason)
    check.finish()


if __name__ == "__main__":
    main()
