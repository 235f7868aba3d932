"""Greedy set-cover baselines from the course write-up, and the two steps a repair needs.

The ratio greedy repeatedly takes the list with the smallest size per newly
covered element, ``len(list) / len(new)``, ties to the lowest index.  This is
the rule that reproduces the write-up's seed-42 totals 171 / 1,256 / 2,913 at
N = 100 / 500 / 1000; the variants that divide by ``len(new) + 1`` (with cost
1 or cost ``len(list)``) do not (they give 192 / 1,313 / 3,092 and
173 / 1,216 / 3,049).
"""

from __future__ import annotations

import numpy as np

from .instance import Instance
from .result import CoverResult


def naive_greedy(instance: Instance) -> CoverResult:
    """Walk the lists from shortest to longest (stable), taking any that adds an element."""
    covered = np.zeros(instance.N, dtype=bool)
    goal = int(np.count_nonzero(instance.coverable))
    chosen = []
    for j in np.argsort(instance.sizes, kind="stable"):
        if np.count_nonzero(covered) == goal:
            break
        members = instance.members[j]
        if not covered[members].all():
            chosen.append(int(j))
            covered[members] = True
    return CoverResult.of(instance, chosen)


def ratio_greedy(instance: Instance) -> CoverResult:
    """Chvátal's greedy with cost = list size: minimise ``len(list) / len(new)`` each step."""
    return CoverResult.of(instance, _ratio_picks(instance, np.zeros(instance.n_lists, dtype=bool)))


def pruned_greedy(instance: Instance) -> CoverResult:
    """The ratio greedy, then drop lists made redundant by later picks (largest first)."""
    picks = ratio_greedy(instance).chosen
    selected = np.zeros(instance.n_lists, dtype=bool)
    selected[list(picks)] = True
    kept = remove_redundant(instance, selected)
    return CoverResult.of(instance, [j for j in picks if kept[j]])


def complete_cover(instance: Instance, selected: np.ndarray, avoid: np.ndarray | None = None) -> np.ndarray:
    """Add ratio-greedy lists to the bool mask ``selected`` until every coverable element is covered.

    Lists in the mask ``avoid`` are taken only for elements no other list holds
    (a search that just dropped a list wants a different completion).
    """
    completed = np.array(selected, dtype=bool)
    completed[_ratio_picks(instance, completed, avoid)] = True
    return completed


def remove_redundant(instance: Instance, selected: np.ndarray) -> np.ndarray:
    """Drop selected lists whose elements all stay covered, largest first (ties: lowest index).

    The result has no redundant list: a kept list held an element covered only
    by itself when it was checked, and later drops never add coverage.  Lists
    that already hold such an element are kept without being walked.
    """
    kept = np.array(selected, dtype=bool)
    indices = np.flatnonzero(kept)
    rows = instance.incidence[indices]
    counts = rows.sum(axis=0, dtype=np.min_scalar_type(len(indices)))
    candidates = indices[~(rows & (counts == 1)).any(axis=1)]
    counts = counts.astype(np.int64)
    for j in candidates[np.argsort(-instance.sizes[candidates], kind="stable")]:
        members = instance.members[j]
        if members.size == 0 or counts[members].min() >= 2:
            kept[j] = False
            counts[members] -= 1
    return kept


def _ratio_picks(instance: Instance, selected: np.ndarray, avoid: np.ndarray | None = None) -> list[int]:
    """The lists the ratio greedy adds to ``selected``, in the order it adds them (``avoid``: last resort)."""
    covered = instance.incidence[selected].any(axis=0)
    uncovered = instance.coverable & ~covered
    if not uncovered.any():  # already a cover (a repaired genome): no gains to count
        return []
    count = np.min_scalar_type(instance.N)  # gains never exceed N; narrow sums are several times faster
    if np.count_nonzero(uncovered) <= instance.N // 2:
        gain = instance.incidence_t[uncovered].sum(axis=0, dtype=count)
    else:  # fewer rows to add up on the covered side (every list element is coverable)
        gain = instance.sizes.astype(count) - instance.incidence_t[covered].sum(axis=0, dtype=count)
    sizes = instance.ratio_sizes  # empty lists never gain: their ratio stays inf, never nan
    preferred = sizes if avoid is None else np.where(avoid, np.inf, sizes)
    picks = []
    with np.errstate(divide="ignore"):
        while uncovered.any():
            ratio = preferred / gain  # size / 0 = inf: lists adding nothing lose
            j = int(np.argmin(ratio))
            if ratio[j] == np.inf:
                j = int(np.argmin(sizes / gain))
            new = instance.members[j][uncovered[instance.members[j]]]
            uncovered[new] = False
            gain -= instance.incidence_t[new].sum(axis=0, dtype=count)
            picks.append(j)
    return picks
