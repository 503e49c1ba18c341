"""Where runs go: data/raw/<campaign>/samples.jsonl (append-only) and raw tool output beside it."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from vbench.samples import Failure, Sample, append_records


@dataclass(frozen=True)
class CampaignStore:
    root: Path

    @property
    def samples_path(self) -> Path:
        return self.root / "samples.jsonl"

    def raw_dir(self, run_id: str) -> Path:
        return self.root / "raw" / run_id

    def save(self, run_id: str, records: Iterable[Sample | Failure], raw: Mapping[str, Any], stamp: Mapping[str, Any]) -> None:
        self.save_runs([(run_id, records, raw)], stamp)

    def save_runs(self, runs: Iterable[tuple[str, Iterable[Sample | Failure], Mapping[str, Any]]],
                  stamp: Mapping[str, Any]) -> None:
        """Raw outputs first, then every run's records in one append: a record never points at
        missing output, and a crash leaves either all of them or (a torn line) none."""
        stamped: list[Sample | Failure] = []
        for run_id, records, raw in runs:
            d = self.raw_dir(run_id)
            d.mkdir(parents=True, exist_ok=True)
            for name, out in raw.items():
                if hasattr(out, "stdout"):
                    (d / f"{name}.stdout").write_text(out.stdout)
                    (d / f"{name}.stderr").write_text(out.stderr)
                else:
                    (d / f"{name}.txt").write_text(str(out))
            for r in records:
                if isinstance(r, Sample):
                    stamped.append(r.with_metadata(**stamp, run_id=run_id))
                else:
                    stamped.append(Failure(r.benchmark, r.reason, r.parameters, r.stderr_tail,
                                           {**r.metadata, **stamp, "run_id": run_id}, r.timestamp))
        append_records(self.samples_path, stamped)
