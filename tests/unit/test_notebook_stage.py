"""`vbench stage`: a notebook executed by papermill on a real kernel, its stderr copied to the
terminal while the executed notebook keeps it, over IPC sockets (no TCP warning)."""

from __future__ import annotations

import io
import os

import nbformat
import pytest

from vbench.notebook_stage import parameter_value, run_stage


@pytest.mark.parametrize(
    "text, value", [("3", 3), ("5.0", 5.0), ("True", True), ("None", None), ("reference", "reference"), ("", "")]
)
def test_parameters_are_typed_as_papermill_types_them(text, value):
    assert parameter_value(text) == value


def test_stderr_reaches_the_terminal_and_stays_in_the_notebook_and_no_tcp(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    params = nbformat.v4.new_code_cell('campaign = "x"')
    params.metadata["tags"] = ["parameters"]
    nb.cells = [
        params,
        nbformat.v4.new_code_cell(
            'import sys, os\nprint("[1/2 cells] running", campaign, file=sys.stderr)\nprint("to the notebook only")\n'
            "from ipykernel.kernelapp import IPKernelApp\n"
            'open("transport.txt", "w").write(IPKernelApp.instance().transport)'
        ),
    ]
    src = tmp_path / "stage.ipynb"
    nbformat.write(nb, src)
    terminal = io.StringIO()
    cwd = os.getcwd()
    os.chdir(tmp_path)  # the notebook writes transport.txt into the working directory
    try:
        executed = run_stage(src, tmp_path / "executed" / "stage.ipynb", {"campaign": "b0/lxc"}, stream=terminal)
    finally:
        os.chdir(cwd)
    text = terminal.getvalue()
    assert "[1/2 cells] running b0/lxc" in text
    assert "to the notebook only" not in text
    assert "without encryption" not in text
    assert "KeyboardInterrupt" not in text  # no SIGINT on shutdown
    assert (tmp_path / "transport.txt").read_text() == "ipc"
    outputs = [o for c in nbformat.read(executed, as_version=4).cells for o in c.get("outputs", [])]
    assert any(o.get("name") == "stderr" and "running b0/lxc" in o["text"] for o in outputs)
    assert any(o.get("name") == "stdout" and "to the notebook only" in o["text"] for o in outputs)
    assert executed.with_suffix(".html").is_file()
    assert not list(tmp_path.glob("kernel-ipc*"))  # no socket files left in the working directory
