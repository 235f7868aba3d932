"""Connecting to Ray: an embedded instance on loopback, or an existing cluster.

Ray reads `RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER` once, when it is imported; set to
"0" it makes a local Ray (and `ray.cluster_utils.Cluster`) use 127.0.0.1. We
set it (unless the user did) before our first import of Ray when we are about
to start an embedded instance; a cluster connection leaves it alone.
"""

from __future__ import annotations

import logging
import os
import sys
from types import ModuleType

LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def import_ray(loopback: bool) -> ModuleType:
    """Import Ray, on loopback if it is not imported yet and `loopback` is asked."""
    if loopback and "ray" not in sys.modules:
        os.environ.setdefault(LOOPBACK_ENV, "0")
    import ray

    return ray


def start_local_ray(num_cpus: int) -> None:
    """Start an embedded Ray: loopback, no dashboard, worker output kept out of the terminal."""
    ray = import_ray(loopback=True)
    # address="local": always a new instance, never one found on the machine.
    ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, log_to_driver=False,
             logging_level=logging.WARNING)


def connect(address: str | None, num_cpus: int) -> bool:
    """Make sure this process is a Ray driver; True if this call initialised Ray.

    An already initialised Ray (a test session, a notebook) is reused whatever
    `address` says. `address=None` starts an embedded Ray with `num_cpus`;
    anything else ("auto", "ray://host:10001", "host:6379") connects to a cluster.
    """
    ray = import_ray(loopback=address is None)
    if ray.is_initialized():
        return False
    if address is None:
        start_local_ray(num_cpus)
    else:
        ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
    return True
