"""Adaptive vs fixed repetitions: runs needed for a +/-2 % CI on the overhead ratio.

For each scenario, many simulated campaigns measure a platform and the native baseline
alternately (one run of each per round). Strategies:

  fixed-N        N runs per platform, decided in advance (N = 5 as in Jeong et al.);
  fixed-for-95%  the smallest fixed N that reaches the target in >= 95 % of campaigns
                 (what a careful fixed design must budget without knowing the outcome);
  adaptive-1     re-check after every round, stop once the Fieller 95 % CI half-width of
                 the ratio is within the target (vbench.stats.assess_ratio, min 3 runs);
  adaptive-proj  after each batch, run the number of further runs assess_ratio projects.

All strategies stop at --max-runs (the time budget). "coverage" is the share of campaigns
whose final 95 % Fieller interval contains the true ratio: stopping on a narrow interval
lowers it a little, which is the price of adaptivity and is reported, not hidden.

Without --samples, run times are synthetic but Hadoop-like: lognormal with CV 3-8 %, known
true overhead, fixed seed. With --samples FILE (tidy samples, as `vbench stats` reads), each
recorded comparison with the baseline is replayed in random run orders (without
replacement) and the recorded full-sample ratio stands in for the truth.

The second part plays the campaign runner's stopping rule (vbench.stats.stopping, issue #18) on
simulated paired campaigns: blocks of `rounds` rounds, every platform in every round, log run
times = a block effect every platform shares + a cluster-instance effect per (block, platform) +
noise per round. After each round the paired interval is computed by `vbench.stats.paired.paired_ratio`
(the statistics table's preferred row for such runs: Student-t over the blocks' mean log ratios)
on the pairs `pair_runs` would make, and `stopping.decide` says stop or go on, with the design's
rounds per block (the default rule counts min_rounds and extra_rounds in blocks and stops at the
end of a block). With --rule-bootstrap-campaigns N the hierarchical bootstrap (the row kept beside
it, not preferred) is played too on N campaigns per scenario with rounds (slow). Coverage: the
share of campaigns whose final interval holds the true ratio; +/- is its Monte Carlo standard error.

    python3 selfbench/adaptive_repetitions.py [--samples FILE] [--target-pct 2] [--campaigns 500]
    python3 selfbench/adaptive_repetitions.py --rule [--rule-campaigns 2000] [--rule-scenarios rounds]
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vbench.stats.adaptive import assess_ratio  # noqa: E402
from vbench.stats.paired import Pairs, hierarchical_ratio, paired_ratio  # noqa: E402
from vbench.stats.ratio import MeanSummary, fieller_from_summary  # noqa: E402
from vbench.stats.records import Interval  # noqa: E402
from vbench.campaign.design import PRECISION_EXTRA_BLOCKS, PRECISION_MIN_BLOCKS  # noqa: E402
from vbench.stats.stopping import ComparisonWidth, decide  # noqa: E402

SEED = 20141


@dataclass(frozen=True)
class Scenario:
    name: str
    cv_baseline: float
    cv_platform: float
    overhead: float  # true ratio of means - 1


SCENARIOS = [
    Scenario("cv 3 %/3 %, +5 %", 0.03, 0.03, 0.05),
    Scenario("cv 5 %/5 %, +10 %", 0.05, 0.05, 0.10),
    Scenario("cv 3 %/8 %, +15 %", 0.03, 0.08, 0.15),
    Scenario("cv 8 %/8 %, +10 %", 0.08, 0.08, 0.10),
]


def lognormal_runs(rng, mean: float, cv: float, shape) -> np.ndarray:
    """Lognormal run times with the given mean and coefficient of variation."""
    sigma = math.sqrt(math.log1p(cv**2))
    return rng.lognormal(math.log(mean) - sigma**2 / 2, sigma, shape)


def prefix_intervals(x: np.ndarray, y: np.ndarray, upto: int):
    """Fieller 95 % interval of mean(x[:n]) / mean(y[:n]) for n = 2..upto (index n)."""
    out = [None, None]
    for n in range(2, upto + 1):
        out.append(fieller_from_summary(MeanSummary.of(x[:n]), MeanSummary.of(y[:n])))
    return out


def _hw(iv) -> float:
    r = iv.relative_half_width()
    return math.inf if r is None else 100 * r


def _covers(iv, truth: float) -> bool:
    return iv.bounded and iv.low <= truth <= iv.high


@dataclass
class Outcome:
    runs: list
    rounds: list
    reached: list
    covered: list

    @classmethod
    def empty(cls) -> "Outcome":
        return cls([], [], [], [])

    def add(self, runs: int, rounds: int, reached: bool, covered: bool) -> None:
        self.runs.append(runs)
        self.rounds.append(rounds)
        self.reached.append(reached)
        self.covered.append(covered)


def simulate_campaign(x, y, truth, target, min_runs, max_runs, fixed_ns, results) -> None:
    """Play every strategy on one pre-drawn campaign (x, y: runs in the order they happen)."""
    ivs = prefix_intervals(x, y, max_runs)
    hw = [math.inf, math.inf] + [_hw(iv) for iv in ivs[2:]]
    for n in fixed_ns:
        results[f"fixed-{n}"].add(n, 1, hw[n] <= target, _covers(ivs[n], truth))
    # adaptive-1: first n >= min_runs whose interval is narrow enough
    n = next((k for k in range(min_runs, max_runs + 1) if hw[k] <= target), max_runs)
    results["adaptive-1"].add(n, n - min_runs + 1, hw[n] <= target, _covers(ivs[n], truth))
    # adaptive-proj: jump by the projected number of further runs
    n, rounds = min_runs, 1
    while True:
        a = assess_ratio(x[:n], y[:n], target, min_runs=min_runs, max_runs=max_runs)
        if a.decision != "continue":
            break
        n = min(max_runs, n + (a.more_runs or max_runs))
        rounds += 1
    results["adaptive-proj"].add(n, rounds, hw[n] <= target, _covers(ivs[n], truth))
    results["_hw"].append(hw)


def summarise(results, fixed_ns, target, max_runs):
    rows = []
    hws = np.array(results.pop("_hw"))
    # Smallest fixed N that reaches the target in >= 95 % of campaigns.
    share = (hws <= target).mean(axis=0)
    n95 = next((n for n in range(2, max_runs + 1) if share[n] >= 0.95), None)
    for name, o in results.items():
        if not o.runs:
            continue
        r = np.array(o.runs)
        rows.append(
            (
                name,
                r.mean(),
                np.median(r),
                np.percentile(r, 90),
                np.mean(o.rounds),
                100 * np.mean(o.reached),
                100 * np.mean(o.covered),
            )
        )
    label = f"fixed-for-95% (N={n95})" if n95 else f"fixed-for-95% (N>{max_runs})"
    n_eff = n95 or max_runs
    rows.insert(len(fixed_ns), (label, n_eff, n_eff, n_eff, 1.0, 100 * share[n_eff], float("nan")))
    return rows, n95


def print_table(title, rows) -> None:
    print(f"\n{title}")
    head = f"  {'strategy':<24}{'runs mean':>10}{'median':>8}{'p90':>6}{'rounds':>8}{'reached %':>11}{'coverage %':>12}"
    print(head)
    print("  " + "-" * (len(head) - 2))
    for name, mean, med, p90, rounds, reached, cov in rows:
        cov_s = "   -" if math.isnan(cov) else f"{cov:.1f}"
        print(f"  {name:<24}{mean:>10.1f}{med:>8.0f}{p90:>6.0f}{rounds:>8.1f}{reached:>11.1f}{cov_s:>12}")


def run_synthetic(args) -> None:
    fixed_ns = [5, 10, 20, 30]
    print(
        f"Synthetic campaigns: {args.campaigns} per scenario, target +/-{args.target_pct:g} % "
        f"(95 % Fieller CI on the ratio), min {args.min_runs}, budget {args.max_runs} runs per platform, seed {args.seed}"
    )
    summary = []
    for k, sc in enumerate(SCENARIOS):
        rng = np.random.default_rng([args.seed, k])
        truth = 1 + sc.overhead
        results = {f"fixed-{n}": Outcome.empty() for n in fixed_ns}
        results.update({"adaptive-1": Outcome.empty(), "adaptive-proj": Outcome.empty(), "_hw": []})
        for _ in range(args.campaigns):
            y = lognormal_runs(rng, 100.0, sc.cv_baseline, args.max_runs)
            x = lognormal_runs(rng, 100.0 * truth, sc.cv_platform, args.max_runs)
            simulate_campaign(x, y, truth, args.target_pct, args.min_runs, args.max_runs, fixed_ns, results)
        rows, n95 = summarise(results, fixed_ns, args.target_pct, args.max_runs)
        print_table(f"Scenario {sc.name} (baseline CV, platform CV, true overhead)", rows)
        a1 = next(r for r in rows if r[0] == "adaptive-1")
        summary.append((sc.name, a1[2], a1[1], a1[5], n95))
    print(f"\nSummary: runs per platform to reach +/-{args.target_pct:g} % on the overhead ratio")
    print(
        f"  {'scenario':<22}{'adaptive median':>16}{'adaptive mean':>15}{'adaptive reached %':>20}{'fixed for 95 %':>16}"
    )
    for name, med, mean, reached, n95 in summary:
        fixed = str(n95) if n95 else f">{args.max_runs}"
        print(f"  {name:<22}{med:>16.0f}{mean:>15.1f}{reached:>20.1f}{fixed:>16}")


def run_recorded(args) -> None:
    from vbench.stats import read_samples
    from vbench.stats.keys import COMPARISON_KEY

    df = read_samples(args.samples)
    if "warmup" in df.columns:
        df = df[~df["warmup"]]
    print(
        f"Replaying recorded samples from {args.samples}: {args.campaigns} random run orders per comparison, "
        f"target +/-{args.target_pct:g} %, baseline {args.baseline!r}, min {args.min_runs} runs"
    )
    rng = np.random.default_rng(args.seed)
    found = False
    for key, grp in df.groupby(COMPARISON_KEY, sort=True):
        base = grp.loc[grp.platform == args.baseline, "value"].to_numpy(float)
        for platform in sorted(set(grp.platform) - {args.baseline}):
            plat = grp.loc[grp.platform == platform, "value"].to_numpy(float)
            n_max = min(base.size, plat.size)
            if n_max < args.min_runs + 1:
                print(f"\n{'/'.join(map(str, key))} {platform}: only {n_max} paired runs recorded, skipped")
                continue
            found = True
            truth = plat.mean() / base.mean()
            full = fieller_from_summary(MeanSummary.of(plat), MeanSummary.of(base))
            fixed_ns = [n for n in (5, 10, 20, 30) if n < n_max] + [n_max]
            results = {f"fixed-{n}": Outcome.empty() for n in fixed_ns}
            results.update({"adaptive-1": Outcome.empty(), "adaptive-proj": Outcome.empty(), "_hw": []})
            for _ in range(args.campaigns):
                x, y = rng.permutation(plat)[:n_max], rng.permutation(base)[:n_max]
                simulate_campaign(x, y, truth, args.target_pct, args.min_runs, n_max, fixed_ns, results)
            rows, _ = summarise(results, fixed_ns, args.target_pct, n_max)
            print_table(
                f"{'/'.join(map(str, key))}: {platform} vs {args.baseline} "
                f"(recorded n={n_max}, ratio {truth:.4f}, half-width with all runs {_hw(full):.2f} %)",
                rows,
            )
    if not found:
        print("no comparison with enough recorded runs")


# --- the campaign runner's stopping rule on paired, rounds-based campaigns ----------------------


@dataclass(frozen=True)
class RuleScenario:
    name: str
    rounds: int  # per block
    truth: float  # true ratio platform / baseline
    block_sd: float  # shared by both platforms of a block (cancels in the ratio)
    instance_sd: float  # per (block, platform): a fresh cluster's own luck
    round_sd: float  # per run


def blocks_needed(sc: "RuleScenario", target_pct: float, conf: float = 0.95) -> int:
    """About how many blocks a fixed design needs for the target: the smallest k whose expected
    t half-width over k block means (variance 2 instance_sd^2 + 2 round_sd^2 / rounds) is within it."""
    var = 2 * sc.instance_sd**2 + 2 * sc.round_sd**2 / sc.rounds
    for k in range(2, 1000):
        if 100 * stats.t.ppf(0.5 + conf / 2, k - 1) * math.sqrt(var / k) <= target_pct:
            return k
    return 1000


RULE_SCENARIOS = [
    RuleScenario("1 round/block, quiet", 1, 1.00, 0.15, 0.02, 0.02),
    RuleScenario("1 round/block, TeraSort-like", 1, 1.05, 0.10, 0.03, 0.02),
    RuleScenario("1 round/block, noisy", 1, 1.10, 0.05, 0.04, 0.025),
    RuleScenario("1 round/block, noisier", 1, 1.10, 0.05, 0.05, 0.03),
    RuleScenario("3 rounds/block, TeraSort-like", 3, 1.05, 0.10, 0.03, 0.02),
    RuleScenario("3 rounds/block, noisy", 3, 1.10, 0.05, 0.04, 0.025),
    RuleScenario("3 rounds/block, round noise", 3, 1.10, 0.05, 0.02, 0.05),
    RuleScenario("5 rounds/block, TeraSort-like", 5, 1.05, 0.10, 0.03, 0.03),
]


@dataclass(frozen=True)
class Rule:
    name: str
    min_rounds: int
    extra_rounds: int
    rounds_per_block: int = 1  # the stop waits for the end of a block, as the runner's hook asks


def rule_campaign_logs(rng, sc: RuleScenario, max_rounds: int) -> np.ndarray:
    """Within-pair log ratios of one campaign, round by round in run order (blocks in sequence)."""
    blocks = -(-max_rounds // sc.rounds)
    instance = rng.normal(0, sc.instance_sd, (blocks, 1, 2))
    noise = rng.normal(0, sc.round_sd, (blocks, sc.rounds, 2))
    logs = instance + noise  # the shared block effect is added to both platforms and cancels exactly
    return (math.log(sc.truth) + logs[..., 1] - logs[..., 0]).reshape(-1)[:max_rounds]


PREFERRED, BOOTSTRAP = "paired-t (blocks)", "hierarchical bootstrap"


def interval_after(d: np.ndarray, k: int, rounds: int, method: str, rng, n_resamples: int) -> Interval:
    """The paired interval after `k` rounds, by vbench.stats.paired on the pairs pair_runs would
    make: `paired_ratio` (the table's preferred row: t over the block means) or `hierarchical_ratio`."""
    blocks = tuple(str(j // rounds) for j in range(k))
    pairs = Pairs(blocks, d[:k], rounds > 1)
    r = paired_ratio(pairs) if method == PREFERRED else hierarchical_ratio(pairs, n_resamples=n_resamples, rng=rng)
    return r.ratio if r is not None else Interval(None)


def play_rule(ivs: list, rule: Rule, target: float, max_rounds: int) -> int:
    """The round after which the runner stops, by `stopping.decide` on the intervals so far."""
    reached = None
    for k in range(1, max_rounds + 1):
        iv = ivs[k]
        hw = None if iv is None or iv.relative_half_width() is None else 100 * iv.relative_half_width()
        w = ComparisonWidth("sim", "time", "", "platform", "paired", None if iv is None else iv.estimate, hw)
        d = decide(
            [w],
            rounds_done=k,
            target_pct=target,
            min_rounds=rule.min_rounds,
            max_rounds=max_rounds,
            extra_rounds=rule.extra_rounds,
            reached_at=reached,
            rounds_per_block=rule.rounds_per_block,
        )
        reached = d.reached_at
        if d.stop:
            return k
    return max_rounds


def rules_for(sc: RuleScenario, args) -> list[Rule]:
    """The rules compared: stopping at the first narrow interval after 3 or 10 blocks, the rule's
    old default with rounds (10 blocks, then 8 rounds), and the default (`min_blocks` and
    `extra_blocks` blocks' worth of rounds, stopping at the end of a block)."""
    r = sc.rounds
    rules = [Rule(f"min {3 * r}, no extra rounds", 3 * r, 0), Rule(f"min {10 * r}, no extra rounds", 10 * r, 0)]
    if r > 1:
        rules.append(Rule(f"min {10 * r}, +8 (old default)", 10 * r, 8))
    rules.append(
        Rule(
            f"min {args.min_blocks * r}, +{args.extra_blocks * r} (default)",
            args.min_blocks * r,
            args.extra_blocks * r,
            r,
        )
    )
    return rules


def _mc_error(p: float, n: int) -> float:
    return 100 * math.sqrt(max(p * (1 - p), 1e-12) / n)


def run_rule(args) -> list[tuple[str, str, float]]:
    """Coverage of the stopping rule per scenario and rule; returns (scenario, rule, coverage)."""
    print(
        f"Stopping rule (vbench.stats.stopping.decide) on simulated paired campaigns: target +/-{args.rule_target_pct:g} % "
        f"(95 % paired interval of the ratio), at most {args.max_blocks} blocks; {args.rule_campaigns} campaigns per "
        f"scenario, {args.rule_bootstrap_campaigns} for the hierarchical bootstrap; seed {args.seed}"
    )
    head = f"  {'scenario (~blocks a fixed design needs)':<44}{'method':<24}{'rule':<26}{'blocks mean':>12}{'reached %':>11}{'coverage %':>16}"
    print(head)
    print("  " + "-" * (len(head) - 2))
    out = []
    for k, sc in enumerate(RULE_SCENARIOS):
        if args.rule_scenarios and args.rule_scenarios not in sc.name:
            continue
        max_rounds = args.max_blocks * sc.rounds
        rules = [*rules_for(sc, args), Rule("fixed at max", max_rounds, 0)]
        methods = [(PREFERRED, args.rule_campaigns)]
        if sc.rounds > 1 and args.rule_bootstrap_campaigns > 0:
            methods.append((BOOTSTRAP, args.rule_bootstrap_campaigns))
        title = f"{sc.name} (~{blocks_needed(sc, args.rule_target_pct)})"
        for method, n in methods:
            # The same campaigns for every method of a scenario: its seed does not depend on the method.
            rng = np.random.default_rng([args.seed, 100 + k])
            boot_rng = np.random.default_rng([args.seed, 200 + k])
            stats_ = {r.name: ([], [], []) for r in rules}
            first = min(r.min_rounds for r in rules)
            for _ in range(n):
                d = rule_campaign_logs(rng, sc, max_rounds)
                # Before the earliest min_rounds no rule reads the interval.
                ivs = [None] * first + [
                    interval_after(d, j, sc.rounds, method, boot_rng, args.rule_resamples)
                    for j in range(first, max_rounds + 1)
                ]
                for r in rules:
                    stop = play_rule(ivs, r, args.rule_target_pct, max_rounds)
                    iv = ivs[stop]
                    rhw = iv.relative_half_width()
                    runs, reached, covered = stats_[r.name]
                    runs.append(stop / sc.rounds)
                    reached.append(rhw is not None and 100 * rhw <= args.rule_target_pct)
                    covered.append(iv.bounded and iv.low <= sc.truth <= iv.high)
            for name, (runs, reached, covered) in stats_.items():
                p = float(np.mean(covered))
                cov = f"{100 * p:.1f} +/- {_mc_error(p, n):.1f}"
                print(
                    f"  {title:<44}{method:<24}{name:<26}{np.mean(runs):>12.1f}{100 * np.mean(reached):>11.1f}{cov:>16}"
                )
                out.append((sc.name, f"{method}: {name}", 100 * p))
            sys.stdout.flush()
    for what, pick, rounds in (
        ("paired-t (one round per block)", PREFERRED, "1 round"),
        ("paired-t, several rounds per block", PREFERRED, "rounds/block"),
        ("hierarchical bootstrap, several rounds per block", BOOTSTRAP, "rounds/block"),
    ):
        covs = [c for s_, r, c in out if "(default)" in r and r.startswith(pick) and rounds in s_]
        if covs:
            print(f"  default rule, {what}: lowest coverage {min(covs):.1f} % (nominal 95 %)")
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--samples", help="tidy samples file to replay instead of synthetic campaigns")
    p.add_argument("--baseline", default="native")
    p.add_argument("--target-pct", type=float, default=2.0)
    p.add_argument("--campaigns", type=int, default=500)
    p.add_argument("--min-runs", type=int, default=3)
    p.add_argument("--max-runs", type=int, default=100, help="budget: runs per platform (synthetic only)")
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--rule", action="store_true", help="simulate the campaign runner's stopping rule instead")
    p.add_argument("--rule-campaigns", type=int, default=2000)
    p.add_argument("--rule-target-pct", type=float, default=3.0)
    p.add_argument("--max-blocks", type=int, default=40, help="the stopping rule's max_rounds, in blocks")
    p.add_argument(
        "--extra-blocks", type=int, default=PRECISION_EXTRA_BLOCKS, help="the rule's extra_rounds, in blocks' worth"
    )
    p.add_argument(
        "--min-blocks", type=int, default=PRECISION_MIN_BLOCKS, help="the rule's min_rounds, in blocks' worth of rounds"
    )
    p.add_argument("--rule-resamples", type=int, default=999, help="bootstrap resamples in the rule's simulation")
    p.add_argument(
        "--rule-bootstrap-campaigns",
        type=int,
        default=0,
        help="also play the hierarchical bootstrap on this many campaigns per scenario with rounds (slow)",
    )
    p.add_argument("--rule-scenarios", default="", help="only the rule's scenarios whose name holds this text")
    args = p.parse_args(argv)
    if args.rule:
        run_rule(args)
    elif args.samples:
        run_recorded(args)
    else:
        run_synthetic(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
