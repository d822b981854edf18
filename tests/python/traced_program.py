"""Run under `flopspy run` by region_traced_test.py: marks regions in every way flopspy.region
allows; the test checks the report's counts. Exits 3 when the library is not loaded."""

import sys
import threading

import flopspy

if not flopspy.is_active():
    sys.exit(3)

for _ in range(3):
    with flopspy.region("outer"):
        for _ in range(2):
            with flopspy.region("inner"):
                pass


@flopspy.region("forward")
def forward(x):
    return x + 1


for i in range(4):
    forward(i)


class Model:
    @flopspy.region
    def step(self):
        return 0


Model().step()
Model().step()

for _ in range(5):
    try:
        with flopspy.region("fails"):
            raise ValueError("inside a region")
    except ValueError:
        pass


@flopspy.region("recurse")
def recurse(n):
    return 0 if n == 0 else recurse(n - 1)


recurse(2)  # three nested regions of one name

worker = flopspy.region("worker")
barrier = threading.Barrier(4)


def work():
    barrier.wait()  # the threads' regions overlap in time
    for _ in range(10):
        with worker:
            with worker:
                pass


threads = [threading.Thread(target=work) for _ in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
