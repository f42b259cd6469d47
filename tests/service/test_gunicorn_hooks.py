"""gunicorn's server hooks, as its master calls them."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from prometheus_client import multiprocess

from service.http import gunicorn_hooks


def test_a_worker_that_ends_without_a_metrics_folder_does_not_end_the_master(monkeypatch):
    """gunicorn run with the hooks but no PROMETHEUS_MULTIPROC_DIR (as the benchmarks run it):
    a worker's death made `child_exit` raise, and the exception ended the master with every
    worker and connection it held. Without a folder there is nothing to mark."""
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR", raising=False)
    with pytest.raises(TypeError):  # what the hook used to call, as it called it
        multiprocess.mark_process_dead(12345)
    gunicorn_hooks.child_exit(None, SimpleNamespace(pid=12345))


def test_a_worker_that_ends_has_its_live_gauges_dropped(monkeypatch, tmp_path):
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    live = tmp_path / "gauge_livesum_12345.db"
    kept = tmp_path / "counter_12345.db"
    live.write_bytes(b"")
    kept.write_bytes(b"")
    gunicorn_hooks.child_exit(None, SimpleNamespace(pid=12345))
    assert not live.exists() and kept.exists()


def test_a_worker_that_crashes_says_where_its_threads_were():
    """A gunicorn worker died of SIGSEGV under the benchmarks' load, saying nothing of where."""
    import faulthandler

    faulthandler.disable()
    gunicorn_hooks.post_worker_init(SimpleNamespace())
    assert faulthandler.is_enabled()
