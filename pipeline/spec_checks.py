"""What a run spec must satisfy beyond its fields' types: keys that apply to the chosen
problem and genome kind, boards, agent names, files, objective names, and an algorithm
that can be built. Each failure is one `SpecError` line naming the field."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .spec import RunSpec

from .spec_errors import SpecError
from .spec_islands import on_runners

__all__ = ["LEXICOGRAPHIC_ALGORITHMS", "check_keys_apply", "check_semantics", "pareto_survival"]

# Genome keys that mean something for each kind (the rest would be ignored).
GENOME_KEYS = {"bitstring": ("kind", "init", "density"), "rules": ("kind", "agent"),
               "table": ("kind", "columns", "feature"), "expression": ("kind", "primitives", "distinct_by")}
USER_KIND_KEYS = ("kind", "options")
# Built-in algorithms whose selection compares fitness tuples in order: with objectives.mode =
# "pareto" their survivors would be chosen lexicographically, not by Pareto dominance.
LEXICOGRAPHIC_ALGORITHMS = ("mu+lambda", "mu,lambda", "steady-state", "cma-es")


def check_keys_apply(data: dict[str, Any], spec: RunSpec, source: str) -> None:
    """Refuse keys the chosen problem or genome kind would silently ignore."""
    given = data.get("genome") or {}
    allowed = GENOME_KEYS.get(spec.genome.kind, USER_KIND_KEYS)
    for key in given:
        if key not in allowed:
            raise SpecError(f"{source}: genome.{key}: does not apply to a {spec.genome.kind!r} genome; "
                            f"allowed: {', '.join(allowed)}")



def pareto_survival(mode: str, algorithm: str) -> str | None:
    """Why `objectives.mode = "pareto"` would not mean Pareto with this algorithm; None if it does
    (nsga2, nsga3) or may (a plug-in algorithm reads the mode itself)."""
    if mode != "pareto" or algorithm not in LEXICOGRAPHIC_ALGORITHMS:
        return None
    return (f"objectives.mode: 'pareto' is not Pareto with population.algorithm = {algorithm!r}: its survivors "
            f"are chosen lexicographically (the first objective first); use population.algorithm = "
            f"'nsga2' or 'nsga3' for Pareto survival, or objectives.mode = 'lexicographic' to keep {algorithm}")


def check_semantics(spec: RunSpec, source: str, recorded: bool = False) -> None:
    """What pydantic cannot know: board validity, agent names, files, objective names, an
    objectives mode the algorithm honours (`recorded`: a run already started goes on as it began)."""
    from fitness.tasks import build_task

    if spec.problem == "nim":
        from fitness.nim import Rules, agent

        nim = spec.nim
        try:
            rules = Rules(rows=nim.board(), k=nim.k, misere=nim.misere)
        except ValueError as exc:
            raise SpecError(f"{source}: nim: {exc}") from None
        names = list(nim.opponents)
        if spec.genome.kind == "table":
            names += list(spec.genome.columns)
            if not spec.genome.columns:
                raise SpecError(f"{source}: genome.columns: at least one agent is needed")
        for name in names:
            try:
                agent(name, rules)
            except ValueError as exc:
                field = "nim.opponents" if name in nim.opponents else "genome.columns"
                raise SpecError(f"{source}: {field}: {exc}") from None
    if spec.problem == "setcover" and spec.setcover.instance and not Path(spec.setcover.instance).is_file():
        raise SpecError(f"{source}: setcover.instance: no such file {spec.setcover.instance!r}")
    try:
        task = build_task(spec.task_spec())
    except ValueError as exc:
        raise SpecError(f"{source}: {exc}") from None
    from .kinds import make_kind

    try:
        kind = make_kind(spec, task)  # operator names and their params
    except ValueError as exc:
        raise SpecError(f"{source}: {exc}") from None
    unknown = sorted(set(spec.objectives.weights) - set(task.objectives))
    if unknown:
        raise SpecError(
            f"{source}: objectives.weights: unknown objective {unknown[0]!r}; "
            f"this run's objectives are {', '.join(task.objectives)}"
        )
    if spec.execution.eval_timeout is not None and spec.execution.workers != 0 \
            and on_runners(spec.population.algorithm, spec.islands):
        raise SpecError(f"{source}: execution.eval_timeout: not available for islands on Ray runners (generational, or "
                        "steady-state with islands.loop = 'own'): an island runner waits for its chunks without a "
                        "per-genome timer; use workers = 0, or no [islands]")
    check_engine(spec, source)
    if spec.population.algorithm in ("nsga2", "nsga3") and spec.objectives.mode != "pareto":
        raise SpecError(f"{source}: population.algorithm: {spec.population.algorithm} needs objectives.mode = 'pareto'")
    refused = pareto_survival(spec.objectives.mode, spec.population.algorithm)
    if refused and not recorded:
        raise SpecError(f"{source}: {refused}")
    check_algorithm(spec, task, kind, source)


def check_engine(spec: RunSpec, source: str) -> None:
    """An engine that cannot do what the rest of the execution section asks."""
    execution = spec.execution
    if execution.engine in ("processes", "in-process") and execution.address is not None:
        raise SpecError(f"{source}: execution.engine: {execution.engine!r} runs on this machine, but "
                        f"execution.address joins a Ray cluster; use engine = 'ray' or 'auto', or no address")
    if execution.engine == "processes" and execution.workers != 0 \
            and on_runners(spec.population.algorithm, spec.islands):
        raise SpecError(f"{source}: execution.engine: islands that run their own loop (generational, or "
                        f"steady-state with islands.loop = 'own') evolve on Ray runner actors, not 'processes'; use "
                        f"engine = 'ray' or 'auto' (steady-state islands in the driver's loop run on any engine)")


def check_algorithm(spec: RunSpec, task: Any, kind: Any, source: str) -> None:
    """Build the algorithm once, so a plug-in that is missing or refuses its options is
    one line at validation, before anything is written."""
    from .evolution import Context, NoiseControl, Objectives, make_algorithm

    objectives = Objectives(spec, tuple(task.objectives), tuple(task.weights), getattr(task, "primary", None),
                            getattr(task, "default_weights", None), getattr(task, "bounds", None))
    noise = NoiseControl(spec, getattr(task, "sampled", {}), getattr(task, "uses_seeds", True))
    try:
        make_algorithm(Context(spec, kind, objectives, noise.reevaluate, task))
    except ValueError as exc:
        raise SpecError(f"{source}: {exc}") from None
