"""flopspy.load: the tables of a `flopspy-report --json` document as pandas DataFrames."""

import json
import os

from ._tables import flatten, frame

SCHEMA = "flopspy-report"
SUPPORTED_SCHEMA_VERSIONS = (2,)

# Per-trace keys that are tables of their own, or too big or too nested for a process row.
_NOT_PROCESS_COLUMNS = frozenset({"metadata", "threads", "launch_overhead", "timeline",
                                  "cpu_roofline", "process", "read", "path"})
_IDENTITY = ("trace", "rank", "pid", "host")


def _identity(index, trace):
    process = trace.get("process") or {}
    return {"trace": index, "rank": process.get("rank"), "pid": process.get("pid"),
            "host": process.get("host")}


def _lookup(obj, dotted):
    for part in dotted.split("."):
        if not isinstance(obj, dict):
            return None
        obj = obj.get(part)
    return obj


class Report:
    """One report: a DataFrame per table (empty when the report has no such table) and the
    document itself (`raw`). Per-trace tables start with the columns trace (the trace's index
    in `processes`), rank, pid and host."""

    _TABLES = ("processes", "kernels", "library_calls", "copies", "regions", "launch_overhead",
               "advice", "ranks", "stragglers", "merged_kernels", "merged_library_calls",
               "steps", "ranges")

    def __init__(self, path, doc):
        self.path = path
        self.raw = doc
        self.schema_version = doc["schema_version"]
        self.flopspy_version = doc.get("flopspy_version")
        self.totals = dict(doc.get("totals") or {})
        self._traces = [t for t in doc.get("traces") or [] if isinstance(t, dict)]
        aggregate = doc.get("aggregate") or {}

        self.processes = self._process_table()
        self.kernels = self.table("kernels")
        self.library_calls = self.table("library_calls")
        self.copies = self.table("copies")
        self.regions = self.table("regions")
        self.advice = self.table("advice")
        self.launch_overhead = self._one_row_per_trace("launch_overhead")
        self.ranks = frame([flatten(r) for r in doc.get("ranks") or []])
        self.stragglers = frame([flatten(s) for s in doc.get("stragglers") or []])
        self.merged_kernels = frame([flatten(k) for k in aggregate.get("kernels") or []])
        self.merged_library_calls = frame(
            [flatten(c) for c in aggregate.get("library_calls") or []])
        # Not in schema 2 yet: read the same way as kernels once the report writes them.
        self.steps = self.table("steps")
        self.ranges = self.table("ranges")

    def table(self, key):
        """Rows of the per-trace array `key` (dotted for a nested one, e.g.
        "launch_overhead.signatures"), each with its trace's identity columns; empty when no
        trace has it."""
        rows = []
        for index, trace in enumerate(self._traces):
            items = _lookup(trace, key)
            if not isinstance(items, list):
                continue
            ident = _identity(index, trace)
            for item in items:
                row = dict(ident)
                row.update(flatten(item) if isinstance(item, dict) else {"value": item})
                rows.append(row)
        return frame(rows, first=_IDENTITY)

    def _one_row_per_trace(self, key):
        rows = []
        for index, trace in enumerate(self._traces):
            if isinstance(trace.get(key), dict):
                row = _identity(index, trace)
                row.update(flatten(trace[key]))
                rows.append(row)
        return frame(rows, first=_IDENTITY)

    def _process_table(self):
        rows = []
        for index, trace in enumerate(self._traces):
            row = {"trace": index, "path": trace.get("path")}
            row.update(flatten(trace.get("process") or {}))
            row.update(flatten(trace.get("read") or {}, "read_"))
            rest = {k: v for k, v in trace.items()
                    if k not in _NOT_PROCESS_COLUMNS and not isinstance(v, list)}
            row.update(flatten(rest))
            rows.append(row)
        return frame(rows, first=("trace", "path", "rank", "pid", "host"))

    def __repr__(self):
        shapes = ", ".join(f"{name}={getattr(self, name).shape[0]}" for name in self._TABLES
                           if not getattr(self, name).empty)
        return f"<flopspy.Report {self.path!r} schema {self.schema_version}: {shapes or 'no rows'}>"


def _refuse(path, why):
    raise ValueError(f"{path}: {why}") from None


def load(path):
    """Reads the JSON that `flopspy-report TRACE... --json` printed. Raises ValueError (one line)
    for a missing file, a file that is not such a report, or a schema version this module does
    not read."""
    try:
        import pandas  # here, not at the top: flopspy.region works without pandas
    except ImportError:
        raise ImportError("flopspy.load needs pandas (Debian: apt-get install python3-pandas)") \
            from None
    del pandas  # the tables import it themselves; this only checks it early
    path = os.fspath(path)
    if os.path.isdir(path):
        _refuse(path, "is a folder; flopspy.load reads the JSON of `flopspy-report DIR --json`")
    try:
        with open(path, "rb") as f:
            doc = json.loads(f.read().decode("utf-8"))
    except FileNotFoundError:
        _refuse(path, "no such file")
    except OSError as e:
        _refuse(path, f"cannot be read ({e.strerror})")
    except (UnicodeDecodeError, json.JSONDecodeError):
        _refuse(path, "not a flopspy report JSON (not JSON text); "
                      "make one with `flopspy-report TRACE... --json > report.json`")
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        _refuse(path, f'not a flopspy report JSON (no "schema": "{SCHEMA}")')
    version = doc.get("schema_version")
    if version not in SUPPORTED_SCHEMA_VERSIONS or isinstance(version, bool):
        readable = ", ".join(str(v) for v in SUPPORTED_SCHEMA_VERSIONS)
        _refuse(path, f"report schema_version {version!r} is not supported "
                      f"(this flopspy module reads {readable})")
    if "diff" in doc and "traces" not in doc:
        _refuse(path, "is a `flopspy-report --diff` document; flopspy.load reads a report")
    if not isinstance(doc.get("traces"), list):
        _refuse(path, 'not a flopspy report JSON (no "traces" list)')
    return Report(path, doc)
