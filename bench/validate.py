"""Event payload validation, each way of doing it, against the canonical JSON of the same events.

A store append validates every event it writes before anything else. This measures what that
costs per event, for the payloads an action writes most (a bet's posting, a deadline, the
games' events) and a few others of the catalog, done each way: marshmallow's `Schema.validate`
(the schemas the catalog had before, bench/validate_models.py), msgspec's `convert` into the
catalog's Structs, pydantic's `model_validate` (bench/validate_models.py), and the registry's
`validate` as the store calls it (msgspec, and its error path only for refused payloads). The
ceiling is `canonical_json` of the same event, the text the store computes for each event's hash
anyway: every figure is also given as a ratio to it.

Times are the benchmark thread's CPU time (`time.thread_time`), not the wall clock, so that time
spent waiting for a core on a busy machine counts for nobody. In each round every payload is
checked by every way in turn, in an order that rotates from payload to payload and round to
round; figures are medians over the rounds, with their range, and the ratios are medians of the
rounds' own ratios.

The second part times whole appends to PostgreSQL of the events an action writes, with the
store's registry as it is, with the same types registered with their marshmallow schemas, and
with a registry that validates nothing (the ceiling), in turn.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
import psycopg

from bench import db, report
from bench.validate_models import MODELS, SCHEMAS
from events.catalog import GAME_EVENT_PREFIX, PAYLOADS, GameEvent, default_types
from events.model import NewEvent, canonical_json
from events.postgres import PostgresEventStore, configure_connection, make_pool
from events.types import EventTypes

TABLE, HAND, PLAYER = "tb_5f0c9e2a7d41b386", "hd_a93e07c51bd4f268", "pl_3c8e1f6a0b9d2745"
SEAT, ESCROW = f"seat:{TABLE}:{PLAYER}", f"escrow:{TABLE}:{HAND}"


def _game(data: dict[str, Any], visible_to: list[int] | None = None,
          public: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"hand": HAND, "data": data, "visible_to": visible_to, "public": public}


# (label, event type, payload) as the service writes them. The first six are what actions write
# most: every move appends its game event and the next turn's DeadlineSet, a bet its posting.
HOT = 6
CASES: list[tuple[str, str, dict[str, Any]]] = [
    ("TreasurePosted (a bet)", "TreasurePosted",
     {"from": SEAT, "to": ESCROW, "amount": 20, "reason": "bet", "table": TABLE, "hand": HAND}),
    ("DeadlineSet", "DeadlineSet",
     {"hand": HAND, "seat": 2, "waiting_for": "play", "deadline": 1795600000.734512}),
    ("game.BetPlaced", "game.BetPlaced", _game({"seat": 2, "index": 0, "amount": 20})),
    ("game.CardDealt, face down", "game.CardDealt",
     _game({"seat": 2, "index": 1, "card": "coins.7", "face_up": False, "timeout": False}, [2],
           {"seat": 2, "index": 1, "face_up": False, "timeout": False})),
    ("game.CardDealt, face up", "game.CardDealt",
     _game({"seat": 2, "index": 0, "card": "cups.king", "face_up": True, "timeout": False})),
    ("game.CardsCaptured (Cassino)", "game.CardsCaptured",
     _game({"seat": 1, "card": "D7", "timeout": False, "take": ["C3", "H4"],
            "cards": ["D7", "C3", "H4"], "sweep": False})),
    ("PlayerRegistered", "PlayerRegistered", {"player_id": PLAYER, "name_enc": "3q2-7wAAAAAAAAAA" * 3}),
    ("PlayerSeated", "PlayerSeated",
     {"seat": 3, "player_id": PLAYER, "buy_in": 500, "age": None, "seed": None}),
    ("HandBegan (4 seats)", "HandBegan",
     {"hand_id": HAND, "number": 12, "commitment": "9f" * 32,
      "seats": [{"seat": s, "player_id": f"pl_{s:016x}"} for s in range(4)]}),
]

Check = Callable[[NewEvent], object]


def _struct(event_type: str) -> type[msgspec.Struct]:
    return GameEvent if event_type.startswith(GAME_EVENT_PREFIX) else PAYLOADS[event_type]


def _model(event_type: str) -> Any:
    return MODELS["GameEvent" if event_type.startswith(GAME_EVENT_PREFIX) else event_type]


def _schema(event_type: str) -> Any:
    return SCHEMAS["GameEvent" if event_type.startswith(GAME_EVENT_PREFIX) else event_type]


def _marshmallow(event_type: str) -> Check:
    validate = _schema(event_type).validate
    return lambda e: validate(e.data)


def _msgspec(event_type: str) -> Check:
    struct, convert = _struct(event_type), msgspec.convert
    return lambda e: convert(e.data, struct)


def _pydantic(event_type: str) -> Check:
    validate = _model(event_type).model_validate
    return lambda e: validate(e.data)


def _registry(event_type: str) -> Check:
    return default_types().validate


def _ceiling(event_type: str) -> Check:
    return lambda e: canonical_json("bench-table", e)


CEILING = "canonical JSON (ceiling)"
WAYS: dict[str, Callable[[str], Check]] = {
    "marshmallow": _marshmallow, "msgspec": _msgspec,
    "pydantic": _pydantic, "registry": _registry, CEILING: _ceiling,
}
REFERENCE = "marshmallow"  # the API's library, the way the others are compared with


def _accepts(check: Check, event: NewEvent) -> bool:
    try:
        outcome = check(event)
    except Exception:
        return False
    return not (isinstance(outcome, dict) and outcome)


def _cpu_per_call(check: Check, event: NewEvent, calls: int) -> float:
    start = time.thread_time_ns()
    for _ in range(calls):
        check(event)
    return (time.thread_time_ns() - start) / calls / 1000


@dataclass
class Row:
    label: str
    micros: dict[str, list[float]] = field(default_factory=dict)  # way -> µs per event, by round

    def median(self, way: str) -> float:
        return report.median(self.micros[way])

    def ratios(self, way: str, to: str) -> list[float]:
        """`to`'s time over `way`'s, round by round: above 1 when `way` is the faster."""
        return [t / w for w, t in zip(self.micros[way], self.micros[to], strict=True)]


def run(rounds: int, seconds: float, progress: Callable[[str], None] = lambda line: None) -> list[Row]:
    checks = {label: (NewEvent(kind, data), {w: make(kind) for w, make in WAYS.items()})
              for label, kind, data in CASES}
    calls: dict[tuple[str, str], int] = {}
    for label, (event, ways) in checks.items():
        for way, check in ways.items():
            # Every way must accept every payload, or it would be timed on its error path.
            assert _accepts(check, event), (way, label)
            once = max(_cpu_per_call(check, event, 200), 0.01)
            calls[label, way] = max(50, int(seconds / len(WAYS) / once * 1e6))
    rows = [Row(label, {w: [] for w in WAYS}) for label in checks]
    names = list(WAYS)
    for r in range(rounds):
        for i, (row, (event, ways)) in enumerate(zip(rows, checks.values(), strict=True)):
            shift = (r + i) % len(names)
            for way in names[shift:] + names[:shift]:
                row.micros[way].append(_cpu_per_call(ways[way], event, calls[row.label, way]))
        progress(f"round {r + 1}/{rounds}: " + ", ".join(
            f"{w} {report.median([row.micros[w][-1] for row in rows[:HOT]]):.2f}" for w in names))
    return rows


def mix(rows: Sequence[Row]) -> Row:
    """The hot payloads' mean, round by round: the cost per event of an action's writes."""
    hot = rows[:HOT]
    return Row("hot mix (the first six, each once)",
               {w: [sum(r.micros[w][i] for r in hot) / len(hot) for i in range(len(hot[0].micros[w]))]
                for w in WAYS})


def _spread(values: Sequence[float], fmt: str = "{:.2f}") -> str:
    if len(values) < 2:
        return fmt.format(report.median(values))
    return f"{fmt.format(report.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def markdown(rows: Sequence[Row]) -> str:
    every = [*rows, mix(rows)]
    ways = list(WAYS)
    micros = report.table(
        ["payload", *(f"{w} µs" for w in ways)],
        [[r.label, *(_spread(r.micros[w]) for w in ways)] for r in every])
    against = [w for w in ways if w != CEILING]
    to_ceiling = report.table(
        ["payload", *against],
        [[r.label, *(_spread(r.ratios(w, CEILING), "{:.0%}") for w in against)] for r in every])
    others = [w for w in against if w != REFERENCE]
    to_reference = report.table(
        ["payload", *others],
        [[r.label, *(_spread(r.ratios(w, REFERENCE), "{:.2f}x") for w in others)] for r in every])
    return (f"CPU µs per event validated, median (range) over the rounds:\n\n{micros}\n\n"
            f"Speed as a share of the ceiling's (its µs over the way's), median of the rounds' own"
            f" ratios:\n\n{to_ceiling}\n\n"
            f"Speed relative to {REFERENCE} ({REFERENCE}'s µs over the way's; above 1x is faster),"
            f" median of the rounds' own ratios:\n\n{to_reference}")


# --- whole appends --------------------------------------------------------------------------

def _unchecked() -> EventTypes:
    """The ceiling of an append: the catalog's types, none of them checked."""
    types = default_types()
    types.validate = lambda event: None  # type: ignore[method-assign]
    return types


def _marshmallow_types() -> EventTypes:
    """The same types registered with the marshmallow schemas the catalog had before."""
    types = EventTypes()
    for name, schema in SCHEMAS.items():
        if name != "GameEvent":
            types.register(name, schema)
    types.register_family(GAME_EVENT_PREFIX, SCHEMAS["GameEvent"])
    return types


APPEND_WAYS: dict[str, Callable[[], EventTypes]] = {
    "registry": default_types, "registry of marshmallow schemas": _marshmallow_types,
    "no validation (ceiling)": _unchecked}
ACTION = [NewEvent(kind, data) for _, kind, data in CASES[:HOT]]


@dataclass
class AppendResult:
    rates: dict[str, list[float]] = field(default_factory=dict)  # appends/s by round
    cpu: dict[str, list[float]] = field(default_factory=dict)  # client CPU µs per append


def run_appends(url: str, rounds: int, seconds: float,
                progress: Callable[[str], None] = lambda line: None) -> AppendResult:
    """One writer appends the hot payloads, six events in one stream, as each way in turn."""
    result = AppendResult({w: [] for w in APPEND_WAYS}, {w: [] for w in APPEND_WAYS})
    with make_pool(url, max_size=1) as pool, psycopg.connect(url, autocommit=True) as conn:
        configure_connection(conn)
        stores = {w: PostgresEventStore(pool, make()) for w, make in APPEND_WAYS.items()}
        names = list(APPEND_WAYS)
        for r in range(rounds + 1):  # the first round warms up and is not kept
            for way in names[r % len(names):] + names[:r % len(names)]:
                store, stream, appends = stores[way], f"bench-{names.index(way)}-{r}", 0
                cpu, start = time.thread_time_ns(), time.perf_counter()
                while time.perf_counter() - start < seconds:
                    store.append(stream, ACTION, appends * len(ACTION), conn=conn)
                    appends += 1
                wall, cpu = time.perf_counter() - start, time.thread_time_ns() - cpu
                if r:
                    result.rates[way].append(appends / wall)
                    result.cpu[way].append(cpu / appends / 1000)
            if r:
                progress(f"append round {r}/{rounds}: " + ", ".join(
                    f"{w} {result.rates[w][-1]:,.0f}/s" for w in names))
    return result


def appends_markdown(result: AppendResult) -> str:
    ceiling = "no validation (ceiling)"
    rows = []
    for way in APPEND_WAYS:
        ratios = [a / c for a, c in zip(result.rates[way], result.rates[ceiling], strict=True)]
        extra = [w - c for w, c in zip(result.cpu[way], result.cpu[ceiling], strict=True)]
        rows.append([way, _spread(result.rates[way], "{:,.0f}"), _spread(ratios, "{:.0%}"),
                     _spread(result.cpu[way], "{:.0f}"), _spread(extra, "{:.0f}")])
    return report.table(["appends of 6 events", "appends/s", "appends/ceiling",
                         "client CPU µs per append", "µs more than the ceiling"], rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench validate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a few seconds (figures indicative only)")
    parser.add_argument("--rounds", type=int, help="rounds (default 9, quick 2)")
    parser.add_argument("--seconds", type=float, help="CPU seconds per payload per round, all ways"
                        " together (default 0.3, quick 0.05); appends: seconds per trial (default 2,"
                        " quick 0.3)")
    parser.add_argument("--no-append", action="store_true", help="leave out the whole appends")
    parser.add_argument("--url", help="server to create the benchmark database on"
                        " (default: $DATABASE_URL, else the local test server)")
    args = parser.parse_args(argv)
    rounds = args.rounds or (2 if args.quick else 9)
    seconds = args.seconds or (0.05 if args.quick else 0.3)
    progress: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    rows = run(rounds, seconds, progress)
    print(f"# Event payload validation, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n\n"
          f"{os.cpu_count()} cores, msgspec {msgspec.__version__}, {rounds} round(s)\n\n{markdown(rows)}")
    if not args.no_append:
        with db.fresh_database(args.url) as url:
            result = run_appends(url, rounds, args.seconds or (0.3 if args.quick else 2), progress)
            print(f"\n{db.describe(url)}, one writer, autocommit, {rounds} round(s) after a warm-up"
                  f"\n\n{appends_markdown(result)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
