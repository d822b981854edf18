#!/usr/bin/env python3
"""Issue 20: attention kernels in the catalog, checked against torch.utils.flop_counter.

  attention_check.py --build-dir B --out O [--timeout S]

Runs a GPT-style block (LayerNorm, QKV projection, scaled_dot_product_attention, output
projection, MLP) in bf16, forward and backward, six times: SDPA forced to the flash backend, to
the memory-efficient backend and to cuDNN's, each causal and not, each case with its own sequence
length so its kernels carry their own shape. The same SDPA calls run under FlopCounterMode (outside
flopspy) for the reference. Checked per case, from flopspy-report --json:
  - the attention forward and backward kernels of that shape have catalog FLOPs, per launch
    equal to flop_counter's forward and backward SDPA FLOPs, causal cases times
    (s + 1) / (2 s) (docs/kernel-catalog.md, "Attention": unmasked pairs s (s + 1) / 2, where
    flop_counter counts s^2);
  - the cuDNN cases' graphs (cudnnBackendExecute, docs/cudnn-hooks.md) hold flop_counter's
    forward and backward FLOPs, causal ones in full (cuDNN's masks are not recognised);
  - every attention kernel of the run has a known FLOP source (helpers count 0), and the
    share of attention GPU time with known FLOPs is recorded.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gpu_check_common as common  # noqa: E402

B, H, D = 4, 16, 64
CASES = [  # (id, backend, causal, sequence length)
    ("flash", "flash", False, 512),
    ("flash_causal", "flash", True, 640),
    ("efficient", "efficient", False, 768),
    ("efficient_causal", "efficient", True, 896),
    ("cudnn", "cudnn", False, 1024),
    ("cudnn_causal", "cudnn", True, 1152),
]


def workload(manifest_path, repeat):
    """The block under flopspy (and flop_counter outside it); writes the manifest."""
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.utils.flop_counter import FlopCounterMode

    if not torch.cuda.is_available():
        print("attention_check: torch sees no CUDA device")
        return common.SKIP
    torch.manual_seed(0)
    dev, dt = "cuda", torch.bfloat16
    width = H * D
    backends = {"flash": SDPBackend.FLASH_ATTENTION, "efficient": SDPBackend.EFFICIENT_ATTENTION}
    if hasattr(SDPBackend, "CUDNN_ATTENTION"):
        backends["cudnn"] = SDPBackend.CUDNN_ATTENTION

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = torch.nn.LayerNorm(width)
            self.qkv = torch.nn.Linear(width, 3 * width)
            self.proj = torch.nn.Linear(width, width)
            self.ln2 = torch.nn.LayerNorm(width)
            self.mlp = torch.nn.Sequential(torch.nn.Linear(width, 4 * width), torch.nn.GELU(),
                                           torch.nn.Linear(4 * width, width))

        def forward(self, x, causal):
            b, s, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(width, dim=-1)
            q, k, v = (t.view(b, s, H, D).transpose(1, 2) for t in (q, k, v))
            a = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            x = x + self.proj(a.transpose(1, 2).reshape(b, s, width))
            return x + self.mlp(self.ln2(x))

    block = Block().to(dev, dt)
    cases = []
    for case_id, backend, causal, s in CASES:
        x = torch.randn(B, s, width, device=dev, dtype=dt, requires_grad=True)
        entry = {"id": case_id, "backend": backend, "causal": causal, "b": B, "h": H, "d": D,
                 "s": s}
        if backend not in backends:
            entry["unsupported"] = "this PyTorch has no SDPBackend.%s" % backend.upper()
            cases.append(entry)
            continue
        try:
            with sdpa_kernel([backends[backend]]):
                for _ in range(repeat):
                    block(x, causal).float().pow(2).mean().backward()
                torch.cuda.synchronize()
                q = torch.randn(B, H, s, D, device=dev, dtype=dt, requires_grad=True)
                k = torch.randn_like(q, requires_grad=True)
                v = torch.randn_like(q, requires_grad=True)
                with FlopCounterMode(display=False) as counter:
                    F.scaled_dot_product_attention(q, k, v, is_causal=causal).sum().backward()
        except RuntimeError as e:  # the backend is not available on this GPU / build
            entry["unsupported"] = str(e)[:300]
            cases.append(entry)
            continue
        fwd = bwd = 0
        for op, flops in counter.get_flop_counts().get("Global", {}).items():
            name = str(op)
            if "scaled_dot_product" in name:
                if "backward" in name:
                    bwd += flops
                else:
                    fwd += flops
        entry.update({"flop_counter_forward": fwd, "flop_counter_backward": bwd,
                      "launches": repeat})
        cases.append(entry)
    with open(manifest_path, "w") as f:
        json.dump({"torch": torch.__version__, "cases": cases}, f, indent=1)
    return common.PASS


def shape_prefix(case):
    return "b=%d,h=%d,h_k=%d,s_q=%d,s_k=%d,d=%d," % (case["b"], case["h"], case["h"], case["s"],
                                                     case["s"], case["d"])


def per_launch_flops(kernels):
    flops = sum(k.get("all", {}).get("flops", 0.0) for k in kernels)
    launches = sum(k.get("all", {}).get("launches_with_flops", 0) for k in kernels)
    return flops / launches if launches else None


def compare(case, attention_kernels):
    """(row, failures) for one case."""
    row = {"case": case["id"], "s": case["s"]}
    if "unsupported" in case:
        row["status"] = "backend unavailable"
        return row, []
    s = case["s"]
    factor = (s + 1) / (2.0 * s) if case["causal"] else 1.0
    mine = [k for k in attention_kernels if (k.get("shape") or "").startswith(shape_prefix(case))]
    failures = []
    for functor, ref_key in (("attention_forward", "flop_counter_forward"),
                             ("attention_backward", "flop_counter_backward")):
        kernels = [k for k in mine if k.get("functor") == functor]
        expected = case[ref_key] * factor
        got = per_launch_flops(kernels)
        row[functor] = got
        row[functor + "_expected"] = expected
        if not kernels:
            failures.append("%s: no %s kernel with shape %s... in the report"
                            % (case["id"], functor, shape_prefix(case)))
        elif got is None:
            failures.append("%s: %s kernels without catalog FLOPs (%s)"
                            % (case["id"], functor, kernels[0].get("name", "")[:100]))
        elif abs(got - expected) > 1e-6 * expected:
            failures.append("%s: %s FLOPs per launch %.6g, flop_counter%s %.6g"
                            % (case["id"], functor, got, " x (s+1)/(2s)" if factor != 1 else "",
                               expected))
    return row, failures


def compare_cudnn(case, library_rows):
    """(row, failures) for a cuDNN SDPA case: its graphs (cudnnBackendExecute rows whose main
    matmul is s x s, or whose SDPA node is s_q x s_k = s x s) hold flop_counter's forward and backward FLOPs per launch, causal or not
    (cuDNN's masks are counted in full: docs/cudnn-hooks.md, "Attention")."""
    row = {"case": case["id"], "s": case["s"]}
    if "unsupported" in case:
        row["status"] = "backend unavailable"
        return row, []
    s = case["s"]
    # A graph PyTorch builds from matmuls names its main one; a fused SDPA node its sizes.
    marks = ("matmul %dx%d" % (s, s), "s_q%d s_k%d" % (s, s))
    mine = [r for r in library_rows if r.get("family") == "dnn_graph" and
            any(m in (r.get("shape_text") or "") for m in marks)]
    # The block's launches, and the flop counter's own pass, which runs under flopspy too.
    runs = case["launches"] + 1
    expected = (case["flop_counter_forward"] + case["flop_counter_backward"]) * runs
    got = sum(r.get("flops", 0) for r in mine)
    row.update({"graphs": len(mine), "flops": got, "expected": expected})
    if not mine:
        return row, ["%s: no cuDNN graph with an %dx%d matmul in the report" % (case["id"], s, s)]
    failures = []
    if abs(got - expected) > 1e-6 * expected:
        failures.append("%s: cuDNN graphs' FLOPs %.6g, flop_counter's forward and backward "
                        "x %d runs %.6g" % (case["id"], got, runs, expected))
    for r in mine:
        if r.get("source") != "analytic" or not r.get("kernels"):
            failures.append("%s: cuDNN graph %s without analytic FLOPs or kernels"
                            % (case["id"], r.get("shape_text")))
    return row, failures


def main():
    parser = common.standard_arguments(argparse.ArgumentParser(description=__doc__))
    parser.add_argument("--timeout", type=float, default=240)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    check, tools = common.begin(args, "attention",
                                "attention kernels: catalog FLOPs vs flop_counter",
                                needs_torch=True)
    manifest, report = common.run_manifest_workload(check, tools, __file__,
                                                    ["--repeat", str(args.repeat)], args.timeout)
    check.number("torch", manifest.get("torch"))
    kernels = [k for t in report.get("traces", []) for k in t.get("kernels", [])]
    attention = [k for k in kernels if k.get("family") == "attention"]
    library_rows = [r for t in report.get("traces", []) for r in t.get("library_calls", [])]
    rows = []
    for case in manifest["cases"]:
        if case["backend"] == "cudnn":
            row, failures = compare_cudnn(case, library_rows)
        else:
            row, failures = compare(case, attention)
        rows.append(row)
        for f in failures:
            check.fail(f)
    check.table("cases", rows)
    total = sum(k.get("gpu_ns", 0) for k in attention)
    known = sum(k.get("gpu_ns", 0) for k in attention
                if k.get("all", {}).get("flops_source", "unknown") != "unknown")
    check.number("attention_gpu_ns", total)
    check.number("attention_known_flops_share", round(known / total, 4) if total else None)
    unknown = sorted({(k.get("name") or "")[:120] for k in attention
                      if k.get("all", {}).get("flops_source", "unknown") == "unknown"})
    for name in unknown:
        check.fail("attention kernel without catalog FLOPs: " + name)
    check.finish()


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--workload":
        repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 2
        sys.exit(workload(sys.argv[2], repeat))
    main()
