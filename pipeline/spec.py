"""Run specs: a TOML file validated (pydantic) before anything is written.

A bad spec stops with one line naming the field and what is allowed, e.g.
`runs/x.toml: population.size: must be >= 2 (got 0)`.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, PrivateAttr, ValidationError, field_validator, model_validator

from .spec_archive import Archive, check_archive
from .spec_checks import check_keys_apply, check_semantics
from .spec_cma import CmaEs, check_cma_es
from .spec_errors import SpecError, explain
from .spec_islands import GENERATIONAL_ALGORITHMS, Islands, check_islands
from .spec_execution import Execution, recorded_in_flight
from .spec_log import Log
from .spec_nim import Nim, nim_fingerprint_content
from .spec_paths import read_spec_file, with_data_paths
from .spec_sections import Objectives, Sampling, SetCover, Stop, _Strict

__all__ = ["RunSpec", "SpecError", "apply_overrides", "load_spec", "parse_spec"]


class Population(_Strict):
    """The population and the algorithm that breeds and selects it."""

    size: int = Field(40, ge=2, le=100_000, description="members alive after each generation (mu; per island)")
    offspring: int = Field(80, ge=1, le=1_000_000, description="children scored each generation (lambda; per island)")
    algorithm: str = Field("mu+lambda", description=(
        "generational survivor selection (mu+lambda, mu,lambda, nsga2, nsga3), the asynchronous steady-state "
        "(no generation barrier: each result inserted as it arrives), map-elites (with [archive]), cma-es "
        "(float-vector and table genomes; settings in [cma_es]), or your own algorithm: 'module:Name' or an "
        "installed evo.algorithms entry point"))
    tournament: int = Field(3, ge=1, le=100, description="tournament size of parent selection")
    distinct: bool = Field(True, description="survivors are distinct genomes while there are enough")
    options: dict[str, Any] = Field(default_factory=dict, description="a user-defined algorithm's settings")
    restart_after: int | None = Field(None, ge=1, le=1_000_000, description=(
        "generational algorithms: after this many generations without improvement of the best (and "
        "every as many after), keep the best restart_keep and score fresh random genomes in the other places"))
    restart_keep: int = Field(1, ge=0, le=100_000,
                              description="members kept by a restart (with restart_after; 0: none)")

    @field_validator("algorithm")
    @classmethod
    def _known_algorithm(cls, value: str) -> str:
        return _builtin_or_plugin(value, BUILTIN_ALGORITHMS, "algorithm")

    @model_validator(mode="after")
    def _comma_needs_enough_offspring(self) -> "Population":
        if self.algorithm == "mu,lambda" and self.offspring < self.size:
            raise ValueError("mu,lambda needs offspring >= size")
        if self.restart_after is None:
            if self.restart_keep != 1:
                raise ValueError("restart_keep: applies only with restart_after")
        elif self.algorithm not in GENERATIONAL_ALGORITHMS:
            raise ValueError(f"restart_after: restarts are for the generational algorithms "
                             f"({', '.join(GENERATIONAL_ALGORITHMS)}), not {self.algorithm!r}")
        elif self.restart_keep >= self.size:
            raise ValueError(f"restart_keep: must be < size = {self.size} (got {self.restart_keep})")
        return self


BUILTIN_ALGORITHMS = ("mu+lambda", "mu,lambda", "nsga2", "nsga3", "steady-state", "map-elites", "cma-es")
BUILTIN_KINDS = ("bitstring", "rules", "table", "expression")
BUILTIN_PROBLEMS = ("nim", "setcover")


def _builtin_or_plugin(value: str, builtin: tuple[str, ...], role: str) -> str:
    """A built-in name, `module:Name`, or the name of an installed entry point."""
    from fitness.plugins import entry_point_names, is_reference

    if value in builtin or is_reference(value) or value in entry_point_names(role):
        return value
    installed = entry_point_names(role)
    more = f"; installed: {', '.join(installed)}" if installed else ""
    raise ValueError(f"must be one of {', '.join(map(repr, builtin))} or your own 'module:Name'{more}")


class Genome(_Strict):
    """What a genome is; each kind takes only its own keys."""

    kind: str = Field(description=(
        "bitstring (set cover), rules, table or expression (Nim), or your own: 'module:Kind' or an "
        "installed evo.kinds entry point"))
    options: dict[str, Any] = Field(default_factory=dict,
                                    description="a user-defined kind's settings, handed to it as a table")
    agent: str = Field("rule-expert", description="rules: the parameterised agent the genome configures "
                       "(rule-expert, rule-dict)")
    columns: list[str] = Field(default_factory=lambda: ["expert", "random", "longest"],
                               description="table: the named strategies (agents) a row chooses among")
    feature: str = Field("nimsum", description="table: the game-state feature that picks a row "
                         "(nimsum, none, active_rows)")
    init: Literal["sparse", "greedy", "lagrangian"] = Field("greedy", description=(
        "bitstring: how the first population is made (greedy covers, sparse random bits, or covers "
        "steered by the Lagrangian bound)"))
    density: float = Field(0.02, gt=0.0, lt=1.0, description="bitstring: share of bits set in a sparse genome")
    primitives: str = Field("v1", description="expression: the named primitive set trees are built from")
    distinct_by: Literal["text", "moves"] = Field("text", description=(
        "expression: what tells two survivors apart with population.distinct: their text, or the moves "
        "they play on the training boards"))

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, value: str) -> str:
        return _builtin_or_plugin(value, BUILTIN_KINDS, "kind")

    @field_validator("primitives")
    @classmethod
    def _known_primitives(cls, value: str) -> str:
        from fitness.nim.expression.languages import LANGUAGES

        if value not in LANGUAGES:
            raise ValueError(f"must be one of {', '.join(map(repr, LANGUAGES))}")
        return value


class Operators(_Strict):
    """Variation: which crossover and mutation, how often, their parameters, and repair."""

    crossover: str | None = Field(None, description="the genome kind's crossover by name (default: the kind's default)")
    crossover_rate: float = Field(0.5, ge=0.0, le=1.0, description="share of children made by crossover")
    mutation: str | None = Field(None, description="the genome kind's mutation by name (default: the kind's default)")
    mutation_rate: float = Field(0.5, ge=0.0, le=1.0, description="share of children made by mutation "
                                 "(the rest are copies; crossover_rate + mutation_rate <= 1)")
    params: dict[str, float | int | str | bool] = Field(default_factory=dict, description=(
        "the operators' parameters by name, e.g. { rate = 0.01 }"))
    repair: bool | Literal["lagrangian"] = Field(True, description=(
        "bitstring: true, the course's ratio-greedy repair of infeasible covers; \"lagrangian\": "
        "Beasley-Chu's repair within the lists the Lagrangian bound leaves (weighted instances); false: none"))

    @field_validator("repair", mode="before")
    @classmethod
    def _repair_choice(cls, value: Any) -> Any:
        if isinstance(value, bool) or value == "lagrangian":
            return value
        raise ValueError("must be true, false or \"lagrangian\"")

    @model_validator(mode="after")
    def _rates_sum(self) -> "Operators":
        if self.crossover_rate + self.mutation_rate > 1.0 + 1e-12:
            raise ValueError("crossover_rate + mutation_rate must be <= 1")
        return self


class RunSpec(_Strict):
    """A run spec (runs/*.toml): what to evolve, how, and where to evaluate it."""

    name: str = Field("run", pattern=r"^[A-Za-z0-9._-]+$", description=(
        "the run's name (default: the spec file's name); its run directory is runs/<name> under the current folder"))
    problem: str = Field(description=(
        "nim, setcover, or your own: 'module:Factory' or an installed evo.problems entry point"))
    problem_options: dict[str, Any] = Field(default_factory=dict, description="a user-defined problem's settings")
    seed: int = Field(0, ge=0, lt=2**63, description="the run seed every random draw derives from")
    generations: int = Field(20, ge=0, le=1_000_000,
                             description="generations after generation 0 (the initial population)")
    stop: Stop = Field(default_factory=Stop, description="stop rules besides generations")
    population: Population = Field(default_factory=Population, description="the population and the algorithm")
    genome: Genome = Field(description="the genome kind and its settings")
    operators: Operators = Field(default_factory=Operators, description="variation operators and repair")
    nim: Nim | None = Field(None, description="problem = nim: the board, rule and opponents")
    setcover: SetCover | None = Field(None, description="problem = setcover: the instance")
    objectives: Objectives = Field(default_factory=Objectives, description="how objectives make a fitness")
    sampling: Sampling = Field(default_factory=Sampling,
                               description="Nim with sampled opponents: keeping sampled fitness honest")
    execution: Execution = Field(default_factory=Execution, description="where and how it evaluates")
    islands: Islands | None = Field(None, description="the island model (absent: one population)")
    archive: Archive | None = Field(None, description="map-elites: the grid over behaviour descriptors")
    cma_es: CmaEs | None = Field(None, description="population.algorithm = cma-es: its settings (absent: defaults)")
    log: Log = Field(default_factory=Log, description="experiment trackers (MLflow, TensorBoard); which individuals the log keeps")
    # How the run id names the data files (`spec_paths`; run.json's path_names), and notes on them.
    _path_names: dict[str, str] = PrivateAttr(default_factory=dict)
    _path_notes: tuple[str, ...] = PrivateAttr(default=())

    @property
    def path_names(self) -> dict[str, str]:
        return dict(self._path_names)

    @property
    def path_notes(self) -> tuple[str, ...]:
        return self._path_notes

    def naming_paths(self, path_names: dict[str, str], notes: tuple[str, ...] = ()) -> "RunSpec":
        """This spec, its run id naming data files as `path_names` says (run.json's record)."""
        copy = self.model_copy()
        copy._path_names, copy._path_notes = dict(path_names), tuple(notes)
        return copy

    @field_validator("problem")
    @classmethod
    def _known_problem(cls, value: str) -> str:
        return _builtin_or_plugin(value, BUILTIN_PROBLEMS, "problem")

    def user_problem(self) -> bool:
        return self.problem not in BUILTIN_PROBLEMS

    def user_kind(self) -> bool:
        return self.genome.kind not in BUILTIN_KINDS

    @model_validator(mode="after")
    def _problem_matches(self) -> "RunSpec":
        for section in BUILTIN_PROBLEMS:
            if section != self.problem and getattr(self, section) is not None:
                raise ValueError(f"{section}: a [{section}] section does not apply to problem = {self.problem!r}")
        # Compared with the defaults, not with what was written: run.json stores the resolved spec.
        if self.sampling != Sampling() and not (self.problem == "nim" and self.nim and self.nim.sampled()):
            raise ValueError("[sampling] applies only to Nim opponents given a number of games; "
                             "this spec samples nothing (remove the section)")
        if self.population.options and self.population.algorithm in BUILTIN_ALGORITHMS:
            raise ValueError("population.options: the built-in algorithms take no options (they are for "
                             "your own algorithm, population.algorithm = 'module:Name')")
        if self.problem_options and not self.user_problem():
            raise ValueError(f"problem_options: a built-in problem takes its [{self.problem}] section instead")
        if self.user_problem() != self.user_kind():
            raise ValueError(
                f"genome.kind: a user-defined problem takes a user-defined genome kind ('module:Kind'), and a "
                f"built-in problem one of {', '.join(BUILTIN_KINDS)} (got problem {self.problem!r}, "
                f"kind {self.genome.kind!r})")
        check_islands(self)
        check_archive(self)
        check_cma_es(self)
        if self.problem == "nim":
            if self.nim is None:
                raise ValueError("problem = 'nim' needs a [nim] section")
            if self.genome.kind == "bitstring":
                raise ValueError("genome.kind 'bitstring' is for setcover; Nim takes 'rules', 'table' or 'expression'")
            if self.nim.rows is not None and self.nim.standard is not None:
                raise ValueError("nim.rows, nim.standard: give one of them, not both")
        if self.problem == "setcover":
            if self.setcover is None:
                raise ValueError("problem = 'setcover' needs a [setcover] section")
            if self.genome.kind != "bitstring":
                raise ValueError("setcover takes genome.kind = 'bitstring'")
        return self

    def task_spec(self, named: bool = False) -> dict[str, Any]:
        """The plain dict Ray actors build the task from (`named`: its data paths as the run id
        names them, for best.json: the same on every machine)."""
        if self.user_problem():
            return {"problem": self.problem, "options": dict(self.problem_options)}
        if self.problem == "nim":
            assert self.nim is not None
            genome: dict[str, Any] = {"kind": self.genome.kind}
            if self.genome.kind == "rules":
                genome["agent"] = self.genome.agent
            elif self.genome.kind == "table":
                genome.update(columns=list(self.genome.columns), feature=self.genome.feature)
            task = {
                "problem": "nim",
                "rows": list(self.nim.board()),
                "k": self.nim.k,
                "misere": self.nim.misere,
                "genome": genome,
                "opponents": dict(self.nim.opponents),
            }
            task.update(self.nim.training_boards())
            if self.archive is not None:
                task["descriptors"] = list(self.archive.descriptors)
            return task
        assert self.setcover is not None
        if self.setcover.instance:
            named_as = self._path_names.get("setcover.instance") if named else None
            return {"problem": "setcover", "instance": named_as or self.setcover.instance}
        return {"problem": "setcover", "N": self.setcover.N, "seed": self.setcover.instance_seed}

    def fingerprint(self) -> str:
        """Identifies the trajectory: everything but where it runs and how long."""
        content = self.model_dump(mode="json", exclude={"execution", "generations", "stop", "log"})
        for key, name in self._path_names.items():  # as the old rule spelled them (spec_paths)
            section, leaf = key.split(".")
            if content.get(section):
                content[section][leaf] = name
        # Keys added after runs were made are left out while unused, so those runs keep their
        # run ids (resume compares them).
        if not content["problem_options"]:
            del content["problem_options"]
        if not content["genome"]["options"]:
            del content["genome"]["options"]
        if content["nim"] is not None:
            nim_fingerprint_content(content["nim"])
        for key, default in (("primitives", "v1"), ("distinct_by", "text")):
            if content["genome"][key] == default:
                del content["genome"][key]
        if not content["population"]["options"]:
            del content["population"]["options"]
        if content["population"]["restart_after"] is None:
            del content["population"]["restart_after"], content["population"]["restart_keep"]
        if content["cma_es"] is None:
            del content["cma_es"]
        if content["islands"] is None:
            del content["islands"]
        else:
            if content["islands"]["lag"] == 0:
                del content["islands"]["lag"]
            if not (content["islands"]["loop"] == "own" and content["population"]["algorithm"] == "steady-state"):
                del content["islands"]["loop"]  # each algorithm's own default loop: the same trajectory
        if content["archive"] is None:
            del content["archive"]
        return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()[:10]


def parse_spec(data: dict[str, Any], source: str = "spec", resolved: bool = False,
               recorded: bool = False, spec_dir: Path | None = None, from_flags: tuple[str, ...] = ()) -> RunSpec:
    """Validate a spec already read as a dict (field errors become `SpecError`).

    `resolved`: `data` is a spec as run.json records it, every key spelled out,
    so keys are not checked against the genome kind (they were at the start),
    and its data paths are taken as they are.
    `recorded`: `data` is the spec of a run already started (run.json), which
    goes on as it began even where a new run would now be refused
    (`spec_checks.pareto_survival`); one recorded before a key existed keeps
    the value it ran with (`recorded_in_flight`).
    `spec_dir`: the spec file's folder, which its data paths are relative to
    (None: the current folder), except `from_flags` keys (`spec_paths`)."""
    try:
        spec = RunSpec.model_validate(recorded_in_flight(data) if resolved else data)
    except ValidationError as exc:
        raise SpecError(explain(exc, source, RunSpec)) from None
    if not resolved:
        spec = with_data_paths(spec, spec_dir, source, from_flags)
    if spec.execution.code_dir is not None:
        from fitness.plugins import add_search_path

        if Path(spec.execution.code_dir).is_dir():
            add_search_path(spec.execution.code_dir)
        elif not resolved:  # a recorded run whose folder moved resumes if it needs no module from it
            raise SpecError(f"{source}: execution.code_dir: no such folder {spec.execution.code_dir!r}")
    if not resolved:
        check_keys_apply(data, spec, source)
    check_semantics(spec, source, recorded)
    return spec


def load_spec(path: str | Path, overrides: dict[str, Any] | None = None) -> RunSpec:
    """Read and validate a TOML spec; `overrides` are dotted keys from the CLI."""
    path = Path(path)
    data = read_spec_file(path)
    try:
        data = apply_overrides(data, overrides or {})
    except SpecError as exc:
        raise SpecError(f"{path}: {exc}") from None
    return parse_spec(data, str(path), spec_dir=path.parent, from_flags=tuple(overrides or {}))


def apply_overrides(data: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """`data` with dotted keys set (`{"population.size": 20}`); None leaves a key as it is."""
    for dotted, value in overrides.items():
        if value is None:
            continue
        node = data
        *parents, leaf = dotted.split(".")
        for depth, key in enumerate(parents):
            node = node.setdefault(key, {})
            if not isinstance(node, dict):
                section = ".".join(parents[: depth + 1])
                raise SpecError(f"{dotted}: {section} is a value, not a section")
        node[leaf] = value
    return data
