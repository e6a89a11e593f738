"""One trial at a time per machine: a second trial waits for the first instead of failing."""

from __future__ import annotations

import threading
import time

from rigorbench.experiment.machine_lock import lock_path, one_trial_at_a_time


def test_a_second_trial_waits_for_the_first_and_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("RIGORBENCH_LOCK_DIR", str(tmp_path))
    events: list[str] = []
    said: list[str] = []
    waits: list[float] = []
    with one_trial_at_a_time(said.append) as first_waited:
        second = threading.Thread(target=lambda: _trial(events, said, waits))
        second.start()
        time.sleep(0.3)
        events.append("first done")
    second.join(timeout=10)
    assert events == ["first done", "second ran"]          # never both at once
    assert first_waited == 0.0 and waits[0] > 0            # the wait is measured, to leave it out of the overhead
    assert said == [f"waiting: another rigorbench trial is running on this machine (lock {lock_path()})"]
    assert lock_path().parent == tmp_path


def _trial(events: list[str], said: list[str], waits: list[float]) -> None:
    with one_trial_at_a_time(said.append) as waited:
        waits.append(waited)
        events.append("second ran")


def test_the_overhead_leaves_out_time_spent_waiting_for_other_experiments():
    from rigorbench.experiment.driver import ExperimentResult

    # 100 s of wall time, 60 s of it waiting for another experiment's trials, 20 s in the harness.
    assert ExperimentResult(1, 2, 0, 100.0, 20.0, 60.0).overhead == 0.5
    assert ExperimentResult(1, 2, 0, 100.0, 20.0).overhead == 0.8


def test_a_free_lock_is_taken_silently_and_released(tmp_path, monkeypatch):
    monkeypatch.setenv("RIGORBENCH_LOCK_DIR", str(tmp_path))
    said: list[str] = []
    for _ in range(2):
        with one_trial_at_a_time(said.append):
            pass
    assert said == []
