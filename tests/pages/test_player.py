"""/players/{id}: the balance, the history with its filters and pages, the chart and the exports
are the API's, read with the visitor's token."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.pages.conftest import signed_in, until


def _wallet(api):
    ada = api.new_player("Ada", deposit=500)
    api.post(f"/v1/players/{ada.id}/deposits", {"amount": 250, "reason": "bonus"})
    api.post(f"/v1/players/{ada.id}/withdrawals", {"amount": 100, "reason": "cash out"})
    return ada


def test_the_page_shows_the_apis_balance_and_history(page, api):
    ada = _wallet(api)
    balance = api.get(f"/v1/players/{ada.id}/balance", token=ada.token)["balance"]
    signed_in(page, ada.token)
    page.get_by_role("link", name="My wallet").click()
    expect(page.get_by_role("heading", name="Wallet of Ada")).to_be_visible()
    expect(page.locator("#balance")).to_have_text(f"{balance:,}")
    rows = page.locator("#history tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(2)).to_contain_text("cash out")
    expect(rows.nth(2).locator("td").nth(2)).to_have_text("-100")
    # The chart is the API's SVG, fetched with the token and shown from a blob URL.
    chart = page.get_by_role("img", name="Chart of the balance over time")
    expect(chart).to_have_attribute("src", re.compile(r"^blob:"))
    until(page, "() => document.querySelector('img.chart').naturalWidth > 0")
    # The filters are the API's.
    page.get_by_label("Reason").fill("bonus")
    page.get_by_role("button", name="Apply").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("+250")


def at_a_history_of_27(page: Any, api: Any, name: str) -> Any:
    """A player of 27 deposits (reasons d0 to d26) on his wallet page: its history's rows, the
    first page of 25 shown."""
    player = api.new_player(name)
    for i in range(27):
        api.post(f"/v1/players/{player.id}/deposits", {"amount": i + 1, "reason": f"d{i}"})
    signed_in(page, player.token)
    page.goto(f"/players/{player.id}")
    rows = page.locator("#history tbody tr")
    expect(rows).to_have_count(25)
    return rows


def test_the_history_pages_by_the_apis_cursor(page, api):
    rows = at_a_history_of_27(page, api, "Pager")
    page.get_by_role("button", name="Next page").click()
    expect(rows).to_have_count(2)
    expect(rows.last).to_contain_text("d26")
    expect(page.get_by_role("button", name="Next page")).to_be_disabled()
    page.get_by_role("button", name="Previous page").click()
    expect(rows).to_have_count(25)
    expect(rows.first).to_contain_text("d0")


def test_the_history_pages_with_the_filters_last_applied(page, api):
    """A reason typed (or rows a page picked) but not applied went out with the next page's
    cursor: "Next page" showed a page of another list than the one on screen."""
    rows = at_a_history_of_27(page, api, "Filter Pager")
    page.get_by_label("Reason").fill("d3")  # typed, not applied
    page.get_by_label("Rows a page").select_option("100")
    page.get_by_role("button", name="Next page").click()
    expect(page.get_by_text("Page 2, 2 postings")).to_be_visible()
    expect(rows).to_have_count(2)
    expect(rows.last).to_contain_text("d26")
    page.get_by_role("button", name="Previous page").click()
    expect(page.get_by_text("Page 1, 25 postings")).to_be_visible()
    # Applied, they hold from then on.
    page.get_by_role("button", name="Apply").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("d3")


def test_a_player_of_more_than_a_page_of_tables_reaches_every_one(page, api):
    """The wallet listed the first 50 tables a player sits at and dropped the list's cursor: a
    player of 53 never saw his 3 oldest."""
    tom = api.new_player("Many Tables", deposit=100)
    made = []
    for _ in range(53):
        made.append(api.post("/v1/tables", {"game": "sette-e-mezzo", "options": {}})["id"])
        api.post(f"/v1/tables/{made[-1]}/seats", {"buy_in": 1}, token=tom.token)
    signed_in(page, tom.token)
    page.goto("/players/me")
    listed = page.locator("#player-tables")
    rows = listed.locator("tbody tr")
    expect(rows).to_have_count(50)
    expect(listed.get_by_role("link", name=made[0])).to_have_count(0)
    expect(page.locator("#tables-count")).to_have_text("50 shown, newest first.")
    page.get_by_role("button", name="More tables").click()
    expect(rows).to_have_count(53)
    for table in made:
        expect(listed.get_by_role("link", name=table)).to_have_count(1)
    # The keyboard goes on from the first table added, and nothing more is offered.
    expect(rows.nth(50).locator("a")).to_be_focused()
    expect(page.get_by_role("button", name="More tables")).to_be_hidden()
    expect(page.locator("#tables-count")).to_have_text("All 53 shown.")


def test_downloading_the_csv_gives_the_apis_csv(page, api, tmp_path: Path):
    ada = _wallet(api)
    auditor = api.new_auditor()
    signed_in(page, auditor.token)
    page.goto(f"/players/{ada.id}")
    expect(page.locator("#history tbody tr")).to_have_count(3)
    for button, accept in (("Download CSV", "text/csv"), ("Download NDJSON", "application/x-ndjson")):
        with page.expect_download() as download:
            page.get_by_role("button", name=button).click()
        saved = tmp_path / download.value.suggested_filename
        download.value.save_as(saved)
        body, _ = api.raw("GET", f"/v1/players/{ada.id}/balance-history", accept=accept)
        assert saved.read_bytes() == body
        assert saved.name == f"{ada.id}-history.{accept.rsplit('/', 1)[1].removeprefix('x-')}"


def test_another_players_wallet_is_refused_in_the_page(page, api):
    ada, bob = api.new_player("Ada"), api.new_player("Bob")
    signed_in(page, bob.token)
    page.goto(f"/players/{ada.id}")
    expect(page.get_by_role("alert")).to_contain_text("403")
    expect(page.locator("#balance")).to_have_count(0)


def test_an_erased_players_wallet_names_him_as_erased_never_null(page, api, served):
    """An erased player's name is gone (the API gives `"name": null`): his wallet read "Wallet of
    null"; it now names him as an erased player, in the page and in the console's list."""
    gone = api.new_player("Gone Soon", deposit=70)
    api.post(f"/v1/players/{gone.id}/erasure")
    signed_in(page, served.operator_key)
    page.goto(f"/players/{gone.id}")
    expect(page.get_by_role("heading", name="Wallet of an erased player")).to_be_visible()
    expect(page.locator("#balance")).to_have_text("70")
    expect(page.get_by_role("main")).to_contain_text(gone.id)
    assert "Gone Soon" not in page.content()
    for shown in (page.locator("main").inner_text(), page.title()):
        assert "null" not in shown and "undefined" not in shown, shown
    page.goto("/console")
    row = page.locator("#players tbody tr", has_text=gone.id)
    expect(row).to_contain_text("an erased player")
    assert "null" not in row.inner_text()


def test_a_wallet_whose_token_is_revoked_shows_nothing_more_and_offers_to_sign_in(page, api):
    """Her token revoked while her wallet was open: the next read's 401 signs the page out. Her
    balance and postings go from the screen, and a new token signs her back in, as the console
    does (`signedOutShowsNothing`)."""
    rows = at_a_history_of_27(page, api, "Revoked Wallet")
    player = page.evaluate("() => location.pathname.split('/').pop()")
    api.call("DELETE", f"/v1/players/{player}/token")
    page.get_by_role("button", name="Next page").click()
    expect(page.locator("#signed-out")).to_contain_text("you are signed out")
    expect(page.locator("#who-name")).to_have_text("Signed out: your token no longer works")
    expect(rows).to_have_count(0)
    expect(page.locator("#balance")).to_have_count(0)
    expect(page.get_by_text("d26")).to_have_count(0)
    expect(page.get_by_role("button", name="Download CSV")).to_have_count(0)
    # A new token, signed in with on the same page: her wallet is back.
    fresh = api.post(f"/v1/players/{player}/token")["token"]
    page.get_by_label("Token").fill(fresh)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Wallet of Revoked Wallet")).to_be_visible()
    expect(rows).to_have_count(25)
    expect(page.locator("#signed-out")).to_have_count(0)
