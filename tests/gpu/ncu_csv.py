"""Running Nsight Compute (ncu) for the comparison runs, and reading its CSV (the seed checks).

Never changes the GPU's clocks (--clock-control none: the checks leave GPU settings alone).
The metrics are Nsight Compute's own for FP32 FLOPs and DRAM traffic (docs/cuda-notes.md,
"Nsight Compute's FLOP counts").
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


def _template_args(text):
    """The top-level arguments of the template argument list `text` starts with ("<a, b<c>>")."""
    args, depth, start = [], 0, 1
    for i, ch in enumerate(text):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
            if depth == 0:
                args.append(text[start:i])
                return args
        elif ch == "," and depth == 1:
            args.append(text[start:i])
            start = i + 1
    return args


def loose_key(name):
    """What identifies an ATen kernel across demanglers: its name and the first type or function
    named in its template arguments, without namespaces. Nsight Compute 2025.3 prints
    "vectorized_elementwise_kernel<4, sin_kernel_cuda(TensorIteratorBase &)::[lambda() (instance
    2)]..." where abi::__cxa_demangle gives "at::native::vectorized_elementwise_kernel<4,
    at::native::sin_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}...": both are
    "vectorized_elementwise_kernel:sin_kernel_cuda"."""
    s = re.sub(r"^\s*void\s+", "", name or "")
    s = s.replace("(anonymous namespace)::", "").replace("unnamed>::", "")
    s = re.sub(r"\b[A-Za-z_]\w*::", "", s)
    base = re.match(r"[A-Za-z_]\w*", s)
    if not base:
        return None
    rest = s[base.end():].lstrip()
    if not rest.startswith("<"):
        return base.group(0)
    for arg in _template_args(rest):
        m = re.match(r"\s*(?:void\s+)?([A-Za-z_]\w*)", arg)
        if m and m.group(1) not in ("float", "double", "int", "unsigned", "long", "bool", "char",
                                    "short", "half", "true", "false"):
            return base.group(0) + ":" + m.group(1)
    return base.group(0)


def _dims(value):
    """"(65536, 1, 1)" or [65536, 1, 1] -> (65536, 1, 1); None if unreadable."""
    if isinstance(value, (list, tuple)):
        return tuple(int(v) for v in value)
    nums = re.findall(r"\d+", value or "")
    return tuple(int(v) for v in nums) if nums else None


def find_kernel(rows, name, grid, block):
    """The first ncu row of the kernel flopspy calls `name` with this launch shape: by the whole
    name where the demanglers agree, else by loose_key and the same grid and block."""
    want = normalize_name(name)
    for row in rows:
        if normalize_name(row["name"]) == want:
            return row
    key = loose_key(name)
    if key is None:
        return None
    for row in rows:
        if (loose_key(row["name"]) == key and _dims(row["grid"]) == _dims(grid) and
                _dims(row["block"]) == _dims(block)):
            return row
    return None


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
