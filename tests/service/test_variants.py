"""Variants as the catalog lists them: `GET /v1/games` names each with the options it stands
for, `POST /v1/tables` takes it by that name, the table shows it and the engine deals it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.service.conftest import OPERATOR

BUY_IN = 30


def listed_variants(client: Any) -> list[tuple[dict[str, Any], str]]:
    games = client.get("/v1/games", headers=OPERATOR).json
    return [(g, v) for g in games for v in g["variants"]]


def table_count(client: Any) -> int:
    return len(client.get("/v1/tables", query_string={"limit": 200}, headers=OPERATOR).json["items"])


def test_every_listed_variant_makes_a_table_that_shows_it_and_deals(client, new_player):
    walked = listed_variants(client)
    assert {v for _, v in walked} >= {"banker:seat0", "banker:lot", "seven_half_takes_bank",
                                      "classic", "spades", "draw"}
    for game, variant in walked:
        sets = game["variant_options"][variant]
        r = client.post("/v1/tables", json={"game": game["name"], "variant": variant},
                        headers=OPERATOR)
        assert r.status_code == 201, (game["name"], variant, r.json)
        table_id = r.json["id"]
        shown = client.get(f"/v1/tables/{table_id}", headers=OPERATOR).json
        for body in (r.json, shown):
            assert body["variant"] == variant
            assert sets.items() <= body["options"].items()
        for i in range(game["min_players"]):
            p = new_player(f"{variant}-{i}", deposit=BUY_IN)
            r = client.post(f"/v1/tables/{table_id}/seats", json={"buy_in": BUY_IN, "age": 30 + i},
                            headers=p.auth)
            assert r.status_code == 201, r.json
        r = client.post(f"/v1/tables/{table_id}/hands", headers=OPERATOR)
        assert r.status_code == 201, (game["name"], variant, r.json)
        assert r.json["hand"]["status"] == "playing" and r.json["variant"] == variant
        # The hand in play runs with the variant's options (Cassino's view names its variant).
        view = r.json["view"]
        assert all(view.get("options", view)[k] == v for k, v in sets.items()), view


def test_a_variant_given_as_its_options_is_the_same_variant(client):
    for game, variant in listed_variants(client):
        r = client.post("/v1/tables", json={"game": game["name"],
                                            "options": game["variant_options"][variant]},
                        headers=OPERATOR)
        assert r.status_code == 201 and r.json["variant"] == variant


def test_a_cassino_table_created_with_a_variant_shows_that_variant(client):
    r = client.post("/v1/tables", json={"game": "cassino", "variant": "spades"}, headers=OPERATOR)
    assert r.status_code == 201
    table = client.get(f"/v1/tables/{r.json['id']}", headers=OPERATOR).json
    assert table["variant"] == "spades" and table["options"]["variant"] == "spades"


def test_a_table_without_a_listed_variant_shows_none(client):
    for game in ("casino-pirate", "pirate-pairs", "siete-y-media"):
        r = client.post("/v1/tables", json={"game": game}, headers=OPERATOR)
        assert r.status_code == 201 and r.json["variant"] is None


@pytest.mark.parametrize(("body", "code"), [
    ({"game": "sette-e-mezzo", "variant": "classic"}, "unknown_variant"),
    ({"game": "casino-pirate", "variant": "banker:lot"}, "unknown_variant"),
    ({"game": "sette-e-mezzo", "variant": "banker:lot", "options": {"banker": "seat0"}},
     "variant_conflict"),
    ({"game": "cassino", "variant": "draw", "options": {"variant": "spades"}}, "variant_conflict"),
])
def test_a_variant_not_listed_or_contradicted_is_refused_and_creates_nothing(client, body, code):
    before = table_count(client)
    r = client.post("/v1/tables", json=body, headers=OPERATOR)
    assert r.status_code == 422 and r.json["code"] == code
    assert r.headers["Content-Type"] == "application/problem+json"
    assert table_count(client) == before
