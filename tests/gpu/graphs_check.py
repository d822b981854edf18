#!/usr/bin/env python3
"""Issue 21: CUDA graphs recorded node by node and their replays joined (docs/cuda-graphs.md).

  graphs_check.py --build-dir B --out O [--timeout S] [--no-compile]

The workload, under flopspy:
  - captures an MLP's forward (two GEMMs and a GELU) with torch.cuda.graph and replays it
    REPLAYS times;
  - unless --no-compile, runs a one-layer transformer block compiled with
    torch.compile(mode="reduce-overhead") for REPLAYS steps (inductor captures it itself).
A reference pass without flopspy replays the same captured MLP under torch.profiler, which
counts the kernels of each replay. The check wants:
  - one executable graph made by capture whose replays equal REPLAYS and whose kernels per replay
    equal torch.profiler's, every replayed kernel joined to a node;
  - the MLP's GEMM FLOPs (its eager calls, and the calls made during capture counted at each
    replay) equal to FlopCounterMode's count of the forward times the forwards run;
  - for the compiled block: replays recorded, every replayed kernel joined (its kernels per
    replay are inductor's: not compared).
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gpu_check_common as common  # noqa: E402

REPLAYS = 20
# m x n x k of both MLP GEMMs is BATCH x WIDTH x HIDDEN, which no GEMM of the compiled block
# (1024 tokens, width 256) has: the check finds the MLP's cuBLAS rows by it.
BATCH, WIDTH, HIDDEN = 40, 1024, 4096
EAGER_FORWARDS = 4  # FlopCounterMode's and the three warm-up passes before capture


def mlp_and_input():
    import torch

    torch.manual_seed(0)
    torch.backends.cuda.matmul.allow_tf32 = False
    model = torch.nn.Sequential(torch.nn.Linear(WIDTH, HIDDEN), torch.nn.GELU(),
                                torch.nn.Linear(HIDDEN, WIDTH)).cuda()
    return model, torch.randn(BATCH, WIDTH, device="cuda")


def captured(model, x):
    """The forward captured after warm-up on a side stream, as PyTorch's docs do."""
    import torch

    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream), torch.no_grad():
        for _ in range(3):
            model(x)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.no_grad(), torch.cuda.graph(graph):
        model(x)
    torch.cuda.synchronize()
    return graph


def workload(manifest_path, compile_block):
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    if not torch.cuda.is_available():
        print("graphs_check: no CUDA device")
        return common.SKIP
    model, x = mlp_and_input()
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        model(x)
    graph = captured(model, x)
    for _ in range(REPLAYS):
        graph.replay()
    torch.cuda.synchronize()
    manifest = {"torch": torch.__version__, "replays": REPLAYS,
                "forward_flops": counter.get_total_flops(), "compiled": None}
    if compile_block:
        try:
            block = torch.nn.TransformerEncoderLayer(256, 4, 1024, batch_first=True).cuda().eval()
            step = torch.compile(block, mode="reduce-overhead")
            tokens = torch.randn(8, 128, 256, device="cuda")
            with torch.no_grad():
                for _ in range(REPLAYS + 3):  # inductor records the graph after warm-up steps
                    step(tokens)
            torch.cuda.synchronize()
            manifest["compiled"] = {"steps": REPLAYS + 3}
        except Exception as e:  # noqa: BLE001: the compiler is optional here
            manifest["compiled"] = {"error": str(e)[:300]}
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1)
    return common.PASS


def reference(out_path):
    """Kernels per replay as torch.profiler sees them, without flopspy."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    model, x = mlp_and_input()
    graph = captured(model, x)
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(REPLAYS):
            graph.replay()
        torch.cuda.synchronize()
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA and
               "memcpy" not in e.name.lower() and "memset" not in e.name.lower()]
    with open(out_path, "w") as f:
        json.dump({"kernels": len(kernels), "replays": REPLAYS}, f)
    return common.PASS


def judge(manifest, ref, report):
    """(numbers, failures, notes): the report's graphs against the manifest and the reference."""
    numbers, failures, notes = {}, [], []
    graphs = [g for t in report.get("traces", []) for g in t.get("cuda_graphs", [])]
    mlp = [g for g in graphs if g.get("made_by") == "capture" and g.get("replays") == REPLAYS]
    if not mlp:
        failures.append("no captured graph replayed %d times: %s" % (REPLAYS, graphs))
    else:
        g = mlp[0]
        numbers["kernels_per_replay"] = g.get("kernels_per_replay")
        numbers["profiler_kernels_per_replay"] = ref.get("kernels", 0) / REPLAYS
        if g.get("kernel_executions") != ref.get("kernels"):
            failures.append("replayed kernels: flopspy %s, torch.profiler %s"
                            % (g.get("kernel_executions"), ref.get("kernels")))
        if g.get("unjoined_kernel_executions") != 0:
            failures.append("%s replayed kernels joined no node"
                            % g.get("unjoined_kernel_executions"))
    # The MLP's cuBLAS rows: its eager calls, and its captured calls counted at each replay.
    libs = [lib for t in report.get("traces", []) for lib in t.get("library_calls", [])
            if lib.get("m", 0) * lib.get("n", 0) * lib.get("k", 0) == BATCH * WIDTH * HIDDEN]
    gemm_flops = sum(lib.get("flops", 0) for lib in libs)
    want = manifest.get("forward_flops", 0) * (REPLAYS + EAGER_FORWARDS)
    numbers["mlp_gemm_flops"] = gemm_flops
    numbers["flop_counter_flops"] = want
    numbers["mlp_captured_calls"] = sum(lib.get("captured_calls", 0) for lib in libs)
    if numbers["mlp_captured_calls"] < 2:
        failures.append("the MLP's two GEMMs were not recorded as captured calls: %s" % libs)
    if not (want > 0 and abs(gemm_flops - want) <= 1e-6 * want):
        failures.append("the MLP's GEMM FLOPs %g, FlopCounterMode's %g (%d eager forwards and "
                        "%d replays)" % (gemm_flops, want, EAGER_FORWARDS, REPLAYS))
    compiled = manifest.get("compiled")
    if compiled and "error" not in compiled:
        others = [g for g in graphs if g not in mlp[:1]]
        if not any(g.get("replays", 0) > 0 for g in others):
            failures.append("the compiled block's graph was not replayed in the trace")
        for g in others:
            if g.get("unjoined_kernel_executions", 0) != 0:
                failures.append("graph #%s: %s replayed kernels joined no node"
                                % (g.get("exec"), g.get("unjoined_kernel_executions")))
    elif compiled:
        notes.append("torch.compile failed: " + compiled["error"])
    return numbers, failures, notes


def main():
    parser = common.standard_arguments(argparse.ArgumentParser(description=__doc__))
    parser.add_argument("--timeout", type=float, default=150)
    parser.add_argument("--no-compile", action="store_true")
    args = parser.parse_args()
    check, tools = common.begin(args, "graphs", "CUDA graphs: captured, built, replayed",
                                needs_torch=True)
    extra = ["--no-compile"] if args.no_compile else []
    manifest, report = common.run_manifest_workload(check, tools, __file__, extra, args.timeout)
    ref_path = check.path("reference.json")
    r = common.run([sys.executable, os.path.abspath(__file__), "--reference", ref_path],
                   check.path("reference.log"), timeout=args.timeout)
    check.expect(r.rc == 0, "the torch.profiler reference failed: %s" % r.describe())
    ref = common.load_json(ref_path) or {}
    numbers, failures, notes = judge(manifest, ref, report)
    for key, value in numbers.items():
        check.number(key, value)
    check.table("graphs", [g for t in report.get("traces", []) for g in t.get("cuda_graphs", [])])
    for f in failures:
        check.fail(f)
    for n in notes:
        check.note(n)
    check.finish()


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--workload":
        sys.exit(workload(sys.argv[2], "--no-compile" not in sys.argv))
    if len(sys.argv) > 2 and sys.argv[1] == "--reference":
        sys.exit(reference(sys.argv[2]))
    main()
