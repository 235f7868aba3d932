"""Asking a cluster's GCS directly, outside Ray's own client: is it there, does it want a token.

Ray's driver cannot tell either. Given a token file it switches to token mode
whatever the cluster runs, and a cluster without authentication then rejects
nothing at first: its workers are refused by the driver ("Missing
authorization header") and every actor dies with no reason given. And when
the head or its GCS goes away, `ray.wait` just keeps timing out until Ray's
C++ core ends the process after `gcs_rpc_server_reconnect_timeout_s` (60 s).

One unauthenticated `GetClusterId` call answers both: OK means no
authentication, UNAUTHENTICATED means token mode, and no answer at all means
nothing is serving there. Import this only once Ray may be imported.
"""

from __future__ import annotations

import time

__all__ = ["OPEN", "TOKEN", "GCS_GRACE_SECONDS", "ClusterLost", "GcsWatch", "current_gcs", "gcs_answer"]

OPEN, TOKEN = "disabled", "token"  # the values of RAY_AUTH_MODE they stand for
GCS_GRACE_SECONDS = 10.0  # silence after which the cluster counts as lost (Ray gives up at 60)
PROBE_EVERY = 1.0  # seconds between liveness probes
PROBE_TIMEOUT = 2.0  # a busy GCS answers a GetClusterId in far less


class ClusterLost(ConnectionError):
    """The cluster's GCS stopped answering mid-run: one line, with how to go on once the
    runner knows the run directory and its last committed generation (`after`)."""

    def __init__(self, address: str, silence: float, run_dir: str | None = None,
                 generation: int | None = None) -> None:
        self.address, self.silence = address, silence
        quiet = f"its GCS has not answered for {silence:.0f} s"
        if run_dir is None:
            message = f"the Ray cluster at {address} was lost ({quiet})"
        else:
            done = f"after generation {generation}" if generation is not None else "before generation 0 was done"
            message = (f"the Ray cluster at {address} was lost {done} ({quiet}); once it is back, "
                       f"`evo resume {run_dir}` continues the run (`--address HOST:PORT` to resume on another)")
        super().__init__(message)

    def after(self, generation: int | None, run_dir: str) -> ClusterLost:
        return ClusterLost(self.address, self.silence, run_dir, generation)


def gcs_answer(address: str, timeout: float) -> str | None:
    """OPEN or TOKEN as the GCS at host:port answers a call without a token; None if it does not."""
    import grpc
    from ray.core.generated import gcs_service_pb2, gcs_service_pb2_grpc

    with grpc.insecure_channel(address) as channel:
        stub = gcs_service_pb2_grpc.NodeInfoGcsServiceStub(channel)
        try:
            stub.GetClusterId(gcs_service_pb2.GetClusterIdRequest(), timeout=timeout)
        except grpc.RpcError as error:
            return TOKEN if error.code() == grpc.StatusCode.UNAUTHENTICATED else None
    return OPEN


def current_gcs() -> str | None:
    """host:port of the GCS this driver is connected to (None for Ray Client)."""
    import ray
    from ray.util.client import ray as client

    if client.is_connected():  # the GCS is the server's business, maybe out of our reach
        return None
    try:
        return ray.get_runtime_context().gcs_address or None
    except Exception:  # noqa: BLE001 - no GCS address: nothing to watch
        return None


class GcsWatch:
    """Notices, while a pool waits on Ray, that the cluster's GCS has gone for good.

    `check()` is cheap to call often: it probes at most every PROBE_EVERY
    seconds and raises `ClusterLost` once the GCS has not answered for
    `grace` seconds, well before Ray's own timeout ends the process. A GCS
    that never answered a probe (TLS, a route only Ray knows) is never
    judged: silence means something only after an answer.
    """

    def __init__(self, address: str | None, grace: float = GCS_GRACE_SECONDS) -> None:
        self.address = address
        self.grace = grace
        self.lost = False
        self._answered: float | None = None
        self._probed = 0.0

    def check(self) -> None:
        now = time.monotonic()
        if self.address is None or now - self._probed < PROBE_EVERY:
            return
        self._probed = now
        if gcs_answer(self.address, timeout=PROBE_TIMEOUT) is not None:
            self._answered = time.monotonic()
        elif self._answered is not None and now - self._answered >= self.grace:
            self.lost = True
            raise ClusterLost(self.address, now - self._answered)
