"""selfbench.cross_cpu_wake: the runs' argv, /proc/interrupts' reading, a wake's price and the
summary; and the program itself, compiled and run where cc is."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from selfbench import cross_cpu_wake as w

INTERRUPTS = """\
           CPU0       CPU1
  1:          9          0   IO-APIC   1-edge      i8042
LOC:   63928280   61586408   Local timer interrupts
RES:        100         50   Rescheduling interrupts
CAL:       1000        500   Function call interrupts
TLB:         70         30   TLB shootdowns
"""


def test_a_held_run_is_pinned_to_cpu_0_and_a_free_one_is_not():
    assert w.argv_of(Path("/t/wake"), "pipe", "held", 10) == ["taskset", "-c", "0", "/t/wake", "pipe", "10"]
    assert w.argv_of(Path("/t/wake"), "ptrace", "free", 10) == ["/t/wake", "ptrace", "10"]
    with pytest.raises(ValueError):
        w.argv_of(Path("/t/wake"), "pipe", "alone", 10)


def test_ipis_sum_function_call_and_reschedule_interrupts_over_every_cpu():
    assert w.ipis(INTERRUPTS) == 1650  # not the timer's, not the TLB shootdowns'
    assert w.ipis("") == 0


def test_a_wakes_price_is_the_free_runs_extra_cpu_per_extra_interrupt():
    held = w.Run("ptrace", "held", 100_000, 0.33, 0)
    free = w.Run("ptrace", "free", 100_000, 1.79, 144_000)
    assert held.cpu_us == pytest.approx(3.3) and free.ipis_per == pytest.approx(1.44)
    assert w.wake_price(held, free) == pytest.approx((17.9 - 3.3) / 1.44)
    # A free run the scheduler kept on one CPU sent no more interrupts: no price.
    assert w.wake_price(held, w.Run("ptrace", "free", 100_000, 0.4, 10)) is None
    text = w.summary([held, free]).splitlines()
    assert text[1].split() == ["ptrace", "3.30", "17.90", "1.44", "10.1"]


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs cc")
def test_the_program_compiles_and_hands_over_by_pipe_and_by_ptrace(tmp_path):
    binary = w.compile_program(tmp_path)
    for kind in w.KINDS:
        assert subprocess.run([str(binary), kind, "1000"], timeout=60).returncode == 0
    assert subprocess.run([str(binary), "nothing", "1"]).returncode == 2
