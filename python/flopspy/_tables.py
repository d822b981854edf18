"""Turns the report's JSON objects into flat rows and typed pandas DataFrames.

Nested objects become columns joined with "_" (placement.regime -> placement_regime); a grid
or block [x, y, z] becomes grid_x, grid_y, grid_z, and a cuBLAS call's types [A, B, C, D]
types_a ... types_d; other lists stay whole in one column (Python lists).
"""

import math
import re

_XYZ_KEYS = frozenset({"grid", "block", "cluster"})
_ABCD_KEYS = frozenset({"types"})
# A column with no known value is typed by its name: these hold numbers when known.
_NUMERIC_SUFFIXES = ("_ns", "_per_s", "_pct", "_fraction", "_share", "flops", "bytes", "_count",
                     "intensity", "ridge", "mfu", "hfu", "_peak")


def snake_case(key):
    key = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", str(key))
    return re.sub(r"[^0-9a-zA-Z]+", "_", key).strip("_").lower()


def flatten(obj, prefix="", out=None):
    """The scalar leaves of a JSON object as one flat dict of snake_case names."""
    out = {} if out is None else out
    for key, value in obj.items():
        name = prefix + snake_case(key)
        if isinstance(value, dict):
            flatten(value, name + "_", out)
        elif isinstance(value, list) and key in _XYZ_KEYS and len(value) == 3:
            for axis, v in zip("xyz", value):
                out[f"{name}_{axis}"] = v
        elif isinstance(value, list) and key in _ABCD_KEYS and len(value) == 4:
            for matrix, v in zip("abcd", value):
                out[f"{name}_{matrix}"] = v
        else:
            out[name] = value
    return out


def _missing(v):
    return v is None or (isinstance(v, float) and math.isnan(v))


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def frame(rows, first=()):
    """A DataFrame of flat rows: columns in first-seen order (`first` leading), numbers numeric,
    booleans bool ("boolean" where some are unknown). No rows: an empty frame, no columns."""
    import pandas as pd

    if not rows:
        return pd.DataFrame()
    columns = list(first)
    seen = set(columns)
    for row in rows:
        for name in row:
            if name not in seen:
                seen.add(name)
                columns.append(name)
    # An object that is null in every row but flattened in none keeps its own column; once some
    # row flattens it, its null stays as missing values in the flattened columns.
    columns = [c for c in columns
               if not (all(_missing(r.get(c)) for r in rows)
                       and any(o.startswith(c + "_") for o in seen if o != c))]
    data = {}
    for name in columns:
        values = [row.get(name) for row in rows]
        known = [v for v in values if not _missing(v)]
        if not known:
            numeric = name.endswith(_NUMERIC_SUFFIXES)
            data[name] = pd.Series([math.nan] * len(values) if numeric else values,
                                   dtype="float64" if numeric else "object")
        elif all(isinstance(v, bool) for v in known):
            data[name] = pd.Series(values, dtype="bool" if len(known) == len(values) else "boolean")
        elif all(_is_number(v) for v in known):
            data[name] = pd.to_numeric(pd.Series([math.nan if _missing(v) else v for v in values]))
        else:
            data[name] = pd.Series(values, dtype="object")
    return pd.DataFrame(data, columns=columns)
