"""`vbench stats`: defined in the statistics layer (vbench/stats/__main__.py), which also serves
`python3 -m vbench.stats`; the parser is written once and the statistics never import the CLI.

`vbench stats profile CAMPAIGN`: each platform's median resource profile of the campaign's Hadoop
jobs and its ratio to the baseline (vbench.stats.profile), a command of its own that `vbench
stats` hands the command line to when its first word is `profile`."""

from __future__ import annotations

import argparse
from pathlib import Path

from vbench.stats.__main__ import register as register_stats, run
from vbench.validate import campaign_name

__all__ = ["register", "run", "run_profile"]

PROFILE = "profile"


def register(sub) -> None:
    register_stats(sub)
    stats = sub.choices["stats"]
    profile = argparse.ArgumentParser(
        prog=f"{stats.prog} {PROFILE}",
        description="Each platform's median resource profile of a campaign's Hadoop jobs (job and phase times, "
        "JobHistory counters, task attempt times), warm-up runs left out, and its ratio to the baseline's.",
    )
    profile.add_argument("campaign", help="a campaign under DATA/raw/ (e.g. sandbox) or its directory")
    profile.add_argument("--data", type=Path, default=Path("data"), help="where raw/<campaign>/ is (default: data)")
    profile.add_argument("--baseline", default="native", help="platform the others are compared with (default: native)")
    profile.add_argument("--out", type=Path, help="also write the table (one row per platform and resource) as CSV")
    profile.set_defaults(func=run_profile)
    stats.epilog = f"{profile.prog} CAMPAIGN [--data DIR] [--baseline PLATFORM]: the jobs' resource profiles"
    _hand_over(stats, PROFILE, profile)


def _hand_over(parser: argparse.ArgumentParser, word: str, command: argparse.ArgumentParser) -> None:
    """Have `parser` give a command line whose first word is `word` to `command` instead: `vbench
    stats` takes a samples file as its first argument, so `profile` cannot be an argparse
    sub-command of it (argparse hands a sub-parser its arguments through `parse_known_args`)."""
    own = parser.parse_known_args

    def parse_known_args(args=None, namespace=None):
        if args and args[0] == word:
            return command.parse_known_args(args[1:], namespace)
        return own(args, namespace)

    parser.parse_known_args = parse_known_args  # type: ignore[method-assign]


def campaign_dir(data: Path, name: str) -> Path:
    """DATA/raw/NAME, or NAME itself when it is a directory elsewhere."""
    if Path(name).name == name and (data / "raw" / name).is_dir():
        return data / "raw" / name
    if Path(name).is_dir():
        return Path(name)
    return data / "raw" / campaign_name(name, "CAMPAIGN")


def run_profile(args) -> int:
    from vbench.errors import ParamsError
    from vbench.stats import profile

    profiles = profile.load_profiles(campaign_dir(args.data, args.campaign))
    platforms = sorted({p.run.platform for p in profiles if not p.run.warmup})
    if profiles and args.baseline not in platforms:
        raise ParamsError("--baseline", f"{args.baseline!r} ran no compared job here; the platforms: {platforms}")
    table = profile.platform_frame(profiles, baseline=args.baseline)
    print(profile.format_platform_table(table), end="")
    if args.out:
        table.to_csv(args.out, index=False)
    return 0
