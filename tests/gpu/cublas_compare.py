"""cuBLAS calls in a flopspy report against torch.utils.flop_counter and torch.profiler (4.7).

Pure functions over parsed JSON: the workload's manifest (cublas_workload.py), a
`flopspy-report --json` document and a torch.profiler Chrome trace. Tested on canned documents
by gpu_checks_selftest.py.
"""

from gpu_check_common import within

CASE_PREFIX = "flopspy_case:"

# The element type flopspy reports for A (types[0]) per workload dtype (cudaDataType names).
TYPE_OF_DTYPE = {"fp32": "R_32F", "tf32": "R_32F", "fp16": "R_16F", "bf16": "R_16BF",
                 "fp8": "R_8F_E4M3"}


def library_calls(report):
    out = []
    for trace in report.get("traces", []):
        out.extend(trace.get("library_calls", []))
    return out


def matches(case, call):
    """cuBLAS is column-major: PyTorch's (M x K)(K x N) reaches it as m = N, n = M (or m = M,
    n = N for some layouts); k and the batch are the same either way."""
    return (call.get("k") == case["K"] and call.get("batch", 1) == case["batch"]
            and sorted((call.get("m"), call.get("n"))) == sorted((case["M"], case["N"])))


def match_cases(manifest, report):
    """case id -> the library_calls entries (one per routine and shape) of that case."""
    calls = library_calls(report)
    return {c["id"]: [call for call in calls if matches(c, call)]
            for c in manifest.get("cases", [])}


def kineto_case_kernels(chrome_trace):
    """case id -> the kernels whose launch call ran inside record_function("flopspy_case:id").

    A kernel event carries CUPTI's correlation id; the runtime or driver call that launched it
    carries the same id and its CPU time, which falls inside the case's annotation.
    """
    events = chrome_trace.get("traceEvents", []) if isinstance(chrome_trace, dict) else chrome_trace
    windows = []
    launch_ts = {}
    kernels = []
    for e in events:
        if e.get("ph") != "X":
            continue
        cat = e.get("cat", "")
        name = e.get("name", "")
        args = e.get("args", {})
        ts = float(e.get("ts", 0))
        if cat == "user_annotation" and name.startswith(CASE_PREFIX):
            windows.append((ts, ts + float(e.get("dur", 0)), name[len(CASE_PREFIX):]))
        elif cat in ("cuda_runtime", "cuda_driver") and "correlation" in args:
            launch_ts[args["correlation"]] = ts
        elif cat == "kernel":
            kernels.append({"name": name, "dur_ns": float(e.get("dur", 0)) * 1000.0,
                            "correlation": args.get("correlation"),
                            "grid": list(args.get("grid", [])), "block": list(args.get("block", []))})
    out = {}
    for k in kernels:
        ts = launch_ts.get(k["correlation"])
        if ts is None:
            continue
        for begin, end, cid in windows:
            if begin <= ts <= end:
                out.setdefault(cid, []).append(k)
                break
    return out


def library_kernel_names(report):
    """Names of the kernels flopspy attributed to a cuBLAS/cuBLASLt call."""
    names = set()
    for trace in report.get("traces", []):
        for k in trace.get("kernels", []):
            if k.get("inside_library"):
                names.add(k.get("name", ""))
    return names


def compare_case(case, entries, case_kernels, lib_names, rel=0.02, abs_ns=2000.0):
    """One case: (row, failures). Checks calls, FLOPs against flop_counter, types, TF32, kernel
    count and GPU time per call against torch.profiler's kernels of the same calls."""
    cid = case["id"]
    row = {"case": cid, "op": case["op"], "dtype": case["dtype"],
           "shape": "%dx%dx%d" % (case["M"], case["N"], case["K"]) +
                    ("x%d" % case["batch"] if case["batch"] > 1 else "")}
    failures = []
    if "unsupported" in case:
        row["status"] = "unsupported: " + case["unsupported"]
        return row, failures
    if not entries:
        row["status"] = "no cuBLAS call seen"
        failures.append("%s: flopspy recorded no cuBLAS/cuBLASLt call of shape %s" % (cid,
                                                                                      row["shape"]))
        return row, failures
    calls = sum(e.get("calls", 0) for e in entries)
    flops = sum(e.get("flops", 0.0) for e in entries)
    gpu_ns = sum(e.get("gpu_ns", 0.0) for e in entries)
    kernels = sum(e.get("kernels", 0) for e in entries)
    row.update({"routines": sorted({e.get("routine", "") for e in entries}),
                "calls": calls, "flopspy_flops_per_call": flops / calls if calls else None,
                "epilogue_flops_per_call":
                    sum(e.get("epilogue_flops", 0.0) for e in entries) / calls if calls else None,
                "compute_types": sorted({e.get("compute_type", "") for e in entries}),
                "paths": sorted({e.get("path", "") for e in entries}),
                "flopspy_kernels_per_call": kernels / calls if calls else None,
                "flopspy_gpu_ns_per_call": round(gpu_ns / calls, 1) if calls else None})
    if calls != case["calls"]:
        failures.append("%s: %d calls made, flopspy recorded %d" % (cid, case["calls"], calls))
    expected_flops = case.get("flop_counter_flops_per_call") or 0
    if expected_flops == 0:
        # flop_counter has no formula for this op (e.g. _scaled_mm in some versions): 2MNK.
        expected_flops = 2.0 * case["M"] * case["N"] * case["K"] * case["batch"]
        row["flop_reference"] = "2MNK (flop_counter has no formula)"
    else:
        row["flop_reference"] = "torch.utils.flop_counter"
    row["reference_flops_per_call"] = expected_flops
    if calls and abs(flops / calls - expected_flops) > 1e-9 * expected_flops:
        failures.append("%s: flopspy %.6g FLOPs per call, %s %.6g" % (
            cid, flops / calls, row["flop_reference"], expected_flops))
    want_type = TYPE_OF_DTYPE.get(case["dtype"])
    types = {tuple(e.get("types", []))[:1] for e in entries}
    if want_type and types != {(want_type,)}:
        failures.append("%s: A's type %s, expected %s" % (cid, sorted(types), want_type))
    tf32 = any(e.get("compute_type") == "32F_FAST_TF32" or e.get("path") == "tf32_tensor"
               for e in entries)
    if case["dtype"] == "tf32" and not tf32:
        failures.append("%s: TF32 allowed, but flopspy's compute type is %s" % (
            cid, row["compute_types"]))
    if case["dtype"] == "fp32" and tf32:
        failures.append("%s: TF32 not allowed, but flopspy says %s" % (cid, row["compute_types"]))
    # torch.profiler's kernels of the case, limited to those flopspy puts inside cuBLAS: an
    # aten op may add kernels of its own (a bias copy, a cast) that are not part of the call.
    mine = [k for k in case_kernels if k["name"] in lib_names]
    row["torch_kernels_per_call"] = len(mine) / case["calls"]
    row["torch_other_kernels"] = len(case_kernels) - len(mine)
    torch_ns = sum(k["dur_ns"] for k in mine) / case["calls"]
    row["torch_gpu_ns_per_call"] = round(torch_ns, 1)
    if mine:
        longest = max(mine, key=lambda k: k["dur_ns"])
        row["torch_main_grid"] = longest.get("grid")
    if calls and kernels != len(mine):
        failures.append("%s: flopspy attributed %d kernels to the calls, torch.profiler ran %d "
                        "of those names in them" % (cid, kernels, len(mine)))
    if calls and mine:
        per_call = gpu_ns / calls
        row["gpu_diff_pct"] = round(100.0 * (per_call - torch_ns) / torch_ns, 2) if torch_ns else None
        if not within(per_call, torch_ns, rel, abs_ns):
            failures.append("%s: GPU time per call %.0f ns (flopspy), %.0f ns (sum of its kernels "
                            "in torch.profiler); allowed 2%% or 2 us" % (cid, per_call, torch_ns))
    elif calls:
        failures.append("%s: torch.profiler shows no kernel of the call" % cid)
    row["status"] = "ok" if not failures else "mismatch"
    row["diagnostics"] = [d.get("kind") for e in entries for d in e.get("diagnostics", [])]
    return row, failures


def wave_effect(entries_1792, entries_1793):
    """The seed note's 1792/1793 pair (docs/validation.md, cuBLAS): (numbers, failure or None).

    1792 is a multiple of every tile cuBLAS uses; 1793 needs one more row and column of tiles,
    mostly padding, and so more CTAs, which may spill into another wave. How many waves
    depends on the GPU's SM count and cuBLAS's tile, so the check asks the diagnostics for the
    cause, not for one outcome: the 1793 GEMM must carry a tile-quantization finding the 1792
    one lacks, or a larger wave-quantization loss."""
    def findings(entries, kind):
        return [d for e in entries for d in e.get("diagnostics", []) if d.get("kind") == kind]

    def lost(found):
        return max((d.get("lost_fraction") or 0.0 for d in found), default=0.0)

    def per_call_ns(entries):
        calls = sum(e.get("calls", 0) for e in entries)
        return sum(e.get("gpu_ns", 0.0) for e in entries) / calls if calls else None

    tile_a, tile_b = findings(entries_1792, "tile_quantization"), findings(entries_1793,
                                                                          "tile_quantization")
    wave_a, wave_b = findings(entries_1792, "wave_quantization"), findings(entries_1793,
                                                                          "wave_quantization")
    t_a, t_b = per_call_ns(entries_1792), per_call_ns(entries_1793)
    numbers = {
        "tile_lost_1792": lost(tile_a), "tile_lost_1793": lost(tile_b),
        "wave_lost_1792": lost(wave_a), "wave_lost_1793": lost(wave_b),
        "gpu_ns_per_call_1792": t_a, "gpu_ns_per_call_1793": t_b,
        "sentences_1792": [d.get("sentence") for d in tile_a + wave_a],
        "sentences_1793": [d.get("sentence") for d in tile_b + wave_b],
    }
    if t_a and t_b:
        numbers["time_ratio_1793_over_1792"] = round(t_b / t_a, 4)
        numbers["flop_ratio_1793_over_1792"] = round((1793.0 / 1792.0) ** 3, 4)
    if not entries_1792 or not entries_1793:
        return numbers, "wave pair: flopspy recorded no call for %s" % (
            "1792" if not entries_1792 else "1793")
    if (tile_b and not tile_a) or lost(wave_b) > lost(wave_a):
        return numbers, None
    return numbers, ("wave pair: the 1793 GEMM's diagnostics show neither a tile quantization "
                     "the 1792 one lacks nor a larger wave loss (tile %.3f vs %.3f, wave %.3f "
                     "vs %.3f)" % (lost(tile_b), lost(tile_a), lost(wave_b), lost(wave_a)))
