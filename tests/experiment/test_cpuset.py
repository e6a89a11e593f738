"""cpuset groups of a duet run, on a stand-in for /sys/fs/cgroup/cpuset (a folder laid out like
it, with the two things only the kernel does faked: a write to ``tasks`` moves the thread out
of every other group, and rmdir takes a group's control files with it but fails while a task
is in it), and once on the real hierarchy where this machine has a writable one."""

from __future__ import annotations

import errno
import io
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from rigorbench.experiment import cpuset, duet
from rigorbench.experiment.cpuset import AFFINITY, CGROUP_V1, DuetGroups, Hierarchy, Pinning, find_hierarchy
from rigorbench.experiment.progress import PlainReporter
from rigorbench.harness.process import run_streamed

SETS = (frozenset({0}), frozenset({1, 2}))


def tasks(folder: Path) -> list[str]:
    return (folder / "tasks").read_text().split()


@pytest.fixture
def root(tmp_path, monkeypatch) -> Path:
    """A cpuset hierarchy's root group with CPUs 0-3 and memory node 0, nobody in it."""
    root = tmp_path / "cpuset"
    root.mkdir()
    for name, text in (("cpuset.cpus", "0-3\n"), ("cpuset.mems", "0\n"), ("tasks", "")):
        (root / name).write_text(text)
    plain_write = cpuset._write
    moving = threading.Lock()                           # the kernel moves one task at a time

    def kernel_write(path: Path, text: str) -> None:
        if path.name != "tasks":
            return plain_write(path, text)
        if not path.parent.is_dir():
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(path))
        with moving:
            for other in root.rglob("tasks"):          # a task is in one group at a time
                other.write_text("".join(f"{tid}\n" for tid in tasks(other.parent) if tid != text))
            with open(path, "a") as file:
                file.write(text + "\n")

    def kernel_rmdir(folder: Path) -> None:
        if (folder / "tasks").is_file() and tasks(folder):
            raise OSError(errno.EBUSY, "Device or resource busy", str(folder))
        shutil.rmtree(folder)

    monkeypatch.setattr(cpuset, "_write", kernel_write)
    monkeypatch.setattr(cpuset, "_remove", kernel_rmdir)
    monkeypatch.setattr(cpuset, "_REMOVE_WAIT_S", 0.01)
    return root


def ours(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith(cpuset.PREFIX))


def in_a_thread(function):
    """``function()``'s value, called in a thread of its own (as a duet execution is)."""
    result = {}
    thread = threading.Thread(target=lambda: result.update(value=function(), tid=threading.get_native_id()))
    thread.start()
    thread.join()
    return result["value"], str(result["tid"])


def test_groups_are_made_per_set_joined_by_a_thread_left_and_removed(root):
    notes: list[str] = []
    with DuetGroups(Hierarchy(root), SETS, notes.append, pid=4242) as groups:
        assert ours(root) == ["rigorbench-duet-4242-0", "rigorbench-duet-4242-1"]
        second = root / "rigorbench-duet-4242-1"
        assert (second / "cpuset.cpus").read_text() == "1,2" and (second / "cpuset.mems").read_text() == "0"

        def join_and_look():
            pinning = groups.join(SETS[1])
            inside = tasks(second)
            groups.leave(pinning)
            return pinning, inside

        (pinning, inside), tid = in_a_thread(join_and_look)
        assert pinning == Pinning(SETS[1], CGROUP_V1, "/rigorbench-duet-4242-1")
        assert inside == [tid], "the thread wrote its own id to its set's group"
        assert tasks(second) == [] and tasks(root) == [tid], "and moved back to the parent when done"
    assert ours(root) == [] and notes == []
    assert pinning.facts() == {"pinning.method": "cgroup-v1", "pinning.cgroup": "/rigorbench-duet-4242-1"}


def test_a_nested_group_records_its_path_in_the_hierarchy(root):
    (root / "docker").mkdir()
    for name, text in (("cpuset.mems", "0-1"), ("tasks", "")):
        (root / "docker" / name).write_text(text)
    with DuetGroups(Hierarchy(root / "docker", "/docker"), SETS, print, pid=7) as groups:
        pinning, _ = in_a_thread(lambda: groups.join(SETS[0]))
        assert (root / "docker" / "rigorbench-duet-7-0" / "cpuset.mems").read_text() == "0-1"
    assert pinning.cgroup == "/docker/rigorbench-duet-7-0"


def test_side_by_side_runs_each_thread_in_its_sets_group_and_its_environment_says_so(root):
    sets = duet.cpu_sets(os.sched_getaffinity(0)) if len(os.sched_getaffinity(0)) >= 2 else None
    if sets is None:
        pytest.skip("pinning needs 2 usable CPUs")
    with DuetGroups(Hierarchy(root), sets, print) as groups, duet.SideBySide(groups) as side:
        for cpus in sets:
            side.start(cpus, lambda progress, cpus=cpus: (side.pinning().facts(), os.sched_getaffinity(0)))
        done = [value for kind, _, value in side.events() if kind == "done"]
    assert sorted(facts["pinning.cgroup"] for facts, _ in done) == [f"/rigorbench-duet-{os.getpid()}-{i}" for i in (0, 1)]
    assert all(facts["pinning.method"] == "cgroup-v1" for facts, _ in done)
    assert sorted(map(sorted, (cpus for _, cpus in done))) == sorted(map(sorted, sets)), "affinity set as well"
    assert ours(root) == [] and tasks(root) != []


@pytest.mark.parametrize("failure", ["mkdir EROFS", "mkdir EACCES", "no cpuset.mems", "cpus ENOSPC"])
def test_a_group_that_cannot_be_made_falls_back_to_affinity_with_one_note(root, monkeypatch, failure):
    if failure.startswith("mkdir"):
        code = getattr(errno, failure.split()[1])

        def refuse(path, *args, **kwargs):
            raise OSError(code, os.strerror(code), str(path))
        monkeypatch.setattr(cpuset.os, "mkdir", refuse)
    elif failure == "no cpuset.mems":
        (root / "cpuset.mems").unlink()                # the controller's files are missing
    else:
        plain = cpuset._write

        def no_space(path, text):
            if path.name == "cpuset.cpus" and path.parent.name.endswith("-1"):
                raise OSError(errno.ENOSPC, "No space left on device", str(path))
            plain(path, text)
        monkeypatch.setattr(cpuset, "_write", no_space)
    notes: list[str] = []
    with DuetGroups(Hierarchy(root), SETS, notes.append, pid=4242) as groups:
        pinning, _ = in_a_thread(lambda: groups.join(SETS[0]))
        groups.leave(pinning)
    monkeypatch.undo()
    assert pinning == Pinning(SETS[0]) and pinning.facts() == {"pinning.method": "affinity"}
    assert len(notes) == 1 and notes[0].startswith("duet: CPU sets pinned by affinity alone (cannot make a cpuset")
    assert ours(root) == [], "a group made before the failure is removed"


def test_no_hierarchy_means_affinity_and_a_note_saying_why(root):
    notes: list[str] = []
    with DuetGroups(None, SETS, notes.append, "only cgroup v2 is mounted, where ...") as groups:
        assert groups.join(SETS[1]) == Pinning(SETS[1], AFFINITY)
    assert notes == ["duet: CPU sets pinned by affinity alone (only cgroup v2 is mounted, where ...)"]


def test_a_join_the_kernel_refuses_is_affinity_for_that_execution_and_a_note_in_the_callers_thread(root):
    notes: list[str] = []
    with DuetGroups(Hierarchy(root), SETS, notes.append, pid=4242) as groups:
        shutil.rmtree(root / "rigorbench-duet-4242-0")      # gone under our feet: the move fails
        pinning, _ = in_a_thread(lambda: groups.join(SETS[0]))
        assert notes == [], "a thread does not speak: the note waits for the caller"
        groups.flush_notes()
    assert pinning.method == AFFINITY
    assert len(notes) == 1 and "cannot join cpuset group /rigorbench-duet-4242-0" in notes[0]


def test_a_group_still_busy_at_the_end_is_left_with_a_note(root):
    notes: list[str] = []
    with DuetGroups(Hierarchy(root), SETS, notes.append, pid=4242):
        (root / "rigorbench-duet-4242-1" / "tasks").write_text("99999\n")    # a harness process that lingers
    assert ours(root) == ["rigorbench-duet-4242-1"]
    assert notes == ["duet: cpuset group /rigorbench-duet-4242-1 still has processes; left in place"]


def test_leftovers_of_runs_whose_process_is_gone_are_removed_and_live_ones_kept(root):
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead, alive = int(gone.stdout), os.getppid()
    assert not cpuset.pid_alive(dead) and cpuset.pid_alive(alive)
    for name in (f"rigorbench-duet-{dead}-0", f"rigorbench-duet-{dead}-1", f"rigorbench-duet-{alive}-0",
                 "rigorbench-duet-x-0", "rigorbench-duet-99999999999-0", "someone-else"):
        (root / name).mkdir()
        (root / name / "tasks").write_text("")
    (root / f"rigorbench-duet-{dead}-1" / "tasks").write_text("31337\n")    # its orphan still runs
    notes: list[str] = []
    with DuetGroups(Hierarchy(root), SETS, notes.append, pid=4242):
        pass
    left = sorted(p.name for p in root.iterdir() if p.is_dir())
    assert left == sorted([f"rigorbench-duet-{dead}-1", f"rigorbench-duet-{alive}-0", "rigorbench-duet-x-0",
                           "rigorbench-duet-99999999999-0", "someone-else"])
    assert notes == [f"duet: cpuset group /rigorbench-duet-{dead}-1 of a run that is gone still has processes; "
                     "left in place"]


MOUNTS_V1 = """\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
34 31 0:31 {root} {where} rw,relatime - cgroup cgroup rw,cpuset
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
MOUNTS_V2 = "31 23 0:28 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"


@pytest.mark.parametrize("root_in_hierarchy, group, folder", [
    ("/", "/", ""),
    ("/", "/batch/job7", "batch/job7"),
    ("/docker/abc", "/docker/abc", ""),                 # a container sees its own group as the mount
    ("/docker/abc", "/docker/abc/inner", "inner"),
])
def test_the_hierarchy_is_found_from_mountinfo_and_proc_cgroup(tmp_path, root_in_hierarchy, group, folder):
    where = tmp_path / "cpuset"
    (where / folder).mkdir(parents=True, exist_ok=True)
    (where / folder / "tasks").write_text("")
    (tmp_path / "mountinfo").write_text(MOUNTS_V1.format(root=root_in_hierarchy, where=where))
    (tmp_path / "cgroup").write_text(f"4:memory:/x\n3:cpuset:{group}\n0::/\n")
    hierarchy, why_not = find_hierarchy(tmp_path / "mountinfo", tmp_path / "cgroup")
    assert hierarchy == Hierarchy(where / folder if folder else where, group) and why_not == ""
    assert hierarchy.path_of("rigorbench-duet-1-0") == group.rstrip("/") + "/rigorbench-duet-1-0"


@pytest.mark.parametrize("mounts, memberships, reason", [
    (MOUNTS_V2, "0::/user.slice\n", "only cgroup v2 is mounted"),
    ("", "", "no cgroup v1 cpuset hierarchy is mounted"),
    (MOUNTS_V1.format(root="/", where="/nowhere/cpuset"), "3:cpuset:/a\n", "cpuset group /a is not visible under"),
    (MOUNTS_V1.format(root="/docker/abc", where="/x"), "3:cpuset:/docker/other\n", "is not visible under /x"),
    (MOUNTS_V1.format(root="/", where="/x"), "3:cpuset:/../../etc\n", "is not visible under /x"),
    (MOUNTS_V1.format(root="/", where="/x"), "4:memory:/\n", "this process is in no cpuset group"),
])
def test_where_there_is_no_usable_hierarchy_the_reason_is_given(tmp_path, mounts, memberships, reason):
    (tmp_path / "mountinfo").write_text(mounts)
    (tmp_path / "cgroup").write_text(memberships)
    hierarchy, why_not = find_hierarchy(tmp_path / "mountinfo", tmp_path / "cgroup")
    assert hierarchy is None and reason in why_not


def test_the_executor_says_a_fallback_once_per_run_not_once_per_block(fake, tmp_path):
    out = io.StringIO()
    executor = duet.DuetExecutor(fake, PlainReporter(out), SETS, (None, "no cgroup v1 cpuset hierarchy is mounted"))
    for _ in range(3):                                  # three looks of --until-decided
        with executor.groups():
            pass
    assert out.getvalue() == "duet: CPU sets pinned by affinity alone (no cgroup v1 cpuset hierarchy is mounted)\n"


def real_hierarchy() -> Hierarchy | None:
    hierarchy, _ = find_hierarchy()
    return hierarchy if hierarchy is not None and os.access(hierarchy.folder, os.W_OK) else None


@pytest.mark.skipif(real_hierarchy() is None or len(os.sched_getaffinity(0)) < 2,
                    reason="needs a writable cgroup v1 cpuset hierarchy and 2 usable CPUs")
def test_on_this_machines_hierarchy_a_harness_is_born_in_its_sets_group_and_nothing_is_left(tmp_path):
    hierarchy = real_hierarchy()
    sets = duet.cpu_sets(os.sched_getaffinity(0))
    script = "import os; print(open('/proc/self/cgroup').read()); print(sorted(os.sched_getaffinity(0)))"
    notes: list[str] = []
    with DuetGroups(hierarchy, sets, notes.append) as groups, duet.SideBySide(groups) as side:
        side.start(sets[1], lambda progress: (side.pinning(), run_streamed([sys.executable, "-c", script], cwd=tmp_path)))
        (pinning, result), = [value for kind, _, value in side.events() if kind == "done"]
    assert notes == [] and pinning.method == CGROUP_V1
    assert any(line.endswith(f":cpuset:{pinning.cgroup}") for line in result.lines), result.lines
    assert str(sorted(sets[1])) in result.lines
    assert not [name for name in os.listdir(hierarchy.folder) if name.startswith(f"{cpuset.PREFIX}{os.getpid()}-")]
