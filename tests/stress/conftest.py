"""The stress suite uses the service tests' fixtures: real PostgreSQL, Redis and workers."""

from tests.service.conftest import (  # noqa: F401
    app,
    client,
    config,
    house_key_file,
    new_player,
    worker,
)
