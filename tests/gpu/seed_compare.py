"""The seed workload's kernels in a flopspy report: catalog figures against counters (5.6).

Pure functions over a parsed `flopspy-report --json` document; tested on canned documents by
gpu_checks_selftest.py. The FLOP relation expected between the catalog and the counters is the
one docs/kernel-catalog.md writes down ("Comparing with Nsight Compute and the range profiler"):
counters count instructions (fadd + fmul + 2 ffma), the catalog counts the operation.
"""

# op -> (low, high) bounds on counter FLOPs / catalog FLOPs per launch; None: both must be 0.
FLOP_RATIO = {
    "fill": None,                 # writes a scalar: 0 and 0
    "mul": (0.99, 1.01),          # one FMUL per element
    "mul_scalar": (0.99, 1.01),
    "add": (1.98, 2.02),          # a + alpha * b is one FFMA: 2 in counters, 1 in the catalog
    "sum": (0.99, 1.10),          # one FADD per input, plus the combining steps of the tree
    "pow": (1.0, None),           # special functions: a multi-instruction sequence, at least 1
    "sin": (1.0, None),
    "sqrt": (1.0, None),
    "sigmoid": (1.0, None),
    "log10": (1.0, None),
}
SEED_OPS = tuple(FLOP_RATIO)


def kernel_counters(k):
    """(samples, counter FLOPs per launch, counter bytes per launch) or None.

    Reads the report's `counters` object (docs/report-json.md); also accepts the field names
    `counter_samples` and `cross_check` in case the counter-mode work renames them.
    """
    c = k.get("counters")
    if isinstance(c, dict) and c.get("samples"):
        return c["samples"], c.get("flops_per_launch"), c.get("bytes_per_launch")
    x = k.get("cross_check")
    if k.get("counter_samples") and isinstance(x, dict):
        flops = x.get("flops_per_launch", x.get("counter_flops"))
        bytes_ = x.get("bytes_per_launch", x.get("counter_bytes"))
        return k["counter_samples"], flops, bytes_
    return None


def per_launch(figures, what):
    n = figures.get("launches_with_" + what, 0)
    return figures.get(what, 0.0) / n if n else None


def orphan_counters(report):
    """Kernel groups that hold counter samples but no launch or execution: samples the report
    could not join to their launches (it then keeps them under the signature with an empty
    shape, and the cross-check of the launches' group stays empty)."""
    return [k for t in report.get("traces", []) for k in t.get("kernels", [])
            if kernel_counters(k) and not k.get("launches") and not k.get("executions")]


def seed_kernels(report, elements):
    """op -> the report's kernel entry for it (the one with most GPU time), by catalog functor.

    `mul` of two tensors and `mul` by a scalar share a functor and differ in bytes: 12 and 8 per
    element (fp32). An entry without counters borrows those of an orphan group of the same name
    and grid (marked `counters_orphaned`), so the comparison can still be made and the orphan
    reported."""
    found = {}
    for trace in report.get("traces", []):
        for k in trace.get("kernels", []):
            op = k.get("functor") or ""
            if k.get("family") == "fill":
                op = "fill"
            if op not in FLOP_RATIO or not (k.get("launches") or k.get("executions")):
                continue
            b = per_launch(k.get("all", {}), "bytes")
            if op == "mul" and b is not None and abs(b - 8.0 * elements) < 0.5 * elements:
                op = "mul_scalar"
            if op not in found or k.get("gpu_ns", 0) > found[op].get("gpu_ns", 0):
                found[op] = k
    orphans = orphan_counters(report)
    for op, k in list(found.items()):
        if kernel_counters(k):
            continue
        for o in orphans:
            if o.get("name") == k.get("name") and o.get("grid") == k.get("grid"):
                found[op] = dict(k, counters=o.get("counters"), counters_orphaned=True)
                if "counter_samples" in o:
                    found[op]["counter_samples"] = o["counter_samples"]
                    found[op]["cross_check"] = o.get("cross_check")
                break
    return found


def cross_check(op, k):
    """(row, failures) for one kernel with counter samples, or (row, []) with status 'no counters'."""
    row = {"op": op, "kernel": k.get("name", "")[:80]}
    cat_flops = per_launch(k.get("all", {}), "flops")
    cat_bytes = per_launch(k.get("all", {}), "bytes")
    row.update({"catalog_flops": cat_flops, "catalog_bytes": cat_bytes,
                "flops_source": k.get("all", {}).get("flops_source"),
                "bytes_source": k.get("all", {}).get("bytes_source")})
    counters = kernel_counters(k)
    if counters is None:
        row["status"] = "no counters"
        return row, []
    samples, c_flops, c_bytes = counters
    row.update({"samples": samples, "counter_flops": c_flops, "counter_bytes": c_bytes})
    failures = []
    if c_bytes and cat_bytes:
        diff = 100.0 * (cat_bytes - c_bytes) / c_bytes
        row["bytes_diff_pct"] = round(diff, 2)
        if abs(diff) > 5.0:
            failures.append("%s: catalog bytes %.4g, counters %.4g per launch (%.1f%%, allowed 5%%)"
                            % (op, cat_bytes, c_bytes, diff))
    else:
        failures.append("%s: no catalog or counter bytes to compare (catalog %s, counters %s)"
                        % (op, cat_bytes, c_bytes))
    bounds = FLOP_RATIO[op]
    if c_flops is None or cat_flops is None:
        failures.append("%s: no catalog or counter FLOPs (catalog %s, counters %s)"
                        % (op, cat_flops, c_flops))
    elif bounds is None:
        if c_flops != 0 or cat_flops != 0:
            failures.append("%s: expected 0 FLOPs from both, catalog %.4g, counters %.4g"
                            % (op, cat_flops, c_flops))
    elif cat_flops <= 0:
        failures.append("%s: the catalog gives %s FLOPs" % (op, cat_flops))
    else:
        ratio = c_flops / cat_flops
        row["counter_over_catalog"] = round(ratio, 3)
        low, high = bounds
        if ratio < low or (high is not None and ratio > high):
            failures.append("%s: counters / catalog FLOPs = %.3f, docs/kernel-catalog.md's "
                            "convention says %s" % (op, ratio, "%.2f to %.2f" % (low, high)
                                                    if high else "at least %.2f" % low))
    row["status"] = "ok" if not failures else "mismatch"
    return row, failures


def time_row(op, k):
    p = k.get("placement") or {}
    execs = k.get("executions", 0)
    return {"op": op, "executions": execs,
            "mean_ns": round(k.get("mean_ns", 0.0), 1),
            "bytes_per_launch": per_launch(k.get("all", {}), "bytes"),
            "flops_per_launch": per_launch(k.get("all", {}), "flops"),
            "regime": p.get("regime"), "intensity": p.get("intensity"), "ridge": p.get("ridge"),
            "achieved_bytes_per_s": p.get("achieved_bytes_per_s"),
            "pct_of_bandwidth": p.get("pct_of_bandwidth"), "pct_of_peak": p.get("pct_of_peak")}


def sin_vs_mul(kernels):
    """The seed note's question, answered with the report's numbers: (sentence, failure or None).

    sin and mul by a scalar each read one tensor and write one; the claim is that both are
    memory bound, so they take the same time although sin does far more arithmetic."""
    if "sin" not in kernels or "mul_scalar" not in kernels:
        return None, "sin or mul by a scalar is missing from the report"
    s, m = time_row("sin", kernels["sin"]), time_row("mul_scalar", kernels["mul_scalar"])
    if not s["mean_ns"] or not m["mean_ns"]:
        return None, "sin or mul has no GPU time"
    ratio = s["mean_ns"] / m["mean_ns"]

    def tbs(row):
        v = row["achieved_bytes_per_s"]
        return "%.2f TB/s" % (v / 1e12) if v else "? TB/s"

    def pct(row):
        v = row["pct_of_bandwidth"]
        return "%.0f%%" % v if v is not None else "?%"

    sentence = (
        "sin and mul (x * 0.5) each move %.0f bytes per launch (one tensor read, one written). "
        "sin took %.1f us (%s, %s of DRAM bandwidth), mul %.1f us (%s, %s): ratio %.2f. Their "
        "intensity is %s FLOP/byte against a ridge point of %s FLOP/byte, so both are %s / %s: "
        "the time is the memory traffic, and sin's extra arithmetic hides under it."
        % (s["bytes_per_launch"] or 0, s["mean_ns"] / 1000, tbs(s), pct(s), m["mean_ns"] / 1000,
           tbs(m), pct(m), ratio, _num(s["intensity"]), _num(s["ridge"]), s["regime"],
           m["regime"]))
    if s["regime"] != "memory_bound" or m["regime"] != "memory_bound":
        return sentence, "sin (%s) and mul (%s) are not both placed memory bound" % (
            s["regime"], m["regime"])
    if not 0.9 <= ratio <= 1.1:
        return sentence, "sin takes %.2f times as long as mul by a scalar (expected 0.9 to 1.1)" % ratio
    return sentence, None


def _num(v):
    return "%.3g" % v if isinstance(v, (int, float)) else "?"
