"""A Casino pirate deck too small to finish a hand, refused over HTTP (RULES.md §1c, seed
000_1414b0b0fea70c86.txt; the bound in games/sevenhalf/rules.md, "The deck's size"): a new
table asking for one is a 422, an older table holding one is refused the deal with a 409."""

from __future__ import annotations

from games import registry
from tests.service.conftest import OPERATOR
from tests.service.test_bad_input import count_events

TINY = {"gems": 1, "gold_coins": 0, "pebbles": 0, "skeletons": 0}  # 7 gems, 28 points


def test_a_table_whose_deck_cannot_finish_a_hand_is_refused_and_nothing_is_recorded(client, app):
    """Seven gems and nothing else were taken: at three seats a player could draw the deck dry
    and leave the meneur without a card. The options are a 422 naming what the deck is worth
    and what a full table needs; no table is created."""
    before = count_events(app)
    r = client.post("/v1/tables", json={"game": "casino-pirate", "options": TINY}, headers=OPERATOR)
    assert (r.status_code, r.json["code"]) == (422, "invalid_options"), r.json
    assert r.headers["Content-Type"] == "application/problem+json"
    [said] = r.json["errors"]["options"]["gems"]
    assert "is worth 28 points" in said and "a hand of 8 seats needs a deck worth at least 109½" \
        in said, said
    assert count_events(app) == before
    fine = client.post("/v1/tables", json={"game": "casino-pirate", "options": {**TINY, "gems": 4}},
                       headers=OPERATOR)
    assert fine.status_code == 201 and fine.json["rules_version"] == 4, fine.json


def test_an_older_tables_deck_too_small_for_its_seats_is_refused_the_deal(client, new_player,
                                                                           monkeypatch):
    """A table of rules version 3 kept the deck it was created with. Its deal is a 409
    `deck_too_small` once its seats are more than the deck serves, changing nothing; with fewer
    seats it is dealt."""
    older = registry.Registry([e for e in registry.served()
                               if (e.info.name, e.info.version) != ("casino-pirate", 4)])
    with monkeypatch.context() as m:
        m.setattr(registry, "REGISTRY", older)
        table = client.post("/v1/tables", json={"game": "casino-pirate", "options": TINY},
                            headers=OPERATOR).json
    assert table["rules_version"] == 3, table
    path = f"/v1/tables/{table['id']}"
    for i in range(3):
        p = new_player(f"Pirate{i}", deposit=100)
        r = client.post(f"{path}/seats", json={"buy_in": 10, "age": 40 - i}, headers=p.auth)
        assert r.status_code == 201, r.json
    before = client.get(path, headers=OPERATOR).json
    refused = client.post(f"{path}/hands", headers=OPERATOR)
    assert (refused.status_code, refused.json["code"]) == (409, "deck_too_small"), refused.json
    assert refused.headers["Content-Type"] == "application/problem+json"
    assert "is worth 28 points" in refused.json["detail"]
    assert "a hand of 3 seats needs a deck worth at least 37" in refused.json["detail"]
    after = client.get(path, headers=OPERATOR).json
    assert (after["version"], after["status"], after.get("hand")) == (
        before["version"], "open", before.get("hand"))
