"""Connecting to Ray: an embedded instance on loopback, or an existing cluster.

Ray reads `RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER` once, when it is imported; set to
"0" it makes a local Ray (and `ray.cluster_utils.Cluster`) use 127.0.0.1, and
keeps a driver from rewriting a loopback cluster address into the machine's
outward address. We set it (unless the user did) before our first import of
Ray when we start an embedded instance or join a cluster on loopback.

Since Ray 2.60 `ray start --head` turns token authentication on when it
finds a token, and a cluster may run with or without it. A driver must use the
cluster's mode: in token mode against a cluster without authentication every
actor dies, and Ray says why only in its driver log. So before `ray.init` we
ask the GCS (`ray_gcs.gcs_answer`) and set RAY_AUTH_MODE to what it uses (the
token then comes from `RAY_AUTH_TOKEN`, `RAY_AUTH_TOKEN_PATH` or
`~/.ray/auth_token`, as Ray documents); a mode the user set that the cluster
does not use is refused in one line. A GCS that cannot be asked (TLS, Ray
Client) leaves Ray's own rule: token mode when a token is at hand.

A wrong address makes `ray.init` retry for minutes, so joining a cluster has a
deadline: the address must answer a TCP connection, then `ray.init` must
return, both within `timeout` seconds, or `ClusterUnreachable` says what to check.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Iterator

from ..sigterm import after_ray_init

__all__ = ["ClusterUnreachable", "connect", "cluster_address", "import_ray", "start_local_ray", "DEFAULT_CONNECT_TIMEOUT"]

LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
AUTH_MODE_ENV = "RAY_AUTH_MODE"
DEFAULT_CONNECT_TIMEOUT = 30.0
_LOOPBACK_HOSTS = {"localhost", "::1", "[::1]"}


class ClusterUnreachable(ConnectionError):
    """The cluster at the given address did not accept this driver in time (one line)."""


def import_ray(loopback: bool) -> ModuleType:
    """Import Ray, on loopback if it is not imported yet and `loopback` is asked."""
    if loopback and "ray" not in sys.modules:
        os.environ.setdefault(LOOPBACK_ENV, "0")
    import ray

    return ray


def start_local_ray(num_cpus: int) -> None:
    """Start an embedded Ray: loopback, no dashboard, worker output kept out of the terminal.

    Token mode is asked for explicitly: it is Ray's default anyway, and asking
    keeps Ray from warning about it on every run.
    """
    if AUTH_MODE_ENV not in os.environ:
        _set_auth_mode("token")
    ray = import_ray(loopback=True)
    # address="local": always a new instance, never one found on the machine.
    ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, log_to_driver=False,
             logging_level=logging.WARNING)
    after_ray_init()  # evo's SIGTERM handler back in place of Ray's, which aborts a slow stop


def cluster_address(address: str | None) -> str | None:
    """The cluster a run joins: `address`, else the one Ray Jobs gives its drivers (RAY_ADDRESS)."""
    return address or os.environ.get("RAY_ADDRESS") or None


def connect(address: str | None, num_cpus: int, timeout: float = DEFAULT_CONNECT_TIMEOUT) -> bool:
    """Make sure this process is a Ray driver; True if this call initialised Ray.

    An already initialised Ray (a test session, a notebook) is reused whatever
    `address` says. No address (and no RAY_ADDRESS) starts an embedded Ray with
    `num_cpus`, or reuses the one kept warm (`ray_embedded`); anything else ("auto", "ray://host:10001", "host:6379") joins
    that cluster within `timeout` seconds or raises `ClusterUnreachable`.
    """
    from .ray_embedded import embedded_ray, is_ours, shutdown_embedded

    address = cluster_address(address)
    if address is None:
        ray = import_ray(loopback=True)
        if ray.is_initialized() and not is_ours():
            return False
        return embedded_ray(num_cpus, start_local_ray)
    host, port = _host_port(address)
    ray = import_ray(loopback=host is not None and _is_loopback(host))
    shutdown_embedded()  # our warm embedded Ray gives way to the cluster
    if ray.is_initialized():
        return False
    deadline = time.monotonic() + timeout
    if host is not None:
        _check_reachable(address, host, port, timeout)
    _use_cluster_auth_mode(address, _gcs_of(address, host, port), timeout)
    _init_within(ray, address, deadline, timeout)
    after_ray_init()
    return True


def _host_port(address: str) -> tuple[str | None, int | None]:
    """(host, port) of "host:port" or "ray://host:port"; (None, None) for "auto" and the like."""
    rest = address.split("://", 1)[1] if "://" in address else address
    host, sep, port = rest.rpartition(":")
    if not sep or not host:
        return None, None
    try:
        return host, int(port)
    except ValueError:
        return host, None


def _is_loopback(host: str) -> bool:
    return host in _LOOPBACK_HOSTS or host.startswith("127.")


_WHERE = ("check that `ray start --head` runs there and the host and port "
          "(--port of `ray start`, default 6379; Ray Client: ray://host:10001)")
_TOKEN = ("check that this machine has the cluster's token (in ~/.ray/auth_token, RAY_AUTH_TOKEN_PATH or "
          "RAY_AUTH_TOKEN; `ray get-auth-token` on the head prints it) and the same Ray version as the cluster")


def _check_reachable(address: str, host: str, port: int | None, timeout: float) -> None:
    """Fail fast, in one line, when nothing listens at the address."""
    if port is None:
        raise ClusterUnreachable(f"cannot join the Ray cluster at {address!r}: not host:port; {_WHERE}")
    try:
        with socket.create_connection((host.strip("[]"), port), timeout=timeout):
            pass
    except socket.timeout:
        raise ClusterUnreachable(
            f"cannot reach the Ray cluster at {address} (no answer within {timeout:g} s): {_WHERE}") from None
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise ClusterUnreachable(f"cannot reach the Ray cluster at {address} ({reason}): {_WHERE}") from None


def _use_cluster_auth_mode(address: str, gcs: str | None, timeout: float) -> None:
    """Set RAY_AUTH_MODE to what the cluster at `gcs` uses; refuse a mode set by the user that it does not."""
    from .ray_gcs import OPEN, TOKEN, gcs_answer

    cluster = gcs_answer(gcs, min(timeout, 10.0)) if gcs else None
    chosen = os.environ.get(AUTH_MODE_ENV, "").lower() or None
    if cluster is None:  # cannot tell: Ray's rule, token mode when a token is at hand
        if chosen is None and _token_at_hand():
            _set_auth_mode(TOKEN)
    elif chosen is None:
        _set_auth_mode(cluster)
    elif chosen in (OPEN, TOKEN) and chosen != cluster:
        uses = "uses token authentication" if cluster == TOKEN else "runs without authentication"
        raise ClusterUnreachable(f"the Ray cluster at {address} {uses} but {AUTH_MODE_ENV}={chosen} here: "
                                 f"unset {AUTH_MODE_ENV} (evo then uses the cluster's mode)")


def _gcs_of(address: str, host: str | None, port: int | None) -> str | None:
    """host:port of the cluster's GCS ("auto": RAY_ADDRESS, else this machine's); None for Ray Client
    or when unsure."""
    if address.startswith("ray://"):
        return None
    if host is not None:
        return f"{host}:{port}"
    try:
        from ray._private.services import canonicalize_bootstrap_address

        return canonicalize_bootstrap_address(address)
    except Exception:  # noqa: BLE001 - a private Ray helper: any failure means "cannot tell"
        return None


def _token_at_hand() -> bool:
    path = os.environ.get("RAY_AUTH_TOKEN_PATH")
    return bool(os.environ.get("RAY_AUTH_TOKEN")) or Path(path or Path.home() / ".ray" / "auth_token").is_file()


def _set_auth_mode(mode: str) -> None:
    """Set Ray's authentication mode for this process and its children."""
    os.environ[AUTH_MODE_ENV] = mode
    if "ray._raylet" in sys.modules:  # Ray caches its config once imported: make it see the new mode
        from ray._raylet import Config

        Config.initialize("")


def _init_within(ray: ModuleType, address: str, deadline: float, timeout: float) -> None:
    """`ray.init(address)` in a daemon thread, its C++ retry warnings kept out of the terminal."""
    outcome: dict[str, BaseException | None] = {}

    def join() -> None:
        try:
            ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
            outcome["error"] = None
        except BaseException as error:  # noqa: BLE001 - reported below, in one line
            outcome["error"] = error

    with _stderr_aside() as aside:
        thread = threading.Thread(target=join, name="ray-connect", daemon=True)
        thread.start()
        thread.join(max(0.0, deadline - time.monotonic()))
    if outcome.get("error", True) is None:
        os.unlink(aside)
    if "error" not in outcome:
        raise ClusterUnreachable(
            f"no answer from the Ray cluster at {address} within {timeout:g} s (--connect-timeout): "
            f"{_WHERE}; {_TOKEN}; Ray's messages: {aside}")
    error = outcome["error"]
    if error is not None:
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise ClusterUnreachable(f"cannot join the Ray cluster at {address}: {first}; {_TOKEN}; Ray's messages: {aside}") from None


@contextmanager
def _stderr_aside() -> Iterator[str]:
    """Send file descriptor 2 (where Ray's C++ core logs) to a temporary file for a while."""
    handle = tempfile.NamedTemporaryFile(prefix="evo-ray-connect-", suffix=".log", delete=False)
    sys.stderr.flush()
    saved = os.dup(2)
    os.dup2(handle.fileno(), 2)
    try:
        yield handle.name
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        handle.close()
