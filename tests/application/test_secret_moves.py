"""Which moves' payloads the other seats are shown, in a replay's causes and an evidence
bundle's stored texts: the ones a game names secret are kept from them, every other is shown
(000_1414b0b0fea70c86.txt: the hidden card and skeleton values fixed on standing stay the
holder's; 002_ae078369b503c97e.txt: the opening card is chosen in secret)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from events.model import StoredEvent
from games import registry
from games.contract import AUDITOR, SPECTATOR, Viewer
from service.application import evidence, replay
from service.application.principal import OPERATOR
from service.application.redaction import Redactor

SEAT_1, SEAT_2 = Viewer.at_seat(1), Viewer.at_seat(2)


def moved(payload: dict[str, Any]) -> StoredEvent:
    """A public engine event caused by seat 1's move `payload`."""
    return StoredEvent(7, "table-tb_1", 7, "game.CardTurnedUp", 1,
                       {"hand": "hd_1", "data": {"seat": 1, "card": "gem2.1"}, "visible_to": None},
                       {"command": {"name": "Act", "seat": 1, "payload": payload, "now": 1.0}},
                       datetime.now(UTC), b"\0" * 32)


@pytest.mark.parametrize(("game", "payload", "secret"), [
    ("casino-pirate", {"type": "hide", "card": "gem5.1"}, True),
    ("casino-pirate", {"type": "stand", "declare": {"skeleton.1": 3}}, True),
    ("casino-pirate", {"type": "stand", "declare": {}}, False),
    ("casino-pirate", {"type": "bet", "amount": 5}, False),
    ("pirate-pairs", {"type": "choose", "card": "7.3"}, True),
    ("pirate-pairs", {"type": "attack", "target": 2, "card": "7.3"}, False),
    ("sette-e-mezzo", {"type": "hit"}, False),
])
def test_a_secret_move_is_kept_from_the_other_seats_and_any_other_shown(game, payload, secret):
    info = registry.engine(game).info
    event = moved(payload)
    redactor = Redactor(None, OPERATOR)
    for viewer in (SEAT_1, AUDITOR):  # the sender and auditors see every payload
        assert replay._command(event.metadata["command"], viewer, info)["payload"] == payload
        assert not evidence._withheld(event, redactor, viewer, info)
    for viewer in (SEAT_2, SPECTATOR):
        shown = replay._command(event.metadata["command"], viewer, info)
        assert ("payload" in shown) is not secret
        assert evidence._withheld(event, redactor, viewer, info) is secret
