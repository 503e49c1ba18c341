"""selfbench/plant_threads.py's pure parts: the workload's lines read, each level named as the
testbed's facts name it (tests/integration/test_syscall_stops.py runs it for real)."""

from __future__ import annotations

from selfbench import plant_threads
from vbench.testbed import syscall_stops


def test_the_workloads_lines_are_read_per_task_and_other_lines_ignored():
    text = "main_thread 0.2\nnew_thread 133.11\nnoise 1\nforked_child 1.5e2\nexeced_child 0.31\n"
    assert plant_threads.parse(text) == {
        "main_thread": 0.2,
        "new_thread": 133.11,
        "forked_child": 150.0,
        "execed_child": 0.31,
    }


def test_each_level_is_named_as_the_testbeds_facts_name_it_and_run_under_its_tracer():
    assert plant_threads.level_name(None) == "no tracer"
    assert plant_threads.level_name("process") == syscall_stops.applied("process")
    argv = plant_threads.workload_argv(10)
    assert argv[2] == plant_threads.WORKLOAD and argv[3:] == ["10", plant_threads.EXECED]


def test_a_partial_level_as_first_built_traces_its_class_alone():
    argv = syscall_stops.traced_argv("/usr/bin/strace", ["prog"], syscall_stops.PROCESS)
    assert "trace=%process,set_robust_list" in argv
    before = plant_threads.first_built(argv)
    assert "trace=%process" in before and len(before) == len(argv)
    assert [a for a in before if "set_robust_list" in a] == []
    every = syscall_stops.traced_argv("/usr/bin/strace", ["prog"], True)
    assert plant_threads.first_built(every) == every
