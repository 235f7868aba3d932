"""The Python API: start, resume and read runs from a script or a notebook.

    import pipeline
    run = pipeline.run("runs/nim-table.toml", generations=10, workers=0)
    run.generations()           # one row per generation (generations/)
    run.population(5)           # the members alive after generation 5
    run.best(3)                 # the hall of fame, best first

Library calls raise exceptions (`SpecError`, `RunExists`, `FileNotFoundError`,
...) where the CLI prints one line; their messages are the same. What the CLI
says beside the progress bar (a key the run will not use, a file resume
repaired) comes as a `RunNote` warning.
"""

from __future__ import annotations

import contextlib
import json
import os
import warnings
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

import pandas as pd

from .records import RunDir
from .records.population import alive, first_front, population, scored
from .spec import RunSpec, apply_overrides, load_spec, parse_spec
from .spec_notes import RunNote, resume_notes, run_notes

__all__ = ["Run", "run", "resume", "open_run", "load_agent", "shutdown", "OnGeneration"]

# Called after each generation with its generations row; returning True stops
# the run there (run.json: status "finished", stop_reason "callback"; `resume` goes on).
OnGeneration = Callable[[dict[str, Any]], "bool | None"]

# Keyword shortcuts for the execution section (everything else: a spec key, `__` for a dot).
_SHORTCUTS = {"workers": "execution.workers", "address": "execution.address", "out": "execution.output",
              "output": "execution.output", "chunk_size": "execution.chunk_size",
              "connect_timeout": "execution.connect_timeout", "handover": "execution.handover"}


def _dotted(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """`population__size=20` -> {"population.size": 20}; `workers=0` -> {"execution.workers": 0};
    a path (`out=Path("runs/x")`) as the string a TOML spec would hold."""
    return {_SHORTCUTS.get(key, key.replace("__", ".")): os.fspath(value) if isinstance(value, os.PathLike) else value
            for key, value in overrides.items()}


def _as_spec(spec: str | Path | Mapping[str, Any] | RunSpec, overrides: Mapping[str, Any]) -> RunSpec:
    dotted = _dotted(overrides)
    if isinstance(spec, RunSpec):
        given = parse_spec(apply_overrides(spec.model_dump(mode="json"), dotted), f"spec {spec.name!r}",
                           resolved=True)
        return given.naming_paths(spec.path_names, spec.path_notes) if given.setcover == spec.setcover else given
    if isinstance(spec, Mapping):
        copy = json.loads(json.dumps(dict(spec)))  # the caller's dict is left alone
        return parse_spec(apply_overrides(copy, dotted), "spec")
    if isinstance(spec, (str, Path)):
        return load_spec(spec, dotted)
    raise TypeError(f"spec: expected a path to a TOML spec, a dict or a RunSpec, not {type(spec).__name__}")


def run(spec: str | Path | Mapping[str, Any] | RunSpec, *, on_generation: OnGeneration | None = None,
        force: bool = False, progress: bool = False, **overrides: Any) -> "Run":
    """Run a spec (TOML path, dict or RunSpec) to its end and return the finished run.

    `overrides` set spec keys: `generations=10`, `seed=3`, `workers=0`,
    `out="runs/x"`, `population__size=20` (a double underscore for a dot).
    `progress=True` shows the CLI's progress bar.
    """
    from .outputs import check_run_dir
    from .runner import fit_spec, output_dir, start_run

    resolved = _as_spec(spec, overrides)
    check_run_dir(output_dir(resolved), "; give out= a new path or a run directory")
    resolved, capped = fit_spec(resolved)
    for note in ([capped] if capped else []) + run_notes(resolved):
        warnings.warn(note, RunNote, stacklevel=2)
    with _callbacks(on_generation, progress) as (callback, on_start):
        path = start_run(resolved, force=force, on_generation=callback, on_start=on_start)
    return Run(path)


def resume(path: str | Path, *, on_generation: OnGeneration | None = None, progress: bool = False,
           generations: int | None = None, workers: int | str | None = None, address: str | None = None) -> "Run":
    """Continue a stopped, killed or finished run (`generations` extends it) and return it."""
    from .runner import resume_run

    overrides = {"generations": generations, "execution.workers": workers, "execution.address": address}
    for note in _resume_notes(path, overrides):  # a cap on the workers sets it in `overrides`
        warnings.warn(note, RunNote, stacklevel=2)

    def repaired(text: str) -> None:
        warnings.warn(f"repaired: {text}", RunNote, stacklevel=4)  # at the line calling `resume`

    with _callbacks(on_generation, progress) as (callback, on_start):
        done = resume_run(path, on_generation=callback, on_start=on_start, overrides=overrides, on_note=repaired)
    return Run(done)


def shutdown() -> None:
    """Stop the embedded Ray that runs with `engine = "ray"` keep warm for the next run in this
    process (it also stops at exit); a Ray you started yourself is left alone."""
    from .evaluation.ray_embedded import shutdown_embedded

    shutdown_embedded()


def _resume_notes(path: str | Path, overrides: Mapping[str, Any]) -> list[str]:
    """`resume_notes` of the run at `path`, after `fit_recorded` (which may set a cap in
    `overrides`); none if its run.json cannot be read, since `resume_run` then refuses with the reason."""
    from .runner import fit_recorded

    try:
        spec = apply_overrides(RunDir(path).read_run()["spec"], dict(overrides))
    except (OSError, ValueError):
        return []
    capped = fit_recorded(spec, overrides)
    return ([capped] if capped else []) + resume_notes(spec)


@contextlib.contextmanager
def _callbacks(on_generation: OnGeneration | None, progress: bool) -> Iterator[tuple[Callable, Callable | None]]:
    """The runner's callbacks: the user's, behind the progress bar if one is asked for."""
    with contextlib.ExitStack() as stack:
        bar = None
        if progress:
            from .progress import RunProgress

            bar = stack.enter_context(RunProgress())

        def callback(row: dict[str, Any]) -> bool | None:
            if bar is not None:
                bar.on_generation(row)
            return on_generation(row) if on_generation is not None else None

        yield callback, (bar.on_start if bar is not None else None)


def open_run(path: str | Path) -> "Run":
    """A run directory to read (finished, running or stopped)."""
    return Run(path)


def load_agent(path: str | Path, rules: Any = None, rank: int = 0, cell: int | str | None = None) -> Any:
    """The `rank`-th agent of a Nim run's hall of fame (best.json, or its run directory), or
    with `cell`, the elite of that cell of a MAP-Elites run's archive (an index, or
    coordinates "3,7": `pipeline.archive.cell_index`).

    `rules`: a `fitness.nim.Rules` to play under; default, the board it was evolved on."""
    from .hall_of_fame import load_agent as _load, saved_rules

    path = Path(path)
    if cell is not None:
        from .archive import elite_agent

        return elite_agent(Run(path.parent if path.name == "best.json" else path), cell, rules)
    if path.is_dir():
        path = path / "best.json"
    if rules is None:
        try:
            rules = saved_rules(json.loads(path.read_text()))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}: not a readable best.json ({exc})") from None
    return _load(path, rules, rank)


class Run:
    """One run directory, read through pandas. Every call reads the files afresh.

    A run may be read while it runs (or while it is resumed). A reader never sees half a
    file, and each call sees whole generations only: `generations()`, `individuals()`,
    `population()` and `populations()` read the compacted parts and the generations
    committed since in recent/ (a generation is there once its whole batch is, with its
    row and population), so a generation still being written is not seen. `best()` is
    best.json, rewritten every few seconds and at the end: it may be behind `generations()`.
    Calls made one after another may each see more generations: to hold one snapshot,
    take `g = generations()["generation"].max()` and keep to generations up to `g`.
    """

    def __init__(self, path: str | Path) -> None:
        self._dir = RunDir(path)
        self._dir.read_run()  # raises one line when this is not a run directory

    @property
    def path(self) -> Path:
        return self._dir.path

    @property
    def meta(self) -> dict[str, Any]:
        """run.json as it is now: status, stop_reason, versions, the resolved spec."""
        return self._dir.read_run()

    @property
    def run_id(self) -> str:
        return self.meta["run_id"]

    @property
    def status(self) -> str:
        return str(self.meta.get("status"))

    @property
    def spec(self) -> RunSpec:
        return parse_spec(self.meta["spec"], str(self._dir.run_json), resolved=True, recorded=True)

    def __repr__(self) -> str:
        return f"Run({str(self.path)!r}, run_id={self.run_id!r}, status={self.status!r})"

    # -- the logs -----------------------------------------------------------
    def individuals(self, columns: list[str] | None = None, generations: range | int | None = None) -> pd.DataFrame:
        """Every evaluation: one row per individual scored in a generation (offspring, and
        survivors re-scored under sampled fitness; `born` says when each was made). `viable` is
        False where the evaluation failed (`error` says why); runs written before those columns
        existed get them here (every row viable). `columns` and `generations` (a range or one
        generation) read only those: the files and row groups that hold them, nothing else. A
        read that matches no row (generations past the last) has the log's columns, no rows."""
        published = self._dir.published()
        if isinstance(generations, int):
            generations = range(generations, generations + 1)
        if generations is not None:
            generations = range(max(generations.start, 0), min(generations.stop, published.stop))
        return scored(self._dir, published if generations is None else generations, columns)

    def generations(self) -> pd.DataFrame:
        """One row per generation: best/mean/std of each objective over the population, diversity, timing."""
        return pd.DataFrame(self._dir.read_generations())

    def population(self, generation: int | None = None) -> pd.DataFrame:
        """The members alive after `generation` (default: the last), best first, each with
        the objective values it had then (its latest evaluation up to that generation).
        Reads that generation's membership and those members' rows, nothing else."""
        return population(self._dir, generation)

    def populations(self) -> pd.DataFrame:
        """Every generation's population: `population(g)` for all g, in one frame
        (`groupby("generation")` gives what generations.parquet summarises; island runs
        have each member's `island`, so `groupby(["generation", "island"])` gives each island's)."""
        return alive(self._dir, self._dir.published())

    def pareto_front(self, generation: int | None = None) -> pd.DataFrame:
        """A Pareto run's non-dominated set: the viable members of `population(generation)`
        (default: the last) on the first front (rank 0), by id."""
        mode = self.spec.objectives.mode
        if mode != "pareto":
            raise ValueError(f"{self.path}: pareto_front: only for objectives.mode = 'pareto' runs "
                             f"(this one is {mode!r}); best() is its hall of fame")
        return first_front(self.population(generation))

    def archive(self, generation: int | None = None) -> pd.DataFrame:
        """A MAP-Elites run's archive after `generation` (default: the last): one elite per filled
        cell, by `cell` (flat index), with its coordinates (`bin_<descriptor>`), fitness, descriptors."""
        from .archive import archive_frame

        return archive_frame(self._dir, self.spec, generation)

    def best(self, n: int | None = 1) -> pd.DataFrame:
        """The hall of fame from best.json, best first (`n=None`: all of it), each genome once:
        `copies` lists the ids of other entries holding the identical genome. Under sampled
        fitness these are the verdict figures, re-scored on fresh games, with intervals."""
        from .hall_of_fame import distinct_entries

        payload = self._dir.read_best()
        rows = []
        for rank, (entry, copies) in enumerate(distinct_entries(payload["hall_of_fame"])[:n]):
            row = {"rank": rank, "id": entry["id"], "born": entry["generation"],
                   "fitness": entry["fitness"][0] if len(entry["fitness"]) == 1 else tuple(entry["fitness"]),
                   **entry["objectives"], "genome": entry["genome"], "copies": copies}
            for name, bounds in (entry.get("intervals") or {}).items():
                row[f"{name}_low"], row[f"{name}_high"] = bounds
            rows.append(row)
        return pd.DataFrame(rows)

    def agent(self, rank: int = 0, rules: Any = None) -> Any:
        """A Nim run's `rank`-th best individual as a playing agent."""
        return load_agent(self._dir.best_file, rules, rank)

    def report(self) -> list[Path]:
        """Write the run's report (figures, summary, HTML) into report/; returns the files."""
        from .report import write_report

        return write_report(self.path)
