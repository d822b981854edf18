#!/usr/bin/env python3
"""Issue 18.8: NVTX ranges and steps of a PyTorch training loop, against what the loop did and
what torch.profiler measures.

  nvtx_steps_check.py --build-dir B --out O [--steps 30]

Runs nvtx_steps_workload.py plain, under flopspy with NVTX ranges, under flopspy with
FLOPSPY_NVTX=0, under flopspy without any marker, and under torch.profiler. Passes when the
report's range counts equal the pushes the loop made, the steps found equal the steps run in
both flopspy loops (warm-up steps included), and the GPU time of "forward" and "optimizer" is
within 2 % of torch.profiler's for the same names. "backward" is shown, not judged: its
kernels are launched by autograd's own thread, which no range of the loop's thread covers.
The receiver's cost is the loop time with NVTX ranges against FLOPSPY_NVTX=0 and plain.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gpu_check_common as common  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
JUDGED = ("forward", "optimizer")


def main():
    parser = common.standard_arguments(argparse.ArgumentParser(description=__doc__))
    parser.add_argument("--timeout", type=float, default=120, help="seconds per run")
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args()
    check, tools = common.begin(args, "nvtx_steps",
                                "NVTX ranges and steps of a training loop, against torch.profiler",
                                needs_torch=True)

    def workload(mode, tag):
        return [sys.executable, os.path.join(HERE, "nvtx_steps_workload.py"), "--mode", mode,
                "--steps", str(args.steps), "--out", check.path(tag + ".json")]

    plain = common.run(workload("plain", "plain"), check.path("plain.log"), timeout=args.timeout)
    if plain.rc == common.SKIP:
        check.skip("the workload says: " + plain.message())
    if not check.expect(plain.rc == 0, "the plain run failed: " + plain.describe()):
        check.finish()
    runs = {
        "nvtx": ("nvtx", {}),
        "nvtx_off": ("nvtx", {"FLOPSPY_NVTX": "0"}),
        "unmarked": ("plain", {}),
    }
    reports = {}
    for tag, (mode, env) in runs.items():
        traces = check.path("traces_" + tag)
        r = common.flopspy_run(tools, traces, workload(mode, tag), check.path(tag + ".log"),
                               env=env, timeout=args.timeout)
        if not check.expect(r.rc == 0, "the %s run failed: %s" % (tag, r.describe())):
            continue
        doc = common.report_json(tools, traces, check.path(tag + "_report.json"),
                                 check.path(tag + "_report.log"))
        if not check.expect(doc is not None, "no report of the %s run (see its log)" % tag):
            continue
        for problem in common.trace_problems(doc):
            check.fail("%s: %s" % (tag, problem))
        reports[tag] = doc
    profiled = common.run(workload("profiler", "profiler"), check.path("profiler.log"),
                          timeout=args.timeout)
    check.expect(profiled.rc == 0, "the torch.profiler run failed: " + profiled.describe())

    loop = {}
    for tag in ("plain", "nvtx", "nvtx_off", "unmarked", "profiler"):
        result = common.load_json(check.path(tag + ".json")) or {}
        loop[tag] = result.get("loop_s")
    if loop.get("plain"):
        check.table("loop", [{"run": tag, "loop_s": round(s, 3),
                              "vs_plain": round(s / loop["plain"], 3)}
                             for tag, s in loop.items() if s])

    # Ranges: one row per name; the loop's pushes per name.
    pushes = (common.load_json(check.path("nvtx.json")) or {}).get("pushes", {})
    doc = reports.get("nvtx")
    if doc:
        trace = doc["traces"][0]
        ranges = {}
        for r in trace.get("ranges", []):
            ranges[r["name"]] = ranges.get(r["name"], 0) + r["count"]
        pushed = sum(pushes.values())
        recorded = sum(r["count"] for r in trace.get("ranges", []) if r.get("source") == "nvtx")
        check.number("pushes_made", pushed)
        check.number("ranges_recorded", recorded)
        check.expect(recorded == pushed, "ranges recorded %d, pushes made %d" % (recorded,
                                                                                 pushed))
        for part in ("forward", "backward", "optimizer"):
            check.expect(ranges.get(part) == pushes.get(part),
                         "%s: %s ranges recorded, %s pushed" % (part, ranges.get(part),
                                                                pushes.get(part)))
        profiled = common.load_json(check.path("profiler.json")) or {}
        profiler = profiled.get("gpu_ns", {})
        # What torch.profiler counted inside each part, by kernel, to tell a difference apart.
        for part, names in sorted((profiled.get("kernels") or {}).items()):
            check.table("torch_profiler_kernels_" + part,
                        [{"kernel": name[:100], "count": v["count"], "ns": v["ns"]}
                         for name, v in sorted(names.items(), key=lambda kv: -kv[1]["ns"])])
        rows = []
        for r in trace.get("ranges", []):
            if r["name"] not in ("forward", "backward", "optimizer"):
                continue
            reference = profiler.get(r["name"])
            kernels = (profiled.get("kernels") or {}).get(r["name"], {})
            row = {"range": r["name"], "flopspy_gpu_ns": r["gpu_ns"],
                   "flopspy_kernels": r.get("kernels"), "torch_profiler_gpu_ns": reference,
                   "torch_profiler_kernels": sum(v["count"] for v in kernels.values())}
            if reference:
                row["ratio"] = round(r["gpu_ns"] / reference, 4)
            rows.append(row)
            if r["name"] in JUDGED:
                check.expect(reference and common.within(r["gpu_ns"], reference, rel=0.02),
                             "%s: flopspy %s ns of GPU time, torch.profiler %s ns" %
                             (r["name"], r["gpu_ns"], reference))
        check.table("gpu_time_per_range", rows)
    # Steps, with ranges and without any marker.
    for tag in ("nvtx", "unmarked"):
        doc = reports.get(tag)
        if not doc:
            continue
        steps = doc["traces"][0].get("steps")
        if not check.expect(steps is not None, "%s: no steps found" % tag):
            continue
        check.number(tag + "_steps_source", steps.get("source"))
        check.number(tag + "_steps_found", steps.get("count"))
        check.number(tag + "_warmup", steps.get("warmup"))
        check.expect(steps.get("count") == args.steps, "%s: %s steps found, %d run (source %s)" %
                     (tag, steps.get("count"), args.steps, steps.get("source")))
    check.finish()


if __name__ == "__main__":
    sys.exit(main())
