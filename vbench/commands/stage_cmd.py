"""`vbench stage NOTEBOOK -p NAME VALUE ...`: one DVC stage's notebook, executed (dvc.yaml's cmd)."""

from __future__ import annotations

from pathlib import Path

from vbench.errors import VbenchError


def register(sub) -> None:
    p = sub.add_parser("stage", help="execute a pipeline notebook with papermill (what dvc.yaml's stages run)")
    p.add_argument("notebook", type=Path, help="e.g. notebooks/03-hadoop-suite.ipynb")
    p.add_argument(
        "-p",
        "--parameter",
        nargs=2,
        action="append",
        default=[],
        metavar=("NAME", "VALUE"),
        help="a notebook parameter, typed as papermill types it",
    )
    p.add_argument(
        "--executed-dir",
        type=Path,
        default=Path("notebooks/executed"),
        help="where the executed notebook and its HTML go",
    )
    p.add_argument("--no-html", action="store_true", help="skip the HTML rendering")
    p.set_defaults(func=run)


def run(args) -> int:
    from papermill.exceptions import PapermillExecutionError

    from vbench.notebook_stage import parameter_value, run_stage

    if not args.notebook.is_file():
        raise VbenchError(f"{args.notebook}: no such notebook")
    params = {name: parameter_value(value) for name, value in args.parameter}
    executed = args.executed_dir / args.notebook.name
    try:
        run_stage(args.notebook, executed, params, html=not args.no_html)
    except PapermillExecutionError as exc:
        raise VbenchError(
            f"stage {args.notebook.stem} failed in cell {exc.exec_count}: {exc.ename}: {exc.evalue} "
            f"(the executed notebook with the traceback: {executed})"
        ) from None
    return 0
