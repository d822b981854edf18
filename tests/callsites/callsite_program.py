"""Launches kernels on the fake CUDA driver from known lines, through ctypes (which releases the
GIL around the call, as PyTorch's bindings do), for callsite_test.cpp. Prints, before launching,
"site NAME LINE" for every line marked "# site: NAME" below, so the test knows where each launch
came from without repeating line numbers."""

import ctypes
import sys
import threading

MARK = "# " + "site: "  # built here, so that this line is not a site itself
with open(__file__, encoding="utf-8") as source:
    for number, text in enumerate(source, start=1):
        if MARK in text and not text.lstrip().startswith(("#", '"')):
            print("site", text.split(MARK)[1].strip(), number, flush=True)

cu = ctypes.CDLL("libcuda.so.1")
assert cu.cuInit(0) == 0
device = ctypes.c_int()
assert cu.cuDeviceGet(ctypes.byref(device), 0) == 0
context = ctypes.c_void_p()
assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(context), device) == 0
assert cu.cuCtxSetCurrent(context) == 0
module = ctypes.c_void_p()
assert cu.cuModuleLoadData(ctypes.byref(module), b"fake image") == 0
function = ctypes.c_void_p()
assert cu.cuModuleGetFunction(ctypes.byref(function), module, b"_Z12empty_kernelv") == 0
cu.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3


def launch(grid):
    return cu.cuLaunchKernel(function, grid, 1, 1, 32, 1, 1, 0, None, None, None)  # site: launch


def attention(steps):
    for _ in range(steps):
        assert launch(2) == 0  # site: attention


class Block:
    def forward(self, steps):
        for _ in range(steps):
            assert launch(3) == 0  # site: Block.forward


def on_a_thread():
    assert launch(4) == 0  # site: thread


attention(40)
Block().forward(40)
worker = threading.Thread(target=on_a_thread, name="launcher")
worker.start()
worker.join()
sys.exit(0)
