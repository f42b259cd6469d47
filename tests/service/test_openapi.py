"""`openapi.yaml` is generated from the code: it must not drift and must be valid OpenAPI."""

from __future__ import annotations

from pathlib import Path

import yaml
from openapi_spec_validator import validate

from service.http.spec import generate

COMMITTED = Path(__file__).resolve().parents[2] / "openapi.yaml"


def test_committed_openapi_matches_the_code():
    assert COMMITTED.read_text() == generate(), "run `banco openapi write` and commit openapi.yaml"


def test_openapi_is_valid():
    validate(yaml.safe_load(COMMITTED.read_text()))


# The reference itself (the contract, Swagger UI, its assets, `/`) is left out of the contract.
REFERENCE = ("static", "api-docs.", "reference.")


def test_every_route_of_the_app_is_documented(app):
    documented = set(yaml.safe_load(COMMITTED.read_text())["paths"])
    routes = {str(rule).replace("<", "{").replace(">", "}") for rule in app.url_map.iter_rules()
              if not rule.endpoint.startswith(REFERENCE)}
    assert routes == documented
