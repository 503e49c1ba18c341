"""Where the campaigns are, whatever directory the notebook's kernel runs in.

JupyterLab starts a kernel in the notebook's own directory (notebooks/), papermill in the caller's:
a path relative to the working directory works for one and not the other. The repository is the
first directory, from the working directory upwards, that holds `dvc.yaml` and `data/raw/`;
failing that, the checkout vbench itself is imported from (an editable install).
"""

from __future__ import annotations

from pathlib import Path

from vbench.errors import ParamsError

#: What marks the repository's root: its pipeline file and its campaigns' directory.
ROOT_MARKERS = ("dvc.yaml", "data/raw")


def is_repository(path: Path) -> bool:
    return all((path / m).exists() for m in ROOT_MARKERS)


def data_dir(start: Path | None = None, package_dir: Path | None = None) -> Path:
    """`<repository>/data`, the repository found from `start` (default: the working directory)
    upwards, else the checkout holding the vbench package (`package_dir`, default: its own)."""
    start = Path.cwd() if start is None else Path(start)
    package_dir = Path(__file__).resolve().parents[1] if package_dir is None else Path(package_dir)
    candidates = [start.resolve(), *start.resolve().parents, package_dir.parent]
    for path in candidates:
        if is_repository(path):
            return path / "data"
    raise ParamsError(
        "data_dir",
        f"no vbench repository (a directory with {' and '.join(ROOT_MARKERS)}) "
        f"at or above {start} nor at {package_dir.parent}: pass data_dir",
    )


def campaigns(data: Path) -> list[str]:
    """The campaigns under `data/raw/`: directories holding a samples.jsonl, by name."""
    raw = Path(data) / "raw"
    return sorted(p.name for p in raw.iterdir() if (p / "samples.jsonl").is_file()) if raw.is_dir() else []


def campaign_dir(data: Path, campaign: str) -> Path:
    """`data/raw/<campaign>`, refused with the campaigns there when it holds no samples."""
    path = Path(data) / "raw" / campaign
    if not (path / "samples.jsonl").is_file():
        have = ", ".join(campaigns(data)) or "none"
        raise ParamsError("campaign", f"{path} holds no samples.jsonl (campaigns under {Path(data) / 'raw'}: {have})")
    return path
