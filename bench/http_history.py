"""The history part of the HTTP benchmark: what an action costs at a table with a long history
against one with a short one, move type by move type."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import psycopg

from bench import report
from bench.http_clients import GAMES, TableSpec, Tally, payload, play, tables_for
from events.catalog import default_types
from events.postgres import PostgresEventStore, make_pool
from service.application import handlers, settling
from service.application.postgres_unit_of_work import transaction

if TYPE_CHECKING:
    from bench.http_service import Service

HISTORY_TARGET = 0.10  # an action at a long-lived table within 10% of one at a young table


def build_history(url: str, table_id: str, hands: int, batch: int = 1,
                  progress: Callable[[str], None] | None = None) -> float:
    """Play `hands` hands at `table_id` in-process, through the same handlers as the service, and
    settle each; `batch` hands per transaction. Returns the seconds it took.

    One hand per transaction by default: a transaction held open for seconds would hold back the
    xmin of every snapshot on the server, and with it the readers that tail the event log (in
    this run or in anyone else's on the same server). Players stand whenever they may, which
    keeps hands short without changing what a hand writes."""
    rng = random.Random(hands)
    began = time.monotonic()
    metadata = {"actor": "bench", "command": "BenchHistory"}
    with make_pool(url, min_size=1, max_size=1) as pool:
        store = PostgresEventStore(pool, default_types())
        done = 0
        while done < hands:
            with transaction(pool, store) as uow:
                for _ in range(min(batch, hands - done)):
                    table = handlers.load(uow, table_id)
                    engine = handlers.engine_of(table)
                    table = handlers.open_hand(uow, table, metadata)
                    while table.status == "playing":
                        turn = engine.turn(table.state)
                        seats = [turn.seat] if turn is not None else []
                        seats += [s["seat"] for s in table.seats]
                        seat, offered = next((s, a) for s in seats
                                             if (a := engine.legal_actions(table.state, s)))
                        action = next((a for a in offered if a["type"] == "stand"), None)
                        table = handlers.act(uow, table, seat,
                                             payload(table.game, action or rng.choice(offered), rng),
                                             metadata)
                    assert table.hand_id is not None
                    settling.settle(uow, table_id, table.hand_id,
                                    {**metadata, "hand": table.hand_id})
                    done += 1
            if progress and (done % 1000 == 0 or done == hands):
                progress(f"history: {done:,}/{hands:,} hands, {time.monotonic() - began:.0f} s")
    return time.monotonic() - began


LABELS = ("young", "old", "twin")  # the twin is a second young table: the noise of the method


@dataclass
class HistoryResult:
    """Three Sette e mezzo tables: `young` and `twin` with a few played hands, `old` with many."""

    hands: dict[str, int]  # played hands before measuring
    events: dict[str, int]  # events in their streams
    snapshot_bytes: dict[str, int]  # the engine state's snapshot in the `tables` row
    build_seconds: float  # to build the old table's history
    latencies: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in LABELS})
    kinds: dict[str, list[str]] = field(default_factory=lambda: {k: [] for k in LABELS})

    def ratio(self, table: str = "old", base: str = "young") -> float:
        """`table` over `base`, of the action p50s taken move type by move type, weighted alike.

        The tables are dealt different cards, so they play a different mix of moves, and moves
        cost differently (a bet posts treasure: three more statements; the move that ends a hand
        writes its payout and queues the settlement). The latencies of all moves together are
        bimodal, and their p50 follows the mix.
        """
        of, to = _by_kind(self, table), _by_kind(self, base)
        kinds = [k for k in to if k in of]
        weights = {k: len(of[k]) + len(to[k]) for k in kinds}
        below = sum(weights[k] * report.quantile(to[k], 0.5) for k in kinds)
        return sum(weights[k] * report.quantile(of[k], 0.5) for k in kinds) / below if below else 0.0

    def pooled_ratio(self, table: str = "old", base: str = "young") -> float:
        """`table` over `base`, of the p50s of all moves together (follows the mix of moves)."""
        below = report.quantile(self.latencies[base], 0.5)
        return report.quantile(self.latencies[table], 0.5) / below if below else 0.0

    @property
    def met(self) -> bool:
        return abs(self.ratio() - 1) <= HISTORY_TARGET


def _by_kind(result: HistoryResult, label: str) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for kind, latency in zip(result.kinds[label], result.latencies[label], strict=True):
        out.setdefault(kind, []).append(latency)
    return out


def run_history(svc: Service, url: str, hands: int, young: int, rounds: int, per_round: int,
                progress: Callable[[str], None] | None = None, warm: bool = True) -> HistoryResult:
    """Build two tables with `young` played hands and one with `hands`, then play `per_round`
    hands over HTTP at each in turn (the order rotates), `rounds` times (plus an unrecorded
    round 0 when `warm`)."""
    specs = dict(zip(LABELS, tables_for(svc, GAMES["sette-e-mezzo"], len(LABELS)), strict=True))
    build_history(url, specs["young"].table_id, young)
    build_history(url, specs["twin"].table_id, young)
    seconds = build_history(url, specs["old"].table_id, hands, progress=progress)
    sizes = {}
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
        for label, spec in specs.items():
            row = conn.execute("SELECT s.version, length(t.state) FROM streams s, tables t"
                               " WHERE s.stream_id = %s AND t.table_id = %s",
                               (handlers.stream(spec.table_id), spec.table_id)).fetchone()
            assert row is not None
            sizes[label] = row
    result = HistoryResult({"young": young, "old": hands, "twin": young},
                           {k: v[0] for k, v in sizes.items()}, {k: v[1] for k, v in sizes.items()},
                           seconds)
    for r in range(0 if warm else 1, rounds + 1):
        order = list(LABELS[r % 3:] + LABELS[:r % 3])
        for label in order:
            tally = _hands(specs[label], per_round)
            if r:
                result.latencies[label] += tally.latencies
                result.kinds[label] += tally.kinds
        if r and progress and r % 10 == 0:
            progress(f"history round {r}/{rounds}: old/young {result.ratio():.2f},"
                     f" twin/young {result.ratio('twin'):.2f}")
    return result


def _hands(spec: TableSpec, count: int) -> Tally:
    """Play `count` whole hands at `spec` over HTTP, settlement included."""
    now = time.monotonic()
    tally = play(spec, now, now + 600, max_hands=count)
    assert tally.hands >= count, "the hands did not end in time"
    return tally


def history_markdown(result: HistoryResult) -> str:
    rows = []
    for label in ("young", "twin", "old"):
        lat = result.latencies[label]
        rows.append([label, f"{result.hands[label]:,}", f"{result.events[label]:,}",
                     f"{result.snapshot_bytes[label]:,}", str(len(lat)), report.ms(report.quantile(lat, 0.5)),
                     report.ms(sum(lat) / len(lat) if lat else 0.0), report.ms(report.quantile(lat, 0.99))])
    table = report.table(["table", "hands played before", "events in its stream",
                          "snapshot bytes", "actions timed", "action p50 ms", "mean ms", "p99 ms"],
                         rows)
    verdict = "yes" if result.met else "no"
    return (f"{table}\n\nold/young, action p50 move type by move type: **{result.ratio():.2f}**"
            f" (within {HISTORY_TARGET:.0%}: {verdict}); all moves together"
            f" {result.pooled_ratio():.2f}. The same for two young tables (the method's own"
            f" noise), twin/young: {result.ratio('twin'):.2f}; all moves together"
            f" {result.pooled_ratio('twin'):.2f}. The old table's {result.hands['old']:,} hands"
            f" were built in {result.build_seconds:.0f} s.")
