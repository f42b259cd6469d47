"""/: the tables, every one of them within reach of whoever may read them."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.pages.conftest import signed_in


def test_a_key_that_may_not_read_tables_is_not_shown_a_refusal(page, api):
    """An operator's key without tables:read was shown a 403 missing_scope where the tables go."""
    made = api.post("/v1/keys", {"name": "Home cashier", "scopes": ["players:read", "treasure:write"]})
    signed_in(page, made["secret"])
    expect(page.get_by_role("link", name="The console")).to_be_visible()
    expect(page.get_by_role("heading", name="Tables")).to_have_count(0)
    expect(page.get_by_role("alert")).to_have_count(0)
