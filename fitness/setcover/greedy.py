"""Greedy set-cover baselines from the course write-up, and the two steps a repair needs.

Every rule here reads a list's cost (``Instance.list_costs``), which is its
size on course instances.  The ratio greedy repeatedly takes the list with the
smallest cost per newly covered element, ``cost / len(new)``, ties to the
lowest index.  With cost = size this is the rule that reproduces the
write-up's seed-42 totals 171 / 1,256 / 2,913 at N = 100 / 500 / 1000; the variants that divide by ``len(new) + 1`` (with cost
1 or cost ``len(list)``) do not (they give 192 / 1,313 / 3,092 and
173 / 1,216 / 3,049).
"""

from __future__ import annotations

import numpy as np

from .instance import Instance
from .result import CoverResult


def naive_greedy(instance: Instance) -> CoverResult:
    """Walk the lists from cheapest to dearest (stable), taking any that adds an element."""
    covered = np.zeros(instance.N, dtype=bool)
    goal = int(np.count_nonzero(instance.coverable))
    chosen = []
    for j in np.argsort(instance.list_costs, kind="stable"):
        if np.count_nonzero(covered) == goal:
            break
        members = instance.members[j]
        if not covered[members].all():
            chosen.append(int(j))
            covered[members] = True
    return CoverResult.of(instance, chosen)


def ratio_greedy(instance: Instance) -> CoverResult:
    """Chvátal's greedy: minimise ``cost / len(new)`` each step."""
    return CoverResult.of(instance, _ratio_picks(instance, np.zeros(instance.n_lists, dtype=bool)))


def pruned_greedy(instance: Instance) -> CoverResult:
    """The ratio greedy, then drop lists made redundant by later picks (dearest first)."""
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


def remove_redundant(instance: Instance, selected: np.ndarray, counts: np.ndarray | None = None) -> np.ndarray:
    """Drop selected lists whose elements all stay covered, dearest first (ties: lowest index).

    The result has no redundant list: a kept list held an element covered only
    by itself when it was checked, and later drops never add coverage.  Lists
    that already hold such an element are kept without being walked.
    ``counts`` (how many selected lists hold each element), if the caller has
    them, saves counting again.
    """
    kept = np.array(selected, dtype=bool)
    indices = np.flatnonzero(kept)
    counts, alone = _holders_and_alone(instance, indices, counts)
    candidates = indices[~alone]
    for j in candidates[np.argsort(-instance.list_costs[candidates], kind="stable")]:
        members = instance.members[j]
        if members.size == 0 or counts[members].min() >= 2:
            kept[j] = False
            counts[members] -= 1
    return kept


# In the sums below a (list, element) pair costs about as much as this many dense incidence
# cells: the two ways break even near 3% density (measured, 0.5-30% dense, 100-20,000 lists).
_CELLS_PER_PAIR = 32


def _holders_and_alone(instance: Instance, indices: np.ndarray,
                       counts: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """How many of the lists ``indices`` hold each element (a fresh int64 array; ``counts`` if given),
    and whether each of them holds an element no other of them holds.

    Summed over the lists' incidence rows where they are dense (course
    instances, 30%: twice as fast as pairs), over their (list, element) pairs
    where they are sparse (OR-Library files, 2%).
    """
    sizes = instance.sizes[indices]
    if int(sizes.sum()) * _CELLS_PER_PAIR >= len(indices) * instance.N:
        rows = instance.incidence[indices]
        if counts is None:
            counts = rows.sum(axis=0, dtype=np.min_scalar_type(len(indices)))
        return np.array(counts, dtype=np.int64), (rows & (counts == 1)).any(axis=1)
    pairs = instance.elements_of(indices)
    counts = np.bincount(pairs, minlength=instance.N) if counts is None else np.array(counts, dtype=np.int64)
    alone = np.bincount(np.repeat(np.arange(len(indices)), sizes), weights=counts[pairs] == 1, minlength=len(indices))
    return counts, alone > 0


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
    costs = instance.ratio_costs  # empty lists never gain: their ratio stays inf, never nan
    preferred = costs if avoid is None else np.where(avoid, np.inf, costs)
    picks = []
    with np.errstate(divide="ignore"):
        while uncovered.any():
            ratio = preferred / gain  # size / 0 = inf: lists adding nothing lose
            j = int(np.argmin(ratio))
            if ratio[j] == np.inf:
                j = int(np.argmin(costs / gain))
            new = instance.members[j][uncovered[instance.members[j]]]
            uncovered[new] = False
            gain -= instance.incidence_t[new].sum(axis=0, dtype=count)
            picks.append(j)
    return picks
