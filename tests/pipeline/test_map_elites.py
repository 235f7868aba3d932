"""MAP-Elites: the archive is the best of every cell so far, QD-score never decreases, the log
is the same on 0 and 2 workers and after a SIGKILL and resume, and elites of different cells
play differently (a league of diverse Nim opponents)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pipeline
from pipeline.evolution.members import Member
from pipeline.evolution.parts import build_parts
from pipeline.evolution.state import State
from pipeline.spec import SpecError, load_spec
from tests.golden.digest import run_digests
from tests.pipeline.killed_runs import killed_run

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "runs" / "map-elites-nim-table.toml"
SMALL = {"population__size": 16, "population__offspring": 16}


def run(out: Path, generations: int = 4, workers: int = 0, **overrides) -> pipeline.Run:
    done = pipeline.run(SPEC, workers=workers, out=str(out), force=True, generations=generations,
                        **{**SMALL, **overrides})
    return pipeline.open_run(done.path)


def test_the_archive_is_each_cells_best_so_far_and_qd_score_never_decreases(tmp_path):
    result = run(tmp_path / "run")
    generations = result.generations()
    assert generations["qd_score"].is_monotonic_increasing
    assert generations["coverage"].is_monotonic_increasing and generations["coverage"].iloc[-1] > 0
    individuals = result.individuals()
    for g in generations["generation"]:
        seen = individuals[individuals["generation"] <= g].sort_values("id", kind="stable")
        best = seen.loc[seen.groupby("cell")["fitness"].idxmax()]  # first of equals: the elite stays
        archive = result.archive(int(g))
        assert archive["cell"].tolist() == sorted(best["cell"].astype(int))
        assert archive["id"].tolist() == best.sort_values("cell")["id"].tolist()
        assert generations.loc[generations["generation"] == g, "coverage"].item() == len(archive) / 64


def test_the_archive_is_the_same_on_2_ray_workers(tmp_path, ray_session):
    assert run_digests(run(tmp_path / "pooled", workers=2).path) == run_digests(run(tmp_path / "local").path)


def test_a_killed_run_resumes_to_the_same_archive(tmp_path):
    whole = run(tmp_path / "whole", generations=5)
    cut = tmp_path / "cut"
    killed_run(SPEC, cut, 2, generations=5, **SMALL)
    pipeline.resume(cut, workers=0)
    assert run_digests(cut) == run_digests(whole.path)
    state = json.loads((cut / "checkpoint.json").read_text())["algorithm"]
    assert state["elites"] == whole.archive()[["cell", "id"]].values.tolist()
    assert state["grid"] == {"descriptors": ["empty_row_rate", "zero_nimsum_rate"], "bins": [8, 8],
                             "ranges": [[0.0, 1.0], [0.0, 1.0]]}
    kept = ["cell", "id", "fitness", "empty_row_rate", "zero_nimsum_rate"]
    assert pipeline.open_run(cut).archive()[kept].equals(whole.archive()[kept])


def test_elites_of_different_cells_play_differently(tmp_path):
    result = run(tmp_path / "run", generations=3)
    archive = result.archive()
    assert len(archive) >= 2
    first, last = archive.iloc[0], archive.iloc[-1]
    a = pipeline.load_agent(result.path, cell=int(first["cell"]))
    b = pipeline.load_agent(result.path, cell=",".join(str(int(last[f"bin_{n}"])) for n in
                                                       ("empty_row_rate", "zero_nimsum_rate")))
    from fitness.nim.space import StateSpace

    space = StateSpace((1, 3, 5, 7, 9))
    positions = space.decode(np.arange(1, space.size))
    moves_a = np.stack(a(positions, np.random.default_rng(0)))
    moves_b = np.stack(b(positions, np.random.default_rng(0)))
    assert (moves_a != moves_b).any()
    assert (first["empty_row_rate"], first["zero_nimsum_rate"]) != (last["empty_row_rate"], last["zero_nimsum_rate"])
    elite = f"{result.path}/archive:{int(first['cell'])}"
    played = subprocess.run([sys.executable, "-m", "pipeline.cli", "match", elite, "expert", "--games", "200"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert played.returncode == 0 and "A moving first won" in played.stdout, played.stderr
    with pytest.raises(ValueError, match="cell 9999: the archive has cells 0-63"):
        pipeline.load_agent(result.path, cell=9999)
    assert {"archive.png", "quality_diversity.png"} <= {path.name for path in result.report()}
    assert "## Archive (MAP-Elites)" in (result.path / "report" / "summary.md").read_text()


@settings(max_examples=30, deadline=None)
@given(batches=st.lists(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1), st.floats(0, 1)), min_size=1,
                                 max_size=8), min_size=1, max_size=5))
def test_placing_members_never_lowers_qd_score_or_coverage(batches):
    algorithm = _algorithm()
    state, next_id, before = State(), 0, (0.0, 0.0)
    for batch in batches:
        members = []
        for empty, zero, rate in batch:
            columns = {"win_rate_expert": rate, "win_rate_random": rate, "win_rate_minimax": rate,
                       "optimal_move_rate": rate, "empty_row_rate": empty, "zero_nimsum_rate": zero}
            members.append(Member(next_id, state.generation + 1, None, [], "init", columns,
                                  fitness=_OBJECTIVES.fitness(columns)))
            next_id += 1
        state = algorithm.tell(state, members)
        row = state.extra["row"]
        assert (row["qd_score"], row["coverage"]) >= before and row["qd_score"] >= before[0]
        before = (row["qd_score"], row["coverage"])


_PARTS = None
_OBJECTIVES = None


def _algorithm():
    global _PARTS, _OBJECTIVES
    if _PARTS is None:
        _PARTS = build_parts(load_spec(SPEC))
        _OBJECTIVES = _PARTS.objectives
    return _PARTS.algorithm


@pytest.mark.parametrize("overrides, message", [
    ({"population.algorithm": "mu+lambda"}, "archive: population.algorithm = 'map-elites' takes an \\[archive\\]"),
    ({"archive.descriptors": ["nope", "zero_nimsum_rate"]}, "unknown Nim descriptor 'nope'"),
    ({"archive.bins": [8]}, "bins: one count from 1 to 1,000 per descriptor"),
    ({"archive.descriptors": []}, "descriptors: must hold at least 1 \\(got \\[\\]\\)$"),  # not pydantic's words
    ({"archive.descriptors": ["a", "b", "c", "d"], "archive.bins": [2, 2, 2, 2]}, "descriptors: must hold at most 3 "),
    ({"archive.descriptors": ["empty_row_rate", "empty_row_rate"]}, "descriptors: each descriptor once "
                                                                    "\\(repeated: empty_row_rate\\)"),
    ({"archive.ranges": {"empty_row_rate": [0.0, float("inf")]}},
     "ranges.empty_row_rate: must be \\[low, high\\], finite"),
    ({"objectives.mode": "pareto"}, "map-elites keeps one elite per cell"),
])
def test_bad_archive_keys_are_refused_in_one_line(overrides, message):
    with pytest.raises(SpecError, match=message):
        load_spec(SPEC, overrides)


PLUGIN = '''
import numpy as np
from knapsack import Knapsack


class Sack(Knapsack):
    """The knapsack, also telling what share of the items each genome packs: a descriptor."""

    descriptors = ("share",)
    descriptor_bounds = {"share": (0.0, 1.0)}

    def evaluate(self, genomes, seeds):
        columns = super().evaluate(genomes, seeds)
        columns["share"] = np.asarray([np.mean(g) for g in genomes], dtype=float)
        return columns
'''


def test_a_plug_in_problem_names_its_own_descriptors(tmp_path):
    (tmp_path / "knapsack.py").write_text((ROOT / "examples" / "knapsack" / "knapsack.py").read_text())
    (tmp_path / "sack.py").write_text(PLUGIN)
    spec = tmp_path / "sack.toml"
    spec.write_text('problem = "sack:Sack"\n[genome]\nkind = "knapsack:Bits"\n[population]\nalgorithm = "map-elites"\n'
                    'size = 20\noffspring = 20\n[objectives]\nmode = "lexicographic"\n'
                    '[archive]\ndescriptors = ["share"]\nbins = [10]\n')
    result = pipeline.open_run(pipeline.run(spec, workers=0, out=str(tmp_path / "run"), generations=3).path)
    archive = result.archive()
    assert archive["cell"].tolist() == sorted(set((archive["share"] * 10).astype(int).clip(0, 9)))
    assert result.generations()["qd_score"].is_monotonic_increasing
    with pytest.raises(SpecError, match="archive.descriptors: 'weight' is not a descriptor this problem computes"):
        load_spec(spec, {"archive.descriptors": ["weight"]})
