"""Pipeline fixtures. Ray takes seconds to start, so one instance serves the whole session."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import pytest

# Logical CPUs of the session Ray: more than the 2 cores, so a few small actor
# pools (and the replacements of killed actors) can exist at the same time.
SESSION_CPUS = 4


@pytest.fixture(scope="session")
def ray_session() -> Iterator[ModuleType]:
    """The `ray` module, initialised on loopback for the session (reused if already up)."""
    from pipeline.evaluation.ray_connect import import_ray, start_local_ray
    from pipeline.evaluation.ray_embedded import shutdown_embedded

    ray = import_ray(loopback=True)
    shutdown_embedded()  # an earlier test's warm embedded Ray: the session's is a user's Ray, 4 CPUs
    started = not ray.is_initialized()
    if started:
        start_local_ray(SESSION_CPUS)
    yield ray
    if started:
        ray.shutdown()
