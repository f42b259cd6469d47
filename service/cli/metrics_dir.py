"""The folder the processes of one machine write their metrics to (`service.runtime.metrics`)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from service.runtime.config import METRICS_DIR

VARIABLE = METRICS_DIR


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def prepare(path: Path) -> Path:
    """Make the folder, and remove the files of processes no longer running: the counts of an
    earlier start would otherwise be added to this one's. A worker already running and writing
    there (`banco worker`, started first) keeps its files."""
    path.mkdir(parents=True, exist_ok=True)
    for file in path.glob("*.db"):
        pid = file.stem.rsplit("_", 1)[-1]
        if not pid.isdigit() or not _running(int(pid)):
            file.unlink(missing_ok=True)
    return path


def chosen(named: Path | None, default: Path | None = None) -> Path:
    """The folder `named` (`PROMETHEUS_MULTIPROC_DIR`), else `default`, else a new temporary
    one; prepared, for the processes this one starts (given it as `VARIABLE`)."""
    if named is not None:
        path = named
    elif default is not None:
        path = default
    else:
        path = Path(tempfile.mkdtemp(prefix="banco-metrics-"))
    return prepare(path)
