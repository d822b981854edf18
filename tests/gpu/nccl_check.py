#!/usr/bin/env python3
"""Issue 21: NCCL calls recorded by the hooks, under PyTorch's torch.distributed.

  nccl_check.py --build-dir B --out O [--timeout S]

Runs one process as a one-rank NCCL group (world size 1: one GPU is enough) that all-reduces,
all-gathers, reduce-scatters and broadcasts tensors of several sizes, then checks
flopspy-report --json (docs/nccl.md):
  - every collective PyTorch made is one record of its kind, with nccl-tests' size S =
    the elements x element size (all-gather: the output; reduce-scatter: the input), the rank
    count 1 and rank 0: the calls per collective and size equal the manifest's;
  - the communication section counts those calls and S summed;
  - one rank has no peer: bus bandwidth is 0 by nccl-tests' factors (2(n-1)/n), and NCCL may run
    no kernel at all (a copy, or nothing in place); the kernels it did run are recorded, not
    judged. Two ranks need two GPUs: the two-rank check is owed (docs/validation.md).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gpu_check_common as common  # noqa: E402

SIZES = (1024, 262144, 4194304)  # float elements per call
REPEAT = 3


def workload(manifest_path):
    """The collectives under flopspy; writes what was called."""
    import json
    import socket

    import torch
    import torch.distributed as dist

    if not torch.cuda.is_available() or not dist.is_nccl_available():
        print("nccl_check: no CUDA device or no NCCL in this PyTorch")
        return common.SKIP
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    torch.cuda.set_device(0)
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:%d" % port, rank=0,
                            world_size=1)
    calls = []
    for n in SIZES:
        x = torch.ones(n, device="cuda")
        out = torch.empty(n, device="cuda")
        for _ in range(REPEAT):
            dist.all_reduce(x)
            dist.all_gather_into_tensor(out, x)
            dist.reduce_scatter_tensor(out, x)
            dist.broadcast(x, src=0)
        torch.cuda.synchronize()
        for collective in ("all_reduce", "all_gather", "reduce_scatter", "broadcast"):
            calls.append({"collective": collective, "bytes": 4 * n, "calls": REPEAT})
    dist.destroy_process_group()
    with open(manifest_path, "w") as f:
        nccl = ".".join(map(str, torch.cuda.nccl.version()))
        json.dump({"torch": torch.__version__, "nccl": nccl, "calls": calls}, f, indent=1)
    return common.PASS


def compare(manifest, report):
    """(table, failures): the report's NCCL rows of one rank against the manifest's calls."""
    comm = [t.get("communication") for t in report.get("traces", []) if t.get("communication")]
    if not comm:
        return [], ["no communication section: the hooks saw no NCCL call"]
    rows = [r for c in comm for r in c.get("rows", [])]
    table, failures = [], []
    for want in manifest["calls"]:
        got = [r for r in rows if r.get("collective") == want["collective"] and
               r.get("bytes") == want["bytes"] and r.get("nranks") == 1]
        calls = sum(r.get("calls", 0) for r in got)
        table.append({"collective": want["collective"], "bytes": want["bytes"],
                      "calls": calls, "expected_calls": want["calls"],
                      "gpu_ns": sum(r.get("gpu_ns", 0) for r in got)})
        # PyTorch may add calls of its own (a barrier, a warm-up): at least the calls made.
        if calls < want["calls"]:
            failures.append("%s of %d bytes: %d calls recorded on one rank, %d made"
                            % (want["collective"], want["bytes"], calls, want["calls"]))
    return table, failures


def main():
    parser = common.standard_arguments(argparse.ArgumentParser(description=__doc__))
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args()
    check, tools = common.begin(args, "nccl", "NCCL collectives under torch.distributed",
                                needs_torch=True)
    manifest, report = common.run_manifest_workload(check, tools, __file__, [], args.timeout)
    check.number("torch", manifest.get("torch"))
    check.number("nccl", manifest.get("nccl"))
    table, failures = compare(manifest, report)
    for f in failures:
        check.fail(f)
    check.table("collectives", table)
    comm = [t.get("communication") or {} for t in report.get("traces", [])]
    check.number("communication_calls", sum(c.get("calls", 0) for c in comm))
    check.number("communication_gpu_ns", sum(c.get("gpu_ns", 0) for c in comm))
    check.finish()


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--workload":
        sys.exit(workload(sys.argv[2]))
    main()
