"""Where runs go: data/raw/<campaign>/samples.jsonl (the ledger, append-only: vbench.ledger) and
raw tool output beside it, all fsync'd; committed campaigns are only added to when asked."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from vbench import durable, ledger
from vbench.errors import VbenchError
from vbench.samples import Failure, Sample

#: A file of this name in a campaign directory freezes it (as committing it to git does).
FROZEN_MARK = "frozen"
#: What a refused command is told to do when it means it.
APPEND_HINT = "pass --append to add to it anyway, or use another --campaign"

Run = tuple[str, Iterable[Sample | Failure], Mapping[str, Any]]


def tracked_by_git(root: Path) -> bool:
    """Whether git tracks any file under `root` (False when there is no git or no repository).

    vbench runs as root in a user's checkout, which git refuses as "dubious ownership" unless
    told otherwise; that refusal must not read as "not committed". ls-files only reads the
    index; fsmonitor, the one hook it could start, is switched off."""
    if not root.is_dir():
        return False
    argv = ["git", "-c", "safe.directory=*", "-c", "core.fsmonitor=false", "-C", str(root), "ls-files", "-z", "--", "."]
    try:
        out = subprocess.run(argv, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and bool(out.stdout)


def committed_reason(root: Path) -> str | None:
    """Why `root` holds a committed campaign that must not change by accident, or None."""
    if (root / FROZEN_MARK).exists():
        return f"it carries a '{FROZEN_MARK}' mark file"
    if tracked_by_git(root):
        return "git tracks its files"
    return None


@dataclass(frozen=True)
class CampaignStore:
    root: Path
    #: The user said to add to this campaign even if it is committed (`--append`).
    append: bool = False

    @property
    def samples_path(self) -> Path:
        return self.root / "samples.jsonl"

    def raw_dir(self, run_id: str) -> Path:
        return self.root / "raw" / run_id

    def check_appendable(self, hint: str = APPEND_HINT) -> None:
        """Refuse (one line: why, and what to do) to add to a committed campaign unless asked."""
        if self.append:
            return
        reason = committed_reason(self.root)
        if reason:
            raise VbenchError(
                f"{self.root} is a committed campaign ({reason}): vbench adds nothing to it unless asked; {hint}"
            )

    def holds_samples(self) -> bool:
        return self.samples_path.exists() and self.samples_path.stat().st_size > 0

    def cut_torn_tail(self) -> Path | None:
        """Cut an unfinished append off the ledger (kept aside; returned), e.g. on resume."""
        self.check_appendable()
        return ledger.cut_torn_tail(self.samples_path)

    def save(
        self, run_id: str, records: Iterable[Sample | Failure], raw: Mapping[str, Any], stamp: Mapping[str, Any]
    ) -> None:
        self.save_runs([(run_id, records, raw)], stamp)

    def save_runs(self, runs: Iterable[Run], stamp: Mapping[str, Any], cell_done: bool = True) -> None:
        """Store runs stamped with `stamp` as one ledger append (a cell's, if the stamp names one)."""
        self.save_attempts([(runs, stamp)], stamp.get("cell_id"), cell_done)

    def save_attempts(
        self, attempts: Sequence[tuple[Iterable[Run], Mapping[str, Any]]], cell_id: str | None, cell_done: bool = True
    ) -> None:
        """Raw outputs first, then every attempt's records and the closing record in one append:
        a record never points at missing output, and the cell is done only once it is all there."""
        self.check_appendable()
        durable.make_dirs(self.root)
        stamped: list[Sample | Failure] = []
        for runs, stamp in attempts:
            for run_id, records, raw in runs:
                self._write_raw(run_id, raw)
                stamped += [_stamped(r, stamp, run_id) for r in records]
        ledger.append_unit(self.samples_path, [r.to_dict() for r in stamped], cell_id=cell_id, cell_done=cell_done)

    def _write_raw(self, run_id: str, raw: Mapping[str, Any]) -> None:
        d = self.raw_dir(run_id)
        durable.make_dirs(d)
        for name, text in _raw_files(raw):
            durable.write_text(d / name, text)
        if raw:
            durable.fsync_dir(d)  # the new files' names


def _raw_files(raw: Mapping[str, Any]) -> Iterable[tuple[str, str]]:
    for name, out in raw.items():
        if hasattr(out, "stdout"):
            yield f"{name}.stdout", out.stdout
            yield f"{name}.stderr", out.stderr
        else:
            yield f"{name}.txt", str(out)


def _stamped(r: Sample | Failure, stamp: Mapping[str, Any], run_id: str) -> Sample | Failure:
    if isinstance(r, Sample):
        return r.with_metadata(**stamp, run_id=run_id)
    return Failure(
        r.benchmark, r.reason, r.parameters, r.stderr_tail, {**r.metadata, **stamp, "run_id": run_id}, r.timestamp
    )
