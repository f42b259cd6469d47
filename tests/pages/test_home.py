"""/: the tables, every one of them within reach of whoever may read them."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.pages.conftest import signed_in


def test_every_table_is_reached_page_by_page_and_filtered_by_status(page, api):
    """The page listed the newest 50 tables alone, with no way on: a player could not reach an
    open table older than those."""
    oldest = api.post("/v1/tables", {"game": "cassino"})["id"]
    newer = [api.post("/v1/tables", {"game": "cassino"})["id"] for _ in range(50)]
    closed = newer[-1]
    api.post(f"/v1/tables/{closed}/close")
    pat = api.new_player("Home Pat")
    signed_in(page, pat.token)
    tables = page.get_by_role("table", name="The tables, newest first: open one to watch or play")
    rows = tables.locator("tbody tr")
    expect(rows).to_have_count(50)
    expect(tables.get_by_role("link", name=oldest)).to_have_count(0)

    more = page.get_by_role("button", name="More tables")
    while more.is_visible():  # whatever other tests left: page after page, to the oldest
        count = rows.count()
        more.click()
        expect(rows).not_to_have_count(count)
        # The keyboard goes on from the first table added.
        expect(tables.locator("tbody tr a").nth(count)).to_be_focused()
    expect(tables.get_by_role("link", name=oldest)).to_be_visible()
    expect(page.get_by_text(re.compile(r"^All \d+ shown\.$"))).to_be_visible()

    page.get_by_label("Status").select_option("open")
    expect(tables.get_by_role("link", name=closed)).to_have_count(0)
    expect(tables.get_by_role("link", name=newer[0])).to_be_visible()
    expect(rows.first.locator(".badge")).to_have_text("open")
    assert set(rows.locator(".badge").all_inner_texts()) == {"open"}


def test_a_key_that_may_not_read_tables_is_not_shown_a_refusal(page, api):
    """An operator's key without tables:read was shown a 403 missing_scope where the tables go."""
    made = api.post("/v1/keys", {"name": "Home cashier", "scopes": ["players:read", "treasure:write"]})
    signed_in(page, made["secret"])
    expect(page.get_by_role("link", name="The console")).to_be_visible()
    expect(page.get_by_role("heading", name="Tables")).to_have_count(0)
    expect(page.get_by_role("alert")).to_have_count(0)
