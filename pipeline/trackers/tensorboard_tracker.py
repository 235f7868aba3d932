"""TensorBoard: a run's generations as scalars in the run directory's tensorboard/
(tensorboardX writes the event files; `tensorboard --logdir runs/` shows every run).

Event files are only appended to, so a resume first reads back which steps they
hold (a record cut short by a kill ends the read) and sends only the others. A
fresh run (run.json records no TensorBoard folder yet) starts with no event file.
"""

from __future__ import annotations

import struct
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

__all__ = ["TensorBoardTracker", "logged_steps"]

FOLDER = "tensorboard"
_EVENT_FILES = "events.out.tfevents.*"


class TensorBoardTracker:
    name = "tensorboard"

    def __init__(self, run_dir: Path, record: dict[str, Any]) -> None:
        from tensorboardX import SummaryWriter

        self.folder = run_dir / FOLDER
        if "logdir" not in record:  # a fresh run: another run's events (--force) are not its own
            for stale in self.folder.glob(_EVENT_FILES):
                stale.unlink()
        self.logged = logged_steps(self.folder)
        # tensorboardX names a file by the second it opened: a resume within it would overwrite
        self.writer = SummaryWriter(str(self.folder), filename_suffix=f".{uuid.uuid4().hex[:8]}")
        self.record = {**record, "logdir": FOLDER}

    def send(self, step: int, metrics: dict[str, float]) -> None:
        sent = False
        for key, value in metrics.items():
            if step not in self.logged[key]:
                self.writer.add_scalar(key, value, step)
                self.logged[key].add(step)
                sent = True
        if sent:
            self.writer.flush()

    def close(self, failed: bool) -> None:
        self.writer.close()


def logged_steps(folder: Path) -> defaultdict[str, set[int]]:
    """Tag -> steps the folder's event files hold (TFRecord: length, its CRC, the Event, its CRC)."""
    from tensorboardX.proto.event_pb2 import Event

    steps: defaultdict[str, set[int]] = defaultdict(set)
    for file in sorted(folder.glob(_EVENT_FILES)):
        data, at = file.read_bytes(), 0
        while at + 12 <= len(data):
            (length,) = struct.unpack_from("<Q", data, at)
            end = at + 12 + length + 4
            if end > len(data):
                break  # the tail a kill cut short: never complete, so never shown
            try:
                event = Event.FromString(data[at + 12:at + 12 + length])
            except Exception:  # a garbled record: nothing after it is trusted
                break
            for value in event.summary.value:
                steps[value.tag].add(int(event.step))
            at = end
    return steps
