"""Shared pieces of the GPU checks (tests/gpu/*_check.py).

Every check is a small program: it finds the flopspy build, makes sure there is a GPU (and
PyTorch where it needs it), runs a workload with and without flopspy, compares, and ends with
exit status 0 (pass), 1 (fail) or 77 (skipped: what it needs is missing, and it says what).
Its findings go to OUT/result.json, which scripts/gpu-validate collects; logs of every command
go beside it. Only the standard library is used, so the checks start on any Python 3.8+.
"""

import ctypes
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time

PASS, FAIL, SKIP = 0, 1, 77
TERMINATED = 124  # what `timeout` reports: the runner's time limit ended the check
STATUS_NAMES = {PASS: "pass", FAIL: "fail", SKIP: "skip"}

# Process groups of the commands running now (each command starts its own session, so that a
# timeout kills the whole tree: flopspy, the workload, its compiler subprocesses).
_ACTIVE_GROUPS = set()
_CURRENT_CHECK = []


def _on_terminate(signum, frame):
    """SIGTERM from the runner's `timeout`: stop the workload tree, keep what was found."""
    for group in list(_ACTIVE_GROUPS):
        try:
            os.killpg(group, signal.SIGKILL)
        except OSError:
            pass
    if _CURRENT_CHECK:
        check = _CURRENT_CHECK[0]
        check.failures.append("stopped by the runner's time limit after %.0f s"
                              % (time.monotonic() - check.started))
        check._write(FAIL)
    os._exit(TERMINATED)


def within(measured, reference, rel=0.02, abs_ns=2000.0):
    """The GPU-time tolerance of the launch and cuBLAS checks: within 2 % or 2 µs (whichever is looser)."""
    return abs(measured - reference) <= max(rel * abs(reference), abs_ns)


class Tools:
    """The programs of a build folder (or of a gpu-carry folder: the same bin/ and lib/)."""

    def __init__(self, build_dir):
        self.root = os.path.abspath(build_dir)
        self.bin = os.path.join(self.root, "bin")
        self.lib = os.path.join(self.root, "lib")
        self.flopspy = os.path.join(self.bin, "flopspy")
        self.report = os.path.join(self.bin, "flopspy-report")
        self.library = os.path.join(self.lib, "libflopspy.so")

    def missing(self):
        return [p for p in (self.flopspy, self.report, self.library) if not os.path.exists(p)]

    def program(self, name):
        path = os.path.join(self.bin, name)
        return path if os.access(path, os.X_OK) else None

    def program_env(self, program):
        """Environment for a CUDA program of the carry folder: when the dynamic loader cannot
        find one of its CUDA libraries (libcudart.so.13 of the -cudart shared builds, cuBLAS of
        the demo), the folders where this machine keeps them are added."""
        env = self.env()
        try:
            out = subprocess.run(["ldd", program], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, universal_newlines=True,
                                 env=env, timeout=30).stdout
        except (OSError, subprocess.TimeoutExpired):
            return env
        if "not found" not in out:
            return env
        extra = [d for d in cuda_library_dirs() if d not in env["LD_LIBRARY_PATH"].split(":")]
        env["LD_LIBRARY_PATH"] = ":".join([env["LD_LIBRARY_PATH"]] + extra)
        return env

    def env(self, extra=None):
        """Environment for the tools: lib/ first, for the shared libraries a carry folder holds."""
        env = dict(os.environ)
        env["LD_LIBRARY_PATH"] = ":".join(p for p in (self.lib, env.get("LD_LIBRARY_PATH")) if p)
        env.setdefault("PYTHONUNBUFFERED", "1")
        if extra:
            env.update(extra)
        return env


def cuda_library_dirs():
    """Folders that may hold libcudart.so.13 and libcublas.so.13 on this machine: the toolkit
    beside nvcc, the usual toolkit paths, the NVIDIA wheels of this Python."""
    dirs = []
    nvcc = shutil.which("nvcc")
    if nvcc:
        root = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
        dirs += [os.path.join(root, "lib64"), os.path.join(root, "targets", "x86_64-linux", "lib")]
    dirs += ["/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"]
    spec = importlib.util.find_spec("nvidia")
    for base in (list(spec.submodule_search_locations) if spec and
                 spec.submodule_search_locations else []):
        for sub in sorted(os.listdir(base)):
            lib = os.path.join(base, sub, "lib")
            if os.path.isdir(lib):
                dirs.append(lib)
    return [d for d in dirs if os.path.isdir(d)]


def cuda_device():
    """(True, description) when the driver initialises and sees a device, else (False, why).

    Asks the driver directly (ctypes), so no PyTorch import and no CUDA context in the checker.
    """
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        return False, "no CUDA driver (libcuda.so.1: %s)" % e
    status = cuda.cuInit(0)
    if status != 0:
        return False, "the CUDA driver does not initialise (cuInit returned %d)" % status
    count = ctypes.c_int(0)
    status = cuda.cuDeviceGetCount(ctypes.byref(count))
    if status != 0 or count.value == 0:
        return False, "no CUDA device (cuDeviceGetCount returned %d, %d devices)" % (
            status, count.value)
    name = ctypes.create_string_buffer(256)
    device = ctypes.c_int(0)
    cuda.cuDeviceGet(ctypes.byref(device), 0)
    cuda.cuDeviceGetName(name, 256, device)
    return True, "%d device(s), device 0: %s" % (count.value, name.value.decode(errors="replace"))


def python_has(module):
    return importlib.util.find_spec(module) is not None


class Check:
    """One check's findings: status, numbers, failures and notes, written to OUT/result.json."""

    def __init__(self, name, title, out_dir):
        self.name = name
        self.title = title
        self.out = os.path.abspath(out_dir)
        os.makedirs(self.out, exist_ok=True)
        self.numbers = {}
        self.failures = []
        self.notes = []
        self.tables = {}
        self.started = time.monotonic()
        _CURRENT_CHECK[:] = [self]
        signal.signal(signal.SIGTERM, _on_terminate)

    def number(self, key, value):
        self.numbers[key] = value

    def table(self, key, rows):
        """A list of dicts, shown as a table in the summary."""
        self.tables[key] = rows

    def fail(self, message):
        self.failures.append(message)
        print("FAIL: " + message, flush=True)

    def note(self, message):
        self.notes.append(message)
        print("note: " + message, flush=True)

    def expect(self, condition, message):
        if not condition:
            self.fail(message)
        return condition

    def path(self, name):
        return os.path.join(self.out, name)

    def _write(self, status, reason=""):
        doc = {
            "check": self.name,
            "title": self.title,
            "status": STATUS_NAMES[status],
            "reason": reason,
            "seconds": round(time.monotonic() - self.started, 1),
            "numbers": self.numbers,
            "tables": self.tables,
            "failures": self.failures,
            "notes": self.notes,
        }
        with open(self.path("result.json"), "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
        return doc

    def skip(self, reason):
        self._write(SKIP, reason)
        print("%s: skipped: %s" % (self.name, reason), flush=True)
        sys.exit(SKIP)

    def finish(self):
        status = FAIL if self.failures else PASS
        self._write(status)
        print("%s: %s (%d failures)" % (self.name, STATUS_NAMES[status], len(self.failures)),
              flush=True)
        sys.exit(status)


class Run:
    """Outcome of one command: exit status, wall time, where its output went."""

    def __init__(self, cmd, rc, seconds, log, timed_out):
        self.cmd = cmd
        self.rc = rc
        self.seconds = seconds
        self.log = log
        self.timed_out = timed_out

    def tail(self, chars=2000):
        try:
            with open(self.log, errors="replace") as f:
                return f.read()[-chars:]
        except OSError:
            return ""

    def message(self, chars=300):
        """The command's own last output, without the lines run() adds around it."""
        lines = [l for l in self.tail(chars + 400).splitlines()
                 if not l.startswith("$ ") and not (l.startswith("[exit ") or
                                                    l.startswith("[fake exit "))]
        return "\n".join(lines).strip()[-chars:]

    def describe(self):
        if self.timed_out:
            return "timed out after %.0f s: %s (log %s)" % (self.seconds, " ".join(self.cmd),
                                                            self.log)
        return "exit %d after %.1f s: %s (log %s)" % (self.rc, self.seconds, " ".join(self.cmd),
                                                      self.log)


def run(cmd, log, env=None, timeout=None, cwd=None):
    """Runs cmd with stdout and stderr into log; never raises for the command's own failure."""
    cmd = [str(c) for c in cmd]
    start = time.monotonic()
    timed_out = False
    with open(log, "w") as out:
        out.write("$ " + " ".join(cmd) + "\n")
        out.flush()
        try:
            proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd,
                                    start_new_session=True)
        except OSError as e:
            out.write("cannot start: %s\n" % e)
            return Run(cmd, 127, 0.0, log, False)
        _ACTIVE_GROUPS.add(proc.pid)
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            rc = proc.wait()
        finally:
            _ACTIVE_GROUPS.discard(proc.pid)
    seconds = time.monotonic() - start
    with open(log, "a") as out:
        out.write("\n[exit %d after %.2f s%s]\n" % (rc, seconds, ", timed out" if timed_out else ""))
    return Run(cmd, rc, seconds, log, timed_out)


def flopspy_run(tools, trace_dir, cmd, log, flags=(), env=None, timeout=None, base_env=None):
    """`flopspy run -o trace_dir FLAGS -- cmd`, into a fresh trace folder. The environment is
    base_env (default: tools.env()) with env's variables added."""
    shutil.rmtree(trace_dir, ignore_errors=True)
    os.makedirs(trace_dir)
    full = [tools.flopspy, "run", "-o", trace_dir] + list(flags) + ["--"] + list(cmd)
    environment = dict(base_env) if base_env is not None else tools.env()
    environment.update(env or {})
    return run(full, log, env=environment, timeout=timeout)


def report_json(tools, trace_dir, out_path, log, timeout=300):
    """flopspy-report --json over a trace folder; the document, or None (see the log)."""
    full = [tools.report, "--json", trace_dir]
    start = time.monotonic()
    with open(out_path, "w") as out, open(log, "w") as err:
        err.write("$ " + " ".join(full) + "\n")
        try:
            rc = subprocess.call(full, stdout=out, stderr=err, env=tools.env(), timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as e:
            err.write("failed: %s\n" % e)
            return None
        err.write("[exit %d after %.2f s]\n" % (rc, time.monotonic() - start))
    if rc != 0:
        return None
    try:
        with open(out_path) as f:
            return json.load(f)
    except ValueError as e:
        with open(log, "a") as err:
            err.write("not JSON: %s\n" % e)
        return None


def run_manifest_workload(check, tools, script, extra_args, timeout):
    """Runs `script --workload <out>/cases.json EXTRA...` under flopspy (a check whose workload
    writes a manifest of its cases), then flopspy-report --json over its traces. Returns
    (manifest, report); ends the check (skipped or failed) when either is missing, and fails it
    for every problem the traces show."""
    cmd = [sys.executable, os.path.abspath(script), "--workload", check.path("cases.json")]
    cmd += list(extra_args)
    traces = check.path("traces")
    r = flopspy_run(tools, traces, cmd, check.path("flopspy.log"), timeout=timeout)
    if r.rc == SKIP:
        check.skip("the workload says: " + r.message())
    check.expect(r.rc == 0, "the workload under flopspy failed: %s" % r.describe())
    if check.failures:
        check.finish()
    manifest = load_json(check.path("cases.json"))
    report = report_json(tools, traces, check.path("report.json"), check.path("report.log"))
    check.expect(manifest is not None, "the case manifest is missing")
    check.expect(report is not None, "flopspy-report --json failed (report.log)")
    if check.failures:
        check.finish()
    for p in trace_problems(report):
        check.fail(p)
    return manifest, report


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def trace_problems(report, need_gpu_timing=True):
    """What is wrong with a run's traces as a whole: unreadable, lost records, no GPU times."""
    problems = []
    traces = report.get("traces", [])
    if not traces:
        return ["the report holds no trace"]
    for t in traces:
        where = os.path.basename(t.get("path", "?"))
        status = t.get("read", {}).get("status")
        if status != "ok":
            problems.append("%s: read status %s (%s)" % (where, status,
                                                         t.get("read", {}).get("message")))
        if t.get("lost_total", 0):
            problems.append("%s: %d records lost %s" % (where, t["lost_total"], t.get("lost")))
        if need_gpu_timing and t.get("launches", 0) and not t.get("gpu_timing"):
            why = [w.get("message") for w in t.get("warnings", [])
                   if w.get("code") == "cupti_unavailable"]
            problems.append("%s: no GPU times (%s)" % (where, "; ".join(why) or "no reason given"))
    return problems


def standard_arguments(parser):
    parser.add_argument("--build-dir", required=True,
                        help="flopspy build folder, or a gpu-carry folder (bin/, lib/)")
    parser.add_argument("--out", required=True, help="folder for result.json, logs and traces")
    return parser


def begin(args, name, title, needs_torch=False, needs=()):
    """The checks' common start: the tools, a GPU, PyTorch if asked. Skips (77) without them."""
    check = Check(name, title, args.out)
    tools = Tools(args.build_dir)
    missing = tools.missing()
    if missing:
        check.skip("flopspy is not built here: missing " + ", ".join(missing))
    ok, device = cuda_device()
    if not ok:
        check.skip("no usable GPU: " + device)
    check.number("device", device)
    for module in (("torch",) if needs_torch else ()) + tuple(needs):
        if not python_has(module):
            check.skip("%s cannot import %s" % (sys.executable, module))
    return check, tools
