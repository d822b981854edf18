"""flopspy.region and flopspy.is_active without libflopspy.so: every use is a silent no-op that
keeps the program's own behaviour (return values, exceptions, names), and needs no pandas."""

import asyncio
import os
import sys
import threading
import unittest

import flopspy


class RegionWithoutLibrary(unittest.TestCase):
    def test_library_is_not_loaded(self):
        self.assertNotIn("libflopspy", os.environ.get("LD_PRELOAD", ""))
        self.assertFalse(flopspy.is_active())
        self.assertFalse(flopspy.is_active())  # the cached answer agrees

    def test_importing_and_marking_do_not_import_pandas(self):
        with flopspy.region("x"):
            pass
        self.assertNotIn("pandas", sys.modules)

    def test_context_manager_nests_and_returns_the_region(self):
        outer = flopspy.region("outer")
        with outer as entered:
            self.assertIs(entered, outer)
            with flopspy.region("inner"), outer:  # the same object nested in itself
                pass

    def test_exception_passes_through(self):
        for kind in (KeyError, ValueError, KeyboardInterrupt, SystemExit):
            with self.assertRaises(kind):
                with flopspy.region("fails"):
                    raise kind()

    def test_decorator_keeps_result_arguments_and_metadata(self):
        @flopspy.region("fwd")
        def add(a, b=2):
            """adds"""
            return a + b

        self.assertEqual(add(1, b=5), 6)
        self.assertEqual(add.__name__, "add")
        self.assertEqual(add.__doc__, "adds")

    def test_bare_decorator_names_the_region_after_the_function(self):
        class Model:
            @flopspy.region
            def forward(self, x):
                return x * 2

        self.assertEqual(Model().forward(3), 6)
        self.assertEqual(Model.forward.__name__, "forward")
        self.assertTrue(Model.forward.__qualname__.endswith("Model.forward"))

    def test_decorated_exception_passes_through(self):
        @flopspy.region("boom")
        def boom():
            raise RuntimeError("boom")

        with self.assertRaisesRegex(RuntimeError, "boom"):
            boom()

    def test_decorated_coroutine_stays_a_coroutine(self):
        @flopspy.region("step")
        async def step(x):
            await asyncio.sleep(0)
            return x + 1

        self.assertTrue(asyncio.iscoroutinefunction(step))
        self.assertEqual(asyncio.run(step(1)), 2)

    def test_many_threads(self):
        r = flopspy.region("worker")
        errors = []

        def work():
            try:
                for _ in range(200):
                    with r:
                        pass
            except Exception as e:  # noqa: BLE001 (reported below)
                errors.append(e)

        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])

    def test_names(self):
        self.assertEqual(flopspy.region(b"raw").name, "raw")
        self.assertEqual(repr(flopspy.region("fwd")), "flopspy.region('fwd')")
        with self.assertRaises(TypeError):
            flopspy.region(3)
        with self.assertRaises(ValueError):
            flopspy.region("a\0b")
        # Cut to the library's limit at a character boundary: 'é' is two bytes.
        long_name = "é" * 100
        data = flopspy.region(long_name)._data
        self.assertLessEqual(len(data), flopspy.MAX_NAME_BYTES)
        self.assertEqual(data.decode("utf-8"), "é" * (flopspy.MAX_NAME_BYTES // 2))

    def test_load_without_pandas_says_what_to_install(self):
        saved = sys.modules.get("pandas")
        sys.modules["pandas"] = None  # makes `import pandas` fail
        try:
            with self.assertRaisesRegex(ImportError, "python3-pandas"):
                flopspy.load("report.json")
        finally:
            if saved is None:
                del sys.modules["pandas"]
            else:
                sys.modules["pandas"] = saved


if __name__ == "__main__":
    unittest.main()
