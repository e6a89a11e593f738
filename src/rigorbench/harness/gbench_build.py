"""What a configured Google Benchmark build is made with, for the record, the build cache and
the form of ``--benchmark_min_time``.

After ``cmake -S ... -B OUT`` the cache file ``OUT/CMakeCache.txt`` names the C++ compiler and
its flags, and where the library came from: ``benchmark_DIR`` (an installed package,
``find_package(benchmark)``; its ``benchmarkConfigVersion.cmake`` holds ``PACKAGE_VERSION``) or
``benchmark_SOURCE_DIR`` (the library built from source, by ``FetchContent`` or
``add_subdirectory``; its ``project(benchmark VERSION ...)``). Google Benchmark 1.8 changed
``--benchmark_min_time`` to take a suffix (``0.5s`` seconds, ``100x`` iterations); 1.7 and
earlier take a plain number of seconds and reject a suffix. When the version cannot be read,
the executable is asked: 1.7 exits with an error on ``--benchmark_min_time=1x``.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from rigorbench.harness.cache import BuildCache, sources_hash
from rigorbench.harness.process import run_streamed
from rigorbench.harness.repetitions import read_or_empty

BUILD_TYPE = "Release"
MIN_TIME_FORM, SUFFIXED, SECONDS = "benchmark_min_time", "suffixed", "seconds"
PROBE_TIMEOUT_S = 30.0
_ENTRY = re.compile(r"^([A-Za-z0-9_.+-]+):[A-Z]+=(.*)$", re.M)
_PACKAGE_VERSION = re.compile(r'set\(\s*PACKAGE_VERSION\s+"([^"]+)"\s*\)')
_PROJECT_VERSION = re.compile(r"project\s*\(\s*benchmark\b[^)]*?\bVERSION\s+([0-9][0-9.]*)", re.I | re.S)
# Cache entries that change what the compiler makes.
_FLAGS = ("CMAKE_CXX_FLAGS", "CMAKE_CXX_FLAGS_RELEASE", "CMAKE_EXE_LINKER_FLAGS", "CMAKE_EXE_LINKER_FLAGS_RELEASE",
          "CMAKE_CXX_STANDARD", "CMAKE_TOOLCHAIN_FILE", "CMAKE_SYSROOT")


def cmake_cache(out: Path) -> dict[str, str]:
    """The entries of ``OUT/CMakeCache.txt`` (``NAME:TYPE=VALUE`` lines)."""
    return dict(_ENTRY.findall(read_or_empty(out / "CMakeCache.txt")))


def library_version(entries: dict[str, str]) -> str | None:
    """The Google Benchmark version the configured build uses; None when it cannot be read."""
    package = entries.get("benchmark_DIR")
    if package:
        found = _PACKAGE_VERSION.search(read_or_empty(Path(package) / "benchmarkConfigVersion.cmake"))
        if found:
            return found.group(1)
    source = entries.get("benchmark_SOURCE_DIR")
    if source:
        found = _PROJECT_VERSION.search(read_or_empty(Path(source) / "CMakeLists.txt"))
        if found:
            return found.group(1)
    return None


def configured_tools(out: Path, project_dir: Path) -> dict[str, str]:
    """CMake's version, the C++ compiler (path and first ``--version`` line), the library's
    version (empty when unknown) and where it came from."""
    entries = cmake_cache(out)
    cmake = run_streamed(["cmake", "--version"], cwd=project_dir)
    compiler = entries.get("CMAKE_CXX_COMPILER", "")
    compiler_version = run_streamed([compiler, "--version"], cwd=project_dir).lines[:1] if compiler else []
    return {
        "cmake": cmake.lines[0] if cmake.lines else "",
        "compiler": " ".join([compiler, *compiler_version]).strip(),
        "benchmark": library_version(entries) or "",
        "benchmark_from": entries.get("benchmark_DIR") or entries.get("benchmark_SOURCE_DIR") or "",
    }


def build_identity(tools: dict[str, str], out: Path, project_dir: Path, cache: BuildCache) -> dict:
    """What, besides the commit, decides the executables: CMake, the compiler, its flags and
    the build type, the library and where it came from, and a hash of the project's sources."""
    entries = cmake_cache(out)
    return {"harness": "gbench", **tools, "build_type": BUILD_TYPE, "cmake_path": shutil.which("cmake") or "cmake",
            "flags": {name: entries.get(name, "") for name in _FLAGS}, "path": cache.relative(project_dir),
            "sources": sources_hash(project_dir)}


def suffixed_min_time(version: str) -> bool:
    """True for a library version of 1.8 or later (``--benchmark_min_time=0.5s`` / ``100x``)."""
    numbers = [int(part) for part in re.findall(r"\d+", version)[:2]]
    return len(numbers) == 2 and tuple(numbers) >= (1, 8)


def min_time_form(version: str | None, executable: Path) -> str:
    """:data:`SUFFIXED` or :data:`SECONDS`, from the version, else by asking ``executable``."""
    if version:
        return SUFFIXED if suffixed_min_time(version) else SECONDS
    run = run_streamed([str(executable), "--benchmark_list_tests=true", "--benchmark_filter=^$", "--benchmark_min_time=1x"],
                       cwd=executable.parent, timeout_s=PROBE_TIMEOUT_S)
    return SUFFIXED if run.returncode == 0 and not run.timed_out else SECONDS


def relocatable(executable: Path, out: Path) -> bool:
    """False when the executable names the build folder (a run path to a library built there):
    a copy of it elsewhere might load nothing, or a stale library, once the folder is gone."""
    needle = str(out).encode()
    try:
        with open(executable, "rb") as handle:
            data = handle.read()
    except OSError:
        return False
    return needle not in data
