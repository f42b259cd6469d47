"""The stress suite uses the service tests' fixtures: real PostgreSQL, Redis and workers."""

from tests.service.conftest import app, client, config, new_player, worker  # noqa: F401
