"""Repetition levels as a tree, and the resampling of the levels (private).

A :class:`Hierarchy` stores the values sorted so that every unit of every level is one
contiguous block: depth 0 is the root (the whole version), depth ``d`` holds the units of
``levels[d - 1]``, and the deepest units ("leaves", e.g. forks) own the values (e.g.
iterations). A unit is identified by its own code together with all outer codes, so codes
may be unique within their parent (fork 0, 1, ... in every trial) or globally.

:func:`choose_leaves` performs the level part of the hierarchical resampling of Kalibera &
Jones (2012, p. 24ff, as used by Laaber et al., ``shared/reference/004`` section 5.1.2) for
``b`` resamples at once: starting from the root, every chosen unit is
replaced by as many of its own children as it has, drawn uniformly with replacement. The
result is a flat list of "slots" -- chosen leaves, resample after resample -- whose values
the samplers in :mod:`rigorbench.stats._resample` then resample.

Exactness: the draws of one level are independent uniforms whatever order they are
generated in, so grouping them by their bound (to use numpy's fast scalar-bound generator)
only changes which stream position feeds which slot, never the joint distribution. numpy's
bounded integer generator is exactly uniform for every dtype (Lemire's method with
rejection); small dtypes are just faster.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class Hierarchy:
    """Sorted values and, per depth, ``(first child, number of children)`` of every node.

    ``leaves`` is ``(first value, number of values)`` of every node at the deepest depth.
    """

    values: np.ndarray
    children: tuple[tuple[np.ndarray, np.ndarray], ...]
    leaves: tuple[np.ndarray, np.ndarray]

    @property
    def size(self) -> int:
        return int(self.values.size)

    @property
    def uniform_leaves(self) -> bool:
        """Whether every leaf holds the same number of values."""
        count = self.leaves[1]
        return bool(count.min() == count.max())


def _block_starts(node_of_row: np.ndarray) -> np.ndarray:
    """Rows where a new node starts, for node ids that are non-decreasing over the rows."""
    return np.flatnonzero(np.diff(node_of_row, prepend=-1))


def build_hierarchy(values: np.ndarray, levels: list[np.ndarray]) -> Hierarchy:
    """Group ``values`` by ``levels`` (outermost first; validated by the caller)."""
    # Sorting by the values last makes the layout, hence the output for a given seed,
    # independent of the order of the input rows.
    order = np.lexsort((values, *reversed(levels)))
    n = values.size
    new_unit = np.zeros(n, dtype=bool)  # a unit of the current depth starts at this row
    new_unit[0] = True
    node_of_row = [np.zeros(n, dtype=np.intp)]
    for codes in levels:
        c = codes[order]
        new_unit = new_unit.copy()
        new_unit[1:] |= c[1:] != c[:-1]  # a change in this code or in any outer code
        node_of_row.append(np.cumsum(new_unit, dtype=np.intp) - 1)
    children = []
    for depth in range(len(levels)):
        parents = node_of_row[depth][_block_starts(node_of_row[depth + 1])]
        count = np.bincount(parents).astype(np.intp)  # children are numbered in order
        children.append((np.cumsum(count) - count, count))
    leaf_start = _block_starts(node_of_row[-1]).astype(np.intp)
    leaf_count = np.diff(np.append(leaf_start, n)).astype(np.intp)
    sorted_values = np.ascontiguousarray(values[order], dtype=np.float64)
    return Hierarchy(sorted_values, tuple(children), (leaf_start, leaf_count))


def index_dtype(bound: int) -> type:
    """Smallest dtype holding 0..bound-1 that numpy's generator draws quickly."""
    if bound <= 1 << 16:
        return np.uint16
    if bound <= 1 << 32:
        return np.uint32
    return np.int64


def _draw_below(rng: np.random.Generator, bounds: np.ndarray) -> np.ndarray:
    """One uniform integer in ``[0, bounds[i])`` per entry."""
    first = int(bounds[0])
    if np.all(bounds == first):
        return rng.integers(0, first, size=bounds.size, dtype=index_dtype(first))
    out = np.empty(bounds.size, dtype=np.intp)
    for bound in np.unique(bounds).tolist():  # ascending: a fixed order of stream use
        where = np.flatnonzero(bounds == bound)
        out[where] = rng.integers(0, bound, size=where.size, dtype=index_dtype(bound))
    return out


@dataclass(frozen=True, eq=False)
class Chosen:
    """The levels drawn so far for ``b`` resamples: the chosen node of every slot at
    ``depth`` and the resample it belongs to."""

    nodes: np.ndarray
    rows: np.ndarray
    depth: int


def choose_levels(h: Hierarchy, rng: np.random.Generator, b: int, depth: int) -> Chosen:
    """Resample the outermost ``depth`` levels of ``b`` resamples. A paired comparison draws
    these once and hands them to both versions' samplers (their nodes at these depths must
    be the same units; ``stats/bootstrap.py`` checks it)."""
    return _descend(h, rng, Chosen(np.zeros(b, dtype=np.intp), np.arange(b, dtype=np.intp), 0), depth)


def _descend(h: Hierarchy, rng: np.random.Generator, chosen: Chosen, depth: int) -> Chosen:
    nodes, rows = chosen.nodes, chosen.rows
    for first, count in h.children[chosen.depth:depth]:
        k = count[nodes]
        picks = _draw_below(rng, np.repeat(k, k))
        nodes = np.repeat(first[nodes], k) + picks
        rows = np.repeat(rows, k)
    return Chosen(nodes, rows, depth)


def choose_leaves(h: Hierarchy, rng: np.random.Generator, b: int, start: Chosen | None = None):
    """Resample the levels of ``b`` resamples (below ``start``, the levels already drawn,
    when given).

    Returns ``(leaves, rows)``: the chosen leaf of every slot and the resample (0..b-1) it
    belongs to; slots are ordered by resample.
    """
    chosen = _descend(h, rng, start or choose_levels(h, rng, b, 0), len(h.children))
    return chosen.nodes, chosen.rows


def size_groups(h: Hierarchy, leaves: np.ndarray):
    """``(n, slots)`` for every distinct leaf size ``n`` among the chosen ``leaves``.

    ``slots`` is ``slice(None)`` when all leaves have one size (then the group is every
    slot, in order), else the positions of the slots whose leaf holds ``n`` values.
    """
    if h.uniform_leaves:
        yield int(h.leaves[1][0]), slice(None)
        return
    count = h.leaves[1][leaves]
    for n in np.unique(count).tolist():
        yield n, np.flatnonzero(count == n)
