#!/usr/bin/env python3
"""Issue 3: what flopspy adds to a kernel launch on a real GPU.

  overhead_check.py --build-dir B --out O

overhead_launch_loop (tests/gpu/overhead_launch_loop.cu; static and shared cudart) launches an
empty kernel in a tight loop: the CPU time of each launch call (batches that never fill the
launch queue) and the wall time per launch back to back. Each build runs plain, under flopspy
and under flopspy --gpu-timing off; the added nanoseconds per launch are the differences of
the medians over the repetitions. Checked (these can fail): every run succeeds, and flopspy's
trace holds every launch, and with GPU timing every GPU execution, with no record lost. The
times are recorded, not judged: a goal for them belongs in tests/bench.
"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gpu_check_common as common  # noqa: E402
import launch_compare as lc  # noqa: E402


def main():
    parser = common.standard_arguments(argparse.ArgumentParser(description=__doc__))
    parser.add_argument("--launches", type=int, default=100000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args()
    check, tools = common.begin(args, "overhead", "launch overhead of flopspy, tight loop")
    rows = []
    for kind in ("static", "shared"):
        program = tools.program("flopspy_gpu_overhead_launch_loop_" + kind)
        if not program:
            check.note("flopspy_gpu_overhead_launch_loop_%s is not built" % kind)
            continue
        modes = (("plain", None), ("flopspy", []), ("flopspy_no_gpu_timing",
                                                     ["--gpu-timing", "off"]))
        medians = {}
        env = tools.program_env(program)
        for mode, flags in modes:
            tag = "%s_%s" % (kind, mode)
            out_json = check.path(tag + ".json")
            cmd = [program, "--launches", str(args.launches), "--repeat", str(args.repeat),
                   "--json", out_json]
            if flags is None:
                r = common.run(cmd, check.path(tag + ".log"), env=env, timeout=args.timeout)
            else:
                traces = check.path("traces_" + tag)
                r = common.flopspy_run(tools, traces, cmd, check.path(tag + ".log"), flags=flags,
                                       timeout=args.timeout, base_env=env)
            if r.rc == common.SKIP:
                check.skip("overhead_launch_loop: " + r.message())
            if not check.expect(r.rc == 0, "%s failed: %s" % (tag, r.describe())):
                continue
            result = common.load_json(out_json)
            if not check.expect(result is not None, "%s wrote no results" % tag):
                continue
            call = statistics.median(result["call_ns_per_launch"])
            wall = statistics.median(result["wall_ns_per_launch"])
            medians[mode] = (call, wall)
            row = {"cudart": kind, "mode": mode, "call_ns_per_launch": round(call, 1),
                   "wall_ns_per_launch": round(wall, 1), "launches": result["total_launches"]}
            if flags is not None:
                report = common.report_json(tools, traces, check.path(tag + "_report.json"),
                                            check.path(tag + "_report.log"))
                if check.expect(report is not None, "%s: flopspy-report failed" % tag):
                    for p in common.trace_problems(report, need_gpu_timing=(mode == "flopspy")):
                        check.fail("%s: %s" % (tag, p))
                    sigs = lc.flopspy_kernels(report)
                    launches = lc.by_name(sigs, "launches").get("fs_empty", 0)
                    executions = lc.by_name(sigs, "executions").get("fs_empty", 0)
                    row["flopspy_launches"] = launches
                    row["flopspy_executions"] = executions
                    check.expect(launches == result["total_launches"],
                                 "%s: %d launches made, flopspy recorded %d" % (
                                     tag, result["total_launches"], launches))
                    if mode == "flopspy":
                        check.expect(executions == result["total_launches"],
                                     "%s: %d kernels ran, flopspy has GPU records of %d" % (
                                         tag, result["total_launches"], executions))
            rows.append(row)
        if "plain" in medians:
            for mode in ("flopspy", "flopspy_no_gpu_timing"):
                if mode in medians:
                    check.number("%s_%s_added_call_ns" % (kind, mode),
                                 round(medians[mode][0] - medians["plain"][0], 1))
                    check.number("%s_%s_added_wall_ns" % (kind, mode),
                                 round(medians[mode][1] - medians["plain"][1], 1))
            check.number("%s_plain_call_ns" % kind, round(medians["plain"][0], 1))
            check.number("%s_plain_wall_ns" % kind, round(medians["plain"][1], 1))
    check.table("launch_costs", rows)
    if not rows:
        check.skip("no overhead_launch_loop program is built (no nvcc when it was configured?)")
    check.finish()


if __name__ == "__main__":
    main()
