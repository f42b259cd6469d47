"""GET /v1/me: whom a token speaks for, as a client (the pages) shows it signed in."""

from __future__ import annotations

from service.application.scopes import SCOPES
from tests.service.conftest import OPERATOR, bearer


def token_id(app, stream: str) -> str:
    """The id of the token last issued in `stream`."""
    return [e.data["token_id"] for e in app.extensions["banco.store"].read_stream(stream)
            if e.type == "TokenIssued"][-1]


def test_each_token_names_its_role_id_name_and_key(app, client, new_player):
    ada = new_player("Ada")
    auditor = client.post("/v1/auditors", json={"name": "Ext"}, headers=OPERATOR).json
    assert client.get("/v1/me", headers=ada.auth).json == {
        "role": "player", "id": ada.id, "name": "Ada", "key_id": token_id(app, f"player-{ada.id}"),
        "scopes": []}
    assert client.get("/v1/me", headers=bearer(auditor["token"])).json == {
        "role": "auditor", "id": auditor["id"], "name": "Ext",
        "key_id": token_id(app, f"auditor-{auditor['id']}"), "scopes": []}
    assert client.get("/v1/me", headers=OPERATOR).json == {
        "role": "operator", "id": "operator", "name": None, "key_id": "bootstrap",
        "scopes": list(SCOPES)}


def test_no_token_or_a_revoked_one_is_a_401(client, new_player):
    ada = new_player("Ada")
    assert client.delete(f"/v1/players/{ada.id}/token", headers=OPERATOR).status_code == 204
    for headers in ({}, ada.auth, bearer("bnc_nope")):
        r = client.get("/v1/me", headers=headers)
        assert r.status_code == 401
        assert r.headers["Content-Type"] == "application/problem+json"
