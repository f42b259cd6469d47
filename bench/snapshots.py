"""A table's snapshot, stored and read back: the codec (projections/snapshots.py) against the
pickle the table's row held before, per engine state.

Every action loads its table's row (the snapshot decoded) and saves it (encoded): one encode and
one decode per action, on the state of a hand in play. The states measured are every state that
hands of each game pass through, played by seeded random legal moves with the engines alone (no
database), so each figure is a mean over a hand's life; a round times every state each way in
turn, in an order that alternates from round to round. Times are the benchmark thread's CPU time
(`time.thread_time`), so that waiting for a core on a busy machine counts for neither; figures
are medians over the rounds, with the ratio codec/pickle (under 1: the codec is faster).
"""

from __future__ import annotations

import argparse
import pickle
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from bench import report
from games import registry
from games.contract import Engine, SeatInfo, SeedMaterial
from projections import snapshots

PLAYERS = {"cassino": 2}  # the others are played by 3


def _payload(action: dict[str, Any], rnd: random.Random) -> dict[str, Any]:
    """A payload a client could send for an offered action (a value within each range)."""
    out: dict[str, Any] = {"type": action["type"]}
    for key, spec in action.items():
        if key == "declare":
            out[key] = {}
        elif key != "type":
            out[key] = rnd.randint(spec["min"], spec["max"]) if isinstance(spec, dict) else spec
    return out


def states(engine: Engine, hands: int, seed: int) -> list[Any]:
    """Every state `hands` hands of the engine's game go through, played at random."""
    rnd = random.Random(seed)
    n = PLAYERS.get(engine.info.name, 3)
    options = dict(engine.options_schema().load({}))
    seen: list[Any] = []
    for hand in range(hands):
        seats = [SeatInfo(s, f"p{s}", 100, age=20 + s, seed=f"s{s}") for s in range(n)]
        material = SeedMaterial(f"{seed:08x}{hand:056x}", tuple(f"s{s}" for s in range(n)))
        state = engine.initial_state(options)
        for event in engine.start(options, seats, material, now=0.0):
            state = engine.evolve(state, event)
            seen.append(state)
        for step in range(1, 2000):
            turn = engine.turn(state)
            if engine.is_terminal(state) or turn is None:
                break
            offered = [(s, a) for s in range(n) for a in engine.legal_actions(state, s)]
            seat, action = rnd.choice(offered)
            command = engine.parse_action(seat, _payload(action, rnd), float(step))
            for event in engine.decide(state, command):
                state = engine.evolve(state, event)
                seen.append(state)
    return seen


def _codec(state: Any) -> None:
    snapshots.decode(type(state), snapshots.encode(state))


def _pickle(state: Any) -> None:
    pickle.loads(pickle.dumps(state, protocol=5))


WAYS: dict[str, Callable[[Any], None]] = {"codec": _codec, "pickle": _pickle}


def measure(found: list[Any], rounds: int) -> dict[str, list[float]]:
    """Per way, each round's mean CPU time per state (seconds)."""
    times: dict[str, list[float]] = {way: [] for way in WAYS}
    for r in range(rounds):
        for way in (list(WAYS) if r % 2 == 0 else list(reversed(WAYS))):
            run = WAYS[way]
            start = time.thread_time()
            for state in found:
                run(state)
            times[way].append((time.thread_time() - start) / len(found))
    return times


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench snapshots", description=__doc__)
    parser.add_argument("--hands", type=int, default=20, help="hands played per game")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="2 hands, 3 rounds")
    args = parser.parse_args(argv)
    hands, rounds = (2, 3) if args.quick else (args.hands, args.rounds)
    rows = []
    for name, engine in registry.current().items():
        found = states(engine, hands, seed=7)
        print(f"{name}: {len(found)} states", file=sys.stderr)
        times = measure(found, rounds)
        codec, pickled = (statistics.median(times[w]) for w in ("codec", "pickle"))
        ratios = [c / p for c, p in zip(times["codec"], times["pickle"], strict=True)]
        size = statistics.mean(len(snapshots.encode(s)) for s in found)
        old = statistics.mean(len(pickle.dumps(s, protocol=5)) for s in found)
        rows.append([name, str(len(found)), f"{codec * 1e6:.1f}", f"{pickled * 1e6:.1f}",
                     f"{statistics.median(ratios):.2f} ({min(ratios):.2f} to {max(ratios):.2f})",
                     f"{size:.0f}", f"{old:.0f}"])
    print(f"## Snapshots: encode + decode per state, codec vs pickle ({rounds} rounds)\n")
    print(report.table(["game", "states", "codec µs", "pickle µs", "codec / pickle",
                        "codec bytes", "pickle bytes"], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
