"""flopspy.region and flopspy.is_active: the marker API of libflopspy.so, called through ctypes.

The C functions flopspy_region_begin/flopspy_region_end are looked up once, lazily, among the
symbols already loaded in the process (ctypes.CDLL(None)): when libflopspy.so is not preloaded
they are missing and every marker does nothing. Regions are keyed in the library by (thread,
name) and nest as a stack per key, so one region object may be used from several threads and
nested in itself; the Python side keeps no state per use.
"""

import functools
import inspect
import threading

# libflopspy.so copies at most this many bytes of a name (kMaxRawName in interpose/); cutting
# here, at a character boundary, keeps a long UTF-8 name valid in the report.
MAX_NAME_BYTES = 112

_lock = threading.Lock()
_resolved = False
_begin = None
_end = None


def _resolve():
    """Returns (begin, end), or (None, None) without the library; looks up only once."""
    global _resolved, _begin, _end
    if _resolved:
        return _begin, _end
    with _lock:
        if not _resolved:
            begin = end = None
            try:
                import ctypes

                process = ctypes.CDLL(None)  # our own handle: argtypes set here touch no one else's
                begin = process.flopspy_region_begin
                end = process.flopspy_region_end
                for fn in (begin, end):
                    fn.argtypes = [ctypes.c_char_p]
                    fn.restype = None
            except (AttributeError, OSError, ImportError):
                begin = end = None
            _begin, _end = begin, end
            _resolved = True
    return _begin, _end


def is_active():
    """True when libflopspy.so is loaded in this process (flopspy run, or LD_PRELOAD).

    A loaded library that records nothing (FLOPSPY_ENABLE=0, a forked child under
    --no-follow-fork) still counts as loaded: its markers are then cheap no-ops in C.
    """
    return _resolve()[0] is not None


def _encode(name):
    if isinstance(name, bytes):
        data = name
    elif isinstance(name, str):
        data = name.encode("utf-8", "replace")
    else:
        raise TypeError(f"flopspy.region: name must be str or bytes, not {type(name).__name__}")
    if b"\0" in data:
        raise ValueError("flopspy.region: name must not contain a NUL character")
    if len(data) > MAX_NAME_BYTES:
        data = data[:MAX_NAME_BYTES].decode("utf-8", "ignore").encode("utf-8")
    return data


class region:  # noqa: N801 (lower case: used like a function, `with flopspy.region("x"):`)
    """A marked region: `with region("fwd"):`, `@region("fwd")`, or `@region` (the function's
    qualified name). Does nothing when libflopspy.so is not loaded."""

    __slots__ = ("name", "_data")

    def __new__(cls, name):
        if callable(name) and not isinstance(name, (str, bytes)):
            # Bare `@region`: name the region after the function.
            return cls(getattr(name, "__qualname__", getattr(name, "__name__", repr(name))))(name)
        return super().__new__(cls)

    def __init__(self, name):
        self._data = _encode(name)
        self.name = name if isinstance(name, str) else name.decode("utf-8", "replace")

    def __repr__(self):
        return f"flopspy.region({self.name!r})"

    def __enter__(self):
        begin = _resolve()[0]
        if begin is not None:
            begin(self._data)
        return self

    def __exit__(self, exc_type, exc, tb):
        end = _resolve()[1]
        if end is not None:
            end(self._data)
        return False  # never swallow the exception

    def __call__(self, fn):
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def async_wrapper(*args, **kwargs):
                with self:
                    return await fn(*args, **kwargs)

            return async_wrapper

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return wrapper
