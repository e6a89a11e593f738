"""Write nightly.csv: 60 nightly runs of two benchmarks in Apache Otava's CSV layout, with
changes planted at known commits (a synthetic history for docs/history.md's example of
``rigorbench history changes``; run-to-run noise 1.5%, one slow outlier run).

Run: ``python examples/history/make_nightly.py`` (seeded: the same file every time).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def main() -> None:
    rng = np.random.default_rng(17)
    lines = ["time,commit,branch,parse_ns,encode_ops_s\n"]
    for night in range(60):
        parse = (120.0 if night < 41 else 138.0) * rng.lognormal(0, 0.015)  # +15% at night 41
        if night == 23:
            parse *= 1.35  # one slow run (a noisy neighbour): not a change
        encode = (52000.0 if night < 17 else 61000.0) * rng.lognormal(0, 0.015)  # faster at 17
        commit = f"{rng.integers(0, 16**7):07x}"
        lines.append(f"2026-09-{1 + night // 2:02d}T{'02' if night % 2 == 0 else '14'}:00:00Z,{commit},main,{parse:.2f},{encode:.0f}\n")
    (HERE / "nightly.csv").write_text("".join(lines))


if __name__ == "__main__":
    main()
