"""Duet runs' threads (issue #51 item 1, vbench.campaign.together), with real threads: sides
released together by a StartLine, a side's exception as its outcome, and an interrupt of the
main thread handed to every side still running (also one blocked at the StartLine) and raised
again within seconds."""

from __future__ import annotations

import _thread
import os
import signal
import threading
import time

import pytest

from vbench.campaign.together import StartLine, interrupt_like, raise_in_thread, run_together
from vbench.lifecycle import Terminated, interrupts_unwind

#: How long a side that hears no interrupt keeps running (a test that fails ends, not hangs).
LONG_S = 20.0


@pytest.fixture(autouse=True)
def ctrl_c_as_a_terminal_gives_it():
    """SIGINT handled as Python does at a terminal: a runner started in the background of a
    non-interactive shell (`.ci/run &`) inherits it ignored, and interrupt_main then does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def busy(seen: dict, k: int, until: float):
    """A side that runs until `until` (in short sleeps, as invoke's and paramiko's polling loops
    do) and notes what stopped it in `seen[k]`."""

    def go():
        seen[f"thread{k}"] = threading.current_thread()
        try:
            while time.monotonic() < until:
                time.sleep(0.005)
        except BaseException as exc:
            seen[k] = exc
            raise
        return k

    return go


def side_threads(seen: dict) -> list[threading.Thread]:
    return [t for key, t in seen.items() if str(key).startswith("thread")]


def test_sides_arriving_apart_leave_the_start_line_together():
    start = StartLine(3)
    assert start.skew_s() is None  # before every side has left
    arrived: dict[int, float] = {}

    def side(k: int):
        def go():
            time.sleep(0.3 * k)  # 0, 0.3 and 0.6 s late
            arrived[k] = time.monotonic()
            start.wait(k)
            return k

        return go

    outcomes = run_together([side(k) for k in range(3)], start=start)
    assert [o.value for o in outcomes] == [0, 1, 2] and not any(o.error for o in outcomes)
    assert sorted(start.released) == [0, 1, 2]
    assert all(t >= max(arrived.values()) for t in start.released.values())  # none left before the last came
    skew = start.skew_s()
    assert skew is not None and 0 <= skew < 0.25  # 0.6 s apart on arrival; generous for a loaded machine


def test_a_sides_exception_is_its_outcome_and_the_others_run_to_their_end():
    def fails():
        time.sleep(0.02)
        raise ValueError("worker1 unreachable")

    def slow(k):
        def go():
            time.sleep(0.2)
            return k

        return go

    outcomes = run_together([slow(0), fails, slow(2)])
    assert [o.value for o in outcomes] == [0, None, 2]
    assert outcomes[0].error is None and outcomes[2].error is None
    assert isinstance(outcomes[1].error, ValueError) and str(outcomes[1].error) == "worker1 unreachable"


def test_a_side_failing_before_the_start_line_can_abort_it_for_the_others():
    start = StartLine(3)

    def waits(k):
        return lambda: start.wait(k)

    def fails():
        start.abort()
        raise RuntimeError("no cluster")

    t0 = time.monotonic()
    outcomes = run_together([waits(0), fails, waits(2)], start=start)
    assert time.monotonic() - t0 < 2
    assert isinstance(outcomes[1].error, RuntimeError)
    assert all(isinstance(outcomes[k].error, threading.BrokenBarrierError) for k in (0, 2))
    assert start.skew_s() is None and not start.released


def test_a_side_failing_just_after_the_start_line_does_not_cancel_its_released_partners():
    # As the runner's sides do: abort on any failure. Past the barrier it must change nothing,
    # also for partners released but not yet woken (before the fix, 87 of 200 groups lost one).
    for _ in range(100):
        start = StartLine(3)

        def ok(k):
            def go():
                start.wait(k)
                return k

            return go

        def fails():
            try:
                start.wait(1)
                raise RuntimeError("hosts lost")
            except BaseException:
                start.abort()
                raise

        outcomes = run_together([ok(0), fails, ok(2)], start=start)
        assert [outcomes[0].value, outcomes[2].value] == [0, 2], [o.error for o in outcomes]
        assert sorted(start.released) == [0, 1, 2] and start.skew_s() is not None


def _sigint():
    _thread.interrupt_main()  # as Ctrl-C: KeyboardInterrupt in the main thread


def _sigterm():
    os.kill(os.getpid(), signal.SIGTERM)  # interrupts_unwind: Terminated in the main thread


@pytest.mark.parametrize(
    "deliver, kind, said",
    [(_sigint, KeyboardInterrupt, ""), (_sigterm, Terminated, "received signal SIGTERM")],
    ids=["ctrl-c", "sigterm"],
)
def test_an_interrupt_of_the_main_thread_reaches_every_running_side_as_its_kind_and_is_raised_again(
    deliver, kind, said
):
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    seen: dict = {}
    until = time.monotonic() + LONG_S
    finished = lambda: "done"  # noqa: E731 - a side that ended before the interrupt
    timer = threading.Timer(0.3, deliver)
    t0 = time.monotonic()
    try:
        with interrupts_unwind(), pytest.raises(KeyboardInterrupt) as raised:
            timer.start()
            run_together([busy(seen, 0, until), finished, busy(seen, 2, until), busy(seen, 3, until)])
        took = time.monotonic() - t0
    finally:
        timer.cancel()  # never a signal after the test: it would hit whatever runs next
        timer.join()
    assert took < 2.5, f"run_together raised the interrupt after {took:.1f} s"
    assert type(raised.value) is kind and str(raised.value) == said
    assert sorted(k for k in seen if isinstance(k, int)) == [0, 2, 3]  # every running side, not the finished one
    for k in (0, 2, 3):
        assert isinstance(seen[k], kind) and isinstance(seen[k], KeyboardInterrupt)
        assert str(seen[k]) == said  # Terminated's message kept (interrupt_like)
    assert not any(t.is_alive() for t in side_threads(seen))  # joined before the interrupt went on


def test_an_interrupt_breaks_the_start_line_so_sides_waiting_there_stop_too():
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    start = StartLine(3)  # its timeout (minutes) is not what ends the wait
    seen: dict = {}

    def waits(k):
        def go():
            seen[f"thread{k}"] = threading.current_thread()
            try:
                start.wait(k)
            except BaseException as exc:
                seen[k] = exc
                raise

        return go

    # Sides 0 and 2 wait at the barrier (blocked in C); side 1 never comes to it.
    timer = threading.Timer(0.3, _thread.interrupt_main)
    t0 = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            timer.start()
            run_together([waits(0), busy(seen, 1, time.monotonic() + LONG_S), waits(2)], start=start)
        took = time.monotonic() - t0
    finally:
        timer.cancel()
        timer.join()
    assert took < 2.5, f"run_together raised the interrupt after {took:.1f} s"
    assert isinstance(seen[1], KeyboardInterrupt)
    for k in (0, 2):  # the broken barrier, or the interrupt itself if it came first
        assert isinstance(seen[k], (threading.BrokenBarrierError, KeyboardInterrupt))
    assert not any(t.is_alive() for t in side_threads(seen))
    assert not start.released


def test_a_side_that_ignores_the_interrupt_is_waited_for_at_most_the_grace():
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    swallowed = threading.Event()
    heard: list[float] = []

    def stubborn():
        # Runs on until well after it swallowed the interrupt (so run_together cannot end before
        # the interrupt comes, however late a loaded machine fires the timer), at most LONG_S.
        cap = time.monotonic() + LONG_S
        while time.monotonic() < cap and not (heard and time.monotonic() > heard[0] + 2.0):
            try:
                time.sleep(0.005)
            except KeyboardInterrupt:
                heard.append(time.monotonic())
                swallowed.set()

    timer = threading.Timer(0.2, _thread.interrupt_main)
    try:
        with pytest.raises(KeyboardInterrupt):
            timer.start()
            run_together([stubborn], grace_s=0.3)
        ended = time.monotonic()
    finally:
        timer.cancel()
        timer.join()
    assert swallowed.is_set() and ended - heard[0] < 1.2  # the grace, not the side's 2 s more


def test_interrupt_like_is_of_the_interrupts_kind_and_says_what_it_said():
    term = interrupt_like(Terminated("received signal SIGTERM"))
    assert issubclass(term, Terminated) and issubclass(term, KeyboardInterrupt) and term.__name__ == "Terminated"
    assert str(term()) == "received signal SIGTERM"
    ctrl_c = interrupt_like(KeyboardInterrupt())
    assert issubclass(ctrl_c, KeyboardInterrupt) and not issubclass(ctrl_c, Terminated) and str(ctrl_c()) == ""


def test_raise_in_thread_reaches_a_running_thread_only():
    seen: dict = {}
    side = busy(seen, 0, time.monotonic() + LONG_S)

    def quietly():
        try:
            side()
        except KeyboardInterrupt:
            pass  # noted in `seen`

    t = threading.Thread(target=quietly, daemon=True)
    assert raise_in_thread(t, KeyboardInterrupt) is False  # not started
    t.start()
    assert raise_in_thread(t, interrupt_like(Terminated("received signal SIGHUP"))) is True
    t.join(2)
    assert not t.is_alive() and isinstance(seen[0], Terminated) and str(seen[0]) == "received signal SIGHUP"
    assert raise_in_thread(t, KeyboardInterrupt) is False  # ended
