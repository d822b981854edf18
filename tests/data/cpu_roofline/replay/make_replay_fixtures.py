#!/usr/bin/env python3
"""Builds replay recordings from the documented counter semantics (docs/cpu-counters-notes.md,
docs/cpu-roofline.md) for known kernels; no PMU was available to record real ones.

dgemm_skx.jsonl: a two-socket Skylake-SP (2 IMC PMUs per socket, as in the skx_2s sysfs fixture)
running, on a 100 ms sampler:
  - 0.5 s idle (a little background DRAM traffic, as the uncore always sees);
  - region "dgemm": DGEMM n = 4000 with AVX-512 FMAs. W = 2 n^3 = 1.28e11 flops. FP_ARITH counts
    an FMA twice and the 512-bit umask is weighted 8, so 512B_PACKED_DOUBLE = 2 n^3 / 8 = 1.6e10.
    Q: A and B read 4x over (blocking), C read and written once: Qr = 5 x 8 n^2 = 640 MB,
    Qw = 8 n^2 = 128 MB. 2.0 s;
  - region "daxpy": y += a x over n = 1e8 doubles, scalar-free AVX-512: W = 2 n, one FMA per 8
    elements counted twice (2n/8 counts x 8); Qr = 16 n, Qw = 8 n: I = 1/12. 0.2 s;
    a host-to-device copy overlaps it;
  - one interval where the FP group was multiplexed (on a counter half the time);
  - 0.3 s idle.
zen4_nopmu.jsonl: what a PMU-less Zen 4 VM gives: task-clock only, with the reasons flopspy
printed there.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TICK = 100_000_000  # ns


def write(name, header, entries):
    with open(os.path.join(HERE, name), "w") as f:
        f.write(json.dumps(header) + "\n")
        for e in entries:
            f.write(json.dumps(e) + "\n")


def dgemm_skx():
    # Channel order: task-clock, cycles, instructions, ref-cycles, 4 DP FP events,
    # 2 sockets x 2 IMCs x (read, write).
    channels = [
        {"name": "task-clock", "quantity": "task_clock"},
        {"name": "cycles", "quantity": "cycles"},
        {"name": "instructions", "quantity": "instructions"},
        {"name": "ref-cycles", "quantity": "ref_cycles"},
        {"name": "fp_arith_inst_retired.scalar_double", "quantity": "flops", "precision": "dp", "weight": 1},
        {"name": "fp_arith_inst_retired.128b_packed_double", "quantity": "flops", "precision": "dp", "weight": 2},
        {"name": "fp_arith_inst_retired.256b_packed_double", "quantity": "flops", "precision": "dp", "weight": 4},
        {"name": "fp_arith_inst_retired.512b_packed_double", "quantity": "flops", "precision": "dp", "weight": 8},
    ]
    for imc in (0, 1):
        for cpu in (0, 28):
            channels.append({"name": f"uncore_imc_{imc}/cas_count_read/@cpu{cpu}", "quantity": "bytes",
                             "direction": "read", "weight": 64, "system_wide": True})
            channels.append({"name": f"uncore_imc_{imc}/cas_count_write/@cpu{cpu}", "quantity": "bytes",
                             "direction": "write", "weight": 64, "system_wide": True})
    header = {"flopspy_cpu_replay": 1, "cpu": "Intel Xeon (Skylake-SP, 2 sockets), synthetic",
              "family": "skx", "source": "synthetic: dgemm and daxpy from counter semantics",
              "channels": channels, "traffic_flags": ["system_wide_memory"]}

    n = len(channels)
    raw = [0] * n
    enabled = [0] * n
    running = [0] * n
    t = 0
    entries = []

    def snapshot(extra=None):
        e = {"t_ns": t, "values": [[raw[i], enabled[i], running[i]] for i in range(n)]}
        if extra:
            e.update(extra)
        entries.append(e)

    def advance(dt, task_ns, cycles, fp512, fp_scalar, rd_lines, wr_lines, fp_running=1.0):
        """Adds one stretch of dt ns; counts are the true ones, multiplexed ones get scaled down."""
        nonlocal t
        t += dt
        for i in range(n):
            enabled[i] += dt
            running[i] += dt
        raw[0] += task_ns
        raw[1] += cycles
        raw[2] += cycles * 2
        raw[3] += cycles * 26 // 30
        # The FP group (channels 4-7) was on a counter only fp_running of the time.
        for i in range(4, 8):
            running[i] -= dt - int(dt * fp_running)
        raw[4] += int(fp_scalar * fp_running)
        raw[7] += int(fp512 * fp_running)
        # Traffic spread evenly over the 2 x 2 controllers.
        for k in range(4):
            raw[8 + 2 * k] += rd_lines // 4
            raw[9 + 2 * k] += wr_lines // 4

    idle = dict(task_ns=5_000_000, cycles=15_000_000, fp512=0, fp_scalar=1000,
                rd_lines=10_000 * 4, wr_lines=5_000 * 4)
    snapshot()
    for _ in range(5):
        advance(TICK, **idle)
        snapshot()
    # dgemm: 20 ticks; the region marks sit on the first and last reading.
    N = 4000
    fp512 = 2 * N**3 // 8
    rd = 5 * 8 * N * N // 64
    wr = 8 * N * N // 64
    advance(1, task_ns=1, cycles=0, fp512=0, fp_scalar=0, rd_lines=0, wr_lines=0)
    snapshot({"begin": "dgemm"})
    for k in range(20):
        advance(TICK, task_ns=2 * TICK, cycles=2 * 3_000_000_00, fp512=fp512 // 20, fp_scalar=0,
                rd_lines=rd // 20, wr_lines=wr // 20)
        if k < 19:
            snapshot()
    snapshot({"end": "dgemm"})
    # daxpy: 2 ticks; a host-to-device copy overlaps it.
    n_ax = 100_000_000
    advance(1, task_ns=1, cycles=0, fp512=0, fp_scalar=0, rd_lines=0, wr_lines=0)
    snapshot({"begin": "daxpy"})
    copy_begin = t + 10_000_000
    for k in range(2):
        advance(TICK, task_ns=TICK, cycles=300_000_000, fp512=(2 * n_ax // 8) // 2, fp_scalar=0,
                rd_lines=(16 * n_ax // 64) // 2, wr_lines=(8 * n_ax // 64) // 2)
        if k == 0:
            snapshot({"gpu_copy": [copy_begin, copy_begin + 50_000_000]})
    snapshot({"end": "daxpy"})
    snapshot()  # a sampler tick at the same time
    # A multiplexed interval: the FP group counted half the time.
    advance(TICK, task_ns=TICK, cycles=300_000_000, fp512=1_000_000_000, fp_scalar=0,
            rd_lines=40_000, wr_lines=20_000, fp_running=0.5)
    snapshot()
    for _ in range(3):
        advance(TICK, **idle)
        snapshot()
    write("dgemm_skx.jsonl", header, entries)


def zen4_nopmu():
    header = {"flopspy_cpu_replay": 1, "cpu": "AMD EPYC (AuthenticAMD family 0x19 model 0x11)",
              "family": "zen4", "source": "observed on a Zen 4 VM without PMU: task-clock only",
              "channels": [{"name": "task-clock", "quantity": "task_clock"}],
              "unavailable": {
                  "cycles": "perf_event_open(cycles) failed with ENOENT: no hardware PMU",
                  "work": "perf_event_open(fp_ret_sse_avx_ops.all) failed with ENOENT: no hardware PMU",
                  "traffic": "no memory-controller PMU (amd_umc_*) in /sys/bus/event_source/devices"}}
    entries = []
    task = 0
    for k in range(6):
        entries.append({"t_ns": k * TICK, "values": [[task, k * TICK, k * TICK]]})
        task += 150_000_000
    write("zen4_nopmu.jsonl", header, entries)


if __name__ == "__main__":
    dgemm_skx()
    zen4_nopmu()
