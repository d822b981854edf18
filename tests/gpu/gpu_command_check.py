#!/usr/bin/env python3
"""Runs one command as a check of scripts/gpu-validate and keeps its output in result.json.

  gpu_command_check.py --name NAME --title T --out O [--timeout S] -- CMD...

Pass when CMD exits 0, skip when it exits 77, fail otherwise; the last lines of its output go
into the result (for `flopspy ceilings --gpu --quick`, whose numbers are the result).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gpu_check_common as common  # noqa: E402


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        print("usage: gpu_command_check.py --name N --title T --out O -- CMD...")
        return 2
    split = argv.index("--")
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--name", required=True)
    parser.add_argument("--title", default="")
    parser.add_argument("--out", required=True)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--lib-dir", help="prepended to LD_LIBRARY_PATH for the command")
    args = parser.parse_args(argv[:split])
    cmd = argv[split + 1:]
    check = common.Check(args.name, args.title, args.out)
    env = dict(os.environ)
    if args.lib_dir:
        env["LD_LIBRARY_PATH"] = ":".join(p for p in (args.lib_dir, env.get("LD_LIBRARY_PATH"))
                                          if p)
    r = common.run(cmd, check.path("output.log"), env=env, timeout=args.timeout)
    check.number("command", " ".join(cmd))
    check.number("exit", r.rc)
    check.number("seconds", round(r.seconds, 2))
    check.number("output", r.tail(6000))
    if r.rc == common.SKIP:
        check.skip("the command skipped itself: " + r.message())
    check.expect(r.rc == 0, r.describe())
    check.finish()


if __name__ == "__main__":
    sys.exit(main())
