"""`PathBelow`: a record's attribute that names a fixed file or directory below one of its paths.

Records such as a cached image or a host's layout hold one base directory and derive the rest
from it; `disk = PathBelow[Path]("home", "disk.qcow2")` says that in one line where a property
took three.
"""

from __future__ import annotations

from pathlib import Path, PurePath
from typing import Generic, TypeVar, overload

B = TypeVar("B", Path, str)


class PathBelow(Generic[B]):
    """`name` below the path in the (frozen) record's attribute `base`. A Path base gives
    `base / name`; a str base (a path on another host) gives f"{base}/{name}", as it is written
    into that host's commands and configuration."""

    def __init__(self, base: str, name: str) -> None:
        self.base = base
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> PathBelow[B]: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> B: ...

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        base = getattr(obj, self.base)
        return base / self.name if isinstance(base, PurePath) else f"{base}/{self.name}"
