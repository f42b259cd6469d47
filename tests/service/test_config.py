"""Configuration fails fast on missing or malformed settings."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import pytest

from service.runtime.config import (
    Config,
    ConfigError,
    Local,
    WebhookSettings,
    WorkerConfig,
    child_environment,
)

GOOD = {"DATABASE_URL": "postgresql://x/y", "REDIS_URL": "redis://x", "BANCO_OPERATOR_KEY": "k" * 16}


def test_a_complete_environment_loads_with_defaults():
    config = Config.from_env(GOOD)
    assert config.max_body_bytes == 65536 and config.queue_name == "banco"
    assert config.idempotency_retention_s == 24 * 3600
    assert config.replica_url is None and config.replica_wait_ms == 200
    assert config.webhook_allow_networks == ()


def test_the_private_ranges_webhooks_may_reach_are_read():
    config = Config.from_env({**GOOD, "BANCO_WEBHOOK_ALLOW_NETWORKS": "10.8.0.0/16, fd00::/8,"})
    assert config.webhook_allow_networks == (ipaddress.ip_network("10.8.0.0/16"),
                                             ipaddress.ip_network("fd00::/8"))


def test_a_replica_and_its_wait_are_read():
    config = Config.from_env({**GOOD, "DATABASE_REPLICA_URL": "postgresql://r/y",
                              "BANCO_REPLICA_WAIT_MS": "50"})
    assert (config.replica_url, config.replica_wait_ms) == ("postgresql://r/y", 50)


@pytest.mark.parametrize("change", [
    {"DATABASE_URL": ""}, {"REDIS_URL": ""}, {"BANCO_OPERATOR_KEY": ""},
    {"BANCO_OPERATOR_KEY": "short"}, {"BANCO_MAX_BODY_BYTES": "lots"}, {"BANCO_POOL_SIZE": "0"},
    {"BANCO_IDEMPOTENCY_RETENTION_S": "a day"}, {"BANCO_REPLICA_WAIT_MS": "-1"},
    {"BANCO_WEBHOOK_ALLOW_NETWORKS": "10.0.0.1/8"}, {"BANCO_WEBHOOK_ALLOW_NETWORKS": "intranet"},
    {"BANCO_HEAD_TIMEOUT_S": "0"}, {"BANCO_BODY_TIMEOUT_S": "soon"},
])
def test_bad_settings_are_refused_by_name(change):
    with pytest.raises(ConfigError) as e:
        Config.from_env({**GOOD, **change})
    assert any(name in str(e.value) for name in change)


WORKER = {"DATABASE_URL": "postgresql://x/y", "REDIS_URL": "redis://x"}


def test_a_worker_reads_its_settings_without_an_operator_key():
    config = WorkerConfig.from_env({**WORKER, "BANCO_QUEUE": "q", "BANCO_SWEEP_EVERY_S": "0.5",
                                    "BANCO_SETTLE_GRACE_S": "0", "BANCO_CHECKPOINT_EVERY_S": "60",
                                    "BANCO_IDEMPOTENCY_RETENTION_S": "120",
                                    "BANCO_WEBHOOK_BACKOFF_S": "0.05", "BANCO_WEBHOOK_LEASE_S": "2",
                                    "BANCO_WEBHOOK_ALLOW_NETWORKS": "127.0.0.1/32",
                                    "BANCO_WEBHOOK_MAX_FAILURES": "4",
                                    "PROMETHEUS_MULTIPROC_DIR": "/run/banco-metrics"})
    assert (config.database_url, config.redis_url, config.queue_name) == \
        ("postgresql://x/y", "redis://x", "q")
    assert (config.sweep_every_s, config.settle_grace_s, config.checkpoint_every_s) == (0.5, 0.0, 60)
    assert config.idempotency_retention_s == 120 and config.metrics_dir == Path("/run/banco-metrics")
    assert config.webhooks == WebhookSettings(
        backoff_s=0.05, lease_s=2, max_failures=4,
        allow_networks=(ipaddress.ip_network("127.0.0.1/32"),))
    assert config.crash_point is None


def test_a_worker_has_the_defaults_of_the_readme():
    config = WorkerConfig.from_env(WORKER)
    assert (config.sweep_every_s, config.settle_grace_s, config.checkpoint_every_s) == (1.0, 10.0, 3600)
    assert config.webhooks == WebhookSettings(backoff_s=5, backoff_max_s=3600, max_failures=10,
                                              lease_s=30, timeout_s=10, allow_networks=())
    assert config.queue_name == "banco" and config.metrics_dir is None


def test_a_worker_takes_the_servers_the_command_line_found():
    config = WorkerConfig.from_env({})
    with pytest.raises(ConfigError, match="DATABASE_URL, REDIS_URL"):
        config.check_servers()
    found = config.with_servers("postgresql://found/db", "unix:///tmp/redis.sock")
    found.check_servers()
    assert (found.database_url, found.redis_url) == ("postgresql://found/db", "unix:///tmp/redis.sock")


@pytest.mark.parametrize("change", [
    {"BANCO_SWEEP_EVERY_S": "often"}, {"BANCO_SETTLE_GRACE_S": "-1"},
    {"BANCO_CHECKPOINT_EVERY_S": "hourly"}, {"BANCO_IDEMPOTENCY_RETENTION_S": "1"},
    {"BANCO_WEBHOOK_TIMEOUT_S": "slow"}, {"BANCO_WEBHOOK_BACKOFF_S": "nan"},
    {"BANCO_WEBHOOK_MAX_FAILURES": "0"}, {"BANCO_WEBHOOK_LEASE_S": "a while"},
    {"BANCO_WEBHOOK_ALLOW_NETWORKS": "intranet"}, {"REDIS_URL": "redis+sentinel://"},
    {"BANCO_RETIRED_SECRETS_RETENTION_DAYS": "0"}, {"BANCO_RETIRED_SECRETS_RETENTION_DAYS": "1y"},
])
def test_bad_worker_settings_are_refused_by_name(change):
    with pytest.raises(ConfigError) as e:
        WorkerConfig.from_env({**WORKER, **change})
    assert any(name in str(e.value) for name in change)


def test_the_workers_keep_retired_secrets_hashes_a_year_unless_told():
    assert WorkerConfig.from_env(WORKER).retired_secrets_retention_s == 365 * 24 * 3600
    told = WorkerConfig.from_env({**WORKER, "BANCO_RETIRED_SECRETS_RETENTION_DAYS": "30"})
    assert told.retired_secrets_retention_s == 30 * 24 * 3600


def test_the_api_reads_the_metrics_folder():
    assert Config.from_env(GOOD).metrics_dir is None
    assert Config.from_env({**GOOD, "PROMETHEUS_MULTIPROC_DIR": "/m"}).metrics_dir == Path("/m")


def test_the_command_line_reads_what_it_finds_its_servers_with():
    assert Local.from_env({}) == Local(data_dir=Path(".banco"), port="8000", database_url=None,
                                       redis_url=None, operator_key=None, queue_name="banco",
                                       metrics_dir=None)
    local = Local.from_env({"BANCO_DATA_DIR": "/srv/banco", "BANCO_PORT": "9000",
                            "DATABASE_URL": "postgresql://x/y", "BANCO_OPERATOR_KEY": "k" * 16,
                            "BANCO_QUEUE": "q"})
    assert (local.data_dir, local.port, local.database_url, local.redis_url) == \
        (Path("/srv/banco"), "9000", "postgresql://x/y", None)
    assert (local.operator_key, local.queue_name) == ("k" * 16, "q")


def test_a_child_process_is_told_its_settings_beside_this_ones(monkeypatch):
    monkeypatch.setenv("BANCO_QUEUE", "inherited")
    env = child_environment(BANCO_THREADS="64", DATABASE_URL="postgresql://child/db")
    assert (env["BANCO_QUEUE"], env["BANCO_THREADS"], env["DATABASE_URL"]) == \
        ("inherited", "64", "postgresql://child/db")
