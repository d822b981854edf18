#!/usr/bin/env python3
"""Issue 19.8: which line launched each kernel, on a PyTorch training loop.

  callsite_check.py --build-dir B --out O [--steps 20] [--timeout S]

Runs callsite_workload.py plain, under flopspy with the default stack policy, and under flopspy
with FLOPSPY_STACKS=off. Passes when, in the default run's report:
  - at least 95 % (and at most 105 %) of the forward pass's kernel time (the NVTX range
    "forward") is attributed to the five lines of Net.forward that call a layer, each line
    holding some, and the LayerNorm and GELU lines holding their own kernels;
  - the kernels of the backward pass, launched by autograd's thread (all kernel time minus the
    range "main", which holds all the main thread's work), are labelled backward: the backward
    sites hold that time within 5 %.
The cost of the default policy is the loop's time with stacks against FLOPSPY_STACKS=off:
recorded (ratio and nanoseconds per launch), not judged.
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gpu_check_common as common  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# What the kernels of a line must be named like (lower case), where the line says it.
OWN_KERNELS = {"norm": "layer_norm", "act": "gelu"}
LABEL = re.compile(r"^(?P<file>.+?):(?P<line>\d+)(?: \((?P<function>.*)\))?$")


def range_ns(trace, name):
    """GPU time of the kernels launched inside the ranges called `name`; None without any."""
    rows = [r for r in trace.get("ranges", []) if r.get("name") == name]
    return sum(r.get("gpu_ns", 0) for r in rows) if rows else None


def kernel_ns(trace):
    """All kernel time of the trace, as the call sites' shares count it."""
    total = trace.get("call_sites", {}).get("kernel_ns")
    return total if total else sum(k.get("gpu_ns", 0) for k in trace.get("kernels", []))


def site_frame(site):
    """(file, line, function) of a site's user frame: its "frame" object, else its label."""
    frame = site.get("frame") or {}
    if frame.get("file") and frame.get("line"):
        return frame["file"], int(frame["line"]), frame.get("function", "")
    match = LABEL.match(site.get("label", ""))
    if match:
        return match["file"], int(match["line"]), match["function"] or ""
    return None, 0, ""


def kernel_names(site):
    """The full names of a site's top kernels (docs/report-json.md, "call_sites")."""
    return [k["name"] for k in site.get("kernels", []) if k.get("name")]


def is_backward(site):
    return site.get("kind") == "backward"


def attribution(check, trace, expected):
    """The forward pass's lines and the backward pass's label, judged; returns the table rows."""
    call_sites = trace.get("call_sites")
    if not check.expect(isinstance(call_sites, dict) and call_sites.get("sites"),
                        "the report has no call sites (were Python frames read? see the run's "
                        "log for a 'flopspy:' line about Python)"):
        return
    sites = call_sites["sites"]
    workload = os.path.basename(expected["file"])
    line_of = {line: layer for layer, line in expected["lines"].items()}
    by_layer = {layer: {"gpu_ns": 0.0, "kernels": []} for layer in expected["lines"]}
    for site in sites:
        path, line, _ = site_frame(site)
        if path and os.path.basename(path) == workload and line in line_of:
            row = by_layer[line_of[line]]
            row["gpu_ns"] += site.get("gpu_ns", 0)
            row["kernels"] += kernel_names(site)
    forward = range_ns(trace, "forward")
    if not check.expect(forward, "no GPU time in the NVTX range 'forward'"):
        return
    attributed = sum(r["gpu_ns"] for r in by_layer.values())
    ratio = attributed / forward
    check.number("forward_gpu_ns", forward)
    check.number("forward_attributed_to_lines", round(ratio, 4))
    check.expect(0.95 <= ratio <= 1.05,
                 "%.1f %% of the forward pass's kernel time is attributed to Net.forward's "
                 "lines (at least 95 %%, at most 105 %%)" % (100 * ratio))
    rows = []
    for layer, line in sorted(expected["lines"].items(), key=lambda item: item[1]):
        row = by_layer[layer]
        rows.append({"layer": layer, "line": "%s:%d" % (workload, line), "gpu_ns": row["gpu_ns"],
                     "share_of_forward": round(row["gpu_ns"] / forward, 4),
                     "top_kernel": row["kernels"][0][:80] if row["kernels"] else None})
        check.expect(row["gpu_ns"] > 0, "%s:%d (%s): no GPU time attributed" %
                     (workload, line, layer))
        own = OWN_KERNELS.get(layer)
        names = [n.lower() for n in row["kernels"]]
        if own and names:
            check.expect(any(own in n for n in names), "%s:%d (%s): none of its kernels is a %s "
                         "kernel: %s" % (workload, line, layer, own, row["kernels"][:3]))
        for other_layer, other in OWN_KERNELS.items():
            if other_layer != layer:
                check.expect(not any(other in n for n in names),
                             "%s:%d (%s) holds a %s kernel" % (workload, line, layer, other))
    if not any(by_layer[layer]["kernels"] for layer in by_layer):
        check.note("the report names no kernels under its sites: kernel names not judged")
    check.table("forward_lines", rows)

    main = range_ns(trace, "main")
    total = kernel_ns(trace)
    if not check.expect(main is not None, "no NVTX range 'main' in the report"):
        return
    other_threads = total - main
    backward = sum(s.get("gpu_ns", 0) for s in sites if is_backward(s))
    check.number("backward_thread_gpu_ns", other_threads)
    check.number("backward_labelled_gpu_ns", backward)
    if check.expect(other_threads > 0, "no kernel time outside the main thread's range 'main' "
                    "(all %s ns of %s ns inside it): no backward thread seen" % (main, total)):
        check.number("backward_labelled_share", round(backward / other_threads, 4))
        check.expect(common.within(backward, other_threads, rel=0.05, abs_ns=0),
                     "%s ns labelled backward, %s ns launched outside the main thread" %
                     (backward, other_threads))
    coverage = call_sites.get("coverage", call_sites)
    for key in ("samples", "sampled_ns", "estimated_ns"):
        if key in coverage:
            check.number("call_sites_" + key, coverage[key])
    without = call_sites.get("modules_without_symbols") or []
    if without:
        check.note("modules without symbols: " + ", ".join(str(m) for m in without[:5]))


def main():
    parser = common.standard_arguments(argparse.ArgumentParser(description=__doc__))
    parser.add_argument("--timeout", type=float, default=120, help="seconds per run")
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    check, tools = common.begin(args, "callsite", "which line launched each kernel: a PyTorch "
                                "training loop's call sites, and their cost", needs_torch=True)

    def workload(tag):
        return [sys.executable, os.path.join(HERE, "callsite_workload.py"), "--steps",
                str(args.steps), "--out", check.path(tag + ".json")]

    plain = common.run(workload("plain"), check.path("plain.log"), timeout=args.timeout)
    if plain.rc == common.SKIP:
        check.skip("the workload says: " + plain.message())
    if not check.expect(plain.rc == 0, "the plain run failed: " + plain.describe()):
        check.finish()
    reports = {}
    for tag, env in (("default", {}), ("stacks_off", {"FLOPSPY_STACKS": "off"})):
        traces = check.path("traces_" + tag)
        r = common.flopspy_run(tools, traces, workload(tag), check.path(tag + ".log"), env=env,
                               timeout=args.timeout)
        if not check.expect(r.rc == 0, "the %s run failed: %s" % (tag, r.describe())):
            continue
        doc = common.report_json(tools, traces, check.path(tag + "_report.json"),
                                 check.path(tag + "_report.log"))
        if not check.expect(doc is not None, "no report of the %s run (see its log)" % tag):
            continue
        for problem in common.trace_problems(doc):
            check.fail("%s: %s" % (tag, problem))
        reports[tag] = doc

    runs = {tag: common.load_json(check.path(tag + ".json")) or {}
            for tag in ("plain", "default", "stacks_off")}
    expected = runs["default"] if runs["default"].get("lines") else runs["plain"]
    check.number("python", expected.get("python"))
    check.number("torch", expected.get("torch"))
    if "default" in reports and check.expect(expected.get("lines"), "the workload wrote no lines"):
        attribution(check, reports["default"]["traces"][0], expected)

    # The cost of stacks: the same loop with the default policy and with stacks off.
    loop = {tag: r.get("loop_s") for tag, r in runs.items() if r.get("loop_s")}
    if loop.get("stacks_off"):
        check.table("loop", [{"run": tag, "loop_s": round(s, 4),
                              "vs_stacks_off": round(s / loop["stacks_off"], 4)}
                             for tag, s in loop.items()])
    if loop.get("default") and loop.get("stacks_off"):
        check.number("stacks_cost_ratio", round(loop["default"] / loop["stacks_off"], 4))
        doc = reports.get("default")
        if doc:
            # Launches of the timed steps: the trace's launches, less the warm-up's share.
            trace = doc["traces"][0]
            steps = runs["default"].get("steps", args.steps)
            warmup = runs["default"].get("warmup", 0)
            launches = trace.get("launches", 0) * steps / max(1, steps + warmup)
            if launches:
                check.number("stacks_cost_ns_per_launch",
                             round((loop["default"] - loop["stacks_off"]) * 1e9 / launches, 1))
    check.finish()


if __name__ == "__main__":
    sys.exit(main())
