"""The campaign's progress: ETA from the cells already run, lines off a terminal, a bar on one."""

from __future__ import annotations

import io

from vbench.campaign.progress import ProgressReport, clock_text, eta_seconds, variant_key


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_no_eta_before_a_cell_has_finished():
    assert eta_seconds([], ["native/terasort"]) is None


def test_eta_uses_the_mean_of_the_same_kind_then_the_overall_mean():
    finished = [("native/terasort", 60.0), ("native/terasort", 40.0), ("native/pi", 10.0)]
    # terasort: mean 50; pi: 10; an unseen kind: the overall mean 110/3
    assert eta_seconds(finished, ["lxc/terasort"]) == 110 / 3
    assert eta_seconds(finished, ["native/terasort", "native/pi"]) == 60.0


def test_eta_adds_the_time_between_cells_in_the_proportion_it_took_so_far():
    finished = [("native/terasort", 60.0), ("native/terasort/warmup", 60.0)]
    left = ["lxc/terasort", "lxc/terasort/warmup"]
    assert eta_seconds(finished, left) == 120.0
    # Bring-ups and the gate took 60 s beside the 120 s of cells: a third more wall time per cell.
    assert eta_seconds(finished, left, elapsed=180.0) == 180.0
    # Never below the cells' own time (a clock read before the last cell was counted).
    assert eta_seconds(finished, left, elapsed=100.0) == 120.0


def test_the_reported_eta_counts_the_time_between_cells(tmp_path):
    out, clock = io.StringIO(), Clock()
    p = ProgressReport(stream=out, clock=clock)
    cells = ["b0/native/terasort", "b1/native/terasort"]
    p.begin(cells)
    clock.now += 30  # a testbed and cluster came up before the first cell
    p.cell_started(cells[0])
    clock.now += 60
    p.cell_finished(cells[0], None)
    clock.now += 30  # torn down, the next one brought up
    p.cell_started(cells[1])
    assert out.getvalue().splitlines()[-1] == "[1/2 cells, 2m00s elapsed, ETA 2m00s] running b1/native/terasort"


def test_clock_text():
    assert [clock_text(s) for s in (None, 12.4, 245, 3720)] == ["?", "12s", "4m05s", "1h02m"]


def test_variant_key_drops_the_block():
    assert variant_key("b1/lxc[network.mode=nat]/terasort[size_mb=16]") == "lxc[network.mode=nat]/terasort[size_mb=16]"


def test_variant_key_drops_the_round_too_but_keeps_a_warmup_run_apart():
    assert variant_key("b12/r3/lxc/terasort[size_mb=16]") == "lxc/terasort[size_mb=16]"
    assert variant_key("b0/r0/native/pi/warmup") == "native/pi/warmup"


def test_lines_off_a_terminal_say_done_total_running_cell_elapsed_eta_and_each_verdict():
    out, clock = io.StringIO(), Clock()
    p = ProgressReport(stream=out, clock=clock)
    cells = ["b0/native/terasort", "b0/lxc/terasort", "b1/native/terasort"]
    p.begin(cells)
    p.cell_started(cells[0])
    clock.now += 40
    p.cell_finished(cells[0], None)
    p.cell_started(cells[1])
    clock.now += 65
    p.cell_finished(cells[1], "TeraValidate: output not sorted")
    p.cell_started(cells[2])
    p.end()
    lines = out.getvalue().splitlines()
    assert lines[0] == "campaign: 3 cells to run"
    assert lines[1] == "[0/3 cells, 0s elapsed, ETA ?] running b0/native/terasort"
    assert lines[2] == "[1/3] b0/native/terasort: ok (40s)"
    # lxc/terasort never ran: the overall mean (40 s) stands in for it; native/terasort: 40 s
    assert lines[3] == "[1/3 cells, 40s elapsed, ETA 1m20s] running b0/lxc/terasort"
    assert lines[4] == "[2/3] b0/lxc/terasort: FAILED: TeraValidate: output not sorted (1m05s)"
    assert lines[5] == "[2/3 cells, 1m45s elapsed, ETA 40s] running b1/native/terasort"
    assert lines[6] == "campaign: 2 cells run (1 failed) in 1m45s"
    assert "\r" not in out.getvalue()


def test_a_skipped_cell_leaves_the_total_and_is_said():
    out = io.StringIO()
    p = ProgressReport(stream=out, clock=Clock())
    p.begin(["b0/native/pi", "b1/native/pi"])
    p.cell_skipped("b1/native/pi", "time budget of 5 min")
    p.cell_started("b0/native/pi")
    assert "b1/native/pi: skipped (time budget of 5 min)" in out.getvalue()
    assert "[0/1 cells" in out.getvalue()


def test_on_a_terminal_a_bar_with_the_running_cell_and_the_verdict_lines():
    out, clock = io.StringIO(), Clock()
    p = ProgressReport(stream=out, clock=clock, live=True)
    p.begin(["b0/native/pi", "b0/lxc/pi"])
    p.cell_started("b0/native/pi")
    clock.now += 30
    p.cell_finished("b0/native/pi", None)
    p.cell_started("b0/lxc/pi")
    text = out.getvalue()
    p.end()
    assert "\r" in text  # a live bar redraws in place
    assert "1/2" in text and "b0/lxc/pi" in text and "ETA 30s" in text
    assert "[1/2] b0/native/pi: ok (30s)" in text


def test_a_cell_whose_configuration_failed_before_it_started_has_no_time_and_no_weight_in_the_eta():
    # A resumed soak trial printed "b0/native/pi: FAILED: configuration failed: ... (17h38m)": the
    # time since the clock's zero (the machine's uptime), as no cell had started in that process.
    out, clock = io.StringIO(), Clock()
    p = ProgressReport(stream=out, clock=clock)
    cells = ["b0/native/pi", "b1/native/cpu", "b1/native/pi"]
    p.begin(cells)
    clock.now += 150  # the cluster never came up
    p.cell_finished(cells[0], "configuration failed: not ready after 120 s")
    assert out.getvalue().splitlines()[-1] == (
        "[1/3] b0/native/pi: FAILED: configuration failed: not ready after 120 s (not started)"
    )
    assert p.status().startswith("1/3 cells") and p.status().endswith("ETA ?")
    p.cell_started(cells[1])
    clock.now += 3
    p.cell_finished(cells[1], None)
    assert out.getvalue().splitlines()[-1] == "[2/3] b1/native/cpu: ok (3s)"
