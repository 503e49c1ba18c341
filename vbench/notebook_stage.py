"""Executes one pipeline stage's notebook the way `dvc repro` needs it: papermill with the
given parameters, the executed copy kept in notebooks/executed/ and rendered to HTML.

Two things differ from a bare `papermill` call, both for the person at the terminal:
- the kernel's stderr stream (where a campaign writes its progress lines) is copied to this
  process's stderr as it arrives, while the executed notebook keeps its record as before;
- the kernel talks to papermill over IPC sockets in a private directory instead of TCP on
  localhost, so no port of a root-run kernel is open to other users of the machine, and the
  kernel has no cause for its "running over TCP without encryption" warning at every stage.
"""

from __future__ import annotations

import logging
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO

from jupyter_client.manager import AsyncKernelManager


class IpcKernelManager(AsyncKernelManager):
    """A kernel manager whose kernel listens on IPC sockets in a directory of its own."""

    def __init__(self, **kwargs: Any):
        kwargs.setdefault("transport", "ipc")
        super().__init__(**kwargs)
        # A private directory: the sockets are files, and a world-writable cwd or /tmp name
        # could be taken by someone else first.
        self._ipc_dir = tempfile.mkdtemp(prefix="vbench-kernel-")
        self.ip = str(Path(self._ipc_dir) / "kernel")

    async def _async_interrupt_kernel(self) -> None:
        # jupyter_client sends SIGINT before asking a kernel to shut down; a kernel that has run
        # every cell has nothing to interrupt, and the signal only makes it log "KeyboardInterrupt
        # caught in kernel" on the terminal of `dvc repro`. Interrupts of a running cell stay.
        if self.shutting_down:
            return
        await super()._async_interrupt_kernel()

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if not restart:
            shutil.rmtree(self._ipc_dir, ignore_errors=True)


def parameter_value(text: str) -> Any:
    """A `-p NAME VALUE` value typed as papermill's own command line types it. Pure."""
    if text in ("True", "False"):
        return text == "True"
    if text == "None":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def run_stage(
    notebook: Path, executed: Path, parameters: dict[str, Any], *, html: bool = True, stream: TextIO = sys.stderr
) -> Path:
    """Execute `notebook` into `executed` (and its .html beside it); returns the executed path.

    A failing cell raises papermill's PapermillExecutionError after the executed notebook,
    with the failing cell's traceback, has been written."""
    import papermill

    executed.parent.mkdir(parents=True, exist_ok=True)
    print(f"stage {notebook.stem}: executing {notebook} -> {executed}", file=stream, flush=True)
    t0 = time.monotonic()
    papermill.execute_notebook(
        str(notebook),
        str(executed),
        parameters=parameters,
        progress_bar=False,
        stderr_file=stream,
        kernel_manager_class=IpcKernelManager,
    )
    if html:
        render_html(executed)
    print(f"stage {notebook.stem}: done in {time.monotonic() - t0:.0f} s", file=stream, flush=True)
    return executed


def render_html(executed: Path) -> Path:
    import nbformat
    from nbconvert import HTMLExporter

    exporter = HTMLExporter()
    # Its one warning ("Alternative text is missing on N image(s)", for every plot) is about
    # accessibility of notebook output, nothing the person running the pipeline can act on.
    exporter.log.setLevel(logging.ERROR)
    body, _ = exporter.from_notebook_node(nbformat.read(executed, as_version=4))
    out = executed.with_suffix(".html")
    out.write_text(body, encoding="utf-8")
    return out
