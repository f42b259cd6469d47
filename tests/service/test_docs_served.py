"""The games with their rules pages, readable without a token."""

from __future__ import annotations

import os

import pytest

from service.commands.handlers import ENGINES
from tests.service.conftest import ROOT

COMMITTED = ROOT / "openapi.yaml"
RULES_PAGES = {"sette-e-mezzo": "sevenhalf", "siete-y-media": "sevenhalf", "casino-pirate": "sevenhalf",
               "pirate-pairs": "pirate_pairs", "cassino": "cassino"}
CHROMIUM = os.environ.get("BANCO_CHROMIUM", "/usr/bin/chromium")


def test_games_and_their_rules_need_no_token(client):
    games = client.get("/v1/games")
    assert games.status_code == 200
    assert [g["name"] for g in games.json] == sorted(ENGINES)
    for game in games.json:
        assert client.get(f"/v1/games/{game['name']}").json == game
        rules = client.get(game["rules_source"])
        assert rules.status_code == 200
        assert rules.mimetype == "text/markdown"
        page = ROOT / "games" / RULES_PAGES[game["name"]] / "rules.md"
        assert rules.get_data(as_text=True) == page.read_text()


@pytest.mark.parametrize("path", ["/v1/games/poker", "/v1/games/poker/rules"])
def test_an_unknown_game_is_a_404(client, path):
    r = client.get(path)
    assert r.status_code == 404
    assert r.headers["Content-Type"] == "application/problem+json"
    assert r.json["code"] == "unknown_game"


def test_the_rules_pages_are_package_data():
    # An installed Banco (a wheel, not this work tree) serves them too.
    toml = (ROOT / "pyproject.toml").read_text()
    assert 'games = ["*/rules.md"]' in toml
    assert set(RULES_PAGES.values()) == {p.parent.name for p in (ROOT / "games").glob("*/rules.md")}
