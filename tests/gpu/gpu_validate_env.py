#!/usr/bin/env python3
"""The machine a GPU validation ran on, as JSON (scripts/gpu-validate).

  gpu_validate_env.py --build-dir B --out ENV.json [--raw-dir DIR]

Reads only: nvidia-smi queries, library versions, the tools' own `flopspy info`, what the
carried programs need from the dynamic loader. Changes nothing on the GPU. The full outputs
(nvidia-smi -q, flopspy info, ldd) go to --raw-dir for the logs archive.
"""

import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gpu_check_common as common  # noqa: E402
import ncu_csv  # noqa: E402

SMI_FIELDS = ("name", "driver_version", "pci.bus_id", "memory.total", "clocks.sm",
              "clocks.max.sm", "clocks.mem", "clocks.max.mem", "power.limit",
              "persistence_mode", "mig.mode.current", "compute_mode", "temperature.gpu")
SMI_Q_KEYS = ("Product Name", "Driver Version", "CUDA Version", "Persistence Mode",
              "Compute Mode", "Current", "Virtualization Mode", "Serial Number", "VBIOS Version")


def capture(cmd, timeout=30, env=None):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout,
                           env=env, universal_newlines=True)
        return p.returncode, p.stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)


def save(raw_dir, name, text):
    if raw_dir:
        with open(os.path.join(raw_dir, name), "w") as f:
            f.write(text)


def torch_versions():
    code = ("import json, torch\n"
            "d = {'torch': torch.__version__, 'cuda': torch.version.cuda,\n"
            "     'cudnn': torch.backends.cudnn.version(),\n"
            "     'device': torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,\n"
            "     'sm_count': torch.cuda.get_device_properties(0).multi_processor_count\n"
            "         if torch.cuda.is_available() else None}\n"
            "try:\n    import triton; d['triton'] = triton.__version__\n"
            "except Exception as e:\n    d['triton'] = 'not importable: %s' % e\n"
            "print(json.dumps(d))\n")
    rc, out = capture([sys.executable, "-c", code], timeout=60)
    if rc == 0:
        try:
            return json.loads(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            pass
    return {"error": (out or "")[-500:]}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--raw-dir")
    args = parser.parse_args()
    if args.raw_dir:
        os.makedirs(args.raw_dir, exist_ok=True)
    tools = common.Tools(args.build_dir)
    env = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "host": platform.node(),
        "kernel": platform.release(),
        "machine": platform.machine(),
        "glibc": " ".join(platform.libc_ver()),
        "python": "%s (%s)" % (platform.python_version(), sys.executable),
        "cpus": os.cpu_count(),
        "build_dir": tools.root,
    }
    try:
        with open("/proc/cpuinfo") as f:
            env["cpu"] = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")),
                              None)
    except OSError:
        pass
    ok, device = common.cuda_device()
    env["cuda_device"] = device if ok else "none: " + device

    if shutil.which("nvidia-smi"):
        rc, out = capture(["nvidia-smi", "--query-gpu=" + ",".join(SMI_FIELDS),
                           "--format=csv,noheader"])
        if rc == 0:
            env["gpus"] = [dict(zip(SMI_FIELDS, (v.strip() for v in line.split(","))))
                           for line in out.strip().splitlines()]
        rc, out = capture(["nvidia-smi", "-q"])
        save(args.raw_dir, "nvidia-smi-q.txt", out)
        summary = {}
        for line in out.splitlines():
            if ":" in line:
                key, value = (s.strip() for s in line.split(":", 1))
                if key in SMI_Q_KEYS and value and key not in summary:
                    summary[key] = value
        env["nvidia_smi_q"] = summary
    else:
        env["gpus"] = "nvidia-smi not found"

    env["torch"] = torch_versions() if common.python_has("torch") else "not installed"
    for tool, flag in (("nvcc", "--version"), ("ncu", "--version")):
        path = ncu_csv.ncu_path() if tool == "ncu" else shutil.which(tool)
        if path:
            rc, out = capture([path, flag])
            env[tool] = {"path": path, "version": (out.strip().splitlines() or [""])[-1]}
        else:
            env[tool] = None

    if os.path.exists(tools.flopspy):
        rc, out = capture([tools.flopspy, "info"], env=tools.env(), timeout=45)
        save(args.raw_dir, "flopspy-info.txt", out)
        env["flopspy_info_exit"] = rc
        rc, out = capture([tools.flopspy, "--version"], env=tools.env())
        env["flopspy_version"] = out.strip()
    manifest = os.path.join(tools.root, "MANIFEST.txt")
    env["carry_manifest"] = os.path.exists(manifest)
    # What the carried programs need and this machine lacks.
    missing = {}
    ldd_text = []
    for folder in (tools.bin, tools.lib):
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if not os.path.isfile(path):
                continue
            rc, out = capture(["ldd", path], env=tools.env())
            ldd_text.append("== %s\n%s" % (path, out))
            lacking = [l.split("=>")[0].strip() for l in out.splitlines() if "not found" in l]
            if lacking:
                missing[name] = lacking
    save(args.raw_dir, "ldd.txt", "\n".join(ldd_text))
    env["libraries_not_found"] = missing
    rc, out = capture(["git", "rev-parse", "HEAD"], timeout=10)
    env["git_commit"] = out.strip() if rc == 0 else os.environ.get("FLOPSPY_GIT_COMMIT",
                                                                   "unknown (no git here)")
    with open(args.out, "w") as f:
        json.dump(env, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
