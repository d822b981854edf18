#!/usr/bin/env python3
"""Keeps the small real traces of a GPU validation for demo/traces/ (scripts/gpu-validate).

  demo_traces.py --work WORK --env ENV.json --out OUT [--max-bytes N]

Copies the trace folders that the `seed` (run A: flopspy, no counters) and `seed_mlp` (the
50-step training loop under flopspy, no counters) checks left in WORK into
demo-traces/<gpu>-<check>/, each with a provenance.txt (title, GPU, driver, CUDA, date, the
exact command, the check's status, the commit), and packs them into OUT/demo-traces.tar.gz:
one file, so the device tool's limit of 8 files back holds however many .fspy files a
recording has. A recording larger than --max-bytes (default 4 MiB) is left out and said so:
demo/traces/ keeps a few MB at most. Prints one line per recording.
"""

import argparse
import datetime
import json
import os
import re
import shutil
import sys
import tarfile
import tempfile

# check -> (trace folder and log of the run kept, under WORK/<check>/; title)
RECORDINGS = {
    "seed": ("traces_a", "a_flopspy.log",
             "the seed workload: 8192 x 8192 fp32 fill, add, mul, pow, sin, sqrt, sigmoid, log10, "
             "sum, three times each (tests/gpu/seed_workload.py)"),
    "seed_mlp": ("traces_flopspy", "flopspy.log",
                 "a training loop: 50 steps of a 4-layer MLP with AdamW, batch 4096, TF32 "
                 "(tests/gpu/seed_mlp_workload.py)"),
}
DEFAULT_MAX_BYTES = 4 << 20


def gpu_slug(name):
    """'NVIDIA H100 80GB HBM3' -> 'h100-80gb-hbm3': a folder name that says which GPU."""
    name = re.sub(r"^nvidia\s+", "", (name or "").strip(), flags=re.I)
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "gpu"


def first_command(log):
    """The command line a check's run() wrote as the first line of its log ('$ ...')."""
    try:
        with open(log, errors="replace") as f:
            line = f.readline().rstrip("\n")
    except OSError:
        return None
    return line[2:] if line.startswith("$ ") else None


def check_status(work, check):
    """pass/fail/skip/timeout from scripts/gpu-validate's order.txt, else 'unknown'."""
    try:
        with open(os.path.join(work, "order.txt")) as f:
            for line in f:
                words = line.split()
                if len(words) >= 2 and words[0] == check:
                    return words[1]
    except OSError:
        pass
    return "unknown"


def machine(env):
    gpus = env.get("gpus") if isinstance(env.get("gpus"), list) else []
    gpu = gpus[0] if gpus else {}
    smi = env.get("nvidia_smi_q") or {}
    torch = env.get("torch") if isinstance(env.get("torch"), dict) else {}
    date = env.get("date_utc") or datetime.datetime.now(
        datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "gpu": gpu.get("name") or smi.get("Product Name") or torch.get("device") or "unknown GPU",
        "driver": gpu.get("driver_version") or smi.get("Driver Version") or "unknown",
        "cuda": smi.get("CUDA Version") or "unknown",
        "torch": "%s (CUDA %s)" % (torch["torch"], torch.get("cuda")) if torch.get("torch")
        else "none",
        "date": date[:10],
        "date_utc": date,
        "commit": env.get("git_commit") or "unknown",
    }


def folder_bytes(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


def collect(work, env, out, max_bytes=DEFAULT_MAX_BYTES):
    """Writes OUT/demo-traces.tar.gz; returns [(name, kept, why)] for each recording found."""
    m = machine(env)
    results = []
    staging = tempfile.mkdtemp(prefix="demo-traces.")
    try:
        root = os.path.join(staging, "demo-traces")
        os.makedirs(root)
        for check, (folder, log, title) in RECORDINGS.items():
            src = os.path.join(work, check, folder)
            if not os.path.isdir(src) or not any(f.endswith(".fspy") for f in os.listdir(src)):
                continue
            name = "%s-%s" % (gpu_slug(m["gpu"]), check)
            size = folder_bytes(src)
            if size > max_bytes:
                results.append((name, False, "%d bytes, over the cap of %d: not kept (cap the "
                                    "workload, or raise --max-bytes)" % (size, max_bytes)))
                continue
            dst = os.path.join(root, name)
            os.makedirs(dst)
            files = sorted(f for f in os.listdir(src) if f.endswith(".fspy"))
            for f in files:
                shutil.copy2(os.path.join(src, f), os.path.join(dst, f))
            command = first_command(os.path.join(work, check, log)) or "unknown"
            lines = [
                "title: " + title,
                "gpu: " + m["gpu"],
                "driver: " + m["driver"],
                "cuda: " + m["cuda"],
                "pytorch: " + m["torch"],
                "date: " + m["date"],
                "recorded: " + m["date_utc"],
                "command: " + command,
                "recorded by: scripts/gpu-validate, check %s (status %s)" % (
                    check, check_status(work, check)),
                "commit: " + m["commit"],
                "files: " + ", ".join("%s (%d bytes)" % (f, os.path.getsize(
                    os.path.join(src, f))) for f in files),
            ]
            with open(os.path.join(dst, "provenance.txt"), "w") as f:
                f.write("\n".join(lines) + "\n")
            results.append((name, True, "%d file(s), %.2f MiB" % (len(files), size / 1048576.0)))
        if any(kept for _, kept, _ in results):
            with tarfile.open(os.path.join(out, "demo-traces.tar.gz"), "w:gz") as tar:
                tar.add(root, arcname="demo-traces")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", required=True)
    parser.add_argument("--env", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES)
    args = parser.parse_args()
    try:
        with open(args.env) as f:
            env = json.load(f)
    except (OSError, ValueError):
        env = {}
    results = collect(args.work, env, args.out, args.max_bytes)
    for name, kept, why in results:
        print("gpu-validate: demo trace %s: %s%s" % (name, "kept, " if kept else "", why))
    if not results:
        print("gpu-validate: no demo trace to keep (the seed and seed_mlp checks left none)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
