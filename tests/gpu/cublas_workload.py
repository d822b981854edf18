"""The cuBLAS workload of the cublas check: PyTorch matrix products, each case with its own shape.

  python3 cublas_workload.py --manifest CASES.json [--profile TRACE.json] [--repeat N]

Cases: mm, addmm, linear with and without bias, bmm and baddbmm, each in fp32, tf32, fp16 and
bf16; torch._scaled_mm in fp8 (e4m3) where the GPU and PyTorch support it; and square bf16 mm
of 1792 and 1793 (the seed note's wave-quantization pair). Every case has its own K and
(M, N), so a cuBLAS call is matched to its case by shape. Each case runs --repeat times inside
torch.utils.flop_counter.FlopCounterMode, whose count per call goes into the manifest, and
inside record_function("flopspy_case:<id>"), which marks its CPU span in a torch.profiler trace.
Deterministic: the same calls in the same order every run.
"""

import argparse
import contextlib
import json
import sys

DTYPES = ("fp32", "tf32", "fp16", "bf16")
OPS = ("mm", "addmm", "linear_bias", "linear", "bmm", "baddbmm")
CASE_PREFIX = "flopspy_case:"


def case_shapes():
    """(id, op, dtype, M, N, K, batch): distinct K and (M, N) for every case."""
    cases = []
    i = 0
    for dtype in DTYPES:
        for op in OPS:
            batch = 4 if op in ("bmm", "baddbmm") else 1
            cases.append(("%s_%s" % (op, dtype), op, dtype, 512 + 64 * i, 768 + 64 * i,
                          1024 + 32 * i, batch))
            i += 1
    cases.append(("scaled_mm_fp8", "scaled_mm", "fp8", 2048, 1536, 4096, 1))
    cases.append(("wave_1792", "mm", "bf16", 1792, 1792, 1792, 1))
    cases.append(("wave_1793", "mm", "bf16", 1793, 1793, 1793, 1))
    return cases


def make_call(torch, op, dtype, m, n, k, batch, g):
    dev = "cuda"
    if op == "scaled_mm":
        a = torch.randn(m, k, device=dev, generator=g).to(torch.float8_e4m3fn)
        # The second operand column-major, as _scaled_mm requires.
        b = torch.randn(n, k, device=dev, generator=g).to(torch.float8_e4m3fn).t()
        one = torch.tensor(1.0, device=dev)
        return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    t = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16,
         "bf16": torch.bfloat16}[dtype]

    def rand(*shape):
        return torch.randn(*shape, device=dev, generator=g).to(t)

    if op == "mm":
        a, b = rand(m, k), rand(k, n)
        return lambda: torch.mm(a, b)
    if op == "addmm":
        c, a, b = rand(m, n), rand(m, k), rand(k, n)
        return lambda: torch.addmm(c, a, b)
    if op == "linear_bias":
        x, w, bias = rand(m, k), rand(n, k), rand(n)
        return lambda: torch.nn.functional.linear(x, w, bias)
    if op == "linear":
        x, w = rand(m, k), rand(n, k)
        return lambda: torch.nn.functional.linear(x, w)
    if op == "bmm":
        a, b = rand(batch, m, k), rand(batch, k, n)
        return lambda: torch.bmm(a, b)
    if op == "baddbmm":
        c, a, b = rand(batch, m, n), rand(batch, m, k), rand(batch, k, n)
        return lambda: torch.baddbmm(c, a, b)
    raise ValueError(op)


def run_cases(torch, repeat):
    from torch.utils.flop_counter import FlopCounterMode
    g = torch.Generator(device="cuda")
    g.manual_seed(0)
    manifest = []
    for cid, op, dtype, m, n, k, batch in case_shapes():
        entry = {"id": cid, "op": op, "dtype": dtype, "M": m, "N": n, "K": k, "batch": batch,
                 "calls": repeat}
        # TF32 only for the tf32 cases: "high" lets fp32 products use TF32 tensor cores.
        torch.set_float32_matmul_precision("high" if dtype == "tf32" else "highest")
        try:
            call = make_call(torch, op, dtype, m, n, k, batch, g)
            with torch.autograd.profiler.record_function(CASE_PREFIX + cid):
                with FlopCounterMode(display=False) as counter:
                    for _ in range(repeat):
                        call()
                torch.cuda.synchronize()
            entry["flop_counter_flops_per_call"] = counter.get_total_flops() / repeat
        except (RuntimeError, TypeError, AttributeError, NotImplementedError) as e:
            # _scaled_mm on a GPU or PyTorch without fp8 support: the case is left out.
            torch.cuda.synchronize()
            entry["unsupported"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:300])
        manifest.append(entry)
    torch.set_float32_matmul_precision("highest")
    return manifest


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--manifest", required=True, help="write the cases and their counts here")
    parser.add_argument("--profile", help="write a torch.profiler Chrome trace here")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    import torch
    if not torch.cuda.is_available():
        print("cublas_workload: torch sees no CUDA device")
        return 77
    if args.profile:
        from torch.profiler import ProfilerActivity, profile
        ctx = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
    else:
        ctx = contextlib.nullcontext()
    with ctx as prof:
        manifest = run_cases(torch, args.repeat)
    if args.profile:
        prof.export_chrome_trace(args.profile)
    with open(args.manifest, "w") as f:
        json.dump({"torch": torch.__version__, "device": torch.cuda.get_device_name(0),
                   "repeat": args.repeat, "cases": manifest}, f, indent=1)
    print("cublas_workload: %d cases, %d unsupported" % (
        len(manifest), sum(1 for c in manifest if "unsupported" in c)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
