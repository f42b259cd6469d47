"""Many games and many racing clients at once: the engines of the leak and race tests."""

from __future__ import annotations

import random
import threading
from typing import Any

from tests.service.conftest import OPERATOR
from tests.service.play import Session, leaks

GAMES: list[tuple[str, dict[str, Any], int | None, int]] = [
    ("sette-e-mezzo", {}, 30, 4), ("siete-y-media", {}, 30, 3), ("casino-pirate", {}, None, 4),
    ("pirate-pairs", {"stake": 2}, 20, 5), ("cassino", {"variant": "classic"}, 20, 2),
    ("cassino", {"variant": "spades"}, 20, 4), ("cassino", {"variant": "draw"}, 20, 3),
]


def play_many(app, new_player, rounds: int, seed: int) -> dict[str, int]:
    """`rounds` hands of every game and variant, each player a client of his own; every response
    they received checked against what they could know at that moment."""
    client = app.test_client()
    store = app.extensions["banco.store"]
    checked = hands = 0
    found: list[Any] = []
    for r in range(rounds):
        for game, options, buy_in, players in GAMES:
            session = Session(client, game, [new_player(f"S{r}{i}", deposit=100) for i in range(players)],
                              rng=random.Random(seed * 1000 + r))
            session.open(options, buy_in)
            session.deal()
            session.play_hand()
            for p in session.players:
                session.peek(p)
                session.call(p, "get", f"/v1/tables/{session.table_id}/hands")
            session.read_feed_to_the_end()
            stored = store.read_stream(f"table-{session.table_id}")
            found += leaks(session, stored)
            checked += len(session.received)
            hands += 1
    return {"hands": hands, "responses checked": checked, "leaks": len(found)}


def race(app, new_player, threads: int, rounds: int, seed: int) -> dict[str, int]:
    """Clients racing on shared wallets and tables: buy-ins, withdrawals, actions and retries."""
    rng = random.Random(seed)
    client = app.test_client()
    wallets = [new_player(f"W{i}", deposit=60) for i in range(4)]
    tables = [client.post("/v1/tables", json={"game": "sette-e-mezzo"}, headers=OPERATOR).json["id"]
              for _ in range(3)]
    counts = {"requests": 0, "conflicts": 0, "refused": 0, "replayed": 0}
    lock = threading.Lock()

    def one(i: int) -> None:
        c = app.test_client()
        local = random.Random(rng.random() + i)
        for n in range(rounds):
            p = local.choice(wallets)
            kind = local.random()
            if kind < 0.3:
                r = c.post(f"/v1/tables/{local.choice(tables)}/seats", json={"buy_in": 15},
                           headers=p.auth)
            elif kind < 0.6:
                # Sent twice, as a client retrying after a lost response would: the retry must
                # replay the first answer (or, if that was refused, be decided afresh).
                headers = {**OPERATOR, "Idempotency-Key": f"w-{p.id}-{i}-{n}"}
                body = {"amount": 7, "reason": "race"}
                first = c.post(f"/v1/players/{p.id}/withdrawals", json=body, headers=headers)
                r = c.post(f"/v1/players/{p.id}/withdrawals", json=body, headers=headers)
                if first.status_code == 201:
                    assert r.status_code == 201 and r.data == first.data
            elif kind < 0.8:
                table = local.choice(tables)
                r = c.post(f"/v1/tables/{table}/hands", headers=OPERATOR)
            else:
                table = local.choice(tables)
                view = c.get(f"/v1/tables/{table}", headers=p.auth).json
                offered = view.get("legal_actions") or [{"type": "stand"}]
                action = offered[0]
                payload = {"type": action["type"], **{k: (v["min"] if isinstance(v, dict) else v)
                                                      for k, v in action.items() if k != "type"}}
                r = c.post(f"/v1/tables/{table}/actions", json=payload,
                           headers={**p.auth, "If-Match": f'"{view["version"]}"'})
            with lock:
                counts["requests"] += 1
                counts["conflicts"] += r.status_code in (409, 412)
                counts["refused"] += r.status_code == 422
                counts["replayed"] += r.headers.get("Idempotent-Replayed") == "true"
            assert r.status_code < 500, r.get_json()

    workers = [threading.Thread(target=one, args=(i,)) for i in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    return counts


def ledger_health(app) -> dict[str, int]:
    """Balances against a recomputation from the log, total, negatives."""
    with app.extensions["banco.pool"].connection() as c:
        total, negatives = c.execute(
            "SELECT coalesce(sum(balance), 0), count(*) FILTER (WHERE balance < 0"
            " AND account <> 'house:issued') FROM balances").fetchone()
        drift = c.execute("""
            SELECT count(*) FROM balances b FULL JOIN (
                SELECT account, sum(amount) AS balance FROM (
                    SELECT data->>'from' AS account, -(data->>'amount')::bigint AS amount
                    FROM events WHERE type = 'TreasurePosted'
                    UNION ALL
                    SELECT data->>'to', (data->>'amount')::bigint FROM events
                    WHERE type = 'TreasurePosted') legs GROUP BY account) l USING (account)
            WHERE coalesce(b.balance, 0) <> coalesce(l.balance, 0)""").fetchone()[0]
        # A replay of an answer that issued a token issues a new one in its place, and one
        # that issued an operator key's secret rotates the key (README, "Idempotency"): those
        # events are a transaction of their own by design, and so not counted; anything else
        # a key brought twice is.
        doubled = c.execute("""
            SELECT count(*) FROM (
                SELECT metadata->>'actor', metadata->>'idempotency_key', count(DISTINCT txid)
                FROM events WHERE metadata->>'idempotency_key' IS NOT NULL
                AND type NOT IN ('TokenIssued', 'TokenRevoked', 'OperatorKeyRotated')
                GROUP BY 1, 2 HAVING count(DISTINCT txid) > 1) twice""").fetchone()[0]
    return {"treasure lost": int(total), "negative balances": negatives,
            "drifting balances": drift, "actions applied twice": doubled}
