"""Contract fuzzing: schemathesis drives the committed openapi.yaml against the app, as the
operator, a player and an auditor. No 5xx, every 4xx a problem, and every response as the spec
says: schemathesis's checks but positive_data_acceptance, among them status_code_conformance
(each operation lists its statuses, with no `default` that would pass any),
response_headers_conformance (ETag, Retry-After, WWW-Authenticate where declared required) and
content_type_conformance (CSV, NDJSON, SVG, event streams, problem+json).

`BANCO_FUZZ_EXAMPLES` sets the examples per operation (default 10; `make`-style long run: 500).

Each operation's strings are drawn from `FUZZ_CODEC`'s characters, lone surrogates among them:
a client may send `"\\ud800"` in JSON, and schemathesis's default codec (UTF-8) never draws one.
"""

from __future__ import annotations

import codecs
import copy
import os
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.stateful import run_state_machine_as_test
from schemathesis.specs.openapi.checks import (
    positive_data_acceptance,
    response_schema_conformance,
)

from tests.service.conftest import OPERATOR, Player, bearer
from tests.service.play import Session

SPEC = Path(__file__).resolve().parents[2] / "openapi.yaml"
EXAMPLES = int(os.environ.get("BANCO_FUZZ_EXAMPLES", "10"))

# Hypothesis draws a string's characters from those its codec encodes, a fifth of them uniformly
# past the first 256: from all of Unicode a lone surrogate would be one character in 2,700, so
# the alphabet is kept small enough for them to be one in ten. It holds text of every UTF-8
# length too: Latin, Greek, Cyrillic, Hebrew and Arabic (2 bytes), kana (3), and playing cards
# (4, a surrogate pair in JSON, which must pass where a lone surrogate must not).
FUZZ_CODEC = "banco_fuzz"
_ALPHABET = ((0, 0x7FF), (0x3040, 0x30FF), (0xD800, 0xDFFF), (0x1F0A0, 0x1F0FF))


def _fuzz_codec(name: str) -> codecs.CodecInfo | None:
    def encode(text: str, errors: str = "strict") -> tuple[bytes, int]:
        for i, char in enumerate(text):
            if not any(low <= ord(char) <= high for low, high in _ALPHABET):
                raise UnicodeEncodeError(FUZZ_CODEC, text, i, i + 1, "not in the fuzz's alphabet")
        return text.encode("utf-8", "surrogatepass"), len(text)

    def decode(data: bytes, errors: str = "strict") -> tuple[str, int]:
        return bytes(data).decode("utf-8", "surrogatepass"), len(data)

    return codecs.CodecInfo(encode, decode, name=FUZZ_CODEC) if name == FUZZ_CODEC else None


codecs.register(_fuzz_codec)


@pytest.fixture
def callers(client, new_player) -> list[dict[str, str]]:
    player = new_player("Fuzz", deposit=100)
    auditor = client.post("/v1/auditors", json={"name": "fuzz"}, headers=OPERATOR).json["token"]
    return [OPERATOR, player.auth, bearer(auditor)]


def operations():
    schema = schemathesis.openapi.from_path(SPEC)
    schema.config.generation.update(codec=FUZZ_CODEC)
    return [result.ok() for result in schema.get_all_operations()]


@pytest.mark.parametrize("operation", operations(), ids=lambda op: op.label)
def test_the_api_keeps_its_contract(app, callers, operation):
    operation.schema.app = app
    checked = []

    @given(case=operation.as_strategy())
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck),
              phases=[Phase.explicit, Phase.generate])
    def fuzz(case) -> None:
        # A stream that is answered lasts its `timeout` (60 s when not given, up to 600 s):
        # what it sends, and how, shows within a fraction of a second.
        timeout = (case.query or {}).get("timeout", 60)
        if case.path.endswith("/stream") and isinstance(timeout, int | float) and timeout > 0.2:
            case.query = {**(case.query or {}), "timeout": 0.2}
        for headers in callers:
            response = case.call(headers=headers, app=app)
            assert response.status_code < 500, (case.method, case.formatted_path, response.text)
            if response.status_code >= 400:
                content_type = response.headers.get("content-type", [""])[0]
                assert content_type.startswith("application/problem+json"), (
                    case.method, case.formatted_path, response.status_code, response.text)
            # Valid by schema is not valid by rule (a game's options, a wallet's balance), so
            # schema-valid requests may be refused with 4xx: that one check does not apply.
            excluded = [positive_data_acceptance]
            if case.path.endswith("/stream"):
                # schemathesis checks each Server-Sent Event's data as plain JSON Schema, blind
                # to OpenAPI 3.0's `nullable`, and refuses an event's null `hand`. Every stream
                # message the suite reads is checked against the spec by an OpenAPI 3.0
                # validator instead (tests/service/conftest.py).
                excluded.append(response_schema_conformance)
            case.validate_response(response, headers=headers, transport_kwargs={"app": app},
                                   excluded_checks=excluded)
            checked.append(response.status_code)

    fuzz()
    assert checked


def test_the_api_keeps_its_contract_along_its_links(app):
    """Stateful: sequences of calls that follow the links (a player created, then credited,
    debited, read, given a token and erased; an operator key made, then read, rotated and
    revoked; an auditor made, then read, given a new token and his token revoked; a table
    opened, then dealt and read), as the operator."""
    # Its own strings stay UTF-8: drawing invalid queries, schemathesis (4.32) encodes them as
    # UTF-8 and fails on a lone surrogate itself. The test above sends them.
    schema = schemathesis.openapi.from_path(SPEC)
    # Every call carries the operator's token (below): a case generated without it, or with a
    # broken one, would be sent with it all the same and then be taken for accepted bad input.
    schema.config.generation.update(with_security_parameters=False)
    # The links are the spec's own, each from a resource the same run created. Those schemathesis
    # infers besides come from lists of the whole database (`GET /v1/keys`'s first key, then its
    # rotation): what one run did changes what the next is offered (a key rotated by one is
    # revoked for the next, which gets a 409 where it got a 200), and hypothesis, replaying a run's
    # draws, stops on a generation that depends on state outside them (FlakyStrategyDefinition).
    schema.config.phases.stateful.inference.algorithms = []
    schema.app = app
    calls: list[tuple[str, str, int]] = []

    class Machine(schema.as_state_machine()):  # type: ignore[misc]
        def get_call_kwargs(self, case: Any) -> dict[str, Any]:
            return {"app": app, "headers": OPERATOR}

        def before_call(self, case: Any) -> None:
            # Derandomized runs draw the same keys again, and a key is answered by what it was
            # first sent with: a run would then follow other links than the run before it.
            if case.headers:
                case.headers.pop("Idempotency-Key", None)

        def validate_response(self, response: Any, case: Any, **kwargs: Any) -> None:
            assert response.status_code < 500, (case.method, case.formatted_path, response.text)
            calls.append((case.method, case.path, response.status_code))
            case.validate_response(response, headers=OPERATOR, transport_kwargs={"app": app},
                                   excluded_checks=[positive_data_acceptance])

    # Derandomized: with a handful of short runs, a random draw can now and then follow no link
    # to a 200 at all, and the check below must not depend on luck. Which draws a seed gives
    # changes with hypothesis's and schemathesis's releases (unpinned) and with the contract:
    # ten runs followed no link with hypothesis 6.170 and schemathesis 4.32.5, 25 do.
    run_state_machine_as_test(Machine, settings=settings(
        max_examples=max(EXAMPLES, 25), stateful_step_count=6, deadline=None,
        suppress_health_check=list(HealthCheck), derandomize=True))
    followed = {(m, p) for m, p, status in calls if status == 200 and "{" in p}
    assert followed, "some call used an id a previous response gave (a link)"


PLAYED = [("sette-e-mezzo", {}, 50, 3), ("siete-y-media", {}, 50, 3), ("casino-pirate", {}, None, 3),
          ("pirate-pairs", {}, 40, 3), ("cassino", {"variant": "draw"}, 30, 2)]


class Checked(Session):
    """A session that holds every table it is shown to the committed spec."""

    operations: dict[tuple[str, str], Any]
    checked: int = 0

    def call(self, player: Player, method: str, path: str, **kwargs: Any) -> Any:
        r = super().call(player, method, path, **kwargs)
        route = re.sub(r"^/v1/tables/[^/]+", "/v1/tables/{table_id}", path)
        operation = self.operations.get((route, method))
        if operation is not None and r.status_code < 300:
            operation.validate_response(r)
            self.checked += 1
        return r


@pytest.mark.parametrize(("game", "options", "buy_in", "players"), PLAYED, ids=[g for g, *_ in PLAYED])
def test_every_table_shown_in_a_hand_keeps_its_games_schema(client, new_player, game, options,
                                                           buy_in, players):
    """The fuzz draws no hand in play, so a hand of each game is played and each table the
    players are shown (its `view` and `legal_actions`) is held to the spec: a wrong view (a
    field more, one less, a value of the wrong kind) is refused, as the free-form object the
    spec said before let anything through."""
    schema = schemathesis.openapi.from_path(SPEC)
    table = schema["/v1/tables/{table_id}"]["GET"]
    session = Checked(client, game, [new_player(f"P{i}", deposit=100) for i in range(players)])
    session.operations = {("/v1/tables/{table_id}", "get"): table,
                          ("/v1/tables/{table_id}/actions", "post"):
                              schema["/v1/tables/{table_id}/actions"]["POST"]}
    session.open(options, buy_in)
    session.deal()
    session.play_hand()
    assert session.checked > 3

    shown = client.get(f"/v1/tables/{session.table_id}", headers=session.players[0].auth)
    body = shown.json
    assert body["view"]["game"] == game
    wrong = [lambda v: v.update(secret=1), lambda v: v.pop("commitment"),
             lambda v: v.update(commitment=1), lambda v: v.update(game="another")]
    for spoil in wrong:
        view = copy.deepcopy(body["view"])
        spoil(view)
        shown.set_data(orjson.dumps({**body, "view": view}))
        assert not table.is_valid_response(shown), spoil
    offered = {**body, "legal_actions": [{"type": "hit", "card": "7.3"}]}
    shown.set_data(orjson.dumps(offered))
    assert not table.is_valid_response(shown)
