"""Errors that vbench reports to users as one clear line (no traceback)."""


class VbenchError(Exception):
    """Base class for errors the command line prints without a traceback."""


class ParamsError(VbenchError):
    """Bad input, found before anything was started: `field` names what is wrong, `message` says how.

    Both are kept apart so that a caller placing the error inside a file, a section or a
    configuration (`vbench.params.prefixed`) never has to take the printed "<field>: <message>" apart again."""

    def __init__(self, field: str, message: str):
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


class ClusterNotReady(VbenchError):
    """A daemon did not come up in time; the message says which and where its log is."""


class JobFailed(VbenchError):
    """A Hadoop job or a benchmark exited non-zero or produced an invalid result."""
