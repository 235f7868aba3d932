"""What a run leaves on disk and how it is read back: the run directory, its writer
lock, the log's schema, the recorder that commits each generation, and the
verification that resume runs before trusting any of it."""

from .lock import RunLock, RunLocked
from .recorder import Recorder
from .rundir import RunDir, RunDirError, atomic_write_json, describe_os_error, file_metadata, package_versions
from .schema import Schema
from .verify import Recovered, check_identity, recover

__all__ = ["Recorder", "Recovered", "RunDir", "RunDirError", "RunLock", "RunLocked", "Schema", "atomic_write_json",
           "check_identity", "describe_os_error", "file_metadata", "package_versions", "recover"]
