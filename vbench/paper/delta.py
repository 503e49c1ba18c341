"""The reproduction delta: each published finding beside what this campaign measured.

Findings are data (`params/published.yaml`, read and validated by `load_published`). For each,
`evaluate` selects the samples of the two local stand-ins, compares them at one cell (same
experiment, same data size and other factors), and computes the ratio of means with its
Fieller interval (`vbench.stats.ratio.fieller_interval`, the interval the statistics table
uses), or, where the two sides ran in the same blocks, the paired ratio of `vbench.stats.paired`
(the table marks those rows). The verdict rule, also stated at the top of published.yaml and in the paper:

* direction claims ("A faster than B", expect less/greater): reproduced when the CI of
  mean(A)/mean(B) excludes 1 on the published side, contradicted when it excludes 1 on the other
  side, inconclusive when it contains 1 or is unbounded;
* magnitude claims ("about 2 %", published_ratio r, tolerance t points): reproduced when the CI
  lies inside [r - t/100, r + t/100], contradicted when it lies entirely outside, inconclusive
  when it straddles an edge (interval inclusion, the confidence-interval form of an
  equivalence test);
* not measured: a side has no samples or no local stand-in, or both sides are the same local
  platform with the same selection, so there is nothing to compare.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from vbench.errors import ParamsError
from vbench.params import PLATFORMS
from vbench.stats.keys import natural_key
from vbench.stats.tidy import FACTOR_COLUMNS
from vbench.stats import DEFAULT_SEED
from vbench.stats.paired import FIELLER, pair_runs, paired_ratio
from vbench.stats.ratio import fieller_interval

from vbench.paper.fmt import NOT_MEASURED, digits_display, interval_text, plain_number, size_display, tex_escape

REPRODUCED, CONTRADICTED, INCONCLUSIVE, NOT_MEASURED_VERDICT = (
    "reproduced",
    "contradicted",
    "inconclusive",
    "not measured",
)
VERDICTS = (REPRODUCED, CONTRADICTED, INCONCLUSIVE, NOT_MEASURED_VERDICT)
KINDS = ("direction", "magnitude")
REQUIRED = ("id", "study", "source", "claim", "benchmark", "metric", "compare", "kind")


@dataclass(frozen=True)
class Side:
    published: str
    local: str | None
    where: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        w = ", ".join(f"{k}={v}" for k, v in sorted(self.where.items()))
        return f"{self.local or 'none'}" + (f" ({w})" if w else "")


@dataclass(frozen=True)
class Finding:
    id: str
    study: str
    source: str
    claim: str
    benchmark: str
    metric: str
    kind: str
    a: Side
    b: Side
    expect: str | None = None
    published_ratio: float | None = None
    tolerance_pct: float | None = None
    published_values: tuple[float, float] | None = None
    published_unit: str = ""
    size: str | None = None
    experiments: tuple[str, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class Published:
    platform_map: dict[str, str | None]
    studies: dict[str, dict]
    findings: list[Finding]


def default_published_path() -> Path:
    return Path(__file__).resolve().parents[2] / "params" / "published.yaml"


def load_published(path: str | Path | None = None) -> Published:
    """Read and validate published.yaml; errors name the finding and the field."""
    path = Path(path) if path else default_published_path()
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ParamsError(str(path), "no such file") from None
    except yaml.YAMLError as exc:
        raise ParamsError(str(path), f"not valid YAML ({exc})") from None
    return parse_published(doc, str(path))


def parse_published(doc: Any, source: str = "published.yaml") -> Published:
    if not isinstance(doc, dict):
        raise ParamsError(source, "expected a mapping with platform_map, studies and findings")
    pmap = doc.get("platform_map")
    if not isinstance(pmap, dict) or not pmap:
        raise ParamsError(f"{source}: platform_map", "must be a non-empty mapping of published name -> local platform")
    for name, local in pmap.items():
        if local is not None and local not in PLATFORMS:
            raise ParamsError(
                f"{source}: platform_map.{name}", f"unknown local platform {local!r}; known: {', '.join(PLATFORMS)}"
            )
    studies = doc.get("studies")
    if not isinstance(studies, dict) or not studies:
        raise ParamsError(f"{source}: studies", "must be a non-empty mapping")
    for key, s in studies.items():
        if not isinstance(s, dict) or not s.get("bibkey") or not s.get("short"):
            raise ParamsError(f"{source}: studies.{key}", "needs bibkey and short")
    raw = doc.get("findings")
    if not isinstance(raw, list) or not raw:
        raise ParamsError(f"{source}: findings", "must be a non-empty list")
    findings, seen = [], set()
    for i, f in enumerate(raw):
        findings.append(_finding(f, i, pmap, studies, source))
        if findings[-1].id in seen:
            raise ParamsError(f"{source}: findings[{i}].id", f"duplicate id {findings[-1].id!r}")
        seen.add(findings[-1].id)
    return Published(dict(pmap), dict(studies), findings)


def _finding(f: Any, i: int, pmap: dict, studies: dict, source: str) -> Finding:
    where = f"{source}: findings[{i}]" + (f" ({f.get('id')})" if isinstance(f, dict) and f.get("id") else "")
    if not isinstance(f, dict):
        raise ParamsError(where, "must be a mapping")
    missing = [k for k in REQUIRED if f.get(k) in (None, "", [])]
    if missing:
        raise ParamsError(where, f"missing required key(s): {', '.join(missing)}")
    if f["study"] not in studies:
        raise ParamsError(f"{where}.study", f"unknown study {f['study']!r}; known: {', '.join(studies)}")
    if f["kind"] not in KINDS:
        raise ParamsError(f"{where}.kind", f"must be one of {', '.join(KINDS)}, got {f['kind']!r}")
    _check_benchmark_metric(f["benchmark"], f["metric"], where)
    comp = f["compare"]
    if not isinstance(comp, list) or len(comp) != 2:
        raise ParamsError(f"{where}.compare", "must be a list of two sides [A, B]")
    sides = [_side(s, pmap, f"{where}.compare[{j}]") for j, s in enumerate(comp)]
    expect = f.get("expect")
    ratio = f.get("published_ratio")
    tol = f.get("tolerance_pct")
    if f["kind"] == "direction" and expect not in ("less", "greater"):
        raise ParamsError(f"{where}.expect", "a direction finding needs expect: less or greater (ratio A/B vs 1)")
    if f["kind"] == "magnitude":
        if not _positive(ratio):
            raise ParamsError(f"{where}.published_ratio", "a magnitude finding needs a positive published_ratio")
        if not _positive(tol):
            raise ParamsError(f"{where}.tolerance_pct", "a magnitude finding needs a positive tolerance_pct")
    values = None
    if f.get("published") is not None:
        pv = f["published"]
        if not isinstance(pv, dict) or not all(_number(pv.get(k)) for k in ("A", "B")):
            raise ParamsError(f"{where}.published", "must be {A: number, B: number}")
        values = (float(pv["A"]), float(pv["B"]))
    exps = f.get("experiment") or ()
    if isinstance(exps, str):
        exps = (exps,)
    return Finding(
        id=str(f["id"]),
        study=str(f["study"]),
        source=str(f["source"]),
        claim=str(f["claim"]),
        benchmark=str(f["benchmark"]),
        metric=str(f["metric"]),
        kind=str(f["kind"]),
        a=sides[0],
        b=sides[1],
        expect=expect,
        published_ratio=float(ratio) if ratio is not None else None,
        tolerance_pct=float(tol) if tol is not None else None,
        published_values=values,
        published_unit=str(f.get("published_unit", "")),
        size=str(f["size"]) if f.get("size") else None,
        experiments=tuple(str(e) for e in exps),
        note=str(f.get("note", "")),
    )


def _check_benchmark_metric(benchmark: str, metric: str, where: str) -> None:
    from vbench.benchmarks.registry import find

    try:
        _, module = find(benchmark)
    except ParamsError:
        raise ParamsError(f"{where}.benchmark", f"unknown benchmark {benchmark!r}") from None
    base = metric.split(".")[-1]
    if metric not in module.METRICS and not ("." in metric and base.endswith("_time")):
        raise ParamsError(
            f"{where}.metric",
            f"{benchmark} has no metric {metric!r}; metrics: {', '.join(module.METRICS)}"
            " (or a step-qualified phase such as terasort.map_shuffle_time)",
        )


def _side(s: Any, pmap: dict, where: str) -> Side:
    if isinstance(s, str):
        s = {"published": s}
    if not isinstance(s, dict) or not s.get("published"):
        raise ParamsError(where, "a side needs `published` (the platform as the study names it)")
    name = str(s["published"])
    if "local" in s:
        local = s["local"]
        if local is not None and local not in PLATFORMS:
            raise ParamsError(f"{where}.local", f"unknown local platform {local!r}; known: {', '.join(PLATFORMS)}")
    elif name in pmap:
        local = pmap[name]
    else:
        raise ParamsError(f"{where}.published", f"{name!r} is not in platform_map; add it (or give `local:`)")
    w = s.get("where") or {}
    if not isinstance(w, dict):
        raise ParamsError(f"{where}.where", "must be a mapping of metadata key -> value")
    return Side(name, local, {str(k): v for k, v in w.items()})


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _positive(x) -> bool:
    return _number(x) and x > 0


# --- verdicts ---------------------------------------------------------------------------------------


def verdict_direction(low: float | None, high: float | None, expect: str) -> str:
    """Rule for "A less/greater than B" on the CI [low, high] of mean(A)/mean(B)."""
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return INCONCLUSIVE
    below, above = high < 1.0, low > 1.0
    if not (below or above):
        return INCONCLUSIVE
    agrees = below if expect == "less" else above
    return REPRODUCED if agrees else CONTRADICTED


def verdict_magnitude(low: float | None, high: float | None, published_ratio: float, tolerance_pct: float) -> str:
    """Rule for "ratio about r (+/- t points)": CI inside the band, outside it, or straddling an edge."""
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return INCONCLUSIVE
    lo_band, hi_band = published_ratio - tolerance_pct / 100.0, published_ratio + tolerance_pct / 100.0
    if lo_band <= low and high <= hi_band:
        return REPRODUCED
    if high < lo_band or low > hi_band:
        return CONTRADICTED
    return INCONCLUSIVE


# --- evaluation -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeltaRow:
    finding: Finding
    verdict: str
    ratio: float | None = None
    low: float | None = None
    high: float | None = None
    n_a: int = 0
    n_b: int = 0
    experiment: str = ""
    cell: str = ""
    reason: str = ""
    method: str = ""  # what gave the interval: paired by block where the two sides were paired, else Fieller
    n_pairs: int = 0


def _side_rows(samples: pd.DataFrame, f: Finding, side: Side) -> pd.DataFrame:
    if samples is None or samples.empty:
        return pd.DataFrame()
    m = (
        (samples["platform"].astype(str) == side.local)
        & (samples["benchmark"] == f.benchmark)
        & (samples["metric"] == f.metric)
    )
    for k, v in side.where.items():
        if k not in samples.columns:
            return samples.iloc[0:0]
        m &= samples[k].map(_text) == _text(v)
    return samples[m]


def _text(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _comparison_key(a: pd.DataFrame, b: pd.DataFrame, ignore: set[str]) -> tuple[pd.Series, pd.Series]:
    """The cell both sides must share: the size label plus every design factor that varies among
    the two sides' samples, except the factors a side selects on (`where`) and factors that take
    one value on each side but different ones (those are part of the contrast, e.g. output
    replication changing with replication)."""
    cols = []
    for c in FACTOR_COLUMNS:
        if c in ignore or c not in a.columns or c not in b.columns:
            continue
        va, vb = set(a[c].map(_text)), set(b[c].map(_text))
        if len(va | vb) <= 1 or (len(va) == 1 and len(vb) == 1):
            continue
        cols.append(c)

    def key(df: pd.DataFrame) -> pd.Series:
        if df.empty:
            return pd.Series(dtype=str)
        return df.apply(
            lambda row: ", ".join(
                ([str(row["size_label"])] if row.get("size_label") else [])
                + [f"{c}={_text(row[c])}" for c in cols if _text(row[c])]
            ),
            axis=1,
        )

    return key(a), key(b)


#: Experiments a comparison prefers when the finding names none.
DEFAULT_EXPERIMENTS = ("platforms",)


def evaluate(f: Finding, samples: pd.DataFrame, conf: float = 0.95) -> DeltaRow:
    """The verdict of one finding on a campaign's tidy samples (see the module docstring).

    The comparison is made in one experiment (the finding's preferred ones, else "platforms",
    else the one with the most runs on both sides) at one cell (the finding's `size`, else the
    largest cell both sides share)."""
    for side in (f.a, f.b):
        if side.local is None:
            return DeltaRow(f, NOT_MEASURED_VERDICT, reason=f"no local stand-in for {side.published}")
    if f.a.local == f.b.local and f.a.where == f.b.where:
        return DeltaRow(f, NOT_MEASURED_VERDICT, reason=f"both sides are {f.a.local} here")
    a, b = _side_rows(samples, f, f.a), _side_rows(samples, f, f.b)
    if a.empty or b.empty:
        who = ", ".join(s.describe() for s, d in ((f.a, a), (f.b, b)) if d.empty)
        return DeltaRow(f, NOT_MEASURED_VERDICT, reason=f"no samples for {who}")
    ignore = set(f.a.where) | set(f.b.where)
    common = sorted(set(a["experiment"]) & set(b["experiment"]), key=natural_key)
    if not common:
        return DeltaRow(f, NOT_MEASURED_VERDICT, reason="the two sides were never measured in the same experiment")
    preferred = [e for e in (f.experiments or DEFAULT_EXPERIMENTS) if e in common]
    rest = sorted(
        (e for e in common if e not in preferred),
        key=lambda e: (-min(int((a["experiment"] == e).sum()), int((b["experiment"] == e).sum())), natural_key(e)),
    )
    experiment = key = None
    for e in preferred + rest:
        ae, be = a[a["experiment"] == e], b[b["experiment"] == e]
        ka, kb = _comparison_key(ae, be, ignore)
        keys = set(ka) & set(kb)
        if f.size:
            keys = {k for k in keys if k.split(",")[0] == f.size}
        if keys:
            experiment, key = e, sorted(keys, key=natural_key)[-1]
            a, b = ae.assign(_key=ka.to_numpy()), be.assign(_key=kb.to_numpy())
            break
    if experiment is None:
        return DeltaRow(f, NOT_MEASURED_VERDICT, reason="the two sides were never measured in the same cell")
    a_rows = a[(a["experiment"] == experiment) & (a["_key"] == key)]
    b_rows = b[(b["experiment"] == experiment) & (b["_key"] == key)]
    x, y = a_rows["value"].to_numpy(dtype=float), b_rows["value"].to_numpy(dtype=float)
    # Two sides run in the same blocks are compared block by block, as the statistics table does
    # (vbench.stats.paired); otherwise, or with fewer than two pairs, by Fieller's interval.
    pairs = pair_runs(a_rows, b_rows)
    paired = paired_ratio(pairs, conf=conf, rng=np.random.default_rng(DEFAULT_SEED))
    iv = paired.ratio if paired is not None else fieller_interval(x, y, conf)
    method = paired.method if paired is not None else FIELLER
    low, high = iv.low, iv.high
    if f.kind == "direction":
        verdict = verdict_direction(low, high, f.expect or "less")
    else:
        verdict = verdict_magnitude(low, high, f.published_ratio, f.tolerance_pct)
    return DeltaRow(
        f,
        verdict,
        iv.estimate,
        low,
        high,
        int(x.size),
        int(y.size),
        str(experiment),
        key,
        iv.note or "",
        method,
        pairs.n_pairs if paired is not None else 0,
    )


def reproduction_delta(published: Published, samples: pd.DataFrame, conf: float = 0.95) -> list[DeltaRow]:
    return [evaluate(f, samples, conf) for f in published.findings]


def counts(rows: list[DeltaRow]) -> dict[str, int]:
    return {v: sum(1 for r in rows if r.verdict == v) for v in VERDICTS}


# --- LaTeX ------------------------------------------------------------------------------------------


def _published_text(f: Finding) -> str:
    parts = []
    if f.published_values:
        a, b = f.published_values
        unit = f" {tex_escape(f.published_unit)}" if f.published_unit else ""
        parts.append(rf"{plain_number(a)} vs {plain_number(b)}{unit}")
    if f.kind == "magnitude":
        parts.append(rf"ratio {plain_number(f.published_ratio)} $\pm$ {plain_number(f.tolerance_pct)}\,pts")
    else:
        parts.append("A/B " + ("$<$ 1" if f.expect == "less" else "$>$ 1"))
    if f.note:
        parts.append(tex_escape(f.note))
    return "; ".join(parts)


def _here_text(r: DeltaRow) -> str:
    f = r.finding
    text = rf"{tex_escape(f.a.describe())} / {tex_escape(f.b.describe())}"
    if r.cell:
        parts = [p.strip() for p in r.cell.split(",")]
        if f.benchmark == "pi_digits" and parts[0].isdigit():
            parts[0] = f"{digits_display(parts[0])} digits"
        else:
            parts[0] = size_display(parts[0])
        text += rf"; {tex_escape(', '.join(parts))}"
    if r.n_a or r.n_b:
        text += rf"; $n={r.n_a}/{r.n_b}$"
    return text


_VERDICT_TEX = {
    REPRODUCED: r"\textbf{reproduced}",
    CONTRADICTED: r"\textbf{contradicted}",
    INCONCLUSIVE: "inconclusive",
    NOT_MEASURED_VERDICT: r"\emph{not measured}",
}


def delta_table_tex(rows: list[DeltaRow], published: Published, conf: float = 0.95) -> str:
    """The reproduction-delta table (longtable, so it may span pages)."""
    widths = (0.035, 0.12, 0.19, 0.14, 0.16, 0.11, 0.13)
    cols = "".join(rf">{{\raggedright\arraybackslash}}p{{{w}\linewidth}}" for w in widths)
    head = r"ID & Study, source & Published finding & Published value & Here: A / B, cell & Ratio A/B [CI] & Verdict \\"
    conf_pct = plain_number(conf * 100)
    lines = [
        r"\begingroup\footnotesize",
        r"\setlength{\tabcolsep}{3pt}",
        rf"\begin{{longtable}}{{{cols}}}",
        rf"\caption{{Reproduction delta: each published finding beside this campaign's measurement of the local "
        rf"stand-ins (ratio with its {conf_pct}\,\% interval: $^{{p}}$~paired by block, from the within-block "
        rf"log ratios; otherwise Fieller's interval of the ratio of means) and the verdict of the rule in "
        rf"Section~\ref{{sec:delta}}.}}\label{{tab:delta}}\\",
        r"\toprule",
        head,
        r"\midrule",
        r"\endfirsthead",
        r"\toprule",
        head,
        r"\midrule",
        r"\endhead",
        r"\bottomrule",
        r"\endfoot",
    ]
    for r in rows:
        f = r.finding
        study = published.studies[f.study]
        ratio = NOT_MEASURED if r.ratio is None else interval_text(r.ratio, r.low, r.high)
        if r.ratio is not None and r.method and r.method != FIELLER:
            ratio += r"$^{p}$"
        verdict = _VERDICT_TEX[r.verdict]
        if r.reason:
            verdict += rf" \newline {{\scriptsize {tex_escape(r.reason)}}}"
        lines.append(
            " & ".join(
                [
                    tex_escape(f.id),
                    rf"{tex_escape(study['short'])} \citep{{{study['bibkey']}}}, {tex_escape(f.source)}",
                    tex_escape(f.claim),
                    _published_text(f),
                    _here_text(r),
                    ratio,
                    verdict,
                ]
            )
            + r" \\"
        )
    lines += [r"\end{longtable}", r"\endgroup"]
    return "\n".join(lines) + "\n"


def delta_frame(rows: list[DeltaRow]) -> pd.DataFrame:
    """The delta as data (for notebooks and tests)."""
    return pd.DataFrame(
        [
            {
                "id": r.finding.id,
                "study": r.finding.study,
                "source": r.finding.source,
                "claim": r.finding.claim,
                "kind": r.finding.kind,
                "a": r.finding.a.describe(),
                "b": r.finding.b.describe(),
                "experiment": r.experiment,
                "cell": r.cell,
                "n_a": r.n_a,
                "n_b": r.n_b,
                "ratio": np.nan if r.ratio is None else r.ratio,
                "ci_low": np.nan if r.low is None else r.low,
                "ci_high": np.nan if r.high is None else r.high,
                "verdict": r.verdict,
                "reason": r.reason,
                "method": r.method,
                "n_pairs": r.n_pairs,
            }
            for r in rows
        ]
    )
