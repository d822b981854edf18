#!/usr/bin/env python3
"""Collects the checks' result.json files into gpu-validation.json and gpu-validation.md.

  gpu_validate_summary.py --work WORK --out OUT [--env ENV.json] [--elapsed S] [--budget S]

WORK holds one folder per check (scripts/gpu-validate's order is kept through WORK/order.txt,
one "name status exit seconds" line per check the runner started or passed over). A check
that ended without a result.json (killed at its time limit, crashed) gets one made up here from
the runner's line, so that nothing silently disappears. Standard library only.
"""

import argparse
import json
import os
import sys

SCHEMA = "flopspy-gpu-validation"
VERSION = 1
MAX_TABLE_ROWS = 60


def read_order(work):
    rows = []
    try:
        with open(os.path.join(work, "order.txt")) as f:
            for line in f:
                parts = line.rstrip("\n").split(" ", 4)
                if len(parts) >= 4:
                    rows.append({"name": parts[0], "runner_status": parts[1],
                                 "exit": int(parts[2]) if parts[2].lstrip("-").isdigit() else None,
                                 "seconds": float(parts[3]),
                                 "detail": parts[4] if len(parts) > 4 else ""})
    except OSError:
        pass
    return rows


def load_result(work, entry):
    path = os.path.join(work, entry["name"], "result.json")
    doc = None
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        pass
    runner = entry["runner_status"]
    if runner == "not_run":
        return {"check": entry["name"], "status": "not run", "reason": entry["detail"],
                "seconds": 0, "numbers": {}, "tables": {}, "failures": [], "notes": []}
    if doc is None:
        what = ("killed at its time limit after %.0f s" % entry["seconds"] if runner == "timeout"
                else "ended with exit %s and no result.json" % entry["exit"])
        return {"check": entry["name"], "status": "fail", "reason": what,
                "seconds": entry["seconds"], "numbers": {}, "tables": {},
                "failures": [what + (": " + entry["detail"] if entry["detail"] else "")],
                "notes": []}
    if runner == "timeout":
        doc["status"] = "fail"
        doc.setdefault("failures", []).append(
            "killed at its time limit after %.0f s (the result above is partial)" % entry["seconds"])
    elif doc.get("status") == "pass" and entry["exit"] not in (0, None):
        doc["status"] = "fail"
        doc.setdefault("failures", []).append("exit status %s" % entry["exit"])
    doc["seconds_in_runner"] = entry["seconds"]
    return doc


def headline(doc):
    if doc.get("status") in ("skip", "not run"):
        return doc.get("reason", "")
    failures = doc.get("failures", [])
    if failures:
        more = " (and %d more)" % (len(failures) - 1) if len(failures) > 1 else ""
        return failures[0] + more
    shown = []
    for key, value in doc.get("numbers", {}).items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            shown.append("%s %s" % (key, value))
        if len(shown) == 4:
            break
    return ", ".join(shown)


def md_escape(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def md_table(rows):
    if not rows:
        return "(empty)\n"
    columns = []
    for r in rows:
        for k in r:
            if k not in columns:
                columns.append(k)
    out = ["| " + " | ".join(columns) + " |", "|" + " --- |" * len(columns)]
    for r in rows[:MAX_TABLE_ROWS]:
        out.append("| " + " | ".join(md_escape(_fmt(r.get(c, ""))) for c in columns) + " |")
    if len(rows) > MAX_TABLE_ROWS:
        out.append("\n(%d more rows in gpu-validation.json)" % (len(rows) - MAX_TABLE_ROWS))
    return "\n".join(out) + "\n"


def _fmt(v):
    if isinstance(v, float):
        return "%.6g" % v
    if isinstance(v, list):
        return ", ".join(_fmt(x) for x in v)
    return str(v)


def markdown(doc):
    env = doc.get("environment", {})
    gpus = env.get("gpus")
    gpu = gpus[0] if isinstance(gpus, list) and gpus else {}
    torch = env.get("torch") if isinstance(env.get("torch"), dict) else {}
    lines = [
        "# flopspy GPU validation",
        "",
        "Written by `scripts/gpu-validate`; every number below was measured in this run.",
        "",
        "| | |",
        "| --- | --- |",
        "| date (UTC) | %s |" % env.get("date_utc", "?"),
        "| GPU | %s (%s, driver %s) |" % (gpu.get("name", env.get("cuda_device", "?")),
                                         gpu.get("memory.total", "?"),
                                         gpu.get("driver_version", "?")),
        "| CUDA (driver) | %s |" % env.get("nvidia_smi_q", {}).get("CUDA Version", "?"),
        "| clocks at start | SM %s (max %s), memory %s |" % (
            gpu.get("clocks.sm", "?"), gpu.get("clocks.max.sm", "?"), gpu.get("clocks.mem", "?")),
        "| persistence / MIG / compute mode | %s / %s / %s |" % (
            gpu.get("persistence_mode", "?"), gpu.get("mig.mode.current", "?"),
            gpu.get("compute_mode", "?")),
        "| PyTorch / CUDA / Triton | %s / %s / %s |" % (torch.get("torch", "?"),
                                                       torch.get("cuda", "?"),
                                                       torch.get("triton", "?")),
        "| nvcc | %s |" % ((env.get("nvcc") or {}).get("version", "none")),
        "| ncu | %s |" % ((env.get("ncu") or {}).get("version", "none")),
        "| CPU | %s x %s |" % (env.get("cpus", "?"), env.get("cpu", "?")),
        "| kernel, glibc | %s, %s |" % (env.get("kernel", "?"), env.get("glibc", "?")),
        "| flopspy | %s, commit %s |" % (env.get("flopspy_version", "?"),
                                         env.get("git_commit", "?")),
        "| run time | %.0f s of a %.0f s budget |" % (doc.get("elapsed_s", 0),
                                                     doc.get("budget_s", 0)),
        "",
    ]
    if env.get("libraries_not_found"):
        lines += ["**Shared libraries missing on this machine:** " +
                  md_escape(json.dumps(env["libraries_not_found"])), ""]
    counts = {}
    for c in doc["checks"]:
        counts[c["status"]] = counts.get(c["status"], 0) + 1
    lines += ["**%s**" % ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items())), "",
              "| check | status | seconds | summary |", "| --- | --- | --- | --- |"]
    for c in doc["checks"]:
        lines.append("| %s | %s | %s | %s |" % (c["check"], c["status"].upper(),
                                                c.get("seconds_in_runner", c.get("seconds", "")),
                                                md_escape(headline(c))[:300]))
    for c in doc["checks"]:
        lines += ["", "## %s: %s: %s" % (c["check"], c.get("title", ""), c["status"].upper()),
                  ""]
        if c.get("reason"):
            lines += ["Reason: " + md_escape(c["reason"]), ""]
        for f in c.get("failures", []):
            lines.append("- FAIL: " + md_escape(f))
        for n in c.get("notes", []):
            lines.append("- note: " + md_escape(n))
        if c.get("failures") or c.get("notes"):
            lines.append("")
        numbers = c.get("numbers", {})
        if numbers:
            lines += ["| number | value |", "| --- | --- |"]
            lines += ["| %s | %s |" % (k, md_escape(_fmt(v))) for k, v in numbers.items()]
            lines.append("")
        for name, rows in c.get("tables", {}).items():
            lines += ["**%s**" % name, "", md_table(rows)]
    return "\n".join(lines) + "\n"


def build(work, env, elapsed, budget):
    checks = [load_result(work, entry) for entry in read_order(work)]
    return {"schema": SCHEMA, "version": VERSION, "elapsed_s": elapsed, "budget_s": budget,
            "environment": env, "checks": checks}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--env")
    parser.add_argument("--elapsed", type=float, default=0)
    parser.add_argument("--budget", type=float, default=0)
    args = parser.parse_args()
    env = {}
    if args.env:
        try:
            with open(args.env) as f:
                env = json.load(f)
        except (OSError, ValueError) as e:
            env = {"error": "no environment: %s" % e}
    doc = build(args.work, env, args.elapsed, args.budget)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "gpu-validation.json"), "w") as f:
        json.dump(doc, f, indent=1)
    with open(os.path.join(args.out, "gpu-validation.md"), "w") as f:
        f.write(markdown(doc))
    failed = sum(1 for c in doc["checks"] if c["status"] == "fail")
    print("gpu-validate: %d checks, %d failed; %s/gpu-validation.{json,md}" % (
        len(doc["checks"]), failed, args.out))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
