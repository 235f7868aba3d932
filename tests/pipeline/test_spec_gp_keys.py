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
    changed = {spec(tmp_path, 'primitives = "k1-let"').fingerprint(),
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
    ('primitives = "k1"', "", "table", "genome.primitives: does not apply to a 'table' genome"),
])
def test_bad_gp_keys_are_refused_in_one_line(tmp_path, genome, nim, kind, message):
    with pytest.raises(SpecError, match=message):
        spec(tmp_path, genome, nim, kind)


def test_bind_needs_a_primitive_set_with_let(tmp_path):
    path = tmp_path / "bind.toml"
    path.write_text(GP.format(genome="", nim="") + '[operators]\nmutation = "bind"\n')
    with pytest.raises(SpecError, match="bind needs a primitive set with let"):
        load_spec(path)
