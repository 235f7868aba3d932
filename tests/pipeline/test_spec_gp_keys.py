"""The GP keys added for issue 20 ([genome] primitives and distinct_by, [nim] boards):
unused, they leave a spec's run id as it was; used, they are checked before anything runs."""

from pathlib import Path

import pytest

from pipeline.spec import SpecError, load_spec

ROOT = Path(__file__).resolve().parents[2]
GP = """
problem = "nim"
[genome]
kind = "expression"
{genome}
[nim]
standard = 3
opponents = {{ random = "exact" }}
{nim}
[execution]
workers = 0
"""


def spec(tmp_path: Path, genome: str = "", nim: str = "", kind: str = "expression"):
    path = tmp_path / "gp.toml"
    path.write_text(GP.format(genome=genome, nim=nim).replace('"expression"', f'"{kind}"'))
    return load_spec(path)


def test_the_old_gp_spec_keeps_its_run_id():
    """38c0a56a6c is the fingerprint the code of 2026-11-22 gave nim-gp with these populations
    (the killed run directory of the golden tests carries it)."""
    old = load_spec(ROOT / "tests/golden/specs/nim-gp-v1.toml", {"population.size": 60,
                                                                    "population.offspring": 120})
    assert old.fingerprint() == "38c0a56a6c"


def test_defaults_are_the_old_meaning_and_used_keys_change_the_run_id(tmp_path):
    plain = spec(tmp_path)
    assert spec(tmp_path, 'primitives = "v1"\ndistinct_by = "text"').fingerprint() == plain.fingerprint()
    assert "boards" not in plain.task_spec()
    changed = {spec(tmp_path, 'primitives = "v2"').fingerprint(),
               spec(tmp_path, nim="boards = [[2, 5]]").fingerprint(),
               spec(tmp_path, 'distinct_by = "moves"', "boards = [[2, 5]]").fingerprint()}
    assert plain.fingerprint() not in changed and len(changed) == 3
    assert spec(tmp_path, nim="boards = [[2, 5]]").task_spec()["boards"] == [[2, 5]]


@pytest.mark.parametrize("genome, nim, kind, message", [
    ('primitives = "v9"', "", "expression", "genome.primitives: must be one of 'v1'"),
    ('distinct_by = "moves"', "", "expression", "give them in nim.boards"),
    ('distinct_by = "looks"', "", "expression", "genome.distinct_by"),
    ("", "boards = [[2, 5]]", "table", "boards: extra training boards need expression genomes"),
    ("", "boards = [[1, 3, 5]]", "expression", "boards: each training board must be given once"),
    ("", "boards = [[0, 0]]", "expression", "at least one object"),
    ('primitives = "v2"', "", "table", "genome.primitives: does not apply to a 'table' genome"),
])
def test_bad_gp_keys_are_refused_in_one_line(tmp_path, genome, nim, kind, message):
    with pytest.raises(SpecError, match=message):
        spec(tmp_path, genome, nim, kind)


def test_bind_needs_a_primitive_set_with_let(tmp_path):
    path = tmp_path / "bind.toml"
    path.write_text(GP.format(genome="", nim="") + '[operators]\nmutation = "bind"\n')
    with pytest.raises(SpecError, match="bind needs a primitive set with let"):
        load_spec(path)


NORMAL_RULE = "let(vmod(rows, k1), eq(xor_all(rows), 0))"
MISERE_RULE = "let(vmod(rows, k1), eq(xor_all(rows), lt(max_all(rows), 2)))"


@pytest.mark.parametrize("k", [None, 2, 3, 4, 5])
@pytest.mark.parametrize("misere", [False, True])
def test_the_shipped_gp_spec_plays_every_variant_by_changing_only_nim(k, misere):
    """runs/nim-gp.toml with only [nim] k and misere set: the task scores the rule written in
    its primitive set perfect on every training board, and a near miss below that."""
    from fitness.tasks import build_task
    from operators.expression import from_record, primitive_set

    shipped = load_spec(ROOT / "runs/nim-gp.toml")
    spec = load_spec(ROOT / "runs/nim-gp.toml", {"nim.k": k, "nim.misere": misere})
    assert spec.model_copy(update={"nim": shipped.nim}) == shipped
    task = build_task(spec.task_spec())
    rule = MISERE_RULE if misere else NORMAL_RULE
    other = NORMAL_RULE if misere else MISERE_RULE
    assert {n for n in primitive_set(spec.genome.primitives).mapping} >= {"let", "vmod", "k1", "lt", "max_all"}
    scores = task.evaluate([from_record(rule), from_record(other)], [0, 0])
    boards = 1 + len(spec.nim.boards) + len(spec.nim.canonical_boards or [])
    assert scores["optimal_move_rate"][0] == 1.0 and scores["boards_solved"][0] == boards
    assert scores["optimal_move_rate"][1] < 1.0


def test_canonical_boards_unused_keep_the_run_id_and_used_reach_the_task(tmp_path):
    plain = spec(tmp_path)
    used = spec(tmp_path, nim="canonical_boards = [[2, 4, 7]]\ncanonical_positions = 50")
    assert "canonical_boards" not in plain.task_spec()
    assert used.fingerprint() != plain.fingerprint()
    assert used.task_spec()["canonical_boards"] == [[2, 4, 7]] and used.task_spec()["canonical_positions"] == 50
    assert spec(tmp_path, 'distinct_by = "moves"', "canonical_boards = [[2, 4, 7]]").genome.distinct_by == "moves"
    with pytest.raises(SpecError, match="canonical_positions: applies only with canonical_boards"):
        spec(tmp_path, nim="canonical_positions = 50")


def test_canonical_confirm_reaches_the_task_and_needs_a_sample(tmp_path):
    sampled = "canonical_boards = [[2, 4, 7]]\ncanonical_positions = 50"
    used = spec(tmp_path, nim=sampled + "\ncanonical_confirm = true")
    assert used.task_spec()["canonical_confirm"] is True
    assert used.fingerprint() != spec(tmp_path, nim=sampled).fingerprint()
    assert "canonical_confirm" not in spec(tmp_path, nim=sampled).task_spec()
    with pytest.raises(SpecError, match=r"canonical_confirm: applies only with canonical_positions"):
        spec(tmp_path, nim="canonical_boards = [[2, 4, 7]]\ncanonical_confirm = true")
