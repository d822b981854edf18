#!/usr/bin/env python3
"""Writes the fake sysfs/procfs trees under tests/data/cpu_roofline/sysfs/ and .../proc/.

Nothing here was copied from a live machine except the PMU-less Zen 4 VM (zen4_vm), whose
device list is the one docs/cpu-counters-notes.md ("sysfs PMU layout") gives. The other trees
follow the Linux sysfs ABI of /sys/bus/event_source/devices/<pmu>/ (type, cpumask, format/<field>,
events/<alias> with .scale and .unit) with the encodings of docs/cpu-counters-notes.md ("FLOP
events by CPU family", "DRAM traffic events by CPU family"); PMU type numbers are made up (the kernel assigns them dynamically). Re-run after editing: python3 make_sysfs_fixtures.py
"""
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "sysfs")

SOFTWARE = {"software": {"type": "1"}, "tracepoint": {"type": "2"}, "breakpoint": {"type": "5"},
            "msr": {"type": "9"}, "uprobe": {"type": "8"}}
X86_CORE_FORMAT = {"event": "config:0-7", "umask": "config:8-15", "edge": "config:18",
                   "inv": "config:23", "cmask": "config:24-31"}
AMD_CORE_FORMAT = {"event": "config:0-7,32-35", "umask": "config:8-15", "edge": "config:18",
                   "inv": "config:23", "cmask": "config:24-31"}
MIB = ("6.103515625e-5", "MiB")


def pmu(type_, format_=None, cpumask=None, events=None):
    return {"type": type_, "format": format_ or {}, "cpumask": cpumask, "events": events or {}}


def imc(type_, cpumask, read_terms, write_terms, aliases=True):
    ev = {}
    if aliases:
        ev = {"cas_count_read": (read_terms, MIB), "cas_count_write": (write_terms, MIB)}
    return pmu(type_, {"event": "config:0-7", "umask": "config:8-15", "edge": "config:18",
                       "inv": "config:23", "thresh": "config:24-31"}, cpumask, ev)


TREES = {
    # Observed: a Zen 4 VM without a PMU (docs/cpu-counters-notes.md, "sysfs PMU layout").
    "zen4_vm": {},
    "cpu_only": {"cpu": pmu("4", X86_CORE_FORMAT)},
    "skx_2s": {
        "cpu": pmu("4", X86_CORE_FORMAT),
        "uncore_imc_0": imc("14", "0,28", "event=0x04,umask=0x03", "event=0x04,umask=0x0c"),
        "uncore_imc_1": imc("15", "0,28", "event=0x04,umask=0x03", "event=0x04,umask=0x0c"),
    },
    # One controller lacks its umask format: its events cannot be encoded.
    "skx_broken": {
        "cpu": pmu("4", X86_CORE_FORMAT),
        "uncore_imc_0": imc("14", "0", "event=0x04,umask=0x03", "event=0x04,umask=0x0c"),
        "uncore_imc_1": pmu("15", {"event": "config:0-7"}, "0"),
    },
    "icx": {"cpu": pmu("4", X86_CORE_FORMAT),
            "uncore_imc_0": imc("14", "0", "", "", aliases=False)},
    "spr": {
        "cpu": pmu("4", X86_CORE_FORMAT),
        "uncore_imc_0": imc("14", "0", "event=0x05,umask=0xcf", "event=0x05,umask=0xf0"),
        "uncore_imc_1": imc("15", "0", "event=0x05,umask=0xcf", "event=0x05,umask=0xf0"),
    },
    "gnr": {"cpu": pmu("4", X86_CORE_FORMAT),
            "uncore_imc_0": imc("14", "0", "", "", aliases=False)},
    "skl_client": {
        "cpu": pmu("4", X86_CORE_FORMAT),
        "uncore_imc": pmu("13", {"event": "config:0-7"}, "0",
                          {"data_reads": ("event=0x01", MIB), "data_writes": ("event=0x02", MIB)}),
    },
    "adl_hybrid": {
        "cpu_core": pmu("4", X86_CORE_FORMAT),
        "cpu_atom": pmu("10", X86_CORE_FORMAT),
        "uncore_imc_free_running_0": pmu(
            "16", {"event": "config:0-7", "umask": "config:8-15"}, "0",
            {"data_read": ("event=0xff,umask=0x20", MIB),
             "data_write": ("event=0xff,umask=0x21", MIB)}),
    },
    "zen2_df": {
        "cpu": pmu("4", AMD_CORE_FORMAT),
        "amd_df": pmu("11", {"event": "config:0-7,32-37", "umask": "config:8-15,24-27"}, "0"),
    },
    "zen4_umc": {
        "cpu": pmu("4", AMD_CORE_FORMAT),
        "amd_umc_0": pmu("12", {"event": "config:0-7", "rdwrmask": "config:8-9"}, "0"),
        "amd_umc_1": pmu("13", {"event": "config:0-7", "rdwrmask": "config:8-9"}, "0"),
    },
    "neoverse_v1": {"armv8_pmuv3_0": pmu("8", {"event": "config:0-15"})},
}


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text + "\n")


def main():
    shutil.rmtree(ROOT, ignore_errors=True)
    for tree, pmus in TREES.items():
        devices = os.path.join(ROOT, tree, "bus", "event_source", "devices")
        for name, p in {**SOFTWARE, **pmus}.items():
            d = os.path.join(devices, name)
            write(os.path.join(d, "type"), p["type"])
            if p.get("cpumask"):
                write(os.path.join(d, "cpumask"), p["cpumask"])
            for field, spec in p.get("format", {}).items():
                write(os.path.join(d, "format", field), spec)
            for alias, (terms, (scale, unit)) in p.get("events", {}).items():
                write(os.path.join(d, "events", alias), terms)
                write(os.path.join(d, "events", alias + ".scale"), scale)
                write(os.path.join(d, "events", alias + ".unit"), unit)
    # CPU topology and caches of the Zen 4 VM (2 vCPUs, one package).
    cpu = os.path.join(ROOT, "zen4_vm", "devices", "system", "cpu")
    write(os.path.join(cpu, "online"), "0-1")
    for c in (0, 1):
        write(os.path.join(cpu, f"cpu{c}", "topology", "physical_package_id"), "0")
        write(os.path.join(cpu, f"cpu{c}", "topology", "core_id"), str(c))
    caches = [("1", "Data", "32K"), ("1", "Instruction", "32K"), ("2", "Unified", "1024K"),
              ("3", "Unified", "32768K")]
    for i, (level, kind, size) in enumerate(caches):
        d = os.path.join(cpu, "cpu0", "cache", f"index{i}")
        write(os.path.join(d, "level"), level)
        write(os.path.join(d, "type"), kind)
        write(os.path.join(d, "size"), size)


if __name__ == "__main__":
    main()
