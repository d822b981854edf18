"""A 50-step PyTorch MLP training loop, timed: the counter-mode slowdown workload of seed_mlp.

  python3 seed_mlp_workload.py [--steps 50] [--timing FILE]

Four linear layers (2048 -> 4096 -> 4096 -> 2048 -> 1000) with GELU, batch 4096, fp32 with
TF32 allowed, cross-entropy and AdamW: a few milliseconds a step on an H100-class GPU, so the
loop is long next to one launch but short enough for ncu. FILE (JSON) gets the seconds of the
loop (synchronised) and of the whole script up to its end.
"""

import argparse
import json
import sys
import time

START = time.monotonic()


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--timing", help="write the timings here (JSON)")
    args = parser.parse_args()

    import torch
    if not torch.cuda.is_available():
        print("seed_mlp_workload: torch sees no CUDA device")
        return 77
    torch.manual_seed(0)
    torch.set_float32_matmul_precision("high")
    dev = "cuda"
    model = torch.nn.Sequential(
        torch.nn.Linear(2048, 4096), torch.nn.GELU(),
        torch.nn.Linear(4096, 4096), torch.nn.GELU(),
        torch.nn.Linear(4096, 2048), torch.nn.GELU(),
        torch.nn.Linear(2048, 1000)).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(4096, 2048, device=dev)
    y = torch.randint(0, 1000, (4096,), device=dev)
    loss_fn = torch.nn.CrossEntropyLoss()
    torch.cuda.synchronize()
    loop_start = time.monotonic()
    for _ in range(args.steps):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    torch.cuda.synchronize()
    loop_s = time.monotonic() - loop_start
    result = {"steps": args.steps, "loop_s": loop_s, "script_s": time.monotonic() - START,
              "loss": float(loss), "torch": torch.__version__}
    if args.timing:
        with open(args.timing, "w") as f:
            json.dump(result, f)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
