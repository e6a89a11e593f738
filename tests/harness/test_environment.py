"""Environment capture on a fake /proc-/sys tree, fitness warnings, and git facts."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from rigorbench.harness.base import RunSettings
from rigorbench.harness.environment import SystemPaths, capture_environment, fitness_warnings, git_info

CPUINFO = """processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz
flags\t\t: fpu vme sse2 {flags}
"""


def write(root: Path, path: str, text: str) -> None:
    target = root / path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


@pytest.fixture
def machine(tmp_path) -> Path:
    """A bare-metal laptop on AC power with the powersave governor and turbo on."""
    write(tmp_path, "/proc/cpuinfo", CPUINFO.format(flags="avx2"))
    write(tmp_path, "/proc/meminfo", "MemTotal:       16318412 kB\nMemFree:  1 kB\n")
    write(tmp_path, "/proc/loadavg", "0.25 0.40 0.50 1/300 4242\n")
    write(tmp_path, "/proc/1/cgroup", "0::/init.scope\n")
    write(tmp_path, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave\n")
    write(tmp_path, "/sys/devices/system/cpu/intel_pstate/no_turbo", "0\n")
    write(tmp_path, "/sys/class/power_supply/AC/type", "Mains\n")
    write(tmp_path, "/sys/class/power_supply/AC/online", "1\n")
    write(tmp_path, "/sys/class/power_supply/BAT0/type", "Battery\n")
    write(tmp_path, "/sys/class/power_supply/BAT0/status", "Charging\n")
    write(tmp_path, "/sys/class/dmi/id/product_name", "ThinkPad X1 Carbon\n")
    write(tmp_path, "/etc/os-release", 'NAME="Debian"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n')
    return tmp_path


def capture(root: Path) -> dict[str, str]:
    return capture_environment(SystemPaths.under(root), detect_virt=False)


def test_facts_are_read_from_the_files(machine):
    env = capture(machine)
    assert env["cpu_model"] == "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz"
    assert env["governor"] == "powersave" and env["turbo"] == "on"
    assert env["memory_total_mib"] == "15935"
    assert (env["load_1m"], env["load_5m"], env["load_15m"]) == ("0.25", "0.40", "0.50")
    assert env["on_battery"] == "false"
    assert env["os_release"] == "Debian GNU/Linux 12 (bookworm)"
    assert "container" not in env and "vm" not in env
    for key in ("os", "kernel", "arch", "hostname", "python", "date", "cpu_count", "cpus_usable"):
        assert env[key]
    assert all(isinstance(v, str) for v in env.values())


def test_turbo_from_boost_and_no_turbo(machine):
    write(machine, "/sys/devices/system/cpu/intel_pstate/no_turbo", "1\n")
    assert capture(machine)["turbo"] == "off"
    (machine / "sys/devices/system/cpu/intel_pstate/no_turbo").unlink()
    write(machine, "/sys/devices/system/cpu/cpufreq/boost", "1\n")
    assert capture(machine)["turbo"] == "on"


def test_power_source(machine):
    write(machine, "/sys/class/power_supply/AC/online", "0\n")
    assert capture(machine)["on_battery"] == "true"
    shutil.rmtree(machine / "sys/class/power_supply/AC")
    assert "on_battery" not in capture(machine)  # a charging battery and no AC adapter: unknown
    write(machine, "/sys/class/power_supply/BAT0/status", "Discharging\n")
    assert capture(machine)["on_battery"] == "true"


@pytest.mark.parametrize("path, text, expected", [
    ("/.dockerenv", "", "docker"),
    ("/run/.containerenv", "", "podman"),
    ("/proc/1/cgroup", "0::/kubepods/besteffort/pod1\n", "kubepods"),
])
def test_container_hints(machine, path, text, expected):
    write(machine, path, text)
    assert capture(machine)["container"] == expected


def test_vm_hints(machine):
    write(machine, "/sys/class/dmi/id/product_name", "KVM\n")
    assert capture(machine)["vm"] == "KVM"
    write(machine, "/sys/class/dmi/id/product_name", "Standard PC\n")
    write(machine, "/proc/cpuinfo", CPUINFO.format(flags="avx2 hypervisor"))
    assert capture(machine)["vm"] == "hypervisor"


def test_cgroup_cpu_quota(machine):
    write(machine, "/sys/fs/cgroup/cpu.max", "150000 100000\n")
    assert capture(machine)["cpu_quota"] == "1.5"
    write(machine, "/sys/fs/cgroup/cpu.max", "max 100000\n")
    assert "cpu_quota" not in capture(machine)


def test_unreadable_or_garbled_facts_are_absent_not_errors(tmp_path):
    write(tmp_path, "/proc/meminfo", "MemTotal: lots\n")
    write(tmp_path, "/sys/fs/cgroup/cpu.max", "x y\n")
    (tmp_path / "sys/class/power_supply").mkdir(parents=True)
    env = capture(tmp_path)
    for key in ("governor", "turbo", "memory_total_mib", "cpu_quota", "on_battery", "container", "cpu_model"):
        assert key not in env
    assert env["os"] and env["date"] and env["load_1m"]  # load falls back to os.getloadavg()


def test_capture_of_this_machine_is_cheap():
    capture_environment()  # the first call probes java and maven once
    started = time.monotonic()
    env = capture_environment()
    assert time.monotonic() - started < 0.5
    assert env["os"] and env["cpu_count"]


# -- fitness ----------------------------------------------------------------------------------

QUIET = {"load_1m": "0.10", "cpu_count": "8", "cpus_usable": "8", "governor": "performance", "turbo": "off",
         "on_battery": "false"}


def codes(environment: dict[str, str], settings: RunSettings = RunSettings()) -> list[str]:
    return [d.code for d in fitness_warnings(environment, settings)]


def test_a_quiet_machine_has_no_warnings():
    assert codes(QUIET) == [] and codes({}) == []


@pytest.mark.parametrize("change, code, severity", [
    ({"load_1m": "4.5"}, "high_load", "warning"),
    ({"cpus_usable": "2", "load_1m": "1.2"}, "high_load", "warning"),
    ({"governor": "powersave"}, "powersave_governor", "warning"),
    ({"on_battery": "true"}, "on_battery", "warning"),
    ({"turbo": "on"}, "turbo_boost", "info"),
    ({"container": "docker"}, "virtualized", "info"),
    ({"vm": "kvm"}, "virtualized", "info"),
])
def test_each_warning_fires_with_a_hint(change, code, severity):
    diagnostics = fitness_warnings({**QUIET, **change}, RunSettings())
    assert [d.code for d in diagnostics] == [code]
    assert diagnostics[0].severity == severity and diagnostics[0].hint and diagnostics[0].message


def test_load_at_half_the_cpus_is_still_fine():
    assert codes({**QUIET, "load_1m": "4.0"}) == []


def test_few_cpus_compares_threads_with_usable_cpus():
    assert codes(QUIET, RunSettings(threads=8)) == []
    assert codes({**QUIET, "cpus_usable": "4"}, RunSettings(threads=8)) == ["few_cpus"]
    assert codes({**QUIET, "cpu_quota": "1.5"}, RunSettings(threads=2)) == ["few_cpus"]
    assert codes({**QUIET, "cpus_usable": "1", "load_1m": "0"}, RunSettings()) == []


# -- git --------------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_commit_and_dirty_flag(tmp_path):
    assert git_info(tmp_path) == (None, None)

    def git(*args):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@x", *args], cwd=tmp_path,
                       check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "a.txt").write_text("1")
    git("add", "a.txt")
    git("commit", "-q", "-m", "one")
    commit, dirty = git_info(tmp_path)
    assert len(commit) == 40 and dirty is False
    (tmp_path / "a.txt").write_text("2")
    assert git_info(tmp_path) == (commit, True)


def test_rigorbench_folders_do_not_make_a_checkout_dirty_but_changes_anywhere_do(tmp_path):
    def git(*args):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@x", *args], cwd=tmp_path,
                       check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "B.java").write_text("class B {}")
    git("add", ".")
    git("commit", "-q", "-m", "one")
    for store in (tmp_path / ".rigorbench", tmp_path / "bench" / ".rigorbench" / "builds"):
        store.mkdir(parents=True)
        (store / "results.db").write_text("")
    for built in (".rigorbench-go/0.test", ".rigorbench-gbench/CMakeCache.txt", ".rigorbench-pyperf/pyvenv.cfg"):
        (tmp_path / "bench" / built).parent.mkdir(parents=True)
        (tmp_path / "bench" / built).write_text("built")      # the harnesses' build folders
    assert git_info(tmp_path)[1] is False and git_info(tmp_path / "bench")[1] is False
    (tmp_path / "README").write_text("changed")  # outside the project directory, still the checkout
    assert git_info(tmp_path / "bench")[1] is True


def test_the_highest_clock_the_cpu_reports_is_recorded(machine):
    # Only the model name's nominal clock: 2.40GHz.
    assert capture(machine)["cpu_max_mhz"] == "2400"
    # cpufreq's maximum (kHz) and the per-core "cpu MHz" lines: the highest wins (turbo).
    write(machine, "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "3300000\n")
    write(machine, "/proc/cpuinfo", CPUINFO.format(flags="avx2") + "cpu MHz\t\t: 1200.000\n")
    assert capture(machine)["cpu_max_mhz"] == "3300"
    # Nothing readable or plausible: no fact rather than a wrong one.
    write(machine, "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "garbage\n")
    write(machine, "/proc/cpuinfo", "model name\t: Some CPU\ncpu MHz\t\t: 0.000\n")
    assert "cpu_max_mhz" not in capture(machine)
