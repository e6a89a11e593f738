"""Record the machine a trial ran on, and say before a run when it looks unfit to measure.

The recorded facts are the "installation protocol" of ARCHITECTURE.md ("Environment"):
OS, kernel, CPU model and count, frequency governor and turbo, memory, load, container/VM
hints, power source, tool versions and date. Capture is cheap (file reads; the only
commands, ``systemd-detect-virt`` and the Java/Maven probes, run once per process) and
never raises: a fact that cannot be read is simply absent.

The fitness checks follow the advice of the measurement literature (Georges et al.; Laaber
et al. on cloud environments; JMH's own warnings): other load, power saving, thermal turbo
and virtualization all add variance or bias that the statistics can only partly absorb.
"""

from __future__ import annotations

import functools
import os
import platform
import re
import shutil
import socket
import subprocess
from dataclasses import dataclass, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from rigorbench.harness.base import RunSettings
from rigorbench.harness.tools import java_version, maven_version
from rigorbench.model import Diagnostic

HIGH_LOAD_PER_CPU = 0.5
_CONTAINER_CGROUP_WORDS = ("docker", "kubepods", "containerd", "lxc", "libpod", "podman")
_VM_PRODUCTS = ("kvm", "qemu", "virtualbox", "vmware", "virtual machine", "hvm domu", "bochs",
                "google compute engine", "openstack", "cloud hypervisor", "firecracker")


@dataclass(frozen=True)
class SystemPaths:
    """Where the facts are read; :meth:`under` re-roots them all (for tests)."""

    cpuinfo: Path = Path("/proc/cpuinfo")
    meminfo: Path = Path("/proc/meminfo")
    loadavg: Path = Path("/proc/loadavg")
    pid1_cgroup: Path = Path("/proc/1/cgroup")
    governor: Path = Path("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
    max_freq: Path = Path("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
    no_turbo: Path = Path("/sys/devices/system/cpu/intel_pstate/no_turbo")
    boost: Path = Path("/sys/devices/system/cpu/cpufreq/boost")
    cpu_max: Path = Path("/sys/fs/cgroup/cpu.max")
    power_supply: Path = Path("/sys/class/power_supply")
    dmi_product: Path = Path("/sys/class/dmi/id/product_name")
    dockerenv: Path = Path("/.dockerenv")
    containerenv: Path = Path("/run/.containerenv")
    os_release: Path = Path("/etc/os-release")

    @classmethod
    def under(cls, root: Path) -> "SystemPaths":
        """The same paths below ``root`` (``/proc/cpuinfo`` -> ``root/proc/cpuinfo``)."""
        default = cls()
        return cls(**{f.name: Path(root) / getattr(default, f.name).relative_to("/") for f in fields(cls)})


DEFAULT_PATHS = SystemPaths()


def capture_environment(
    paths: SystemPaths = DEFAULT_PATHS, *, java: str = "java", mvn: str = "mvn", detect_virt: bool = True
) -> dict[str, str]:
    """The facts of this machine now, as strings; missing facts are absent, nothing raises."""
    facts: tuple[Callable[[], dict], ...] = (
        _platform_facts,
        lambda: _platform_release(paths),
        lambda: _cpu_facts(paths),
        lambda: _frequency_facts(paths),
        lambda: _memory_facts(paths),
        lambda: _load_facts(paths),
        lambda: _virtualization_facts(paths, detect_virt),
        lambda: _power_facts(paths),
        lambda: _tool_facts(java, mvn),
    )
    environment: dict[str, str] = {}
    for fact in facts:
        try:
            found = fact()
        except Exception:  # a fact we cannot read is absent, never an error
            continue
        environment.update({k: str(v) for k, v in found.items() if v is not None and str(v) != ""})
    return environment


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None


def _platform_facts() -> dict:
    return {
        "os": platform.system(),
        "kernel": platform.release(),
        "arch": platform.machine(),
        "hostname": socket.gethostname(),
        "python": platform.python_version(),
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


def _platform_release(paths: SystemPaths) -> dict:
    for line in (_read(paths.os_release) or "").splitlines():
        if line.startswith("PRETTY_NAME="):
            return {"os_release": line.split("=", 1)[1].strip().strip('"')}
    return {}


def _cpu_facts(paths: SystemPaths) -> dict:
    facts: dict = {"cpu_count": os.cpu_count()}
    if hasattr(os, "sched_getaffinity"):
        facts["cpus_usable"] = len(os.sched_getaffinity(0))
    for line in (_read(paths.cpuinfo) or "").splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Hardware", "cpu model", "Processor") and value.strip():
            facts["cpu_model"] = " ".join(value.split())
            break
    quota = (_read(paths.cpu_max) or "").split()
    if len(quota) == 2 and quota[0] != "max":
        facts["cpu_quota"] = f"{int(quota[0]) / int(quota[1]):g}"
    return facts


def _max_mhz(paths: SystemPaths) -> float | None:
    """The highest clock the CPU reports: cpufreq's maximum (kHz, turbo included) when the
    kernel exposes it; else the higher of the model name's GHz and the "cpu MHz" lines of
    /proc/cpuinfo (each core's current clock; constant on most VMs). The highest clock is
    the shortest cycle, so "below one cycle" errs towards saying less."""
    khz = _read(paths.max_freq)
    if khz and khz.isdigit() and 100 <= int(khz) / 1000 <= 10_000:
        return int(khz) / 1000
    readings = []
    for line in (_read(paths.cpuinfo) or "").splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "cpu MHz":
            try:
                readings.append(float(value))
            except ValueError:
                pass
        elif key.strip() == "model name":
            nominal = re.search(r"@\s*([0-9]+(?:\.[0-9]+)?)\s*GHz", value)
            if nominal:
                readings.append(float(nominal.group(1)) * 1000)
    plausible = [r for r in readings if 100 <= r <= 10_000]
    return max(plausible) if plausible else None


def _frequency_facts(paths: SystemPaths) -> dict:
    facts = {"governor": _read(paths.governor)}
    mhz = _max_mhz(paths)
    if mhz is not None:
        facts["cpu_max_mhz"] = f"{mhz:.0f}"
    no_turbo, boost = _read(paths.no_turbo), _read(paths.boost)
    if no_turbo in ("0", "1"):
        facts["turbo"] = "off" if no_turbo == "1" else "on"
    elif boost in ("0", "1"):
        facts["turbo"] = "on" if boost == "1" else "off"
    return facts


def _memory_facts(paths: SystemPaths) -> dict:
    for line in (_read(paths.meminfo) or "").splitlines():
        if line.startswith("MemTotal:"):
            return {"memory_total_mib": int(line.split()[1]) // 1024}
    return {}


def _load_facts(paths: SystemPaths) -> dict:
    parts = (_read(paths.loadavg) or "").split()
    loads = [float(p) for p in parts[:3]] if len(parts) >= 3 else list(os.getloadavg())
    return {f"load_{span}": f"{value:.2f}" for span, value in zip(("1m", "5m", "15m"), loads)}


def _virtualization_facts(paths: SystemPaths, detect_virt: bool) -> dict:
    """None where nothing was found (``capture_environment`` leaves those out)."""
    return {"container": _container_hint(paths) or (_detect_virt("--container") if detect_virt else None),
            "vm": (_detect_virt("--vm") if detect_virt else None) or _vm_hint(paths)}


def _container_hint(paths: SystemPaths) -> str | None:
    if paths.dockerenv.exists():
        return "docker"
    if paths.containerenv.exists():
        return "podman"
    cgroup = (_read(paths.pid1_cgroup) or "").lower()
    return next((word for word in _CONTAINER_CGROUP_WORDS if word in cgroup), None)


def _vm_hint(paths: SystemPaths) -> str | None:
    product = (_read(paths.dmi_product) or "").strip()
    if any(name in product.lower() for name in _VM_PRODUCTS):
        return product
    for line in (_read(paths.cpuinfo) or "").splitlines():
        if line.startswith("flags") and "hypervisor" in line.split(":", 1)[-1].split():
            return "hypervisor"
    return None


@functools.lru_cache(maxsize=None)
def _detect_virt(kind: str) -> str | None:
    """``systemd-detect-virt --vm|--container``; None when absent or "none"."""
    program = shutil.which("systemd-detect-virt")
    if program is None:
        return None
    try:
        done = subprocess.run([program, kind], capture_output=True, text=True, timeout=2, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    answer = done.stdout.strip()
    return answer if answer and answer != "none" else None


def _power_facts(paths: SystemPaths) -> dict:
    """``on_battery`` from AC adapters (``type`` Mains and ``online``), else from a discharging battery."""
    mains_online, discharging = [], False
    for supply in sorted(paths.power_supply.iterdir()) if paths.power_supply.is_dir() else []:
        kind = _read(supply / "type")
        if kind == "Mains" and _read(supply / "online") in ("0", "1"):
            mains_online.append(_read(supply / "online") == "1")
        elif kind == "Battery" and _read(supply / "status") == "Discharging":
            discharging = True
    if mains_online:
        return {"on_battery": "false" if any(mains_online) else "true"}
    return {"on_battery": "true"} if discharging else {}


def _tool_facts(java: str, mvn: str) -> dict:
    java_facts = java_version(java)
    return {
        "java_version": java_facts.get("java"),
        "java_runtime": java_facts.get("java_runtime"),
        "java_vendor": java_facts.get("java_vendor"),
        "maven_version": maven_version(mvn),
    }


def git_info(path: Path) -> tuple[str | None, bool | None]:
    """``(commit, dirty)`` of the git checkout containing ``path``; None where unknown."""
    commit = _git(path, "rev-parse", "HEAD")
    if commit is None:
        return None, None
    # rigorbench's own folder (the default store and the build cache live in PATH/.rigorbench)
    # and the build folders of the Go, Google Benchmark and pyperf harnesses (.rigorbench-go,
    # ...) are not changes to the sources, whether or not the project ignores them.
    status = _git(path, "status", "--porcelain", "--", ":/", ":(top,exclude,glob)**/.rigorbench/**",
                  ":(top,exclude,glob)**/.rigorbench-*/**")
    return commit.strip(), (None if status is None else bool(status.strip()))


def _git(path: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(path), *args], stdin=subprocess.DEVNULL, capture_output=True,
            text=True, timeout=60, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def fitness_warnings(environment: dict[str, str], settings: RunSettings) -> list[Diagnostic]:
    """What makes this machine unfit to measure on, from ``capture_environment``'s facts."""
    checks = (_high_load, _powersave, _on_battery, _few_cpus, _turbo, _virtualized)
    return [diagnostic for check in checks if (diagnostic := check(environment, settings)) is not None]


def _number(environment: dict[str, str], key: str) -> float | None:
    try:
        return float(environment[key])
    except (KeyError, ValueError):
        return None


def _usable_cpus(environment: dict[str, str]) -> float | None:
    counts = [n for n in (_number(environment, k) for k in ("cpus_usable", "cpu_count", "cpu_quota")) if n]
    return min(counts) if counts else None


def _high_load(environment: dict[str, str], settings: RunSettings) -> Diagnostic | None:
    load, cpus = _number(environment, "load_1m"), _usable_cpus(environment)
    if load is None or cpus is None or load <= HIGH_LOAD_PER_CPU * cpus:
        return None
    return Diagnostic(
        "high_load",
        f"load average {load:.2f} on {cpus:g} CPUs: other processes compete with the benchmarks",
        hint="stop other work on this machine (or wait for it to finish); "
        "results under load vary more and can be biased",
    )


def _powersave(environment: dict[str, str], settings: RunSettings) -> Diagnostic | None:
    if environment.get("governor") != "powersave":
        return None
    return Diagnostic(
        "powersave_governor",
        "the CPU frequency governor is 'powersave': the clock changes with load and is often low",
        hint="set the 'performance' governor for the run, e.g. `sudo cpupower frequency-set -g performance`",
    )


def _on_battery(environment: dict[str, str], settings: RunSettings) -> Diagnostic | None:
    if environment.get("on_battery") != "true":
        return None
    return Diagnostic(
        "on_battery", "running on battery: the CPU may be throttled to save power",
        hint="plug in the power supply before measuring",
    )


def _few_cpus(environment: dict[str, str], settings: RunSettings) -> Diagnostic | None:
    threads, cpus = settings.threads or 1, _usable_cpus(environment)
    if cpus is None or cpus >= threads:
        return None
    return Diagnostic(
        "few_cpus",
        f"the benchmarks run {threads} threads but only {cpus:g} CPUs are usable: threads will wait for each other",
        hint="use fewer threads (-t) or a machine (or CPU affinity/quota) with more cores",
    )


def _turbo(environment: dict[str, str], settings: RunSettings) -> Diagnostic | None:
    if environment.get("turbo") != "on":
        return None
    return Diagnostic(
        "turbo_boost", "turbo boost is on: the clock, and so the results, vary with temperature",
        severity="info",
        hint="for steadier results disable it: `echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo` "
        "or `echo 0 > /sys/devices/system/cpu/cpufreq/boost`",
    )


def _virtualized(environment: dict[str, str], settings: RunSettings) -> Diagnostic | None:
    kinds = (("container", "a container"), ("vm", "a virtual machine"))
    where = [f"{label} ({environment[key]})" for key, label in kinds if environment.get(key)]
    if not where:
        return None
    return Diagnostic(
        "virtualized", f"running in {' and '.join(where)}: neighbours on the host can disturb the measurements",
        severity="info",
        hint="compare only results from the same kind of machine; "
        "an A/A test (a version against itself) shows how noisy it is",
    )
