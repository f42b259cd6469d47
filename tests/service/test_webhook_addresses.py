"""Webhook subscriptions go to public addresses only, or to the private ranges the operator
allows: loopback in any spelling, private and link-local ranges, metadata services and names that
resolve there are refused when subscribed, without a connection to any of them."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from dataclasses import replace

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.application import webhook_addresses, webhook_subscriptions
from service.application.errors import Invalid
from service.runtime.config import Config
from tests.service.conftest import OPERATOR, app_on


@pytest.fixture(scope="module")
def strict_app(config: Config) -> Iterator[Flask]:
    """The app with no private range allowed, loopback included."""
    with app_on(replace(config, webhook_allow_networks=())) as app:
        yield app


@pytest.fixture
def client(strict_app: Flask) -> FlaskClient:
    return strict_app.test_client()


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A port on loopback that would hold any connection made to it, to be counted."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        sock.setblocking(False)
        yield sock


def connected(listener: socket.socket) -> bool:
    """Whether anything connected to the listener (a connection waits in its queue, even closed)."""
    try:
        listener.accept()[0].close()
    except BlockingIOError:
        return False
    return True


LOOPBACK = ["127.0.0.1", "127.1", "2130706433", "0x7f000001", "0177.0.0.1", "017700000001",
            "0x7f.1", "127.255.255.254", "[::1]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]",
            "localhost", "LocalHost.", "hooks.localhost"]
ELSEWHERE = ["0.0.0.0", "0", "[::]", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
             "169.254.169.254", "169.254.0.1", "[fe80::1]", "100.64.0.1", "100.100.100.200",
             "[fc00::1]", "[fd00:ec2::254]", "224.0.0.1", "239.255.255.250", "[ff02::1]",
             "240.0.0.1", "255.255.255.255", "192.0.0.192", "198.18.0.1", "[2002:7f00:1::]",
             "[64:ff9b::a00:1]", "metadata.google.internal", "metadata.goog", "metadata"]


@pytest.mark.parametrize("host", LOOPBACK + ELSEWHERE)
def test_a_host_not_public_is_refused_by_the_command(host, listener):
    port = listener.getsockname()[1]
    with pytest.raises(Invalid) as e:
        webhook_subscriptions.check_url(f"http://{host}:{port}/hooks", ())
    assert e.value.code == "url_not_allowed"
    assert e.value.extra["errors"] == {"json": {"url": [webhook_subscriptions.NOT_ALLOWED]}}
    assert not connected(listener)


def test_subscriptions_to_hosts_not_public_are_refused_without_a_connection(client, listener):
    port = listener.getsockname()[1]
    before = client.get("/v1/webhooks", headers=OPERATOR).json["items"]
    for host in LOOPBACK + ELSEWHERE:
        r = client.post("/v1/webhooks", json={"url": f"http://{host}:{port}/hooks",
                                              "event_types": ["TreasurePosted"]}, headers=OPERATOR)
        assert r.status_code == 422 and r.mimetype == "application/problem+json", (host, r.json)
        # Every spelling reaches the address check (`127.1` and `[::ffff:127.0.0.1]` too, which
        # a URL pattern would refuse as no URL): the answer says why, naming the field.
        assert r.json["code"] == "url_not_allowed", (host, r.json)
        assert "public addresses" in r.json["errors"]["json"]["url"][0]
    assert client.get("/v1/webhooks", headers=OPERATOR).json["items"] == before
    assert not connected(listener), "a refusal connects to nothing"


def test_what_is_no_url_is_refused_by_the_schema(client):
    for url in ("ftp://127.0.0.1/x", "http:///nohost", "//example.com/hooks", "example.com",
                "http://127.0.0.1:99999/x", "http://127.0.0.1:0/x", "http://[::1/x",
                "http://[1::2::3]/x", "http://exa mple.com/", "http://example.com/a b",
                "http://example.com\n/x", "http://a..b/x", "http://.example.com/x",
                "http://ex%41mple.com/x"):
        r = client.post("/v1/webhooks", json={"url": url, "event_types": ["TreasurePosted"]},
                        headers=OPERATOR)
        assert r.status_code == 422 and r.json["code"] == "invalid_input", (url, r.json)
        assert r.json["errors"]["json"]["url"] == ["Not a valid URL."], (url, r.json)


def fake_resolver(monkeypatch: pytest.MonkeyPatch, names: dict[str, list[str]]) -> list[str]:
    """Resolve `names` as given (and nothing else); the names looked up, in order."""
    asked: list[str] = []

    def lookup(host: str, port: int) -> list[webhook_addresses.AddrInfo]:
        asked.append(host)
        if host not in names:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "",
                 (a, port)) for a in names[host]]

    monkeypatch.setattr(webhook_addresses, "lookup", lookup)
    return asked


def test_a_name_is_refused_when_any_of_its_addresses_is(client, monkeypatch):
    asked = fake_resolver(monkeypatch, {
        "inside.banco.test": ["10.0.0.7"],
        "both.banco.test": ["93.184.216.34", "127.0.0.1"],
        "out.banco.test": ["93.184.216.34", "2606:2800:220:1::248"],
    })
    for host in ("inside.banco.test", "both.banco.test", "nowhere.banco.test"):
        r = client.post("/v1/webhooks", json={"url": f"https://{host}/hooks",
                                              "event_types": ["TreasurePosted"]}, headers=OPERATOR)
        assert r.status_code == 422 and r.json["code"] == "url_not_allowed", (host, r.json)
    # A public one is looked up and subscribed to (nothing connects to it here).
    assert webhook_subscriptions.check_url("https://out.banco.test/hooks", ()) == \
        "https://out.banco.test/hooks"
    assert asked == ["inside.banco.test", "both.banco.test", "nowhere.banco.test", "out.banco.test"]


def test_the_operator_allows_private_ranges_by_name(listener):
    port = listener.getsockname()[1]
    allow = (ipaddress.ip_network("127.0.0.1/32"), ipaddress.ip_network("10.8.0.0/16"))
    for host in ("127.0.0.1", "2130706433", "[::ffff:127.0.0.1]", "10.8.3.4"):
        url = f"http://{host}:{port}/hooks"
        assert webhook_subscriptions.check_url(url, allow) == url
    for host in ("127.0.0.2", "10.9.0.1", "169.254.169.254", "localhost", "metadata.google.internal"):
        with pytest.raises(Invalid):
            webhook_subscriptions.check_url(f"http://{host}:{port}/hooks", allow)
    assert not connected(listener)
