"""Errors that vbench reports to users as one clear line (no traceback)."""


class VbenchError(Exception):
    """Base class for errors the command line prints without a traceback."""


class ParamsError(VbenchError):
    """Bad input, found before anything was started. Names the offending field."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(f"{field}: {message}")


class ClusterNotReady(VbenchError):
    """A daemon did not come up in time; the message says which and where its log is."""


class JobFailed(VbenchError):
    """A Hadoop job or a benchmark exited non-zero or produced an invalid result."""
