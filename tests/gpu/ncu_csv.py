"""Running Nsight Compute (ncu) for the comparison runs, and reading its CSV (5.6).

Never changes the GPU's clocks (--clock-control none: the checks leave GPU settings alone).
The metrics are the ones facts/cuda.md §5.4 gives for FP32 FLOPs and DRAM traffic.
"""

import csv
import glob
import io
import os
import re
import shutil

METRICS = (
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
)


def ncu_path():
    """ncu on PATH, else beside nvcc or in NVIDIA's default install folders (newest first)."""
    found = shutil.which("ncu")
    if found:
        return found
    candidates = []
    nvcc = shutil.which("nvcc")
    if nvcc:
        candidates.append(os.path.join(os.path.dirname(os.path.realpath(nvcc)), "ncu"))
    candidates.append("/usr/local/cuda/bin/ncu")
    candidates += sorted(glob.glob("/opt/nvidia/nsight-compute/*/ncu"), reverse=True)
    candidates += sorted(glob.glob("/usr/local/cuda*/nsight-compute*/ncu"), reverse=True)
    return next((c for c in candidates if os.access(c, os.X_OK)), None)


def ncu_command(ncu, log_file, cmd):
    return [ncu, "--clock-control", "none", "--print-units", "base", "--print-kernel-base",
            "demangled", "--csv", "--log-file", log_file, "--metrics", ",".join(METRICS)] + list(cmd)


def normalize_name(name):
    """Kernel names as ncu and abi::__cxa_demangle print them differ in spacing ("char *",
    "> >") and integer suffixes ("2ul"): compare them without either."""
    return re.sub(r"(\d+)(?:ul|u|l)\b", r"\1", re.sub(r"\s+", "", name or ""))


def _value(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def parse(text):
    """ncu --csv output -> list of kernels in profiling order:
    {id, name, grid, block, metrics: {name: value}, dram_bytes, fp32_flops}."""
    lines = [l for l in text.splitlines() if l.startswith('"')]
    if not lines:
        return []
    kernels = {}
    order = []
    for row in csv.DictReader(io.StringIO("\n".join(lines))):
        kid = row.get("ID")
        if kid is None or row.get("Metric Name") is None:
            continue
        if kid not in kernels:
            kernels[kid] = {"id": kid, "name": row.get("Kernel Name", ""),
                            "grid": row.get("Grid Size", ""), "block": row.get("Block Size", ""),
                            "metrics": {}}
            order.append(kid)
        kernels[kid]["metrics"][row["Metric Name"]] = _value(row.get("Metric Value", ""))
    out = []
    for kid in order:
        k = kernels[kid]
        m = k["metrics"]
        read, write = m.get("dram__bytes_read.sum"), m.get("dram__bytes_write.sum")
        k["dram_bytes"] = read + write if read is not None and write is not None else None
        parts = [m.get(METRICS[2]), m.get(METRICS[3]), m.get(METRICS[4])]
        k["fp32_flops"] = (parts[0] + parts[1] + 2 * parts[2]
                           if all(p is not None for p in parts) else None)
        out.append(k)
    return out


def problem(text):
    """ncu's own error lines (==ERROR== / ==WARNING== about permissions or the profiler)."""
    found = [l.strip() for l in text.splitlines() if l.startswith("==ERROR==")]
    return "; ".join(found[:3])
