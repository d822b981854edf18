"""A PyTorch training loop whose layers are called from known lines, for the call-site check
(issue 19): three Linear layers, a LayerNorm and a GELU, each called on its own line of
Net.forward.

  python3 callsite_workload.py [--steps 20] [--warmup 3] [--out FILE]

The whole program's work on the main thread is inside an NVTX range "main", and each forward
pass inside a range "forward": the check takes the forward pass's kernel time from the second,
and the kernels launched by other threads (autograd's backward) as all kernel time minus the
first. The three Linear layers have different output widths, so their GEMMs are different
kernel signatures. FILE gets the lines of Net.forward's calls (from inspect), the loop's
seconds over the steps after the warm-up, and the steps run.
"""

import argparse
import inspect
import json
import sys
import time

# The calls of Net.forward the check looks for, by the attribute they call.
LAYERS = ("fc1", "norm", "act", "fc2", "fc3")


def forward_lines(net_class):
    """{layer: line number} of each `self.<layer>(` call in net_class.forward."""
    source, first = inspect.getsourcelines(net_class.forward)
    lines = {}
    for offset, text in enumerate(source):
        for layer in LAYERS:
            if "self.%s(" % layer in text:
                lines[layer] = first + offset
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=20, help="timed steps")
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps first")
    parser.add_argument("--out", help="write the results here (JSON)")
    args = parser.parse_args()

    import torch
    if not torch.cuda.is_available():
        print("callsite_workload: torch sees no CUDA device")
        return 77

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(1024, 2048)
            self.norm = torch.nn.LayerNorm(2048)
            self.act = torch.nn.GELU()
            self.fc2 = torch.nn.Linear(2048, 3072)
            self.fc3 = torch.nn.Linear(3072, 1024)

        def forward(self, x):
            x = self.fc1(x)
            x = self.norm(x)
            x = self.act(x)
            x = self.fc2(x)
            return self.fc3(x)

    lines = forward_lines(Net)
    if sorted(lines) != sorted(LAYERS):
        print("callsite_workload: Net.forward's calls not found: %s" % lines)
        return 1
    nvtx = torch.cuda.nvtx
    torch.manual_seed(0)
    torch.set_float32_matmul_precision("high")
    nvtx.range_push("main")
    model = Net().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    x = torch.randn(4096, 1024, device="cuda")
    target = torch.randn(4096, 1024, device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        nvtx.range_push("forward")
        out = model(x)
        nvtx.range_pop()
        loss = torch.nn.functional.mse_loss(out, target)
        loss.backward()
        opt.step()

    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()
    start = time.monotonic()
    for _ in range(args.steps):
        step()
    torch.cuda.synchronize()
    loop_s = time.monotonic() - start
    nvtx.range_pop()
    result = {"file": inspect.getsourcefile(Net), "function": Net.forward.__qualname__,
              "lines": lines, "steps": args.steps, "warmup": args.warmup, "loop_s": loop_s,
              "torch": torch.__version__, "python": sys.version.split()[0]}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
