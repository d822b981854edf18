#!/usr/bin/env python3
"""The workloads of the overhead suite (overhead_suite.py), seeded and deterministic.

  python3 overhead_workloads.py --workload NAME [--steps N] [--warmup N] [--profile torch]
                                [--result FILE]

  decode  a small GPT (4 layers, d 512, 8 heads, vocab 8192) generating 160 tokens at batch 1,
          eager, with a KV cache: about 70 launches a token, each too short to hide its launch
          (launch bound)
  mlp     a small MLP training loop (1024 -> 4096 -> 4096 -> 1024 -> 1000, batch 1024, GELU,
          cross-entropy, AdamW; fp32 with TF32)
  gpt     a GPT-style training step (8 layers, d 1024, 16 heads, sequence 1024, batch 8, vocab
          32768; bf16 autocast, scaled_dot_product_attention, fused AdamW): GEMMs dominate
  graphs  the decode model's one-token step at a fixed cache length, captured once as a CUDA
          graph and replayed

A step ends with torch.cuda.synchronize(), so its time is the step's own. FILE (JSON) gets the
milliseconds of every measured step, the warm-up steps' count, the seconds of the whole script
and the process's peak resident memory. --profile torch runs the warm-up and the measured steps
inside torch.profiler.profile with CPU and CUDA activities and nothing else (no export).
Exit 77 when PyTorch sees no GPU.
"""

import argparse
import json
import resource
import sys
import time

START = time.monotonic()

WORKLOADS = ("decode", "mlp", "gpt", "graphs")
DEFAULT_STEPS = {"decode": 160, "mlp": 40, "gpt": 12, "graphs": 400}
DEFAULT_WARMUP = {"decode": 16, "mlp": 5, "gpt": 3, "graphs": 20}


def arguments(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workload", required=True, choices=WORKLOADS)
    parser.add_argument("--steps", type=int, help="measured steps (default: per workload)")
    parser.add_argument("--warmup", type=int, help="steps before measuring (default: per workload)")
    parser.add_argument("--profile", choices=("none", "torch"), default="none")
    parser.add_argument("--result", help="write the timings here (JSON)")
    args = parser.parse_args(argv)
    if args.steps is None:
        args.steps = DEFAULT_STEPS[args.workload]
    if args.warmup is None:
        args.warmup = DEFAULT_WARMUP[args.workload]
    return args


# --- The models (PyTorch imported only once the arguments are read) ----------------------------

def tiny_gpt(torch, layers, width, heads, vocab, max_len, device, dtype=None):
    """A GPT decoder: pre-norm blocks, fused QKV, SDPA, GELU MLP, tied embedding."""
    nn = torch.nn
    F = torch.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(width)
            self.qkv = nn.Linear(width, 3 * width)
            self.proj = nn.Linear(width, width)
            self.ln2 = nn.LayerNorm(width)
            self.up = nn.Linear(width, 4 * width)
            self.down = nn.Linear(4 * width, width)

        def forward(self, x, cache=None, length=None):
            b, t, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, heads, width // heads).unbind(2)
            q, k, v = (z.transpose(1, 2) for z in (q, k, v))
            if cache is None:
                a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:
                # One new token at position `length`: written into the cache in place, so the
                # same code is captured by a CUDA graph (fixed shapes, fixed addresses).
                keys, values = cache
                keys[:, :, length:length + 1] = k
                values[:, :, length:length + 1] = v
                a = F.scaled_dot_product_attention(q, keys[:, :, :length + 1],
                                                   values[:, :, :length + 1])
            x = x + self.proj(a.transpose(1, 2).reshape(b, t, width))
            return x + self.down(F.gelu(self.up(self.ln2(x))))

    class Gpt(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, width)
            self.pos = nn.Embedding(max_len, width)
            self.blocks = nn.ModuleList(Block() for _ in range(layers))
            self.ln = nn.LayerNorm(width)

        def forward(self, tokens, caches=None, length=None):
            t = tokens.shape[1]
            start = 0 if length is None else length
            positions = torch.arange(start, start + t, device=tokens.device)
            x = self.embed(tokens) + self.pos(positions)
            for i, block in enumerate(self.blocks):
                x = block(x, None if caches is None else caches[i], length)
            return self.ln(x) @ self.embed.weight.t()

    model = Gpt().to(device)
    if dtype is not None:
        model = model.to(dtype)
    return model


DECODE = dict(layers=4, width=512, heads=8, vocab=8192, max_len=512)


def decode_setup(torch, graphs):
    model = tiny_gpt(torch, device="cuda", dtype=torch.float16, **DECODE).eval()
    head = DECODE["width"] // DECODE["heads"]
    caches = [(torch.zeros(1, DECODE["heads"], DECODE["max_len"], head, device="cuda",
                           dtype=torch.float16),
               torch.zeros(1, DECODE["heads"], DECODE["max_len"], head, device="cuda",
                           dtype=torch.float16)) for _ in range(DECODE["layers"])]
    token = torch.zeros(1, 1, dtype=torch.long, device="cuda")
    state = {"length": 0}

    if not graphs:
        def step():
            with torch.no_grad():
                logits = model(token, caches, state["length"])
                token.copy_(logits[:, -1:].argmax(-1))
            state["length"] = (state["length"] + 1) % (DECODE["max_len"] - 1)
        return step

    # One token at a fixed cache length, captured once and replayed.
    fixed_length = 64
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream), torch.no_grad():
        for _ in range(3):  # warm-up on a side stream, as torch.cuda.graph asks
            model(token, caches, fixed_length)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph), torch.no_grad():
        logits = model(token, caches, fixed_length)
        token.copy_(logits[:, -1:].argmax(-1))

    def replay():
        graph.replay()
    return replay


def mlp_setup(torch):
    torch.set_float32_matmul_precision("high")
    model = torch.nn.Sequential(
        torch.nn.Linear(1024, 4096), torch.nn.GELU(),
        torch.nn.Linear(4096, 4096), torch.nn.GELU(),
        torch.nn.Linear(4096, 1024), torch.nn.GELU(),
        torch.nn.Linear(1024, 1000)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(1024, 1024, device="cuda")
    y = torch.randint(0, 1000, (1024,), device="cuda")
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad(set_to_none=True)
        loss_fn(model(x), y).backward()
        opt.step()
    return step


def gpt_setup(torch):
    shape = dict(layers=8, width=1024, heads=16, vocab=32768, max_len=1024)
    model = tiny_gpt(torch, device="cuda", **shape)
    try:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    except (TypeError, RuntimeError):
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    tokens = torch.randint(0, shape["vocab"], (8, shape["max_len"]), device="cuda")
    targets = torch.roll(tokens, -1, dims=1)

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(tokens)
            loss = torch.nn.functional.cross_entropy(logits.float().view(-1, shape["vocab"]),
                                                     targets.view(-1))
        loss.backward()
        opt.step()
    return step


def run(args):
    try:
        import torch
    except ImportError as e:
        print("overhead_workloads: no PyTorch here (%s)" % e)
        return 77
    if not torch.cuda.is_available():
        print("overhead_workloads: torch sees no CUDA device")
        return 77
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = False
    setups = {"decode": lambda: decode_setup(torch, graphs=False),
              "graphs": lambda: decode_setup(torch, graphs=True),
              "mlp": lambda: mlp_setup(torch),
              "gpt": lambda: gpt_setup(torch)}
    step = setups[args.workload]()
    torch.cuda.synchronize()

    def timed_steps():
        for _ in range(args.warmup):
            step()
        torch.cuda.synchronize()
        times = []
        for _ in range(args.steps):
            begin = time.perf_counter()
            step()
            torch.cuda.synchronize()
            times.append((time.perf_counter() - begin) * 1e3)
        return times

    if args.profile == "torch":
        activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=activities):
            step_ms = timed_steps()
    else:
        step_ms = timed_steps()
    result = {"workload": args.workload, "steps": args.steps, "warmup": args.warmup,
              "step_ms": step_ms, "script_s": time.monotonic() - START,
              "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
              "profile": args.profile, "torch": torch.__version__,
              "device": torch.cuda.get_device_name(0)}
    if args.result:
        with open(args.result, "w") as f:
            json.dump(result, f)
    print(json.dumps({k: v for k, v in result.items() if k != "step_ms"}))
    return 0


if __name__ == "__main__":
    sys.exit(run(arguments()))
