"""notebooks/explore.ipynb where a user opens it (issue #23): JupyterLab started as `invoke lab`
starts it, in headless Chromium; and headless, by papermill, from notebooks/ and from the root, on
every committed campaign and on a fresh clone. No cluster: these need a kernel, a browser and the
committed campaigns only.

The browser is Debian's chromium driven by selenium through Debian's chromium-driver (same
source package, so always the browser's version; scripts/setup.sh installs both): selenium's
waits, selects and screenshots read as what a user does, where the DevTools protocol over a
websocket would need a client of our own for each of them.

Screenshots go to the test's tmp directory; with VBENCH_EXPLORE_SCREENSHOTS=<dir> they are copied
there too (docs/images/ holds the ones docs/exploring.md shows).
"""

from __future__ import annotations

import html.parser
import importlib.util
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pandas as pd
import pytest
import yaml

from vbench import pipeline
from vbench.explore.compare import fmt

from tests.unit.explore_campaigns import preferred_ratio

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO / "notebooks" / "explore.ipynb"
BIN = Path(sys.executable).parent  # jupyter and papermill of the environment running the tests
CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
#: The controls the notebook must show, by their labels.
CONTROLS = ["campaign", "benchmark", "compare", "metric", "baseline", "run"]

pytestmark = pytest.mark.integration


def _load_tasks():
    spec = importlib.util.spec_from_file_location("vbench_tasks", REPO / "tasks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def committed_campaigns() -> list[str]:
    """Campaigns git tracks under data/raw/: what a fresh clone has (the glob keeps `*` to one
    directory, so the sizing sweeps' sub-campaigns, data/raw/sizing/<sweep>/, are not taken for campaigns)."""
    out = subprocess.run(
        ["git", "-c", "safe.directory=*", "-C", str(REPO), "ls-files", ":(glob)data/raw/*/samples.jsonl"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sorted(Path(line).parent.name for line in out.splitlines())


def stage_ratio(tmp: Path, campaign: str, benchmark: str, metric: str, level: str) -> tuple[str, str, str, str]:
    """(ratio, low, high, method) as the statistics stage writes them for `campaign`, with the
    baseline and TOST bound dvc.yaml passes it (params/pipeline.yaml), formatted as the notebook does."""
    settings = yaml.safe_load((REPO / "params" / "pipeline.yaml").read_text())["pipeline"]
    out = tmp / "processed" / campaign
    pipeline.statistics(
        REPO / "data" / "raw" / campaign,
        out,
        baseline=settings["baseline"],
        equivalence_pct=settings["equivalence_pct"],
        n_resamples=settings["resamples"],
        seed=settings["seed"],
    )
    table = pd.read_parquet(out / "stats.parquet")  # what the stage wrote, read back
    r = preferred_ratio(table, benchmark, metric, level)
    return fmt(r["estimate"]), fmt(r["ci_low"]), fmt(r["ci_high"]), str(r["method"])


class _Tables(html.parser.HTMLParser):
    """The cells of every <table> in some HTML, row by row."""

    def __init__(self):
        super().__init__()
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def ratio_row(table_html: str, level: str) -> tuple[str, str, str, str]:
    """(ratio, ci_low, ci_high, method) of `level` in the notebook's ratios table."""
    p = _Tables()
    p.feed(table_html)
    header, *rows = [r for r in p.rows if r]
    for r in rows:
        cell = dict(zip(header, r))
        if cell["level"] == level:
            return cell["ratio"], cell["ci_low"], cell["ci_high"], cell["method"]
    raise AssertionError(f"no row for {level} in {p.rows}")


def save_screenshots(shots: list[Path]) -> None:
    extra = os.environ.get("VBENCH_EXPLORE_SCREENSHOTS")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        for s in shots:
            shutil.copy(s, Path(extra) / s.name)


# -- JupyterLab in a browser ----------------------------------------------------------------------

#: JupyterLab settings for the test's own settings directory: no autosave (running the notebook must
#: not write its outputs into the repository), every cell rendered (screenshots scroll to any), no
#: news or update toasts over the screenshots.
LAB_SETTINGS = {
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab as `invoke lab` starts it (tasks.lab_argv), on loopback with a token; the base
    URL and token. Afterwards the notebook in the repository must be byte for byte as it was."""
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.skip("needs Debian's chromium and chromium-driver (scripts/setup.sh installs them)")
    tmp = tmp_path_factory.mktemp("lab")
    settings = tmp / "settings"
    for name, value in LAB_SETTINGS.items():
        (settings / name).parent.mkdir(parents=True, exist_ok=True)
        (settings / name).write_text(json.dumps(value))
    port, token = _free_port(), secrets.token_hex(16)
    argv = _load_tasks().lab_argv(os.geteuid() == 0)
    argv = [
        str(BIN / "jupyter"),
        *argv[1:],
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--LabApp.user_settings_dir={settings}",
        f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
    ]
    env = {**os.environ, "PYTHONPATH": str(REPO), "JUPYTER_RUNTIME_DIR": str(tmp / "runtime")}
    before = NOTEBOOK.read_bytes()
    log = (tmp / "lab.log").open("w")
    proc = subprocess.Popen(argv, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not answer; its log:\n{(tmp / 'lab.log').read_text()[-3000:]}")
                time.sleep(0.5)
        yield base, token
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # its own session: the server and the kernels it started
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(10)
        log.close()
        after = NOTEBOOK.read_bytes()
        if after != before:
            NOTEBOOK.write_bytes(before)
            pytest.fail("JupyterLab wrote notebooks/explore.ipynb during the test (restored)")


def _chromium_tmp_dirs() -> set[Path]:
    return set(Path("/tmp").glob("org.chromium.Chromium.*"))


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    # --no-sandbox: Chromium's sandbox refuses to start as root, which the test suite runs as.
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,2000",
    ):
        opts.add_argument(arg)
    # Chromium's shared-memory directory (/tmp/org.chromium.Chromium.*, in /tmp because of
    # --disable-dev-shm-usage) outlived every run: its TMPDIR is the test's own.
    before = _chromium_tmp_dirs()
    env = {**os.environ, "TMPDIR": str(tmp_path_factory.mktemp("chromium-tmp"))}
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER), env=env), options=opts)
    try:
        yield driver
    finally:
        driver.quit()
    assert _chromium_tmp_dirs() <= before, "Chromium left a directory in /tmp"


def _wait(what: str, check, timeout: float = 120.0, every: float = 0.5):
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(every)


def _js(driver, code: str):
    return driver.execute_script(code)


def _menu(driver, menu: str, item: str) -> None:
    from selenium.webdriver.common.by import By

    next(m for m in driver.find_elements(By.CSS_SELECTOR, ".lm-MenuBar-itemLabel") if m.text == menu).click()
    _wait(
        f"menu item {item!r}",
        lambda: [i for i in driver.find_elements(By.CSS_SELECTOR, ".lm-Menu-itemLabel") if i.text == item],
    )[0].click()


def _dropdown(driver, label: str):
    """The <select> of the ipywidgets Dropdown labelled `label`."""
    from selenium.webdriver.common.by import By

    for box in driver.find_elements(By.CSS_SELECTOR, ".widget-dropdown"):
        if box.find_element(By.CSS_SELECTOR, "label").text == label:
            return box.find_element(By.TAG_NAME, "select")
    raise AssertionError(f"no dropdown labelled {label!r}")


def _images(driver, view: str) -> list[str]:
    return _js(driver, f"return Array.from(document.querySelectorAll('.{view} img')).map(e => e.src)")


def _ratios_html(driver) -> str:
    return _js(
        driver,
        "const t = document.querySelector('.vbench-comparison table.vbench-ratios');return t ? t.outerHTML : '';",
    )


def _screenshot(driver, view: str, path: Path) -> Path:
    _js(driver, f"document.querySelector('.{view}').scrollIntoView({{block: 'start'}})")
    time.sleep(1)
    driver.save_screenshot(str(path))
    return path


@pytest.mark.timeout(600)
def test_explore_runs_in_jupyterlab_and_redraws_when_a_control_changes(lab, browser, tmp_path):
    from selenium.webdriver.support.ui import Select

    base, token = lab
    browser.get(f"{base}/lab/tree/notebooks/explore.ipynb?token={token}")
    _wait(
        "the kernel to be idle",
        lambda: any(
            "Idle" in t
            for t in _js(
                browser,
                "return Array.from(document.querySelectorAll('.jp-StatusBar-TextItem')).map(e => e.textContent)",
            )
        ),
    )
    # The file browser folded away, as a reader of one notebook would: the views get the width.
    from selenium.webdriver.common.by import By

    browser.find_element(By.CSS_SELECTOR, ".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current").click()
    _menu(browser, "Run", "Run All Cells")
    prompts = _wait(
        "every code cell to have run",
        lambda: (lambda p: p if p and all(x.strip() not in ("[ ]:", "[*]:", "") for x in p) else None)(
            _js(
                browser,
                "return Array.from(document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')).map(e => e.textContent)",
            )
        ),
    )
    _wait("the comparison's figure", lambda: _images(browser, "vbench-comparison"))

    # No cell, and no view a widget drew, shows an error (or anything on stderr).
    errors = _js(
        browser,
        "return Array.from(document.querySelectorAll("
        "'.jp-OutputArea-output[data-mime-type=\"application/vnd.jupyter.stderr\"]'))"
        ".map(e => e.textContent)",
    )
    assert errors == [], errors
    assert len(prompts) == len([c for c in nbformat.read(NOTEBOOK, 4).cells if c.cell_type == "code"])
    labels = _js(
        browser, "return Array.from(document.querySelectorAll('.widget-dropdown label')).map(e => e.textContent)"
    )
    assert sorted(labels) == sorted(CONTROLS)
    for view in ("vbench-design", "vbench-comparison", "vbench-order", "vbench-run"):
        assert _js(browser, f"return document.querySelector('.{view}').textContent.length") > 0, view

    # The ratio shown for LXC against native is the statistics stage's, to the digit shown.
    assert ratio_row(_ratios_html(browser), "lxc") == stage_ratio(
        tmp_path, "reference", "terasort", "terasort_time", "lxc"
    )
    shots = [
        _screenshot(browser, "vbench-controls", tmp_path / "explore-reference.png"),
        _screenshot(browser, "vbench-run-section", tmp_path / "explore-reference-run.png"),
    ]

    # Another metric: the figure is drawn again, and the ratio is the stage's for that metric.
    before = _images(browser, "vbench-comparison")
    Select(_dropdown(browser, "metric")).select_by_visible_text("terasort.job_time")
    after = _wait(
        "the comparison's figure to be redrawn",
        lambda: (lambda imgs: imgs if imgs and imgs != before else None)(_images(browser, "vbench-comparison")),
    )
    assert after != before
    job = stage_ratio(tmp_path / "job", "reference", "terasort", "terasort.job_time", "lxc")
    _wait("the ratio of terasort.job_time", lambda: ratio_row(_ratios_html(browser), "lxc") == job, timeout=60)

    # Another campaign: a monitored run with per-node attempt times (a mixed native + VM cluster).
    Select(_dropdown(browser, "campaign")).select_by_visible_text("liu2012-terasort")
    _wait(
        "the run view of liu2012-terasort",
        lambda: "Time series" in _js(browser, "return document.querySelector('.vbench-run').textContent"),
        timeout=60,
    )
    _wait("the timeline and time series", lambda: len(_images(browser, "vbench-run")) >= 2, timeout=60)
    errors = _js(
        browser,
        "return document.querySelectorAll("
        "'.jp-OutputArea-output[data-mime-type=\"application/vnd.jupyter.stderr\"]').length",
    )
    assert errors == 0
    shots.append(_screenshot(browser, "vbench-run-section", tmp_path / "explore-timeline.png"))
    assert all(s.stat().st_size > 10_000 for s in shots)
    save_screenshots(shots)


# -- papermill, headless --------------------------------------------------------------------------


def _papermill(
    cwd: Path, notebook: str, out: Path, *params: str, pythonpath: Path = REPO, test_timeout_s: float = 300
) -> subprocess.CompletedProcess:
    """Run `notebook` with papermill, failing this test, not the whole run, if it hangs. Once in CI a
    reply was lost between papermill and its kernel, both idle with a cell marked running, and the
    test's pytest timeout (`test_timeout_s`), which ends the whole integration run, came first. So
    papermill stops a cell at 60 % of it (`--execution-timeout`, shutting its kernel down), and the
    run is killed at 85 %, with its process group (the papermill this started, and its kernel)."""
    argv = [str(BIN / "papermill"), notebook, str(out), "--execution-timeout", str(int(0.6 * test_timeout_s)), *params]
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(pythonpath)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=0.85 * test_timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, stderr = proc.communicate()
        raise AssertionError(f"papermill did not end in {0.85 * test_timeout_s:.0f} s: {stderr[-3000:]}") from None
    assert proc.returncode == 0, stderr[-3000:]
    return subprocess.CompletedProcess(argv, proc.returncode, stdout, stderr)


def _output_views(executed: Path) -> dict[str, list[dict]]:
    """The outputs each Output widget (by its class, e.g. vbench-comparison) held when the run ended."""
    nb = json.loads(executed.read_text())
    state = nb["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    return {
        c: m["state"].get("outputs", [])
        for m in state.values()
        if m["model_name"] == "OutputModel"
        for c in m["state"].get("_dom_classes", [])
    }


def _assert_no_errors(executed: Path) -> dict[str, list[dict]]:
    nb = json.loads(executed.read_text())
    views = _output_views(executed)
    outputs = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c["outputs"]]
    outputs += [o for os_ in views.values() for o in os_]
    bad = [o for o in outputs if o["output_type"] == "error" or o.get("name") == "stderr"]
    assert bad == []
    assert set(views) == {"vbench-design", "vbench-comparison", "vbench-order", "vbench-run"}
    assert all(views.values()), {k: len(v) for k, v in views.items()}
    return views


def _assert_the_stages_ratio(views: dict[str, list[dict]], stage_dir: Path) -> None:
    html_tables = [o["data"]["text/html"] for o in views["vbench-comparison"] if "text/html" in o.get("data", {})]
    assert ratio_row(html_tables[0], "lxc") == stage_ratio(stage_dir, "reference", "terasort", "terasort_time", "lxc")


@pytest.mark.timeout(300)
def test_papermill_runs_it_from_the_root(tmp_path):
    """From the repository's root; from notebooks/ (where JupyterLab and `invoke lab` start it)
    in the next test, on a fresh clone."""
    _papermill(REPO, "notebooks/explore.ipynb", tmp_path / "from-root.ipynb")
    _assert_the_stages_ratio(_assert_no_errors(tmp_path / "from-root.ipynb"), tmp_path / "stage")


@pytest.mark.timeout(900)
@pytest.mark.slow  # the browser test and the fresh clone cover reference in CI (docs/testing.md)
@pytest.mark.parametrize("campaign", committed_campaigns())
def test_papermill_runs_it_on_every_committed_campaign(tmp_path, campaign):
    _papermill(REPO, "notebooks/explore.ipynb", tmp_path / "out.ipynb", "-p", "campaign", campaign, test_timeout_s=900)
    views = _assert_no_errors(tmp_path / "out.ipynb")
    images = [o for o in views["vbench-run"] if "image/png" in o.get("data", {})]
    assert images, "no task timeline drawn"


@pytest.mark.timeout(300)
def test_papermill_runs_it_on_a_fresh_clone(tmp_path):
    """What git holds suffices: no data/processed, no generated file, no editable install of it."""
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "-c", "safe.directory=*", "clone", "-q", "--no-hardlinks", str(REPO), str(clone)], check=True
    )
    _papermill(clone / "notebooks", "explore.ipynb", tmp_path / "out.ipynb", pythonpath=clone)
    _assert_the_stages_ratio(_assert_no_errors(tmp_path / "out.ipynb"), tmp_path / "stage")
