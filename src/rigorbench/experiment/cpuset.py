"""cpuset control groups for a duet run's two CPU sets, where this machine lets us make them.

A duet run pins each version's harness to its half of the CPUs with ``sched_setaffinity`` on
the execution's thread (:mod:`rigorbench.experiment.duet`). Affinity is a request any process
may widen again (a JVM option, a harness that pins its own workers); a cpuset group is the
kernel's limit on everything in it. So where a cgroup v1 cpuset hierarchy is mounted and
writable, each CPU set gets a group of its own under this process's group
(``rigorbench-duet-<pid>-<set>``: our pid and the set's index, nothing else reaches the path),
with ``cpuset.cpus`` the set and ``cpuset.mems`` the parent's. The execution's thread writes
its own thread id to the group's ``tasks`` before it starts anything, so every process it
forks is born in the group, the same inheritance the affinity relies on; affinity is set as
well. When the thread is done it moves back to the parent group, and the groups are removed
when the run (or Ctrl-C, or an error) leaves the block; a group left by a killed run is
removed at the next duet run's start once its pid is dead.

cgroup v2 is not used: there a thread can only be in another group than its process in a
threaded subtree, which means converting the user's own group (systemd's) to threaded mode, and
moving the harness process after it is started leaves a moment when it runs unconfined. The
run falls back to affinity alone, as it does where no cpuset hierarchy is mounted or a group
cannot be made; that is one note, never an error, and each execution's environment records
which it was (:meth:`Pinning.facts`).
"""

from __future__ import annotations

import errno
import os
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

CGROUP_V1 = "cgroup-v1"
AFFINITY = "affinity"
PREFIX = "rigorbench-duet-"
_OURS = re.compile(r"rigorbench-duet-([1-9][0-9]{0,9})-[0-9]+")     # a pid (Linux's are below 2**22), a set
_REMOVE_TRIES = 20          # a stopped harness's last process takes a moment to leave: wait up to
_REMOVE_WAIT_S = 0.1        # 2 s for its group to empty before leaving it to the next run

CpuSet = frozenset[int]


@dataclass(frozen=True)
class Pinning:
    """How one execution's harness was held to its CPUs, as its environment records it."""

    cpus: CpuSet
    method: str = AFFINITY
    cgroup: str = ""        # the group in its hierarchy ("/rigorbench-duet-123-0"); "" with affinity alone

    def facts(self) -> dict[str, str]:
        """The environment's entries (strings, as every environment value): ``pinning.method``
        and, with a group, ``pinning.cgroup``. The CPUs themselves are ``cpu_set``, as before."""
        facts = {"pinning.method": self.method}
        if self.cgroup:
            facts["pinning.cgroup"] = self.cgroup
        return facts


@dataclass(frozen=True)
class Hierarchy:
    """This process's group in a mounted cgroup v1 cpuset hierarchy."""

    folder: Path            # its folder: /sys/fs/cgroup/cpuset (or a test's stand-in)
    group: str = "/"        # its path in the hierarchy, as /proc/self/cgroup shows it: "/" or "/docker/abc"

    def path_of(self, name: str) -> str:
        """A child group's path in the hierarchy (what the environment records)."""
        return self.group.rstrip("/") + "/" + name


def find_hierarchy(mountinfo: Path = Path("/proc/self/mountinfo"),
                   cgroups: Path = Path("/proc/self/cgroup")) -> tuple[Hierarchy | None, str]:
    """This process's cpuset group, or None and why there is none (for the note)."""
    try:
        mounts, memberships = mountinfo.read_text(), cgroups.read_text()
    except OSError as error:
        return None, f"cannot read {error.filename}: {error.strerror}"
    mount = _cpuset_mount(mounts)
    if mount is None:
        if any(line.partition(" - ")[2].startswith("cgroup2 ") for line in mounts.splitlines()):
            return None, "only cgroup v2 is mounted, where a thread cannot have a cpuset group of its own"
        return None, "no cgroup v1 cpuset hierarchy is mounted"
    root, where = mount
    group = next((line.split(":", 2)[2] for line in memberships.splitlines()
                  if line.count(":") >= 2 and "cpuset" in line.split(":", 2)[1].split(",")), None)
    if group is None:
        return None, "this process is in no cpuset group"
    inside = _below(root, group)
    if inside is None or ".." in inside.split("/") or not (Path(where, inside.lstrip("/")) / "tasks").is_file():
        return None, f"this process's cpuset group {group} is not visible under {where}"
    return Hierarchy(Path(where, inside.lstrip("/")), group), ""


def _below(root: str, group: str) -> str | None:
    """Where ``group`` is under a mount of the hierarchy's ``root`` (field 4 of mountinfo: a
    container may see only its own group), or None when it is not under it."""
    if root == "/":
        return group
    if group == root or group.startswith(root + "/"):
        return group[len(root):]
    return None


def _cpuset_mount(mounts: str) -> tuple[str, str] | None:
    """(the hierarchy's root that is mounted, where) of the cgroup v1 mount with the cpuset
    controller, from /proc/self/mountinfo (the controller may share it: ``cpuset,cpu``)."""
    for line in mounts.splitlines():
        fields, _, tail = line.partition(" - ")
        parts, kind = fields.split(), tail.split()
        if len(parts) >= 5 and len(kind) >= 3 and kind[0] == "cgroup" and "cpuset" in kind[2].split(","):
            return parts[3], parts[4].replace("\\040", " ")
    return None


def _write(path: Path, text: str) -> None:
    with open(path, "w") as file:
        file.write(text)


def _remove(folder: Path) -> None:
    """rmdir: a cgroup's control files go with it; it fails (EBUSY) while a task is in it."""
    os.rmdir(folder)


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` runs (signal 0 checks without sending anything)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):    # someone else's process; or no pid at all: keep its group
        return True
    return True


class DuetGroups:
    """The cpuset groups of a duet run's CPU sets, for the block's duration (a context manager).

    Entering removes what killed runs left and makes a group per set; if it cannot (no
    hierarchy, EACCES, EROFS, ENOSPC, a missing controller file) it makes none and the run
    pins by affinity alone, with one note. Threads call :meth:`join` and :meth:`leave`; leaving
    the block removes the groups. ``note`` is called from the thread that entered only."""

    def __init__(self, hierarchy: Hierarchy | None, sets: Iterable[CpuSet], note: Callable[[str], None],
                 why_not: str = "", pid: int | None = None) -> None:
        self.hierarchy = hierarchy
        self.sets = tuple(sets)
        self._note = note
        self._why_not = why_not or "no cpuset hierarchy was given"
        self._pid = os.getpid() if pid is None else pid
        self._made: dict[CpuSet, str] = {}          # set -> its group's name
        self._late: list[str] = []                  # notes of joins that failed, for the entering thread
        self._lock = threading.Lock()

    def __enter__(self) -> "DuetGroups":
        if self.hierarchy is None:
            self._note(f"duet: CPU sets pinned by affinity alone ({self._why_not})")
            return self
        self._remove_leftovers()
        try:
            for index, cpus in enumerate(self.sets):
                self._make(f"{PREFIX}{self._pid}-{index}", cpus)
        except OSError as error:
            self._remove_made()
            self._note(f"duet: CPU sets pinned by affinity alone (cannot make a cpuset group in "
                       f"{self.hierarchy.folder}: {error.strerror or error})")
        return self

    def __exit__(self, kind, error, traceback) -> None:
        self.flush_notes()
        self._remove_made()

    def _make(self, name: str, cpus: CpuSet) -> None:
        folder = self.hierarchy.folder / name
        try:
            os.mkdir(folder)
        except FileExistsError:                     # ours, left by a block whose removal found it busy
            pass
        self._made[cpus] = name
        _write(folder / "cpuset.cpus", ",".join(str(cpu) for cpu in sorted(cpus)))
        _write(folder / "cpuset.mems", (self.hierarchy.folder / "cpuset.mems").read_text().strip())

    def _remove_made(self) -> None:
        made, self._made = self._made, {}
        for name in made.values():
            if not self._removed(self.hierarchy.folder / name):
                self._note(f"duet: cpuset group {self.hierarchy.path_of(name)} still has processes; left in place")

    def _remove_leftovers(self) -> None:
        """Remove the groups of duet runs whose process is gone (killed before it could)."""
        try:
            names = os.listdir(self.hierarchy.folder)
        except OSError:
            return
        for name in names:
            match = _OURS.fullmatch(name)
            if match and int(match[1]) != self._pid and not pid_alive(int(match[1])):
                if not self._removed(self.hierarchy.folder / name, tries=1):
                    self._note(f"duet: cpuset group {self.hierarchy.path_of(name)} of a run that is gone still "
                               "has processes; left in place")

    @staticmethod
    def _removed(folder: Path, tries: int = _REMOVE_TRIES) -> bool:
        for attempt in range(tries):
            try:
                _remove(folder)
                return True
            except FileNotFoundError:
                return True
            except OSError as error:
                if error.errno != errno.EBUSY or attempt == tries - 1:
                    return False
                time.sleep(_REMOVE_WAIT_S)
        return False

    def join(self, cpus: CpuSet) -> Pinning:
        """Move the calling thread into the group of ``cpus``: what it forks from now on is
        born there. Affinity alone when there is no group or the kernel refuses the move."""
        name = self._made.get(cpus)
        if name is None:
            return Pinning(cpus)
        try:
            _write(self.hierarchy.folder / name / "tasks", str(threading.get_native_id()))
        except OSError as error:
            with self._lock:
                self._late.append(f"duet: cannot join cpuset group {self.hierarchy.path_of(name)} "
                                  f"({error.strerror or error}); its execution is pinned by affinity alone")
            return Pinning(cpus)
        return Pinning(cpus, CGROUP_V1, self.hierarchy.path_of(name))

    def leave(self, pinning: Pinning) -> None:
        """Move the calling thread back to this process's group, so that its group can go."""
        if pinning.method == CGROUP_V1:
            try:
                _write(self.hierarchy.folder / "tasks", str(threading.get_native_id()))
            except OSError:
                pass            # the thread ends next; its group is removed once it has

    def flush_notes(self) -> None:
        """Say (in the entering thread) what joins in other threads could not do, once each."""
        with self._lock:
            late, self._late = list(dict.fromkeys(self._late)), []
        for text in late:
            self._note(text)
