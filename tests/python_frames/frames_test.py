"""Python frames read by libflopspy's core without the GIL (interpose/src/python_frames.h).

Loads the probe library with ctypes.CDLL, which releases the GIL around each call as PyTorch's
bindings do before a launch, and calls it from known functions and lines. Each frame the probe
reports must be the real code object (file, qualified name, first line, line table) and its
instruction offset must map, through the code's own co_lines(), to the line of the call.

Usage: frames_test.py PROBE_LIBRARY [unittest arguments]
"""

import ctypes
import json
import os
import subprocess
import sys
import threading
import unittest

PROBE_PATH = sys.argv.pop(1)
LIB = ctypes.CDLL(PROBE_PATH)
for _name in ("flopspy_probe_capture", "flopspy_probe_capture_in_c_thread"):
    getattr(LIB, _name).argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
    getattr(LIB, _name).restype = ctypes.c_int
probe = LIB.flopspy_probe_capture
BUF = 1 << 22
MAX_FRAMES = 128  # trace::kMaxStackFrames
LINES = {}


def here():
    """The line of the caller: put the probe call on the same line."""
    return sys._getframe(1).f_lineno


def result(buf, n):
    assert n > 0, "the probe's buffer was too small"
    return json.loads(buf.value.decode("utf-8"))


def line_of(code, offset):
    for start, end, line in code.co_lines():
        if start <= offset < end:
            return line
    return None


def qualname(code):
    return code.co_qualname if sys.version_info >= (3, 11) else code.co_name


# --- functions with known call lines -------------------------------------------------------

def inner():
    buf = ctypes.create_string_buffer(BUF)
    LINES["inner"] = here(); n = probe(buf, BUF, MAX_FRAMES)  # noqa: E702
    return result(buf, n)


def middle():
    LINES["middle"] = here(); return inner()  # noqa: E702


def outer():
    LINES["outer"] = here(); return middle()  # noqa: E702


class Widget:
    def run(self):
        buf = ctypes.create_string_buffer(BUF)
        LINES["Widget.run"] = here(); n = probe(buf, BUF, MAX_FRAMES)  # noqa: E702
        return result(buf, n)


def generator():
    buf = ctypes.create_string_buffer(BUF)
    LINES["generator"] = here(); n = probe(buf, BUF, MAX_FRAMES)  # noqa: E702
    yield result(buf, n)


def recurse(depth):
    if depth == 0:
        return inner()
    return recurse(depth - 1)


def with_caller_lasti():
    """The caller's f_lasti while it waits in this call: what the probe must report for it."""
    lasti = sys._getframe(1).f_lasti
    return inner(), lasti


def in_thread(target):
    box = {}

    def run():
        box["value"] = target()

    t = threading.Thread(target=run, name="probe-thread")
    t.start()
    t.join()
    return box["value"]


@unittest.skipIf(sys.version_info < (3, 10), "an interpreter flopspy does not read")
class FramesTest(unittest.TestCase):
    def assertFrame(self, frame, code, line):
        """`frame` (from the probe) is `code` running `line`."""
        self.assertGreater(frame["record_size"], 0, frame)
        self.assertTrue(frame["type_ok"] and frame["size_ok"] and frame["key_ok"], frame)
        self.assertTrue(frame["zero_padded"], frame)
        self.assertEqual(frame["file"], code.co_filename)
        self.assertEqual(frame["name"], qualname(code))
        self.assertEqual(frame["first_line"], code.co_firstlineno)
        self.assertEqual(frame["linetable"], code.co_linetable.hex())
        self.assertEqual(frame["flags"], 0)
        self.assertEqual(frame["version"], sys.version_info[0] << 8 | sys.version_info[1])
        self.assertEqual(frame["format"], 2 if sys.version_info >= (3, 11) else 1)
        self.assertEqual(frame["offset"] % 2, 0)
        self.assertEqual(line_of(code, frame["offset"]), line,
                         "offset %d of %s" % (frame["offset"], qualname(code)))
        self.assertNotEqual(int(frame["key"], 16), 0)

    def test_state_and_description(self):
        got = inner()
        self.assertEqual(got["status"], "readable", got)
        v = sys.version_info
        self.assertTrue(got["description"].startswith("CPython %d.%d.%d" % (v[0], v[1], v[2])),
                        got["description"])
        how = "debug offsets" if v >= (3, 13) else "layout table %d.%d" % (v[0], v[1])
        self.assertIn(how, got["description"])

    def test_innermost_frames_are_the_callers_in_order(self):
        LINES["test"] = here(); got = outer()  # noqa: E702
        frames = got["frames"]
        self.assertFalse(got["truncated"])
        self.assertFrame(frames[0], inner.__code__, LINES["inner"])
        self.assertFrame(frames[1], middle.__code__, LINES["middle"])
        self.assertFrame(frames[2], outer.__code__, LINES["outer"])
        self.assertFrame(frames[3], FramesTest.test_innermost_frames_are_the_callers_in_order
                         .__code__, LINES["test"])
        # Below the test: unittest's frames, then this script's module code.
        self.assertTrue(frames[4]["file"].endswith("case.py"), frames[4])
        self.assertEqual(frames[-1]["name"], "<module>")
        self.assertEqual(frames[-1]["file"], __file__)

    def test_method_has_its_qualified_name(self):
        got = Widget().run()
        self.assertFrame(got["frames"][0], Widget.run.__code__, LINES["Widget.run"])
        if sys.version_info >= (3, 11):
            self.assertEqual(got["frames"][0]["name"], "Widget.run")

    def test_generator_frame(self):
        LINES["test"] = here(); got = next(generator())  # noqa: E702
        self.assertFrame(got["frames"][0], generator.__code__, LINES["generator"])
        self.assertFrame(got["frames"][1], FramesTest.test_generator_frame.__code__,
                         LINES["test"])

    def test_frames_entered_from_c(self):
        # map() is C: the interpreter is re-entered (3.11: an entry frame, 3.12: a shim frame
        # owned by the C stack, 3.13+: an entry frame), which is not a Python frame.
        LINES["test"] = here(); got = list(map(lambda _: inner(), [0]))[0]  # noqa: E702
        frames = got["frames"]
        self.assertFrame(frames[0], inner.__code__, LINES["inner"])
        self.assertTrue(frames[1]["name"].endswith("<lambda>"), frames[1])
        self.assertFrame(frames[2], FramesTest.test_frames_entered_from_c.__code__,
                         LINES["test"])

    def test_offset_is_f_lasti(self):
        got, lasti = with_caller_lasti()
        self.assertEqual(got["frames"][1]["name"], qualname(with_caller_lasti.__code__))
        self.assertEqual(got["frames"][2]["name"], qualname(FramesTest.test_offset_is_f_lasti
                                                            .__code__))
        self.assertEqual(got["frames"][2]["offset"], lasti)

    def test_second_python_thread(self):
        got = in_thread(outer)
        frames = got["frames"]
        self.assertFrame(frames[0], inner.__code__, LINES["inner"])
        self.assertFrame(frames[2], outer.__code__, LINES["outer"])
        self.assertTrue(frames[3]["name"].endswith("run"), frames[3])  # in_thread's run()
        # The thread's own frames end in threading's bootstrap, not in this module.
        self.assertTrue(frames[-1]["file"].endswith("threading.py"), frames[-1])
        self.assertIn("_bootstrap", frames[-1]["name"])

    def test_c_thread_without_python_has_no_frames(self):
        buf = ctypes.create_string_buffer(BUF)
        got = result(buf, LIB.flopspy_probe_capture_in_c_thread(buf, BUF, MAX_FRAMES))
        self.assertEqual(got["frames"], [])
        # Before any capture on a thread with Python frames the layout is not checked yet.
        self.assertIn(got["status"], ("not_yet", "readable"))
        self.assertEqual(inner()["status"], "readable")
        got = result(buf, LIB.flopspy_probe_capture_in_c_thread(buf, BUF, MAX_FRAMES))
        self.assertEqual(got["frames"], [])
        self.assertEqual(got["status"], "readable")

    def test_deep_stack_is_cut_and_says_so(self):
        got = recurse(MAX_FRAMES + 20)
        self.assertTrue(got["truncated"])
        self.assertEqual(len(got["frames"]), MAX_FRAMES)
        self.assertFrame(got["frames"][0], inner.__code__, LINES["inner"])
        self.assertEqual(got["frames"][1]["name"], qualname(recurse.__code__))
        self.assertEqual(got["frames"][-1]["name"], qualname(recurse.__code__))

    def test_fewer_frames_asked(self):
        buf = ctypes.create_string_buffer(BUF)
        got = result(buf, probe(buf, BUF, 1))
        self.assertEqual(len(got["frames"]), 1)
        self.assertTrue(got["truncated"])

    def test_code_keys(self):
        a, b = inner(), inner()
        c = Widget().run()
        self.assertEqual(a["frames"][0]["key"], b["frames"][0]["key"])
        self.assertNotEqual(a["frames"][0]["key"], c["frames"][0]["key"])

    def test_capture_cost_is_printed(self):
        LIB.flopspy_probe_capture_ns.argtypes = [ctypes.c_int, ctypes.c_int,
                                                 ctypes.POINTER(ctypes.c_int)]
        LIB.flopspy_probe_capture_ns.restype = ctypes.c_double
        depth = ctypes.c_int(0)
        ns = LIB.flopspy_probe_capture_ns(100000, MAX_FRAMES, ctypes.byref(depth))
        self.assertGreater(depth.value, 3)
        print("\ncapture: %.1f ns for %d frames (%.2f ns per frame)"
              % (ns, depth.value, ns / depth.value), file=sys.stderr)

    def test_non_ascii_names(self):
        namespace = {"probe": probe, "ctypes": ctypes, "BUF": BUF, "result": result,
                     "MAX_FRAMES": MAX_FRAMES}
        # Latin-1, 2-byte and 4-byte characters: each str kind CPython stores.
        source = ("def fünf_δ_名_\U00020000():\n"
                  "    buf = ctypes.create_string_buffer(BUF)\n"
                  "    return result(buf, probe(buf, BUF, MAX_FRAMES))\n")
        exec(compile(source, "/tmp/dätei_€_\U0001F600.py", "exec"), namespace)
        fn = namespace["fünf_δ_名_\U00020000"]
        got = fn()
        self.assertFrame(got["frames"][0], fn.__code__, 3)


@unittest.skipIf(sys.version_info >= (3, 10), "an interpreter flopspy reads")
class UnsupportedTest(unittest.TestCase):
    def test_older_interpreter_is_refused_once(self):
        # A child process, so that its stderr (which flopspy writes to) can be read here.
        child = subprocess.run([sys.executable, __file__, PROBE_PATH, "--child"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(child.returncode, 0, child.stderr)
        results = json.loads(child.stdout.decode("utf-8"))
        v = sys.version_info
        for got in results:
            self.assertEqual(got["frames"], [])
            self.assertEqual(got["status"], "unsupported")
        expected = "CPython %d.%d.%d: version not supported, no Python call sites" % v[:3]
        self.assertEqual(results[-1]["description"], expected)
        lines = [line for line in child.stderr.decode("utf-8").splitlines()
                 if line.startswith("flopspy: ")]
        self.assertEqual(lines, ["flopspy: " + expected])


def child():
    """Three captures, as JSON on stdout: the parent reads this process's stderr."""
    results = []
    for _ in range(3):
        buf = ctypes.create_string_buffer(BUF)
        results.append(result(buf, probe(buf, BUF, MAX_FRAMES)))
    sys.stdout.write(json.dumps(results))


if __name__ == "__main__":
    if sys.argv[1:] == ["--child"]:
        child()
    else:
        unittest.main()
