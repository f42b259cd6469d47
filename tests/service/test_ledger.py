"""The treasure ledger under concurrency, its conservation, and projection rebuilds."""

from __future__ import annotations

import contextlib
import random
import threading
import uuid

import pytest

from events.ledger import HOUSE, InsufficientTreasure, Transfer
from events.model import ConcurrencyConflict, NewEvent
from projections import balances
from projections.rebuild import rebuild_all
from tests.service import postings
from tests.service.conftest import OPERATOR
from tests.service.postings import posted


@pytest.fixture
def pool(app):
    return app.extensions["banco.pool"]


@pytest.fixture
def store(app):
    return app.extensions["banco.store"]


def post(pool, store, transfers, stream="ledger-test"):
    return postings.post(pool, store, transfers, stream)


def totals(pool):
    with pool.connection() as c:
        return c.execute("SELECT coalesce(sum(balance), 0), count(*) FILTER (WHERE balance < 0"
                         " AND account <> 'house:issued') FROM balances").fetchone()


def _events_read(plan: dict) -> int:
    """Rows an EXPLAIN ANALYZE plan read from the log's partitions, every loop counted."""
    node_rows = plan["Actual Rows"] * plan["Actual Loops"] if plan.get(
        "Relation Name", "").startswith("events") else 0
    return node_rows + sum(_events_read(child) for child in plan.get("Plans", []))


def test_postings_appended_in_their_round_trip_read_only_their_own_events(pool, store):
    """A command's postings are projected in the round trip that appends them, each leg taking
    its event's position from the log by stream and version. Joined on the stream, the plan
    chosen while the log is small (and never analyzed) hashed every event of the table's
    stream: each settlement read the table's whole history, 628 events at a table of 70 hands
    in `bench http`. Each leg reads its own."""
    stream = f"legs-{uuid.uuid4().hex}"  # not a table's: a later rebuild would fold it as one
    store.append(stream, [NewEvent("PlayerErased", {"player_id": f"pl_{n}", "actor": "test"})
                          for n in range(100)], 0)
    legs = [(7, "wallet:pl_a", -5, "bet", "hand:hd_x"), (7, "hand:hd_x", 5, "bet", "wallet:pl_a"),
            (90, "hand:hd_x", -5, "win", "wallet:pl_b"), (90, "wallet:pl_b", 5, "win", "hand:hd_x")]
    columns = [list(c) for c in zip(*legs, strict=True)]
    with pool.connection() as conn, conn.transaction(force_rollback=True):
        [[plan]] = conn.execute(b"EXPLAIN (ANALYZE, FORMAT JSON) " + balances.APPLY_APPENDED.encode(),
                                [*columns, ["tb_x"] * 4, ["hd_x"] * 4, stream]).fetchall()
    assert _events_read(plan[0]["Plan"]) == len(legs)


def test_concurrent_withdrawals_never_overdraw_a_wallet(app, new_player):
    p = new_player(deposit=100)
    results: list[int] = []
    lock = threading.Lock()

    def withdraw() -> None:
        client = app.test_client()
        for _ in range(3):
            r = client.post(f"/v1/players/{p.id}/withdrawals", json={"amount": 10, "reason": "w"},
                            headers=OPERATOR)
            with lock:
                results.append(r.status_code)

    threads = [threading.Thread(target=withdraw) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(201) == 10 and results.count(422) == 26
    client = app.test_client()
    assert client.get(f"/v1/players/{p.id}/balance", headers=OPERATOR).json["balance"] == 0
    history = client.get(f"/v1/players/{p.id}/balance-history", headers=OPERATOR).json["items"]
    assert [h["balance_after"] for h in history] == list(range(100, -1, -10))


def test_opposite_transfers_neither_deadlock_nor_lose_treasure(pool, store):
    a, b = f"wallet:{uuid.uuid4().hex[:8]}", f"wallet:{uuid.uuid4().hex[:8]}"
    post(pool, store, [Transfer(HOUSE, a, 500, "seed"), Transfer(HOUSE, b, 500, "seed")])
    errors: list[Exception] = []

    def shuffle(src: str, dst: str) -> None:
        for _ in range(25):
            try:
                post(pool, store, [Transfer(src, dst, 7, "move")])
            except InsufficientTreasure:
                pass
            except Exception as e:  # a deadlock or anything else fails the test below
                errors.append(e)

    threads = [threading.Thread(target=shuffle, args=pair) for pair in [(a, b), (b, a)] * 3]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with pool.connection() as c:
        rows = dict(c.execute("SELECT account, balance FROM balances WHERE account = ANY(%s)",
                              ([a, b],)).fetchall())
    assert rows[a] + rows[b] == 1000 and rows[a] == 500 and rows[b] == 500


def test_a_refused_posting_writes_nothing_and_draws_no_position(pool, store):
    a = f"wallet:{uuid.uuid4().hex[:8]}"
    first = post(pool, store, [Transfer(HOUSE, a, 5, "seed")])[0]
    with pytest.raises(InsufficientTreasure):
        post(pool, store, [Transfer(a, HOUSE, 3, "ok"), Transfer(a, HOUSE, 3, "too much")])
    after = post(pool, store, [Transfer(a, HOUSE, 5, "all")])[0]
    assert after.position == first.position + 1


def test_a_posting_decided_on_a_stale_version_is_a_conflict_not_a_shortfall(pool, store):
    """Two copies of a move decided at one version: the first spends the balance, and the second,
    which finds it spent, lost a race (409) rather than met a lack of treasure (422)."""
    a, stream = f"wallet:{uuid.uuid4().hex[:8]}", f"ledger-{uuid.uuid4().hex[:8]}"
    seeded = post(pool, store, [Transfer(HOUSE, a, 5, "seed")], stream=stream)[-1].version
    with pool.connection() as c, c.transaction():
        posted(c, store, stream, [Transfer(a, HOUSE, 5, "spend")], {}, expected_version=seeded)
    with pool.connection() as c, c.transaction(), pytest.raises(ConcurrencyConflict):
        posted(c, store, stream, [Transfer(a, HOUSE, 5, "spend")], {}, expected_version=seeded)
    with pool.connection() as c, c.transaction(), pytest.raises(InsufficientTreasure):
        posted(c, store, stream, [Transfer(a, HOUSE, 5, "spend")], {},
                    expected_version=seeded + 1)


def test_treasure_is_conserved_and_rebuild_equals_the_inline_projections(pool, store):
    """A randomized workload of deposits, transfers and refused overdrafts, then a rebuild."""
    # Store-level tests of this session append events without their projections: start level.
    with pool.connection() as c:
        rebuild_all(c)
    rng = random.Random(20261121)
    wallets = [f"wallet:rb{uuid.uuid4().hex[:6]}{i}" for i in range(8)]
    for _ in range(150):
        kind = rng.random()
        src = HOUSE if kind < 0.3 else rng.choice(wallets)
        dst = HOUSE if kind > 0.9 else rng.choice([w for w in wallets if w != src])
        batch = [Transfer(src, dst, rng.randint(1, 60), rng.choice(["bet", "payout", "cash"]),
                          table=rng.choice([None, "t1"]), hand=rng.choice([None, "h1"]))]
        with contextlib.suppress(InsufficientTreasure):
            post(pool, store, batch, stream=rng.choice(["s1", "s2", "s3"]))
        total, negatives = totals(pool)
        assert total == 0 and negatives == 0

    def snapshot():
        with pool.connection() as c:
            return (c.execute("SELECT * FROM balances ORDER BY account").fetchall(),
                    c.execute("SELECT * FROM balance_history ORDER BY account, position").fetchall(),
                    c.execute("SELECT * FROM players ORDER BY player_id").fetchall())

    inline = snapshot()
    with pool.connection() as c:
        assert rebuild_all(c) > 150
    assert snapshot() == inline


def test_a_buy_in_beyond_the_wallet_is_refused_and_changes_nothing(client, pool, new_player):
    """The check runs in the round trip of the append it guards: refused, it fails the
    transaction before the append, so the table, the wallet and the log are as they were."""
    p = new_player(deposit=10)
    table = client.post("/v1/tables", json={"game": "sette-e-mezzo", "options": {"max_bet": 5}},
                        headers=OPERATOR).json
    with pool.connection() as c:
        [top] = c.execute("SELECT max(position) FROM events").fetchone()
    r = client.post(f"/v1/tables/{table['id']}/seats", json={"buy_in": 30},
                    headers={"Authorization": f"Bearer {p.token}"})
    assert r.status_code == 422 and r.json["code"] == "insufficient_treasure", r.json
    assert r.json["detail"] == f"account wallet:{p.id} holds 10, cannot pay 30"
    assert r.json["balance"] == 10  # as a withdrawal's refusal gives it, and the SDKs read it
    after = client.get(f"/v1/tables/{table['id']}", headers=OPERATOR).json
    assert after["version"] == table["version"] and after["seats"] == []
    assert client.get(f"/v1/players/{p.id}/balance", headers=OPERATOR).json["balance"] == 10
    r = client.post(f"/v1/tables/{table['id']}/seats", json={"buy_in": 10},
                    headers={"Authorization": f"Bearer {p.token}"})
    assert r.status_code == 201, r.json
    with pool.connection() as c:
        # No position was drawn by the refusal: the seat's two events follow the last one.
        assert c.execute("SELECT min(position) FROM events WHERE position > %s",
                         (top,)).fetchone() == (top + 1,)


def test_a_posting_that_waited_on_the_winners_lock_is_a_conflict_not_a_shortfall(pool, store):
    """The loser of a race queues on the balance row the winner holds, then finds the balance
    spent: the stream's version, read after the lock, says it lost the race (409, not 422)."""
    a, stream = f"wallet:{uuid.uuid4().hex[:8]}", f"ledger-{uuid.uuid4().hex[:8]}"
    seeded = post(pool, store, [Transfer(HOUSE, a, 5, "seed")], stream=stream)[-1].version
    outcome: list[BaseException] = []

    def loser() -> None:
        try:
            with pool.connection() as c, c.transaction():
                posted(c, store, stream, [Transfer(a, HOUSE, 5, "spend")], {},
                            expected_version=seeded)
        except BaseException as e:  # the test reads what it was
            outcome.append(e)

    with pool.connection() as c, c.transaction():
        posted(c, store, stream, [Transfer(a, HOUSE, 5, "spend")], {}, expected_version=seeded)
        thread = threading.Thread(target=loser)
        thread.start()
        with pool.connection() as watch:  # the loser waits on the balance row's lock
            for _ in range(500):
                if watch.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type"
                                 " = 'Lock' AND datname = current_database()"
                                 " AND query LIKE '%%banco_hold%%'").fetchone() == (1,):
                    break
                threading.Event().wait(0.01)
            else:
                raise AssertionError("the second posting never queued on the lock")
    thread.join(timeout=10)
    assert len(outcome) == 1 and isinstance(outcome[0], ConcurrencyConflict), outcome
