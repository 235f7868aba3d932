"""The exact hypervolume against moocore's (what DEAP 1.4 computes with), and NSGA-III survival
against DEAP's selNSGA3 on the same inputs."""

from __future__ import annotations

import moocore
import numpy as np
import pytest
from deap import base, creator, tools
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from operators.hypervolume import hypervolume
from operators.survival import nsga2, nsga3, reference_points

if not hasattr(creator, "FitnessHV3"):
    creator.create("FitnessHV3", base.Fitness, weights=(1.0, 1.0, -1.0))


class _Ind:
    def __init__(self, values):
        self.fitness = creator.FitnessHV3(values)


points = st.lists(st.tuples(*[st.floats(0, 1, allow_nan=False)] * 3), min_size=1, max_size=25)


@settings(max_examples=150, deadline=None)
@given(points=points, dims=st.integers(1, 3))
def test_the_hypervolume_is_moocores(points, dims):
    front = np.array([p[:dims] for p in points])
    reference = np.full(dims, 0.9)
    assert hypervolume(front.tolist(), reference.tolist()) == pytest.approx(
        moocore.hypervolume(front, ref=reference), rel=1e-12, abs=1e-15)


@settings(max_examples=100, deadline=None)
@given(points=points, extra=points)
def test_the_hypervolume_depends_only_on_the_set_and_grows_with_it(points, extra):
    reference = [1.0, 1.0, 1.0]
    assert hypervolume(points[::-1], reference) == hypervolume(points + points[:3], reference)
    assert hypervolume(points + extra, reference) >= hypervolume(points, reference)


def _front_values(population):
    return [[-w for w in ind.fitness.wvalues] for ind in population]


@settings(max_examples=100, deadline=None)
@given(parents=points, offspring=points, survival=st.sampled_from(["nsga2", "nsga3"]))
def test_elitist_survival_never_loses_hypervolume_while_the_front_fits(parents, offspring, survival):
    """NSGA-II/III keep every non-dominated member while they number at most mu: the survivors'
    hypervolume is the pool's, never below the parents'. (A front larger than mu is thinned by
    crowding or niching, which may give up a little of it.)"""
    parents, offspring = [_Ind(p) for p in parents], [_Ind(p) for p in offspring]
    mu = len(parents)
    pool = parents + offspring
    assume(len(tools.sortNondominated(pool, len(pool), first_front_only=True)[0]) <= mu)
    if survival == "nsga2":
        chosen = nsga2(parents, offspring, mu)
    else:
        chosen = nsga3(parents, offspring, mu, points=reference_points(3, mu), seed=1)
    reference = [0.5, 0.5, 1.5]  # beyond the worst -wvalues (0, 0, 1): every point counts
    assert hypervolume(_front_values(chosen), reference) >= hypervolume(_front_values(parents), reference)


@settings(max_examples=60, deadline=None)
@given(parents=points, offspring=points, seed=st.integers(0, 2**32 - 1))
def test_nsga3_survivors_are_deaps_selnsga3_on_the_same_inputs(parents, offspring, seed):
    parents, offspring = [_Ind(p) for p in parents], [_Ind(p) for p in offspring]
    mu = len(parents)
    ref = reference_points(3, mu)
    state = np.random.get_state()
    chosen = nsga3(parents, offspring, mu, points=ref, seed=seed)
    assert np.all(np.random.get_state()[1] == state[1])  # numpy's global generator is put back
    np.random.seed(seed)
    expected = tools.selNSGA3(parents + offspring, mu, np.asarray(ref))
    assert [id(i) for i in chosen] == [id(i) for i in expected]
    assert chosen == nsga3(parents, offspring, mu, points=ref, seed=seed)  # and replays


@pytest.mark.parametrize("objectives, mu, count", [(1, 10, 1), (2, 40, 40), (3, 40, 36), (3, 92, 91)])
def test_reference_points_are_as_many_as_fit_the_population(objectives, mu, count):
    points = reference_points(objectives, mu)
    assert len(points) == count and np.allclose(np.sum(points, axis=1), 1.0)
