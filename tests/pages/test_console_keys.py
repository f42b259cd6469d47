"""/console's operator keys: made with scopes (the secret shown once), listed, rotated and
revoked in the browser, each secret tried on the API as its holder would."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.pages.conftest import ApiError, signed_in


def status(api, path: str, token: str) -> int:
    try:
        api.get(path, token=token)
    except ApiError as e:
        return e.status
    return 200


def test_the_console_makes_rotates_and_revokes_an_operator_key(page, api, served):
    signed_in(page, served.operator_key)
    page.goto("/console")
    keys = page.locator("#keys")
    keys.get_by_label("Key name").fill("Monitoring")
    keys.get_by_label("metrics:read").check()
    keys.get_by_role("button", name="Create the key").click()
    expect(page.locator("#key-note")).to_contain_text("Created key ok_")
    secret = page.locator("#key-secret").inner_text()
    assert secret.startswith("bok_")
    assert status(api, "/metrics", secret) == 200
    assert status(api, "/v1/players", secret) == 403
    row = page.locator("#operator-keys tbody tr", has_text="Monitoring")
    expect(row).to_contain_text("metrics:read")
    expect(row).to_contain_text("active")
    key_id = row.locator("td").first.inner_text()

    row.get_by_role("button", name=f"Rotate key {key_id}").click()
    expect(page.locator("#key-note")).to_contain_text("has a new secret")
    rotated = page.locator("#key-secret").inner_text()
    assert rotated != secret and rotated.startswith("bok_")
    assert status(api, "/metrics", secret) == 401 and status(api, "/metrics", rotated) == 200

    row.get_by_role("button", name=f"Revoke key {key_id}").click()
    expect(page.locator("#key-note")).to_contain_text("is revoked")
    expect(row).to_contain_text("revoked")
    expect(row.get_by_role("button")).to_have_count(0)
    assert status(api, "/metrics", rotated) == 401


@pytest.mark.parametrize("scopes", [["keys:admin", "tables:read"], ["tables:read"]],
                         ids=["keys-admin", "no-keys-admin"])
def test_a_scoped_key_sees_the_keys_it_may_manage_and_grant(page, api, scopes):
    made = api.post("/v1/keys", {"name": "Floor", "scopes": scopes})
    signed_in(page, made["secret"])
    page.goto("/console")
    expect(page.get_by_role("heading", name="Tables")).to_be_visible()
    if "keys:admin" not in scopes:
        expect(page.get_by_role("heading", name="Operator keys")).to_have_count(0)
        return
    keys = page.locator("#keys")
    expect(keys.get_by_label("tables:read")).to_be_enabled()
    expect(keys.get_by_label("treasure:write")).to_be_disabled()
    keys.get_by_label("Key name").fill("Spectator")
    keys.get_by_label("tables:read").check()
    keys.get_by_role("button", name="Create the key").click()
    expect(page.locator("#key-note")).to_contain_text("with tables:read")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_keys_section_fits_a_phone_and_axe_finds_nothing_serious(browser, served, api, size):
    from tests.pages.test_phone_and_axe import SIZES, axe_source, boxed, serious, sideways

    api.post("/v1/keys", {"name": "A rather long name for a key held by a monitoring system",
                          "scopes": ["metrics:read", "jobs:read", "tables:read"]})
    context = browser.new_context(viewport=SIZES[size], base_url=served.url)
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
        signed_in(page, served.operator_key)
        page.goto("/console")
        expect(page.locator("#operator-keys tbody tr").first).to_contain_text("ok_")
        expect(page.locator("#new-key-scopes input").first).to_be_visible()
        problems = serious(page, axe_source())
        if size == "phone":
            problems += [f"scrolls {wide} px sideways" for wide in [sideways(page)] if wide]
            problems += [f"tables scrolling inside their box: {b}" for b in [boxed(page)] if b]
    finally:
        context.close()
    assert not errors, errors
    assert not problems, "\n".join(problems)


def test_a_console_whose_key_is_revoked_shows_nothing_more_and_offers_to_sign_in(page, api, served):
    """The cashier's key revoked while his console was open: the next write's 401 signed the
    header out, but the players and their balances stayed on screen, the deposit form stayed
    live, and no sign-in was offered. The console now goes as the table page does."""
    cy = api.new_player("Revoked Cy", deposit=10)
    made = api.post("/v1/keys", {"name": "Cashier", "scopes": ["players:read", "treasure:write"]})
    signed_in(page, made["secret"])
    page.goto("/console")
    page.get_by_role("button", name="Manage Revoked Cy").click()
    desk = page.locator("#desk")
    desk.get_by_label("Deposit amount").fill("5")
    api.call("DELETE", f"/v1/keys/{made['key']['id']}")
    desk.get_by_role("button", name="Deposit", exact=True).click()
    expect(page.locator("#signed-out")).to_contain_text("you are signed out")
    expect(page.locator("#who-name")).to_have_text("Signed out: your token no longer works")
    expect(page.locator("#players")).to_have_count(0)
    expect(page.get_by_text("Revoked Cy")).to_have_count(0)
    expect(page.get_by_role("button", name="Deposit", exact=True)).to_have_count(0)
    assert api.get(f"/v1/players/{cy.id}/balance")["balance"] == 10
    # Signed in again with a key that works, the console is back.
    page.get_by_label("Token").fill(served.operator_key)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Players")).to_be_visible()
    expect(page.locator("#signed-out")).to_have_count(0)
