"""The resource blueprint's arguments: one schema instance per endpoint, serving every request."""

from __future__ import annotations

from service.http import schemas
from tests.service.conftest import OPERATOR


def test_an_arguments_schema_is_made_once_not_per_request(client, new_player, monkeypatch):
    made = []
    original = schemas.TransferSchema.__init__

    def counted(self, *args, **kwargs):
        made.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(schemas.TransferSchema, "__init__", counted)
    p = new_player(deposit=0)
    for amount in (5, 7):
        r = client.post(f"/v1/players/{p.id}/deposits", json={"amount": amount, "reason": "r"},
                        headers=OPERATOR)
        assert r.status_code == 201, r.json
    r = client.post(f"/v1/players/{p.id}/deposits", json={"amount": -1, "reason": "r"},
                    headers=OPERATOR)
    assert r.status_code == 422  # the shared instance still validates
    assert client.get(f"/v1/players/{p.id}/balance", headers=OPERATOR).json["balance"] == 12
    assert made == []
