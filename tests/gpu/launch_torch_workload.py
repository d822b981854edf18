"""The PyTorch and Triton workloads of the launch check (launch_check.py, docs/validation.md).

Deterministic: the same kernels, in the same order, with the same shapes, every run, so that a
run under flopspy and a run under torch.profiler can be compared kernel by kernel.

  python3 launch_torch_workload.py --part torch|triton [--profile TRACE.json]

--profile wraps the whole workload (every kernel it launches, tensor creation included) in
torch.profiler with CUDA activities and writes its Chrome trace.
"""

import argparse
import contextlib
import json
import sys


def torch_part(torch):
    dev = "cuda"
    g = torch.Generator(device=dev)
    g.manual_seed(0)
    # Elementwise ops on 4M floats, five times each: vectorised, unrolled and reduce kernels.
    x = torch.randn(1 << 22, device=dev, generator=g)
    y = torch.randn(1 << 22, device=dev, generator=g)
    for _ in range(5):
        z = x + y
        z = z * 0.5
        z = torch.sin(z)
        z = torch.sigmoid(z)
        z = torch.where(z > 0.5, z, y)
        z.mul_(x)
        s = z.sum()
        m = x.abs().max()
    # Matrix products, fp32 and bf16.
    a = torch.randn(1024, 1024, device=dev, generator=g)
    b = torch.randn(1024, 1024, device=dev, generator=g)
    for _ in range(5):
        c = a @ b
        d = a.bfloat16() @ b.bfloat16()
    # A small MLP training loop: forward, loss, backward, Adam.
    model = torch.nn.Sequential(
        torch.nn.Linear(512, 1024), torch.nn.ReLU(),
        torch.nn.Linear(1024, 1024), torch.nn.GELU(),
        torch.nn.Linear(1024, 10)).to(dev)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, device=dev, generator=g) * 0.02)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    inputs = torch.randn(256, 512, device=dev, generator=g)
    labels = torch.randint(0, 10, (256,), device=dev, generator=g)
    loss_fn = torch.nn.CrossEntropyLoss()
    for _ in range(20):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(inputs), labels)
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    return {"checksum": float(s + m + c.sum() + d.float().sum() + loss)}


def triton_part(torch):
    import triton
    import triton.language as tl

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
                 mask=mask)

    @triton.jit
    def scale_shift_kernel(x_ptr, out_ptr, n, scale, shift, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * scale + shift, mask=mask)

    dev = "cuda"
    n = 1 << 22
    g = torch.Generator(device=dev)
    g.manual_seed(0)
    x = torch.randn(n, device=dev, generator=g)
    y = torch.randn(n, device=dev, generator=g)
    out = torch.empty_like(x)
    block = 1024  # fixed: no autotuning, so the same launches every run
    grid = (triton.cdiv(n, block),)
    for _ in range(20):
        add_kernel[grid](x, y, out, n, BLOCK=block)
        scale_shift_kernel[grid](out, out, n, 0.5, 1.0, BLOCK=block)
    torch.cuda.synchronize()
    expected = (x + y) * 0.5 + 1.0
    if not torch.allclose(out, expected):
        raise SystemExit("launch_torch_workload: the Triton kernels computed a wrong result")
    return {"checksum": float(out.sum())}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", choices=("torch", "triton"), required=True)
    parser.add_argument("--profile", help="write a torch.profiler Chrome trace here")
    args = parser.parse_args()

    import torch
    if not torch.cuda.is_available():
        print("launch_torch_workload: torch sees no CUDA device")
        return 77
    work = torch_part if args.part == "torch" else triton_part
    if args.profile:
        from torch.profiler import ProfilerActivity, profile
        ctx = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
    else:
        ctx = contextlib.nullcontext()
    with ctx as prof:
        result = work(torch)
    if args.profile:
        prof.export_chrome_trace(args.profile)
    print(json.dumps(dict(result, part=args.part, torch=torch.__version__)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
