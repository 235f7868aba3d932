"""Island members travel packed between the driver and the runners (`islands/travel.py`): they
arrive as they left, their DEAP fitness included (set from the travelled weighted values, not
recomputed from the columns)."""

from __future__ import annotations

import numpy as np
from deap import base
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.evolution.members import Member


@settings(max_examples=50, deadline=None)
@given(values=st.lists(st.one_of(st.none(), st.tuples(st.floats(allow_nan=False), st.floats(allow_nan=False))),
                       max_size=8))
def test_members_arrive_with_the_fitness_they_were_sent_with(values):
    from deap import creator
    from pipeline.islands.travel import pack_members, unpack_members

    if not hasattr(creator, "FitnessTravel"):
        creator.create("FitnessTravel", base.Fitness, weights=(1.0, -1.0))
    fitness = [creator.FitnessTravel(v) if v is not None else creator.FitnessTravel() for v in values]
    members = [Member(id=i, born=0, genome=np.zeros(3, bool), parents=[], origin="init", columns={"a": 1.0},
                      fitness=f) for i, f in enumerate(fitness)]
    got = unpack_members(pack_members(members), creator.FitnessTravel)
    assert [m.fitness.wvalues for m in got] == [f.wvalues for f in fitness]
    assert [m.fitness.valid for m in got] == [f.valid for f in fitness]
    assert all(a.fitness == b.fitness for a, b in zip(got, members) if a.fitness.valid)
    assert all(m.fitness is None for m in unpack_members(pack_members(members)))
