"""The README's screenshots of the pages, taken from a real Banco with some data in it.

    .venv/bin/python -m tests.pages.screenshots      # writes docs/screenshots/*.png

Run by hand after changing a page (not part of the suite: the file is not named test_*); it uses
the page tests' fixtures (tests/pages/conftest.py) on embedded PostgreSQL and Redis, or those of
DATABASE_URL / REDIS_URL.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.pages.conftest import signed_in, until

OUT = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def test_screenshots(page, api, served):
    from tests.pages.test_hand_page import play  # imported under pytest, which rewrites it

    OUT.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto("/")
    expect(page.get_by_label("Token")).to_be_visible()
    page.screenshot(path=OUT / "home.png")

    ada = api.new_player("Ada Lovelace", deposit=1000)
    grace = api.new_player("Grace Hopper", deposit=800)
    api.new_player("Alan Turing", deposit=300)
    tables = [api.post("/v1/tables", {"game": game})["id"]
              for game in ("sette-e-mezzo", "cassino", "pirate-pairs", "siete-y-media")]
    for player, buy_in in ((ada, 200), (grace, 150)):
        api.post(f"/v1/tables/{tables[0]}/seats", {"buy_in": buy_in}, token=player.token)
    api.post(f"/v1/tables/{tables[1]}/seats", {"buy_in": 120}, token=ada.token)
    api.call("DELETE", f"/v1/tables/{tables[1]}/seats/{ada.id}", token=ada.token)
    api.post(f"/v1/players/{ada.id}/deposits", {"amount": 250, "reason": "birthday bonus"})
    api.post(f"/v1/players/{ada.id}/withdrawals", {"amount": 300, "reason": "cash out at the desk"})
    api.post("/v1/audit/checkpoints")

    signed_in(page, ada.token)
    expect(page.get_by_role("link", name=tables[0])).to_be_visible()
    page.get_by_role("link", name="My wallet").click()
    expect(page.locator("#history tbody tr")).to_have_count(6)
    until(page, "() => document.querySelector('img.chart').naturalWidth > 0")
    page.screenshot(path=OUT / "player.png", full_page=True)

    page.get_by_role("button", name="Sign out").click()
    signed_in(page, served.operator_key)
    page.goto("/console")
    expect(page.locator("#players tbody tr").first).to_contain_text("Alan Turing")
    page.get_by_role("button", name="Check the ledger").click()
    expect(page.locator("#ledger-result")).to_contain_text("finished")
    page.screenshot(path=OUT / "console.png", full_page=True)

    # A table in play, as the player whose turn it is sees it.
    api.post(f"/v1/tables/{tables[0]}/hands")
    turn = next(p for p in (ada, grace)
                if api.get(f"/v1/tables/{tables[0]}", token=p.token)["legal_actions"])
    page.get_by_role("button", name="Sign out").click()
    signed_in(page, turn.token)
    page.goto(f"/tables/{tables[0]}")
    expect(page.locator("#turn-text")).to_contain_text("Your turn")
    expect(page.get_by_role("list", name="Your move").get_by_role("button").first).to_be_visible()
    page.screenshot(path=OUT / "table.png", full_page=True)
    # The same on a phone: the seats stacked, nothing wider than the screen.
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    expect(page.locator("#turn-text")).to_contain_text("Your turn")
    page.screenshot(path=OUT / "table-phone.png", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})

    # A settled hand's replay and its verification, the browser's beside the server's.
    played = play(api, "sette-e-mezzo")
    auditor = api.new_auditor("Eve")
    page.get_by_role("button", name="Sign out").click()
    signed_in(page, auditor.token)
    # The step where the hand ended: every card on the table, drawn as the table page draws it.
    steps = api.get(f"/v1/hands/{played.hand}/replay", token=auditor.token)["steps"]
    ended = next(s["step"] for s in steps if s["type"] == "HandEnded")
    page.goto(f"/hands/{played.hand}#step-{ended}")
    expect(page.locator("tr[data-check='deck.dealt'] td.browser")).to_contain_text("passed")
    page.screenshot(path=OUT / "hand.png", full_page=True)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]))
