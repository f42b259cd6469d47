"""A move as the players see it: from its commit to the moment each player's `/tables/{id}` page,
in Chromium, shows the table at that version; and, in the same run, to the moment a plain stream
client got that version's `id:` (the ceiling: what the page adds is reading and drawing).

The service runs as `bench streams` runs it (gunicorn as `banco serve` starts it, with a
settlement worker, on a database of the run's own). One Sette e mezzo table of four players
(`bench.http_clients`), a page per player signed in as him, following the table over its stream
as a person's browser does. A mover makes one move every `--interval` seconds, as a person would
(a deal when the table is open, else a legal action of whichever player may act, read first), for
`--moves` moves; a move's commit is the moment its response came. A page shows a version when
its `#table-version` holds it: a MutationObserver records the moment, before the browser paints
(add up to a frame, 17 ms at 60 Hz, for the eye). The player to act next gets the table on his
stream (`turns=true`); the others are told of the move's events and read the table.

Times are the machine's wall clock on both sides (`time.time()`, the pages'
`performance.timeOrigin + performance.now()`): one clock, on one machine.
"""

from __future__ import annotations

import argparse
import os
import random
import selectors
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bench import db, report
from bench.http_clients import GAMES, Client, TableSpec, payload, tables_for
from bench.http_service import prepare, redis_url, service
from bench.http_streams import EVENT_ID, Marks, deliveries, open_streams

CHROMIUM = os.environ.get("BANCO_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]

# Installed in every page before its own scripts: each version `#table-version` shows, and when.
RECORD_SHOWN = """
window.__shown = [];
new MutationObserver(() => {
  const v = document.getElementById("table-version");
  const n = v ? Number(v.textContent) : 0;
  const last = window.__shown.length ? window.__shown[window.__shown.length - 1][0] : 0;
  if (n > last) window.__shown.push([n, (performance.timeOrigin + performance.now()) / 1000]);
}).observe(document, { childList: true, subtree: true, characterData: true });
"""


def _page(browser: Any, base: str, token: str, table_id: str) -> Any:
    """A browser of its own signed in with `token`, as a person does, on the table's page."""
    context = browser.new_context(base_url=base, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto("/")
    page.get_by_label("Token").fill(token)
    page.get_by_role("button", name="Sign in").click()
    page.locator("#who-name").get_by_text("Signed in as").wait_for()
    page.add_init_script(RECORD_SHOWN)
    page.goto(f"/tables/{table_id}")
    page.locator("#live").get_by_text("Live").wait_for()
    return page


def _stream(port: int, path: str, token: str, stop: threading.Event, seen: Marks) -> None:
    """The ceiling: a plain client's stream of the same table, each newer `id:` and when."""
    [s], _ = open_streams(port, [(path, token)])
    sel = selectors.DefaultSelector()
    sel.register(s, selectors.EVENT_READ)
    tail = b""
    while not stop.is_set():
        if not sel.select(0.2):
            continue
        came = time.time()
        data = s.recv(65536)
        if not data:
            break
        ids = EVENT_ID.findall(tail + data)
        tail = data[-32:]
        if ids and (not seen or int(ids[-1]) > seen[-1][0]):
            seen.append((int(ids[-1]), came))
    s.close()


Move = tuple[int, float, int | None]  # a move's version, when its response came, the seat next to act


def _next(table: dict[str, Any]) -> int | None:
    return table["turn"]["seat"] if table["status"] == "playing" and table["turn"] else None


def _move(client: Client, spec: TableSpec, rng: random.Random) -> Move | None:
    """One move at the table: a deal when it is open, else a legal action of whoever may act.
    Its version, when its response came and the seat it made the next to act; None while the
    last hand is being settled."""
    path = f"/v1/tables/{spec.table_id}"
    status, table, _ = client.call("GET", path, spec.operator_key)
    assert status == 200, table
    if table["status"] == "open":
        status, body, _ = client.call("POST", path + "/hands", spec.seats[0].token)
        assert status == 201, body
        return body["version"], time.time(), _next(body)
    if table["status"] != "playing":
        return None
    for seat in spec.seats:
        status, mine, _ = client.call("GET", path, seat.token)
        if mine["legal_actions"]:
            action = payload(spec.game, rng.choice(mine["legal_actions"]), rng)
            status, body, _ = client.call("POST", path + "/actions", seat.token, action,
                                          {"If-Match": f'"{mine["version"]}"'})
            assert status == 200, (action, body)
            return body["version"], time.time(), _next(body)
    raise AssertionError("a hand in play offers nobody an action")


@dataclass
class Shown:
    """Each move's delivery, in seconds: to the page of the player it made the next to act (the
    table came on his stream), to the other pages (they read it), and to the plain stream."""

    next_mover: list[float]
    others: list[float]
    stream: list[float]
    missed: int  # (page, move) pairs never shown


def run(port: int, spec: TableSpec, moves: int, interval: float) -> Shown:
    """`moves` moves, one every `interval` seconds, timed to every page and the plain stream."""
    from playwright.sync_api import sync_playwright

    base = f"http://127.0.0.1:{port}"
    first = Client(port)
    version = first.call("GET", f"/v1/tables/{spec.table_id}", spec.operator_key)[1]["version"]
    first.close()
    stop = threading.Event()
    streamed: Marks = []
    reader = threading.Thread(target=_stream, args=(
        port, f"/v1/tables/{spec.table_id}/stream?turns=true&timeout=600&after={version}",
        spec.seats[0].token, stop, streamed))
    reader.start()
    rng = random.Random(spec.table_id)
    made: list[Move] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            pages = [_page(browser, base, seat.token, spec.table_id) for seat in spec.seats]
            time.sleep(0.5)
            # Opened now: gunicorn closes a connection left idle while the pages were opened.
            client = Client(port)
            while len(made) < moves:
                began = time.monotonic()
                done = _move(client, spec, rng)
                if done is not None:
                    made.append(done)
                # Playwright serves the pages' events only while it is called: wait through it.
                pages[0].wait_for_timeout(max(0.0, interval - (time.monotonic() - began)) * 1000)
            pages[0].wait_for_timeout(1000)  # the last move's news on its way
            shown: list[Marks] = [[(int(v), t) for v, t in pg.evaluate("window.__shown")]
                                  for pg in pages]
            browser.close()
            client.close()
    finally:
        stop.set()
        reader.join()
    out = Shown([], [], deliveries([(v, t) for v, t, _ in made], [streamed])[0], 0)
    for seat, marks in enumerate(shown):
        for mine, into in ((True, out.next_mover), (False, out.others)):
            each, _, missed = deliveries([(v, t) for v, t, n in made if (n == seat) == mine],
                                         [marks])
            into += each
            out.missed += missed
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench pages", description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--interval", type=float, default=0.25,
                        help="seconds from one move to the next (default 0.25)")
    parser.add_argument("--quick", action="store_true", help="40 moves")
    parser.add_argument("--url", help="server to create the benchmark database on"
                        " (default: $DATABASE_URL, else the local test server)")
    args = parser.parse_args(argv)
    if args.quick:
        args.moves = 40
    with db.fresh_database(args.url) as url:
        prepare(url)
        print(f"{args.moves} moves, one every {args.interval:g} s, four players' pages in Chromium;"
              f" load average before {os.getloadavg()[0]:.2f}", file=sys.stderr)
        with service(url, redis_url()) as svc:
            spec = tables_for(svc, GAMES["sette-e-mezzo"], 1)[0]
            shown = run(svc.port, spec, args.moves, args.interval)
    rows = [[to, str(len(times)), *(report.ms(report.quantile(times, q)) for q in (0.5, 0.99, 1.0))]
            for to, times in (("each player's page", shown.next_mover + shown.others),
                              ("the next mover's page (the table on his stream)", shown.next_mover),
                              ("the other pages (told, then reading the table)", shown.others),
                              ("a plain stream client (ceiling)", shown.stream))]
    print(report.table(["to", "deliveries", "p50 ms", "p99 ms", "max ms"], rows))
    print(f"\n{shown.missed} never shown; load average after: {os.getloadavg()[0]:.2f}")
    return 0 if shown.missed == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
