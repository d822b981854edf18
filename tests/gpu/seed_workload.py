"""The seed notes' workload (docs/demo.md): elementwise ops and a sum on 8192 x 8192 fp32.

  python3 seed_workload.py [--repeat N] [--size N]

fill (torch.ones, torch.full), add, mul of two tensors, mul by a scalar (the same bytes as the
unary ops: one tensor in, one out), pow with a general exponent, sin, sqrt, sigmoid, log10 and
sum, each --repeat times, in a fixed order. Prints the seconds each op took (CUDA events), for
the log; flopspy and ncu measure the kernels themselves.
"""

import argparse
import json
import sys

OPS = ("add", "mul", "mul_scalar", "pow", "sin", "sqrt", "sigmoid", "log10", "sum")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--size", type=int, default=8192)
    args = parser.parse_args()

    import torch
    if not torch.cuda.is_available():
        print("seed_workload: torch sees no CUDA device")
        return 77
    n = args.size
    ones = torch.ones(n, n, device="cuda")        # fill, as in the seed note
    a = torch.full((n, n), 0.5, device="cuda")    # fill; 0.5 keeps every op finite
    b = torch.full((n, n), 0.75, device="cuda")   # fill
    ops = {
        "add": lambda: a + b,
        "mul": lambda: a * b,
        "mul_scalar": lambda: a * 0.5,
        "pow": lambda: a.pow(1.7),
        "sin": lambda: torch.sin(a),
        "sqrt": lambda: torch.sqrt(a),
        "sigmoid": lambda: torch.sigmoid(a),
        "log10": lambda: torch.log10(a),
        "sum": lambda: a.sum(),
    }
    times = {}
    for name in OPS:
        ms = []
        for _ in range(args.repeat):
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            start.record()
            out = ops[name]()
            stop.record()
            stop.synchronize()
            ms.append(start.elapsed_time(stop))
            del out
        times[name] = ms
    torch.cuda.synchronize()
    del ones
    print(json.dumps({"size": n, "repeat": args.repeat, "event_ms": times}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
