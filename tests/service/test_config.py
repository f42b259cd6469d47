"""Configuration fails fast on missing or malformed settings."""

from __future__ import annotations

import ipaddress

import pytest

from service.runtime.config import Config, ConfigError

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
