"""Contract fuzzing: schemathesis drives the committed openapi.yaml against the app, as the
operator, a player and an auditor. No 5xx, every response as the spec says, every 4xx a problem.

`BANCO_FUZZ_EXAMPLES` sets the examples per operation (default 10; `make`-style long run: 500).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests.service.conftest import OPERATOR, bearer

SPEC = Path(__file__).resolve().parents[2] / "openapi.yaml"
EXAMPLES = int(os.environ.get("BANCO_FUZZ_EXAMPLES", "10"))


@pytest.fixture
def callers(client, new_player) -> list[dict[str, str]]:
    player = new_player("Fuzz", deposit=100)
    auditor = client.post("/v1/auditors", json={"name": "fuzz"}, headers=OPERATOR).json["token"]
    return [OPERATOR, player.auth, bearer(auditor)]


def operations():
    schema = schemathesis.openapi.from_path(SPEC)
    return [result.ok() for result in schema.get_all_operations()]


@pytest.mark.parametrize("operation", operations(), ids=lambda op: op.label)
def test_the_api_keeps_its_contract(app, callers, operation):
    operation.schema.app = app
    checked = []

    @given(case=operation.as_strategy())
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck),
              phases=[Phase.explicit, Phase.generate])
    def fuzz(case) -> None:
        for headers in callers:
            response = case.call(headers=headers, app=app)
            assert response.status_code < 500, (case.method, case.formatted_path, response.text)
            if response.status_code >= 400:
                content_type = response.headers.get("content-type", [""])[0]
                assert content_type.startswith("application/problem+json"), (
                    case.method, case.formatted_path, response.status_code, response.text)
            # Valid by schema is not valid by rule (a game's options, a wallet's balance), so
            # schema-valid requests may be refused with 4xx: that one check does not apply.
            case.validate_response(response, headers=headers, transport_kwargs={"app": app},
                                   excluded_checks=[positive_data_acceptance])
            checked.append(response.status_code)

    fuzz()
    assert checked
