"""A table's stored snapshot: one fold writes it live and on a rebuild (the same bytes), rows
pickled before the snapshot format are converted by their migration and play on, and a row is
never unpickled."""

from __future__ import annotations

import pickle
import secrets
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from events.catalog import default_types
from events.postgres import PostgresEventStore, configure_connection, make_pool
from games import registry
from projections import migrate, tables
from projections.rebuild import rebuild_all
from service.application import handlers
from service.application.postgres_unit_of_work import PostgresUnitOfWork
from tests.service.conftest import OPERATOR
from tests.service.play import Session

# What each game's seats bring (None: the game fixes its buy-in), and its table's options.
SEATING: dict[str, tuple[int, int | None, dict[str, Any]]] = {
    "sette-e-mezzo": (3, 50, {}),
    "siete-y-media": (3, 50, {}),
    "casino-pirate": (3, None, {}),
    "pirate-pairs": (3, 20, {"stake": 2}),
    "cassino": (2, 20, {}),
}


def seated(client, new_player, game: str) -> Session:
    players, buy_in, options = SEATING[game]
    session = Session(client, game, [new_player(f"P{i}", deposit=100) for i in range(players)])
    session.open(options, buy_in)
    return session


def one_move(client, session: Session) -> None:
    """The first legal action of whoever may act."""
    for p in session.players:
        table = client.get(f"/v1/tables/{session.table_id}", headers=p.auth).json
        if table["legal_actions"]:
            r = client.post(f"/v1/tables/{session.table_id}/actions",
                            json=session.payload(table["legal_actions"][0]),
                            headers={**p.auth, "If-Match": f'"{table["version"]}"'})
            assert r.status_code == 200, r.json
            return
    raise AssertionError("nobody may act")


def stored(conn: psycopg.Connection, table_ids: list[str]) -> dict[str, bytes | None]:
    rows = conn.execute("SELECT table_id, state FROM tables WHERE table_id = ANY(%s)",
                        (table_ids,)).fetchall()
    return {table_id: None if state is None else bytes(state) for table_id, state in rows}


def test_every_game_played_live_stores_the_bytes_its_rebuild_stores(app, client, new_player, worker):
    """Each game's table after a settled hand and in the middle of the next: the snapshot the
    commands wrote is, byte for byte, the one the rebuild's fold writes from the log."""
    assert set(SEATING) == set(registry.engines())  # every game served
    ids = []
    for game in SEATING:
        session = seated(client, new_player, game)
        session.wait_settled((session.deal(), session.play_hand())[0])
        if client.get(f"/v1/tables/{session.table_id}", headers=OPERATOR).json["status"] == "open":
            session.deal()
            one_move(client, session)
        midway = seated(client, new_player, game)
        midway.deal()
        one_move(client, midway)
        ids += [session.table_id, midway.table_id]
    pool = app.extensions["banco.pool"]
    with pool.connection() as c, c.transaction():
        # The rebuild's own locks, taken before the live rows are read: a deadline the worker
        # fires meanwhile would move a table on between the two reads, however right the fold.
        c.execute("LOCK TABLE balances, balance_history, players, tables, hands"
                  " IN ACCESS EXCLUSIVE MODE")
        live = stored(c, ids)
        assert sum(state is not None for state in live.values()) >= len(SEATING) + 1
        rebuild_all(c)
        assert stored(c, ids) == live


def _run(marker: list[str]) -> None:
    raise AssertionError(f"a stored row ran code: {marker}")


class _Payload:
    """What a row written by someone with access to the table would hold: a pickle whose
    reading calls a function it names."""

    def __reduce__(self) -> tuple[Any, ...]:
        return _run, (["unpickled"],)


def test_a_row_holding_a_pickle_is_refused_unread(app, client, new_player):
    session = seated(client, new_player, "sette-e-mezzo")
    session.deal()
    pool = app.extensions["banco.pool"]
    with pool.connection() as c:
        state = c.execute("SELECT state FROM tables WHERE table_id = %s",
                          (session.table_id,)).fetchone()[0]
        c.execute("UPDATE tables SET state = %s WHERE table_id = %s",
                  (pickle.dumps(_Payload(), protocol=5), session.table_id))
        try:
            # Refused as no snapshot (`projections.snapshots.StaleSnapshot`), the function not
            # called.
            with pytest.raises(ValueError, match="not a State snapshot"):
                tables.load(c, session.table_id)
        finally:  # the session's other tests meet a table as the commands left it
            c.execute("UPDATE tables SET state = %s WHERE table_id = %s",
                      (state, session.table_id))


def test_a_table_pickled_before_the_snapshot_migration_loads_after_it_and_plays_on(
        client, new_player, database_url):
    """A log and its projection as a Banco before the snapshot format left them, a hand in play
    at the table and its row's state pickled: the migration stores the snapshot the live path
    stores (the same bytes), and the next action is decided on it. No class is renamed, kept
    or imported for the old row: it is not read."""
    sessions = [seated(client, new_player, game) for game in ("sette-e-mezzo", "cassino")]
    for session in sessions:
        session.deal()
        one_move(client, session)
    ids = [s.table_id for s in sessions]
    snapshots = next(v for v, file, _ in migrate.available() if file.endswith("_state_snapshots.sql"))
    name = f"banco_snapshots_{secrets.token_hex(3)}"
    admin = make_conninfo(database_url, dbname=conninfo_to_dict(database_url).get("dbname"))
    with psycopg.connect(admin, autocommit=True) as c:
        c.execute(f'CREATE DATABASE "{name}"')
    url = make_conninfo(database_url, dbname=name)
    try:
        with psycopg.connect(database_url) as src:
            # One snapshot for every read of the source: a deadline fired meanwhile moves none
            # of the copied tables past its copied log.
            src.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            live = stored(src, ids)
            with psycopg.connect(url, autocommit=True) as old:
                migrate.upgrade(old, upto=snapshots - 1)
                for table in ("events", "streams", "balances", "tables"):
                    # A query, not the table: a partitioned table has no rows of its own to COPY.
                    with src.cursor().copy(f"COPY (SELECT * FROM {table}) TO STDOUT") as out, \
                            old.cursor().copy(f"COPY {table} FROM STDIN") as into:
                        for chunk in out:
                            into.write(chunk)
                # The copied positions were not drawn from the log's sequence: the next one is.
                old.execute("SELECT setval(pg_get_serial_sequence('events', 'position'),"
                            " (SELECT max(position) FROM events))")
                for table_id, state in live.items():
                    assert state is not None
                    row = tables.load(src, table_id)
                    assert row is not None
                    old.execute("UPDATE tables SET state = %s WHERE table_id = %s",
                                (pickle.dumps(row.state, protocol=5), table_id))
            src.rollback()
        with psycopg.connect(url, autocommit=True) as conn:
            configure_connection(conn)
            assert migrate.upgrade(conn) == [n for v, n, _ in migrate.available() if v >= snapshots]
            assert stored(conn, ids) == live
            store = PostgresEventStore(make_pool(url, min_size=1, max_size=1), default_types())
            try:
                for session in sessions:
                    table = tables.load(conn, session.table_id)
                    assert table is not None and table.status == "playing"
                    engine = handlers.engine_of(table)
                    seat = table.turn["seat"] if table.turn else 0
                    action = session.payload(engine.legal_actions(table.state, seat)[0])
                    version = table.version
                    with conn.transaction():
                        after = handlers.act(PostgresUnitOfWork.joining(conn, store), table,
                                             seat, action,
                                             {"actor": f"player:{table.player_at(seat)}"})
                    assert after.version > version
                    again = tables.load(conn, session.table_id)
                    assert again is not None and again.state == after.state
            finally:
                store.pool.close()
    finally:
        with psycopg.connect(admin, autocommit=True) as c:
            c.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def test_a_table_passed_to_another_process_reads_back_whole():
    """What a worker hands its streamer (`Relay.offer`): the row, its snapshot, its balances and
    the transaction that wrote it, times with their offsets, and a row with no snapshot too."""
    from datetime import UTC, datetime, timedelta, timezone

    engine = registry.engine("cassino")
    table = tables.TableRow("tb_0123456789abcdef", "cassino", {"stake": 1}, "playing", 7,
                            [{"seat": 0, "player_id": "pl_a", "age": 20, "seed": None}],
                            "hd_0123456789abcdef", 1, engine.initial_state({"stake": 1}),
                            {"seat": 0, "waiting_for": "play", "role": "player"}, "operator",
                            datetime.now(timezone(timedelta(hours=1))), datetime.now(UTC),
                            balances={"pl_a": 5}, txid=77)
    back = tables.received(tables.passed(table))
    assert back == table and (back.balances, back.txid) == (table.balances, table.txid)
    assert back.created_at.isoformat() == table.created_at.isoformat()
    empty = tables.TableRow("tb_fedcba9876543210", "pirate-pairs", {}, "open", 1)
    assert tables.received(tables.passed(empty)) == empty


def test_a_state_is_encoded_as_it_is_each_time_though_the_last_is_kept():
    """`snapshots.encode` keeps each thread's last state with its bytes, so that a move's row
    and the table passed to the streamers share one encoding: a different state, though equal
    to the last, or encoded in another thread, is its own bytes, and the table passed after its
    state moved on carries the new state."""
    import threading

    from projections import snapshots

    engine = registry.engine("cassino")
    first, other = engine.initial_state({"stake": 1}), engine.initial_state({"stake": 2})
    table = tables.TableRow("tb_0123456789abcdef", "cassino", {"stake": 1}, "playing", 7,
                            [{"seat": 0, "player_id": "pl_a", "age": 20, "seed": None}],
                            "hd_0123456789abcdef", 1, first, balances={"pl_a": 5}, txid=77)
    kept = snapshots.encode(first)
    assert snapshots.encode(first) is kept  # the same state: its bytes, kept
    assert tables.received(tables.passed(table)).state == first
    table.state = other
    assert snapshots.encode(other) != kept
    assert tables.received(tables.passed(table)).state == other
    twin = engine.initial_state({"stake": 2})  # equal, not the same: encoded anew, same bytes
    assert snapshots.encode(twin) == snapshots.encode(other)
    elsewhere: list[bytes] = []
    thread = threading.Thread(target=lambda: elsewhere.append(snapshots.encode(first)))
    thread.start()
    thread.join()
    assert elsewhere == [kept]
