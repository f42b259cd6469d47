"""A client generated from openapi.yaml by openapi-python-client plays a hand of every game and
variant against `banco run` (the API and a worker on the session's servers): what a third party
gets from the spec alone is enough to play, and the typed models read every table it is shown."""

from __future__ import annotations

import importlib
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.test_cli import banco_running

ROOT = Path(__file__).resolve().parents[2]
GAMES = [("sette-e-mezzo", {}, 50, 3), ("siete-y-media", {}, 50, 3), ("casino-pirate", {}, None, 3),
         ("pirate-pairs", {"stake": 5}, 40, 3), ("cassino", {"variant": "classic"}, 30, 2),
         ("cassino", {"variant": "spades"}, 30, 2), ("cassino", {"variant": "draw"}, 30, 2)]


@pytest.fixture(scope="module")
def banco(database_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
          ) -> Iterator[tuple[str, str]]:
    """`banco run` with one worker on the session's servers: its URL and operator key."""
    with banco_running(tmp_path_factory.mktemp("banco") / "data", database_url,
                       redis_url,
                       # The limits have tests of their own. The operator's budget is one
                       # counter in Redis whoever holds the key: at the default, the `banco run`
                       # of another test file just before on the same worker would share it.
                       BANCO_RATE_LIMIT="100000/minute") as running:
        yield running


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The client openapi-python-client generates from the committed spec, imported."""
    folder = tmp_path_factory.mktemp("client")
    tool = Path(sys.executable).parent / "openapi-python-client"
    # The committed spec as it is, nothing rewritten: openapi-python-client reads OpenAPI
    # 3.0.3 by its letter (`nullable` beside an `allOf` reference once made it refuse null).
    run = subprocess.run([str(tool), "generate", "--path", str(ROOT / "openapi.yaml"),
                          "--output-path", str(folder / "banco_client"), "--meta", "none"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    sys.path.insert(0, str(folder))
    try:
        return importlib.import_module("banco_client")
    finally:
        sys.path.remove(str(folder))


def api(tag: str, operation: str) -> Any:
    """An operation's module: its sync_detailed sends the request and parses the response."""
    return importlib.import_module(f"banco_client.api.{tag}.{operation}").sync_detailed


def models() -> Any:
    return importlib.import_module("banco_client.models")


def action_for(offer: Any, rng: random.Random) -> Any:
    """The typed action model for an offered one: its ranges chosen, the rest as offered."""
    data = offer.to_dict()
    sent: dict[str, Any] = {}
    for key, value in data.items():
        if key == "declare":
            sent[key] = {card: rng.randint(r["min"], r["max"]) for card, r in value.items()}
        elif isinstance(value, dict):
            sent[key] = rng.randint(value["min"], value["max"])
        else:
            sent[key] = value
    name = "".join(w.title() for w in data["type"].split("_")) + "Action"
    return getattr(models(), name).from_dict(sent)


def ok(response: Any, status: int) -> Any:
    assert response.status_code == status, response.content
    return response.parsed


@pytest.mark.parametrize(("game", "options", "buy_in", "players"), GAMES,
                         ids=[f"{g}-{o.get('variant', '')}" for g, o, _, _ in GAMES])
def test_a_generated_client_plays_audits_every_game(banco, generated, game: str,
                                                    options: dict[str, Any], buy_in: int | None,
                                                    players: int):
    with ExitStack() as stack:
        play(banco, generated, stack, game, options, buy_in, players)


def play(banco: tuple[str, str], generated: ModuleType, stack: ExitStack, game: str,
         options: dict[str, Any], buy_in: int | None, players: int) -> None:
    """Players registered, funded and seated, a hand dealt and played to its settlement, each
    move one of `legal_actions` sent as its typed model; then an auditor reads the replay."""
    url, key = banco
    m, rng = models(), random.Random(11)

    def connect(token: str) -> Any:
        return stack.enter_context(generated.AuthenticatedClient(base_url=url, token=token))

    operator = connect(key)

    clients, joined = [], []
    for i in range(players):
        made = ok(api("players", "create_player")(
            client=operator, body=m.PlayerCreate(name=f"P{i}")), 201)
        ok(api("players", "create_deposit")(
            made.player.id, client=operator, body=m.Transfer(amount=100, reason="desk")), 201)
        clients.append(connect(made.token))
    body = m.TableCreate(game=game, options=m.TableCreateOptions.from_dict(options))
    table_id = ok(api("tables", "create_table")(client=operator, body=body), 201).id
    for i, player in enumerate(clients):
        join = m.Join(buy_in=buy_in, age=20 + i, seed=f"seed-{i}")
        joined.append(ok(api("tables", "join_table")(
            table_id, client=player, body=join), 201))
    # A table never dealt: no hand, no turn, no view (each null, which the models take).
    open_table = ok(api("tables", "get_table")(table_id, client=operator), 200)
    assert (open_table.hand, open_table.turn, open_table.view) == (None, None, None)
    hand_id = ok(api("tables", "deal_hand")(table_id, client=operator),
                 201).hand.id

    view_model = {"sette-e-mezzo": m.SetteEMezzoView, "siete-y-media": m.SieteYMediaView,
                  "casino-pirate": m.CasinoPirateView, "pirate-pairs": m.PiratePairsView,
                  "cassino": m.CassinoView}[game]
    moves = 0
    for _ in range(2000):
        shown = [ok(api("tables", "get_table")(table_id, client=c), 200)
                 for c in clients]
        # A table over has no hand in view (Pirate pairs ends its table with the hand, and the worker
        # may have settled it by this read); any view shown is the game's typed one.
        assert all(isinstance(t.view, view_model) for t in shown if t.view is not None), \
            [t.view for t in shown]
        assert shown[0].status != "playing" or all(t.view is not None for t in shown)
        if shown[0].status != "playing":
            break
        i = next(i for i, t in enumerate(shown) if t.legal_actions)
        action = action_for(rng.choice(shown[i].legal_actions), rng)
        ok(api("tables", "act_on_table")(table_id, client=clients[i], body=action,
                                          if_match=f'"{shown[i].version}"'), 200)
        moves += 1
    assert moves and shown[0].status != "playing"

    deadline = time.monotonic() + 30
    while (hand := ok(api("hands", "get_hand")(hand_id, client=operator),
                      200)).status != "settled":
        assert time.monotonic() < deadline, "the worker did not settle the hand"
        time.sleep(0.1)
    assert hand.settled_at is not None

    token = ok(api("auditors", "create_auditor")(
        client=operator, body=m.AuditorCreate(name="Eve")), 201).token
    auditor = connect(token)
    replay = ok(api("hand_audit", "get_hand_replay")(hand_id,
                                                                            client=auditor), 200)
    assert replay.hand_id == hand_id and replay.game == game
    kinds = [s.type_ for s in replay.steps]
    assert kinds[0] == "HandBegan" and "SeedRevealed" in kinds
    assert replay.steps[0].state is None  # before the engine's first event
    verification = ok(api("hand_audit", "verify_hand")(hand_id, client=auditor), 200)
    assert [c for c in verification.checks if getattr(c, "event", ...) is None]
    ledger_check = ok(api("audit", "start_ledger_check")(client=operator), 202)
    # Not yet run, unless a worker was quicker than the answer: then it is finished.
    assert ledger_check.result is None or ledger_check.status == "finished"
    ok(api("disputes", "open_dispute")(client=operator, body=m.DisputeOpen(
        hand_id=hand_id, reason="a second look")), 201)
    disputes = ok(api("disputes", "list_disputes")(client=operator, hand_id=hand_id), 200)
    assert [d for d in disputes.items if d.resolution is None]
