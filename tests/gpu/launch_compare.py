"""Kernel counts and GPU times from a flopspy report and from torch.profiler, side by side.

Pure functions over parsed JSON: a `flopspy-report --json` document (docs/report-json.md) and a
torch.profiler Chrome trace (`prof.export_chrome_trace`, Kineto's format: kernels are events
with cat "kernel", ts and dur in microseconds with nanosecond decimals, args grid, block and
correlation). gpu_checks_selftest.py tests them on canned documents.
"""

from gpu_check_common import within


def _sig(name, grid, block):
    return (name, tuple(grid or (0, 0, 0)), tuple(block or (0, 0, 0)))


def flopspy_kernels(report):
    """(name, grid, block) -> {launches, executions, gpu_ns}, summed over every trace of the run.

    flopspy groups by catalog shape too; those groups of one signature are merged here because
    a profiler does not know the shape.
    """
    out = {}
    for trace in report.get("traces", []):
        for k in trace.get("kernels", []):
            key = _sig(k.get("name", ""), k.get("grid"), k.get("block"))
            row = out.setdefault(key, {"launches": 0, "executions": 0, "gpu_ns": 0.0,
                                       "inside_library": False})
            row["launches"] += k.get("launches", 0)
            row["executions"] += k.get("executions", 0)
            row["gpu_ns"] += k.get("gpu_ns", 0.0)
            row["inside_library"] = row["inside_library"] or bool(k.get("inside_library"))
    return out


def kineto_events(chrome_trace):
    """The kernel events of a torch.profiler Chrome trace, as dicts with times in ns."""
    events = chrome_trace.get("traceEvents", []) if isinstance(chrome_trace, dict) else chrome_trace
    kernels = []
    for e in events:
        if e.get("ph") != "X" or e.get("cat") != "kernel":
            continue
        args = e.get("args", {})
        kernels.append({
            "name": e.get("name", ""),
            "grid": tuple(args.get("grid", (0, 0, 0))),
            "block": tuple(args.get("block", (0, 0, 0))),
            "ts_ns": float(e.get("ts", 0)) * 1000.0,
            "dur_ns": float(e.get("dur", 0)) * 1000.0,
            "correlation": args.get("correlation"),
        })
    return kernels


def kineto_kernels(chrome_trace):
    """(name, grid, block) -> {executions, gpu_ns}, like flopspy_kernels."""
    out = {}
    for k in kineto_events(chrome_trace):
        row = out.setdefault(_sig(k["name"], k["grid"], k["block"]),
                             {"executions": 0, "gpu_ns": 0.0})
        row["executions"] += 1
        row["gpu_ns"] += k["dur_ns"]
    return out


def by_name(signatures, field):
    """Sums one field over the signatures of each kernel name."""
    out = {}
    for (name, _, _), row in signatures.items():
        out[name] = out.get(name, 0) + row[field]
    return out


def compare_counts(flopspy_counts, reference_counts, what):
    """Rows and failures for two {name: count} maps that must be equal."""
    rows, failures = [], []
    for name in sorted(set(flopspy_counts) | set(reference_counts)):
        mine, theirs = flopspy_counts.get(name, 0), reference_counts.get(name, 0)
        rows.append({"kernel": name, "flopspy": mine, what: theirs, "equal": mine == theirs})
        if mine != theirs:
            failures.append("%s: flopspy counted %d, %s %d" % (short(name), mine, what, theirs))
    return rows, failures


def compare_times(flopspy_sigs, kineto_sigs, rel=0.02, abs_ns=2000.0):
    """Mean GPU time per execution of each signature both saw: rows and failures."""
    rows, failures = [], []
    for key in sorted(set(flopspy_sigs) & set(kineto_sigs)):
        f, k = flopspy_sigs[key], kineto_sigs[key]
        if not f["executions"] or not k["executions"]:
            continue
        mine = f["gpu_ns"] / f["executions"]
        theirs = k["gpu_ns"] / k["executions"]
        ok = within(mine, theirs, rel, abs_ns)
        rows.append({"kernel": key[0], "grid": list(key[1]), "block": list(key[2]),
                     "executions": f["executions"], "flopspy_mean_ns": round(mine, 1),
                     "torch_mean_ns": round(theirs, 1),
                     "diff_pct": round(100.0 * (mine - theirs) / theirs, 2) if theirs else None,
                     "within": ok})
        if not ok:
            failures.append("%s grid %s block %s: flopspy %.0f ns, torch.profiler %.0f ns per "
                            "execution (allowed: 2%% or 2 us)" % (short(key[0]), list(key[1]),
                                                                   list(key[2]), mine, theirs))
    return rows, failures


def compare_program(expected, report):
    """A CUDA test program's own account (launch_paths --json) against flopspy's report.

    Every kernel must have exactly the GPU executions the program caused, and, except graph
    nodes, exactly its launches; flopspy must see no kernel the program did not launch.
    Returns (rows, failures, notes).
    """
    sigs = flopspy_kernels(report)
    launches = by_name(sigs, "launches")
    executions = by_name(sigs, "executions")
    rows, failures, notes = [], [], []
    names = set()
    for k in expected.get("kernels", []):
        name = k["name"]
        names.add(name)
        got_l, got_e = launches.get(name, 0), executions.get(name, 0)
        graph = "graph" in k.get("path", "")
        ok_e = got_e == k["executions"]
        # A launch captured into a graph puts nothing on the GPU; flopspy may record the call.
        ok_l = got_l == k["launches"] or (graph and got_l > 0)
        rows.append({"kernel": name, "path": k.get("path", ""), "launches": k["launches"],
                     "flopspy_launches": got_l, "executions": k["executions"],
                     "flopspy_executions": got_e, "ok": ok_e and ok_l})
        if not ok_e:
            failures.append("%s (%s): %d GPU executions, flopspy saw %d" % (
                name, k.get("path", ""), k["executions"], got_e))
        if not ok_l:
            failures.append("%s (%s): %d launch calls, flopspy recorded %d" % (
                name, k.get("path", ""), k["launches"], got_l))
        elif graph and got_l:
            notes.append("%s: flopspy recorded the %d launch calls made while capturing the "
                         "graph (they put nothing on the GPU)" % (name, got_l))
    for name in sorted(set(launches) | set(executions)):
        if name not in names:
            failures.append("flopspy saw a kernel the program did not launch: %s (%d launches, "
                            "%d executions)" % (name, launches.get(name, 0),
                                                executions.get(name, 0)))
    return rows, failures, notes


def spin_time(expected, report, rel=0.02, abs_ns=2000.0):
    """fs_spin: flopspy's mean GPU time against the time the kernel spins on the GPU's own clock
    (%globaltimer) and the program's cudaEvent times. (row, failure).

    The events bracket more than the kernel: the start event is timed when it reaches an idle
    GPU, the kernel only after the CPU has launched it (8 to 14 us later on an H200), so they
    bound flopspy's time from above; the requested spin bounds it from below and is the
    reference: flopspy must be within 2 % or 2 us of it and no longer than the events."""
    events = expected.get("event_ns", {}).get("fs_spin", [])
    requested = expected.get("spin_ns_requested")
    sigs = [row for (name, _, _), row in flopspy_kernels(report).items() if name == "fs_spin"]
    if not events or not requested or not sigs or not sigs[0]["executions"]:
        return None, "fs_spin: no cudaEvent times, no requested time or no flopspy GPU time"
    mine = sigs[0]["gpu_ns"] / sigs[0]["executions"]
    theirs = sum(events) / len(events)
    row = {"kernel": "fs_spin", "flopspy_mean_ns": round(mine, 1),
           "cuda_event_mean_ns": round(theirs, 1), "requested_ns": requested,
           "diff_pct": round(100.0 * (mine - requested) / requested, 2),
           "event_diff_pct": round(100.0 * (mine - theirs) / theirs, 2)}
    if mine >= requested and within(mine, requested, rel, abs_ns) and mine <= theirs + abs_ns:
        return row, None
    return row, ("fs_spin: flopspy %.0f ns per launch, the kernel spins %.0f ns (allowed: 2%% or "
                 "2 us over it) and the cudaEvents bracket %.0f ns" % (mine, requested, theirs))


def short(name, limit=90):
    return name if len(name) <= limit else name[:limit - 3] + "..."
