"""A set-cover instance as immutable data: the lists, their costs, and the arrays that make scoring fast.

Each list has a cost; without costs a list costs its size (the course
objective: minimise the total size of the chosen lists), so course instances
mean what they always meant.  Files in four forms (JSON, boolean ``.npy``,
OR-Library set-covering text) load into the same object, and anything
malformed is reported as one ``ValueError`` line naming the file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .generator import problem


@dataclass(frozen=True)
class Instance:
    """Lists over the elements ``0..N-1`` with a cost each; the incidence matrix, sizes and cost array are derived.

    ``costs`` (non-negative integers, one per list) defaults to the list
    sizes, and is stored as given or as those sizes: ``Instance(N, lists)``
    equals ``Instance(N, lists, costs=sizes)``.  Equality and hashing use
    ``N``, ``lists`` and ``costs``; the arrays are read-only.  Duplicate
    elements inside one list are rejected (a list's size would be ambiguous).
    ``source`` says where it came from (a file, ``problem(N, seed)``), for its
    repr only: the repr is a one-line summary, never the lists (23-101 KB for
    the shipped instances, in every traceback and debugger that printed one).
    """

    N: int
    lists: tuple[tuple[int, ...], ...]
    costs: tuple[int, ...] | None = None
    source: str | None = field(default=None, compare=False)
    incidence: np.ndarray = field(init=False, repr=False, compare=False)
    sizes: np.ndarray = field(init=False, repr=False, compare=False)
    list_costs: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.N, bool) or not isinstance(self.N, (int, np.integer)) or self.N < 1:
            raise ValueError(f"N must be an integer >= 1, got {self.N!r}")
        N = int(self.N)
        lists, incidence = _validated(self.lists, N)
        sizes = incidence.sum(axis=1, dtype=np.int64)
        costs = sizes if self.costs is None else _validated_costs(self.costs, len(lists))
        object.__setattr__(self, "N", N)
        object.__setattr__(self, "lists", lists)
        object.__setattr__(self, "costs", tuple(costs.tolist()))
        object.__setattr__(self, "incidence", _read_only(incidence))
        object.__setattr__(self, "sizes", _read_only(sizes))
        object.__setattr__(self, "list_costs", _read_only(costs.copy()))

    def __repr__(self) -> str:
        density = int(self.sizes.sum()) / (self.n_lists * self.N)
        costs = "sizes" if self.size_costs else f"{int(self.list_costs.min())}..{int(self.list_costs.max())}"
        source = self.source
        if source is not None and len(source) > _SOURCE_CHARS:  # a deep path: its end names the file
            source = "…" + source[1 - _SOURCE_CHARS:]
        return (f"Instance(N={self.N}, lists={self.n_lists}, density={density:.3g}, costs={costs!r}, "
                f"source={source!r})")

    @classmethod
    def from_problem(cls, N: int, seed: int | None = None) -> Instance:
        """The course instance ``problem(N, seed)``, generated once per process.

        The course generator takes seconds at N = 1000, and a run builds its
        task more than once (spec check, driver, in-process evaluator); an
        instance is immutable, so one copy is shared.
        """
        return _course_instance(cls, N, seed)

    @classmethod
    def from_incidence(cls, incidence: np.ndarray, source: str | None = None) -> Instance:
        """Build from a boolean matrix (lists x elements)."""
        matrix = np.asarray(incidence)
        if matrix.dtype != np.bool_:
            raise ValueError(f"incidence matrix must have dtype bool, got {matrix.dtype}")
        if matrix.ndim != 2:
            raise ValueError(f"incidence matrix must be 2-D (lists x elements), got {matrix.ndim}-D")
        if matrix.shape[0] == 0 or matrix.shape[1] == 0:
            raise ValueError(f"incidence matrix is empty (shape {matrix.shape})")
        lists = tuple(tuple(int(e) for e in np.flatnonzero(row)) for row in matrix)
        return cls(matrix.shape[1], lists, source=source)

    @classmethod
    def load(cls, path: str | Path) -> Instance:
        """Read a ``.npy`` boolean matrix, JSON, or an OR-Library set-covering file.

        JSON is ``[[...], ...]`` or ``{"N": n, "lists": [...], "costs": [...]}``
        (``N`` and ``costs`` optional; without ``N`` the elements are taken to
        be ``0..max``).  A file that is neither ``.npy`` nor ``.json`` and does
        not start with ``[`` or ``{`` is read as OR-Library (``fitness.setcover.orlib``).
        """
        path = Path(path)
        try:
            stat = path.stat()
            return _load(cls, str(path.resolve()), stat.st_mtime_ns, stat.st_size)
        except (ValueError, OSError) as error:
            reason = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise ValueError(f"{path}: {reason}") from None

    @classmethod
    def _from_json(cls, data: Any, source: str | None = None) -> Instance:
        costs = None
        if isinstance(data, dict):
            unknown = set(data) - {"N", "lists", "costs"}
            if unknown or "lists" not in data:
                raise ValueError('JSON object must have keys "lists" and optionally "N" and "costs"')
            lists, N, costs = data["lists"], data.get("N"), data.get("costs")
        else:
            lists, N = data, None
        if not isinstance(lists, list) or not lists:
            raise ValueError("expected a non-empty JSON array of lists")
        if N is None:
            elements = [e for i, lst in enumerate(lists) for e in _int_elements(lst, i)]
            if not elements:
                raise ValueError("lists contain no elements, so N cannot be inferred")
            N = max(max(elements) + 1, 1)  # all negative: N = 1, and the constructor names the element
        return cls(N, lists, costs, source=source)

    def save(self, path: str | Path) -> None:
        """Write JSON ``{"N": ..., "lists": [...]}`` (plus ``"costs"`` unless they are the sizes); ``load`` reads it back equal."""
        data: dict[str, Any] = {"N": self.N, "lists": [list(lst) for lst in self.lists]}
        if not self.size_costs:
            data["costs"] = list(self.costs)
        Path(path).write_text(json.dumps(data))

    @property
    def n_lists(self) -> int:
        return len(self.lists)

    @cached_property
    def coverable(self) -> np.ndarray:
        """Which elements some list contains (a cover exists iff all do)."""
        return _read_only(self.incidence.any(axis=0))

    @cached_property
    def members(self) -> tuple[np.ndarray, ...]:
        """Each list's elements as an int array, for the per-list loops of greedy and repair."""
        return tuple(_read_only(np.flatnonzero(row)) for row in self.incidence)

    @cached_property
    def packed(self) -> np.ndarray:
        """Lists x 64-bit words, bit ``e % 64`` of word ``e // 64`` set if the list holds ``e``."""
        words = -(-self.N // 64)
        bytes_ = np.zeros((self.n_lists, 8 * words), dtype=np.uint8)
        bytes_[:, : -(-self.N // 8)] = np.packbits(self.incidence, axis=1, bitorder="little")
        return _read_only(bytes_.view("<u8"))

    @property
    def size_costs(self) -> bool:
        """Every list costs its size (the course objective)."""
        return bool(np.array_equal(self.list_costs, self.sizes))

    @cached_property
    def ratio_costs(self) -> np.ndarray:
        """Costs as floats for cost/gain ratios, never nan: an empty list's is inf; a free list's is tiny.

        A free list that covers something then wins every ratio (most new
        elements first), as a cost of 0 would, without 0 / 0.
        """
        costs = np.where(self.list_costs > 0, self.list_costs, _FREE).astype(np.float64)
        return _read_only(np.where(self.sizes > 0, costs, np.inf))

    @cached_property
    def incidence_t(self) -> np.ndarray:
        """Elements x lists as uint8: row ``e`` says which lists contain ``e``."""
        return _read_only(np.ascontiguousarray(self.incidence.T, dtype=np.uint8))

    @cached_property
    def entries(self) -> tuple[np.ndarray, np.ndarray]:
        """Every (list, element) pair of the incidence, ordered by list: ``(lists, elements)`` arrays.

        Sparse sums over an instance are one ``bincount`` over these (a 2%
        dense OR-Library matrix has 50 times fewer entries than cells).
        """
        lists, elements = np.nonzero(self.incidence)
        return _read_only(lists), _read_only(elements)

    @cached_property
    def entry_offsets(self) -> np.ndarray:
        """Where each list's pairs begin in ``entries`` (length ``n_lists + 1``): list j's elements
        are ``entries[1][entry_offsets[j]:entry_offsets[j + 1]]``."""
        return _read_only(np.concatenate(([0], np.cumsum(self.sizes))))

    def elements_of(self, chosen: np.ndarray) -> np.ndarray:
        """The elements of the lists ``chosen`` (indices), one entry per (list, element) pair."""
        starts, sizes = self.entry_offsets[chosen], self.sizes[chosen]
        ends = np.cumsum(sizes)
        return self.entries[1][np.repeat(starts - ends + sizes, sizes) + np.arange(int(ends[-1]) if len(ends) else 0)]

    @cached_property
    def holders(self) -> tuple[np.ndarray, ...]:
        """For each element, the lists that hold it (ascending)."""
        return tuple(_read_only(np.flatnonzero(column)) for column in self.incidence.T)


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


_BOOL_TYPES = {bool, np.bool_}  # numpy silently turns [1, True] into integers


_SOURCE_CHARS = 80  # the longest source a repr shows whole

_FREE = 1e-9  # the ratio cost of a list that costs nothing (1e-9 / gain stays below any 1 / gain)


def _read_json(data: bytes) -> Any:
    try:
        return json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"not valid JSON ({error})") from None


def _read_npy(path: Path) -> np.ndarray:
    with path.open("rb") as handle:
        if handle.read(6) != b"\x93NUMPY":
            raise ValueError("not a .npy file")
    try:
        return np.load(path, allow_pickle=False)
    except ValueError as error:
        raise ValueError(f"not a plain .npy array ({error})") from None


def _int_elements(elements: Any, index: int) -> list[int]:
    if not isinstance(elements, (list, tuple)):
        raise ValueError(f"list {index} is not an array of integers (got {type(elements).__name__})")
    for position, element in enumerate(elements):
        if isinstance(element, bool) or not isinstance(element, (int, np.integer)):
            raise ValueError(f"list {index}, position {position}: {element!r} is not an integer")
    return [int(e) for e in elements]


def _validated(lists: Sequence[Sequence[int]], N: int) -> tuple[tuple[tuple[int, ...], ...], np.ndarray]:
    """Check every list (integers in range, no repeats) and build the incidence matrix.

    Each list is checked as one numpy array; the element-by-element walk only
    runs to word the error message.
    """
    if isinstance(lists, (str, bytes)) or not isinstance(lists, Sequence):
        raise ValueError(f"lists must be a sequence of sequences of integers, got {type(lists).__name__}")
    if len(lists) == 0:
        raise ValueError("an instance needs at least one list")
    incidence = np.zeros((len(lists), N), dtype=bool)
    result = []
    for index, elements in enumerate(lists):
        if not isinstance(elements, (list, tuple)):
            raise ValueError(f"list {index} is not an array of integers (got {type(elements).__name__})")
        values = np.array(elements, dtype=None if elements else np.int64)
        if values.ndim != 1 or values.dtype.kind not in "iu" or _BOOL_TYPES & set(map(type, elements)):
            _int_elements(elements, index)
        if values.size and (values.min() < 0 or values.max() >= N):
            position = int(np.flatnonzero((values < 0) | (values >= N))[0])
            raise ValueError(f"list {index}, position {position}: element {values[position]} is outside 0..{N - 1}")
        incidence[index, values] = True
        if np.count_nonzero(incidence[index]) != values.size:
            raise ValueError(f"list {index} repeats an element")
        result.append(tuple(values.tolist()))
    return tuple(result), incidence


def _validated_costs(costs: Any, n_lists: int) -> np.ndarray:
    """One non-negative integer per list, as int64."""
    if isinstance(costs, (str, bytes)) or not isinstance(costs, (Sequence, np.ndarray)):
        raise ValueError(f"costs must be a sequence of non-negative integers, got {type(costs).__name__}")
    if len(costs) != n_lists:
        raise ValueError(f"costs has {len(costs)} entries for {n_lists} lists")
    for index, cost in enumerate(costs):
        if isinstance(cost, (bool, np.bool_)) or not isinstance(cost, (int, np.integer)) or cost < 0:
            raise ValueError(f"cost {index}: {cost!r} is not a non-negative integer")
    return np.asarray(costs, dtype=np.int64).reshape(n_lists)


@lru_cache(maxsize=8)
def _load(cls: type[Instance], path: str, modified_ns: int, size: int) -> Instance:
    """A file read once per process while it stays unchanged (a run builds its task several times)."""
    from .orlib import read_orlib

    file = Path(path)
    if file.suffix == ".npy":
        return cls.from_incidence(_read_npy(file), source=path)
    data = file.read_bytes()
    if file.suffix != ".json" and data.lstrip()[:1] not in (b"[", b"{"):
        N, lists, costs = read_orlib(data)
        return cls(N, lists, costs, source=path)
    return cls._from_json(_read_json(data), source=path)


@lru_cache(maxsize=8)
def _course_instance(cls: type[Instance], N: int, seed: int | None) -> Instance:
    return cls(N, problem(N, seed), source=f"problem({N}, seed={seed})")  # type: ignore[arg-type]
