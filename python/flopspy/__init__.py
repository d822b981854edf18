"""flopspy for Python programs: mark regions of a run, and read a report's tables.

    import flopspy
    with flopspy.region("forward"):        # no-op unless run under `flopspy run`
        ...
    report = flopspy.load("report.json")   # flopspy-report TRACES --json > report.json
    report.kernels.nlargest(10, "gpu_ns")

See docs/python.md.
"""

from ._markers import MAX_NAME_BYTES, is_active, region
from ._report import SUPPORTED_SCHEMA_VERSIONS, Report, load

__all__ = ["region", "is_active", "load", "Report", "MAX_NAME_BYTES", "SUPPORTED_SCHEMA_VERSIONS"]
