"""Steady-state agreement with Traini et al. (EMSE 2022) on benchmarks no setting was chosen on.

``benchmarks/steady_full.py`` evaluates the detector on the study's whole published data set
(``RIGORBENCH_STEADY_DATA``: 586 benchmarks from 30 projects, converted to the layout of
``steady-state-dev``) minus the 50 development benchmarks. On all 536 of them (issue 33, item
5): 0.905 of forks and 0.787 of benchmarks, short of the goals (0.92 and 0.80); see
docs/statistics.md, "Steady state". This test runs the same code on a fixed sample (two
benchmarks per project, 60 in all, seed 20261127; about 35 s of CPU) and guards the figures it
reached there: 0.900 of forks (540/600) and 0.833 of benchmarks (50/60). The bootstrap is
seeded, so they are exact. Skips unless ``RIGORBENCH_STEADY_DATA`` is set and the
development subset (``../shared/data/steady-state-dev`` or ``RIGORBENCH_STEADY_DEV``) is there.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "steady_full.py"
FULL = os.environ.get("RIGORBENCH_STEADY_DATA")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.shared_data,
    pytest.mark.skipif(not FULL or not Path(FULL).is_dir(), reason="RIGORBENCH_STEADY_DATA is not set"),
]


def _script():
    sys.path.insert(0, str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("steady_full", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_agreement_on_a_fixed_sample_of_never_seen_benchmarks(tmp_path):
    full = _script()
    if not full.dev_names(full.DEV):
        pytest.skip(f"no development subset at {full.DEV} (set RIGORBENCH_STEADY_DEV)")
    names = full.held_out_names(Path(FULL), full.DEV, sample=2, seed=20261127)
    assert not set(names) & full.dev_names(full.DEV)
    assert len(names) == 60 and len({n.split("#")[0] for n in names}) == 30
    result = full.evaluate_detector(names, tmp_path, log=lambda *_: None)  # fresh cache
    pooled = result["pooled"]
    print(f"\n60 never-seen benchmarks: fork {pooled['fork']:.3f}, benchmark {pooled['benchmark']:.3f}")
    assert pooled["forks"] == 600
    assert pooled["fork"] >= 0.90           # 540/600 reached; the goal (0.92) is not met
    assert pooled["benchmark"] >= 0.83      # 50/60 reached on this sample (0.787 on all 536)
