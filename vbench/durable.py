"""Writes that survive a power loss: the file's bytes and the directory entry that names it.

`write()` returning says nothing about the disk: the bytes are in the page cache until an
fsync of the file, and a new file's (or directory's) name is in its parent directory, which
needs an fsync of its own. A campaign's raw outputs and ledger are worth hours of measurement.
"""

from __future__ import annotations

import os
from pathlib import Path


def fsync_dir(path: Path) -> None:
    """Make the entries of directory `path` (files created or removed in it) durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def make_dirs(path: Path) -> None:
    """`mkdir -p path`, with each directory it creates made durable in its parent."""
    missing = []
    p = Path(path)
    while not p.is_dir():
        missing.append(p)
        p = p.parent
    for d in reversed(missing):  # outermost first: each one's parent exists when it is made
        d.mkdir(exist_ok=True)
        fsync_dir(d.parent)


def write_text(path: Path, text: str) -> None:
    """Write `text` to `path` and fsync it. The caller fsyncs the directory (once, after all
    the files it writes there) so that the new names are durable too."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())


def write_bytes_new(path: Path, data: bytes) -> None:
    """Create `path` (it must not exist: nothing is overwritten) with `data`, file and entry durable."""
    with open(path, "xb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    fsync_dir(path.parent)
