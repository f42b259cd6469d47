"""The Python SDK (clients/python, `banco_sdk`) against `banco run` on the session's servers:
its bots play every game to the end, its streams resume after a cut with nothing lost or
repeated, a write it retries is applied once, errors come typed, and pages are followed; the
sync and the async client alike. Its models are the ones openapi.yaml generates today."""

from __future__ import annotations

import asyncio
import email.utils
import http.server
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import aclosing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import banco_sdk
import httpx
import pytest
import yaml
from banco_sdk import AsyncBanco, Banco, Retries, as_action, errors, models
from banco_sdk._core import retry_after
from banco_sdk.bot import Bot, choose

from tests.clients.proxy import Proxy
from tests.test_cli import banco_running, free_port

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "clients" / "python"
# game, table options, buy-in, players
# (None: the bot's own, Casino pirate's fixed one or ten times the table's stake)
GAMES = [("sette-e-mezzo", {}, 50, 3), ("siete-y-media", {}, 50, 3), ("casino-pirate", {}, None, 3),
         ("pirate-pairs", {"stake": 5}, None, 3), ("cassino", {}, None, 2)]
DEPOSIT = 100


@pytest.fixture(scope="module")
def banco(database_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
          ) -> Iterator[tuple[str, str]]:
    """`banco run` with one API worker, on a queue of its own: its URL and operator key."""
    with banco_running(tmp_path_factory.mktemp("banco") / "data", database_url,
                       redis_url,
                       # The limits have tests of their own. The operator's budget is one
                       # counter in Redis whoever holds the key: at the default, the `banco run`
                       # of another test file just before on the same worker would share it.
                       BANCO_RATE_LIMIT="100000/minute") as running:
        yield running


@pytest.fixture(scope="module")
def operator(banco: tuple[str, str]) -> Iterator[Banco]:
    url, key = banco
    with Banco(url, key) as client:
        yield client


@pytest.fixture
def proxy(banco: tuple[str, str]) -> Iterator[Proxy]:
    running = Proxy(int(banco[0].rsplit(":", 1)[1]))
    yield running
    running.close()


def players(operator: Banco, count: int, deposit: int = DEPOSIT) -> list[tuple[str, str]]:
    """`count` new players, each with `deposit` in his wallet: their ids and tokens."""
    made = []
    for i in range(count):
        created = operator.create_player(f"Bot {i}")
        operator.deposit(created.player.id, deposit, "desk")
        made.append((created.player.id, created.token))
    return made


def test_the_sdk_version_is_the_apis():
    spec = yaml.load((ROOT / "openapi.yaml").read_text(), Loader=yaml.CSafeLoader)
    project = tomllib.loads((SDK / "pyproject.toml").read_text())["project"]
    assert project["name"] == "banco-client"
    assert project["version"] == banco_sdk.__version__ == spec["info"]["version"]


def test_the_committed_models_are_those_todays_spec_generates():
    """A change to openapi.yaml that changes the models fails here until they are generated again
    (`python clients/python/generate.py`), and the SDK's code fits them (mypy, these tests)."""
    spec = importlib.util.spec_from_file_location("banco_sdk_generate", SDK / "generate.py")
    assert spec is not None and spec.loader is not None
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    assert generate.generate() == (SDK / "banco_sdk" / "models.py").read_text()


@pytest.mark.parametrize(("game", "options", "buy_in", "count"), GAMES, ids=[g[0] for g in GAMES])
def test_bots_play_every_game_to_the_end(banco, operator, game: str, options: dict[str, Any],
                                         buy_in: int | None, count: int):
    """One bot per seat (the first run as `python -m banco_sdk.bot`, the others in threads)
    sits, one deals, all play their legal moves until the hand is settled; treasure is conserved:
    what the wallets and seats hold is what was deposited."""
    url, _ = banco
    seated = players(operator, count)
    table = operator.create_table(game, options=options)
    moves: dict[int, int] = {}

    def run(i: int, token: str) -> None:
        with Banco(url, token) as client:
            bot = Bot(client, table.id, buy_in=buy_in, players=count, seed=f"seed {i}")
            bot.run()
            moves[i] = bot.moves

    threads = [threading.Thread(target=run, args=(i, token)) for i, (_, token) in enumerate(seated)
               if i > 0]
    for thread in threads:
        thread.start()
    cli = subprocess.run([sys.executable, "-m", "banco_sdk.bot", "--url", url, "--token", seated[0][1],
                          "--game", game, "--table", table.id, "--players", str(count),
                          *(["--buy-in", str(buy_in)] if buy_in else [])],
                         capture_output=True, text=True, timeout=60)
    for thread in threads:
        thread.join(60)
    assert cli.returncode == 0, cli.stdout + cli.stderr
    done = re.search(r"^done: 1 hand\(s\), (\d+) move\(s\)", cli.stdout, re.M)
    assert done, cli.stdout
    assert len(moves) == count - 1 and sum(moves.values()) + int(done[1]) > 0

    final = operator.table(table)
    assert final.hand is not None and final.status in ("open", "over")
    hand = operator.wait_settled(final.hand.id)
    assert hand.number == 1
    # Every turn was played by its bot, none left to its deadline.
    assert not [e for e in operator.table_events(table)
                if e.kind == "game" and getattr(e.data, "timeout", None) is True]
    final = operator.table(table)
    wallets = sum(operator.balance(pid).balance for pid, _ in seated)
    assert wallets + sum(seat.balance for seat in final.seats) == DEPOSIT * count


def readmes_bot(tmp_path: Path) -> Path:
    """The bot of clients/python/README.md (the top README shows the same), in under 30 lines,
    as a script."""
    text = (SDK / "README.md").read_text()
    section = text[text.index("## A bot in"):]
    code = section[section.index("```python\n") + 10:section.index("```\n", section.index("```python"))]
    assert len(code.strip().splitlines()) < 30
    (tmp_path / "bot.py").write_text(code)
    top = (ROOT / "README.md").read_text().split("## Clients\n", 1)[1]
    assert top.split("```python\n", 1)[1].split("```", 1)[0] == code  # the top README shows it too
    return tmp_path / "bot.py"


def test_the_readmes_bot_plays_a_hand(banco, operator, tmp_path):
    """The README's bot, run as written beside a reference bot that deals: it plays its turns
    until the hand is over."""
    script = readmes_bot(tmp_path)
    (_, mine), (_, theirs) = players(operator, 2)
    table = operator.create_table("sette-e-mezzo", options={"max_bet": 5})
    url = banco[0]
    with Banco(url, theirs) as client:
        client.join(table, buy_in=20)  # seat 0, the banker: the README's bot is a player
        readme = subprocess.Popen([sys.executable, str(script), url, mine, table.id],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        Bot(client, table.id, players=2).run()
    out, _ = readme.communicate(timeout=30)
    assert readme.returncode == 0, out
    hand = operator.table(table).hand
    assert hand is not None and operator.wait_settled(hand.id).number == 1
    bets = [e.data for e in operator.table_events(table) if isinstance(e, models.TableEventGameBetPlaced)]
    assert [bet.seat for bet in bets] == [1], bets


def hand_played(url: str, tokens: list[str], table_id: str) -> None:
    """One hand played to its end at `table_id` by a reference bot for each of `tokens` (seated
    with 20 unless they sit already), one of them dealing: settled before this returns."""
    def run(token: str) -> None:
        with Banco(url, token) as client:
            Bot(client, table_id, buy_in=20, players=len(tokens)).run()

    threads = [threading.Thread(target=run, args=(token,)) for token in tokens]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    with Banco(url, tokens[0]) as client:
        hand = client.table(table_id).hand
        assert hand is not None and client.wait_settled(hand.id).status == "settled"


def until(check: Any, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.05)


def test_the_readmes_bot_joined_after_a_settled_hand_plays_the_next(banco, operator, proxy, tmp_path):
    """The README's bot joining a table whose last hand is settled is sent that table (open for
    its next hand) at once: it waits for a hand it sees in play, and plays it to its end, rather
    than taking the settled one for its own."""
    script = readmes_bot(tmp_path)
    (_, ann), (_, cid), (_, mine) = players(operator, 3)
    # Turns end after 10 s: a bot that left does not hold the hand up for long.
    table = operator.create_table("sette-e-mezzo", options={"max_bet": 5, "turn_timeout_s": 10})
    url = banco[0]
    hand_played(url, [ann, cid], table.id)
    proxy.answered = bytearray()
    readme = subprocess.Popen([sys.executable, str(script), proxy.url, mine, table.id],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # The stream has told it of the table open for its next hand (or it has stopped).
    until(lambda: b"event: table" in proxy.answered or readme.poll() is not None)
    assert readme.poll() is None, readme.communicate()[0]  # still there, waiting for a hand

    def play(token: str, deal: bool) -> None:
        with Banco(url, token) as client:
            Bot(client, table.id, players=3, deal=deal).run()

    other = threading.Thread(target=play, args=(cid, False))
    other.start()
    play(ann, True)  # deals hand 2 and plays it
    other.join(60)
    out, _ = readme.communicate(timeout=60)
    assert readme.returncode == 0, out
    hand = operator.table(table).hand
    assert hand is not None and operator.wait_settled(hand.id).number == 2
    seated = [e.data for e in operator.table_events(table) if isinstance(e, models.TableEventPlayerSeated)]
    assert [s.seat for s in seated] == [0, 1, 2] and seated[2].buy_in == 20
    events = [e for e in operator.table_events(table) if e.hand == hand.id]
    assert 2 in [e.data.seat for e in events if isinstance(e, models.TableEventGameBetPlaced)], events
    assert not [e for e in events if e.kind == "game" and getattr(e.data, "timeout", None) is True]


def hits(table: Any) -> dict[str, Any] | None:
    """A strategy that draws whenever it may (in Sette e mezzo, until it busts or has 7½)."""
    hit = [o for o in table.legal_actions or [] if o.type == "hit"] if table.status == "playing" else []
    return as_action(hit[0]) if hit else choose(table)


@pytest.mark.parametrize("banker", ["readme", "bot"])
def test_a_banker_whose_players_all_bust_stops_once_the_hand_is_settled(banco, operator, proxy,
                                                                        tmp_path, banker: str):
    """The banker of Sette e mezzo never acts in a hand whose players all bust: its stream of
    turns shows it the table open before the deal and again once the hand is settled, never in
    play. The README's bot took only a hand it saw in play for its own, and waited on forever;
    now it stops once the hand dealt after it came is settled, as the SDK's bot does. Hands
    are played (the other seat drawing until it busts) until one where the banker had no turn."""
    url = banco[0]
    script = readmes_bot(tmp_path)
    for _ in range(8):
        (_, mine), (_, theirs) = players(operator, 2)
        table = operator.create_table("sette-e-mezzo", options={"max_bet": 5})
        with Banco(url, mine) as client:
            client.join(table, buy_in=20)  # seat 0, the banker
        command = ([sys.executable, str(script), proxy.url, mine, table.id] if banker == "readme"
                   else [sys.executable, "-m", "banco_sdk.bot", "--url", proxy.url, "--token", mine,
                         "--game", "sette-e-mezzo", "--table", table.id, "--no-deal"])
        proxy.answered = bytearray()
        bot = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            # Its stream has shown it the table open, before the other seat deals.
            until(lambda bot=bot: b"event: table" in (proxy.answered or b"") or bot.poll() is not None)
            assert bot.poll() is None, bot.communicate()[0]
            with Banco(url, theirs) as client:
                Bot(client, table.id, buy_in=20, players=2, strategy=hits).run()
            hand = operator.table(table).hand
            assert hand is not None and operator.wait_settled(hand.id).number == 1
            out, _ = bot.communicate(timeout=20)
        finally:
            if bot.poll() is None:
                bot.kill()
                bot.communicate()
        assert bot.returncode == 0, out
        turns = [e.data.seat for e in operator.table_events(table)
                 if isinstance(e, models.TableEventDeadlineSet)]
        if 0 not in turns:  # a hand the banker had no move in
            return
    pytest.fail("the banker had a turn in every hand")


def test_the_async_client_plays_a_hand(banco, operator):
    """AsyncBanco: players seated, a hand dealt and played from the turns its streams bring, up
    to the settlement; the tables listed by its async pages."""
    url, _ = banco
    seated = players(operator, 2)

    async def main() -> list[int]:
        async with AsyncBanco(url, banco[1]) as op:
            table = await op.create_table("sette-e-mezzo", options={"max_bet": 5})
        clients = [AsyncBanco(url, token) for _, token in seated]
        for client in clients:
            await client.join(table, buy_in=20)
        dealt = await clients[0].deal(await clients[0].table(table))
        assert dealt.hand is not None

        async def play(client: AsyncBanco) -> int:
            moves = 0
            current = await client.table(table)
            while True:
                while (action := choose(current)) is not None:
                    current = await client.act(current, action)
                    moves += 1
                if current.status != "playing":
                    return moves
                turns = client.stream(current, turns=True, events=False, after=current.version)
                async with aclosing(turns):
                    async for event in turns:
                        if event.event == "table":
                            current = event.table()
                            break

        moves = await asyncio.gather(*(play(c) for c in clients))
        settled = await clients[0].wait_settled(dealt.hand.id)
        assert settled.status == "settled"
        async with AsyncBanco(url, banco[1]) as op:
            listed = [t.id async for t in op.tables(game="sette-e-mezzo", limit=1)]
        assert table.id in listed and len(listed) == len(set(listed))
        for client in clients:
            await client.close()
        return moves

    assert sum(asyncio.run(main())) > 0


def play_a_hand(url: str, operator: Banco, count: int = 2) -> str:
    """A hand of Sette e mezzo played to its end by bots: the table's id."""
    seated = players(operator, count)
    table = operator.create_table("sette-e-mezzo", options={"max_bet": 5})

    def run(token: str) -> None:
        with Banco(url, token) as client:
            Bot(client, table.id, buy_in=20, players=count).run()

    threads = [threading.Thread(target=run, args=(token,)) for _, token in seated]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return table.id


def test_a_table_stream_cut_again_and_again_resumes_with_no_gap_or_repeat(banco, operator, proxy):
    """The operator follows a table through a proxy that cuts the connection while bots play:
    the SDK resumes with Last-Event-ID and receives every version once, in order."""
    url, key = banco
    seated = players(operator, 2)
    table = operator.create_table("sette-e-mezzo", options={"max_bet": 5})
    received: list[int] = []
    stop_after: list[int] = []

    def follow() -> None:
        with Banco(proxy.url, key) as watcher:
            for event in watcher.stream(table, after=0):
                received.append(int(event.id))
                if stop_after and received[-1] > stop_after[0]:
                    return
                if len(received) % 4 == 0:
                    # Cut by what was received as well as by time: bots that play a hand in
                    # less than a few ticks of the cuts below would otherwise see too few.
                    proxy.cut()

    follower = threading.Thread(target=follow)
    follower.start()

    def run(token: str) -> None:
        with Banco(url, token) as client:
            Bot(client, table.id, buy_in=20, players=2).run()

    bots = [threading.Thread(target=run, args=(token,)) for _, token in seated]
    for bot in bots:
        bot.start()
    while any(bot.is_alive() for bot in bots):
        time.sleep(0.15)
        proxy.cut()
    operator.wait_settled(operator.table(table).hand.id)  # type: ignore[union-attr]
    stop_after.append(operator.table(table).version)
    proxy.cut()
    operator.leave(table, seated[0][0])  # news after the hand, for the follower to end on
    follower.join(30)
    assert not follower.is_alive()
    versions = [e.version for e in operator.table_events(table)]
    assert proxy.cuts > 2 and len(received) > 10
    assert received == [v for v in versions if v <= received[-1]], (received, versions)


def test_the_feed_stream_resumes_after_cuts_with_no_gap_or_repeat(banco, operator, proxy):
    """AsyncBanco follows the log's feed through a proxy cut every 40 events: it receives what the
    feed's pages give, each event once, in the same order."""
    play_a_hand(banco[0], operator)
    pages = [e.position for e in operator.feed(limit=500)]

    async def follow() -> list[int]:
        got: list[int] = []
        async with AsyncBanco(proxy.url, banco[1]) as auditor:
            events = auditor.feed_stream(after=0)
            async with aclosing(events):
                async for event in events:
                    got.append(event.feed_event().position)
                    if len(got) % 40 == 0:
                        proxy.cut()
                    if len(got) == len(pages):
                        return got
        return got

    received = asyncio.run(asyncio.wait_for(follow(), 30))
    assert proxy.cuts >= len(pages) // 40 > 1
    assert received == pages


def test_a_write_whose_answer_was_lost_is_retried_with_its_key_and_applied_once(banco, operator, proxy):
    """The proxy lets the deposit through and drops its answer: the SDK sends it again with the
    same Idempotency-Key, gets the first answer back, and the wallet is credited once."""
    (pid, _), = players(operator, 1, deposit=1)
    with Banco(proxy.url, banco[1], retries=Retries(backoff=0.05)) as client:
        proxy.drop_next_answer = True
        result = client.deposit(pid, 40, "desk")
        assert proxy.dropped == 1
    assert result.balance.balance == 41
    assert operator.balance(pid).balance == 41
    assert [row.amount for row in operator.balance_history(pid)] == [1, 40]

    async def again() -> int:
        async with AsyncBanco(proxy.url, banco[1], retries=Retries(backoff=0.05)) as client:
            proxy.drop_next_answer = True
            return (await client.withdraw(pid, 10, "desk")).balance.balance

    assert asyncio.run(again()) == 31
    assert proxy.dropped == 2
    assert [row.amount for row in operator.balance_history(pid)] == [1, 40, -10]


def test_an_api_out_of_reach_is_named_in_the_error_without_its_query():
    """A Banco that does not answer: the error names the request it could not send, method and
    address, after the retries (it said only "[Errno 111] Connection refused"); the query, where
    a stream's ticket travels, is left out."""
    closed = f"http://127.0.0.1:{free_port()}"
    with Banco(closed, "bnc_secret", retries=Retries(attempts=1, backoff=0.01)) as client:
        with pytest.raises(errors.ConnectionFailed) as failed:
            next(client.feed(after=7, types="HandBegan"))
        with pytest.raises(errors.ConnectionFailed) as streamed:
            next(iter(client.stream("tb_0000000000000000", after=3)))
    assert str(failed.value).startswith(f"could not reach GET {closed}/v1/feed: ")
    assert str(streamed.value).startswith(
        f"could not reach GET {closed}/v1/tables/tb_0000000000000000/stream: ")
    assert failed.value.extra["reason"] and failed.value.code == "connection_failed"

    async def reach() -> str:
        async with AsyncBanco(closed, retries=Retries(attempts=0)) as client:
            with pytest.raises(errors.ConnectionFailed) as failed:
                await client.me()
            return str(failed.value)

    assert asyncio.run(reach()).startswith(f"could not reach GET {closed}/v1/me: ")


def test_retry_after_is_read_in_seconds_or_as_a_date():
    def answer(value: str) -> httpx.Response:
        return httpx.Response(503, headers={"Retry-After": value})

    assert retry_after(answer("3")) == 3
    later = retry_after(answer(email.utils.formatdate(time.time() + 20, usegmt=True)))
    assert later is not None and 18 <= later <= 20
    assert retry_after(answer("soon")) is None
    assert Retries(max_wait=5).wait(0, answer("6")) is None  # longer than it may wait: raise
    assert Retries(attempts=1).wait(1, answer("1")) is None  # out of tries


@pytest.mark.parametrize(("status", "error"), [(503, errors.ServiceUnavailable),
                                               (429, errors.TooManyRequests)])
def test_429_and_503_are_retried_after_their_retry_after(banco, operator, proxy, status, error):
    """The proxy answers the next request itself with `status` and `Retry-After: 1`: the SDK waits
    that second and asks again; when `Retry-After` is longer than it may wait, it raises."""
    (pid, _), = players(operator, 1)
    body = b'{"status": %d, "code": "busy", "detail": "come back later"}' % status
    busy = (b"HTTP/1.1 %d Busy\r\nContent-Type: application/problem+json\r\nRetry-After: 1\r\n"
            b"Content-Length: %d\r\nConnection: close\r\n\r\n" % (status, len(body))) + body
    with Banco(proxy.url, banco[1]) as client:
        proxy.refuse_next = busy
        began = time.monotonic()
        assert client.balance(pid).balance == DEPOSIT
        assert time.monotonic() - began >= 1 and proxy.refused == 1
    with Banco(proxy.url, banco[1], retries=Retries(max_wait=0.5)) as client:
        proxy.refuse_next = busy
        with pytest.raises(error) as raised:
            client.balance(pid)
    assert raised.value.status == status and raised.value.retry_after == 1
    assert raised.value.code == "busy" and raised.value.detail == "come back later"


def test_errors_are_typed_from_problem_json(banco, operator):
    url, _ = banco
    (pid, token), (other, _), (_, third) = players(operator, 3)
    with pytest.raises(errors.NotFound) as raised:
        operator.table("tb_nope")
    assert raised.value.status == 404 and raised.value.code
    with pytest.raises(errors.UnprocessableContent) as bad:
        operator.deposit(pid, 0, "desk")
    assert bad.value.status == 422 and "amount" in str(bad.value.errors)
    with Banco(url, "not-a-token") as stranger, pytest.raises(errors.Unauthorized):
        stranger.me()
    with Banco(url, token) as player, Banco(url, third) as neighbour:
        with pytest.raises(errors.Forbidden):
            player.balance(other)
        with pytest.raises(errors.UnprocessableContent) as poor:
            player.join(operator.create_table("sette-e-mezzo"), buy_in=DEPOSIT + 1)
        assert poor.value.code == "insufficient_treasure"

        table = operator.create_table("sette-e-mezzo", options={"max_bet": 5})
        read = player.join(table, buy_in=20).table
        neighbour.join(table, buy_in=20)
        with pytest.raises(errors.PreconditionFailed) as stale:
            player.deal(read)  # a deal from a table read before the neighbour sat
        now = operator.table(table).version
        assert stale.value.status == 412 and stale.value.version == now
        assert str(stale.value).startswith("412 ")
        operator.deal(table.id)
        with pytest.raises(errors.PreconditionFailed):
            player.act(read, {"type": "stand"})
        with pytest.raises(errors.Conflict) as busy:
            operator.deal(table.id)  # a hand is in play
        assert busy.value.status == 409 and busy.value.code


def test_pages_are_followed_to_the_end(banco, operator):
    made = players(operator, 3, deposit=5)
    ids = {pid for pid, _ in made}
    listed = [p.id for p in operator.players(limit=2)]
    assert ids <= set(listed) and len(listed) == len(set(listed))
    pid = made[0][0]
    for amount in (1, 2, 3):
        operator.deposit(pid, amount, "desk")
    assert [r.amount for r in operator.balance_history(pid, limit=1)] == [5, 1, 2, 3]
    assert [r.amount for r in operator.balance_history(pid, limit=2, reason="desk")] == [5, 1, 2, 3]
    opened = {operator.create_table("cassino").id for _ in range(3)}
    tables = [t.id for t in operator.tables(game="cassino", limit=2)]
    assert opened <= set(tables) and len(tables) == len(set(tables))
    everything = [e.position for e in operator.feed(limit=1000)]
    assert [e.position for e in operator.feed(limit=7)][:len(everything)] == everything  # more may come


# The bots' processes run side by side, this many at a time: each spends a second or more of CPU
# starting, and thirteen started at once on a loaded two-core machine left one of them unfinished
# after its 60 s.
AT_ONCE = 4


def banco_bot(url: str, token: str, game: str, table: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "service.cli", "bot", "--url", url, "--token", token,
                           "--game", game, "--table", table, *args],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)


def banco_bot_beside(url: str, theirs: str, mine: str, table: str, *args: str,
                     **bot: Any) -> subprocess.CompletedProcess[str]:
    """`banco bot` for `mine` (with `args`) at a Sette e mezzo table, while the SDK's `Bot` with
    `bot`'s options plays for `theirs` in a thread; both done, the command succeeded."""

    def play() -> None:
        with Banco(url, theirs) as client:
            Bot(client, table, **bot).run()

    other = threading.Thread(target=play, daemon=True)
    other.start()
    run = banco_bot(url, mine, "sette-e-mezzo", table, *args)
    other.join(60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert not other.is_alive()
    return run


def test_banco_bot_plays_a_hand(banco, operator):
    """`banco bot` seats the SDK's reference bot beside another, deals and plays its turns
    until the hand is settled."""
    url, _ = banco
    (_, mine), (_, theirs) = players(operator, 2)
    table = operator.create_table("sette-e-mezzo")

    run = banco_bot_beside(url, theirs, mine, table.id, "--buy-in", "50", "--players", "2",
                           buy_in=50, players=2)
    assert re.search(r"^seated at tb_\w+ \(seat \d\)$", run.stdout, re.M), run.stdout
    assert re.search(r"^done: 1 hand\(s\), \d+ move\(s\)", run.stdout, re.M), run.stdout
    hand = operator.table(table).hand
    assert hand is not None and operator.wait_settled(hand.id).number == 1


def test_banco_bot_at_a_settled_hand_deals_and_plays_the_next_ones(banco, operator):
    """`banco bot --hands 2` by a player seated at a table whose last hand is settled does not
    count that hand: it deals the next two and plays them (the other bot deals none)."""
    url, _ = banco
    (_, theirs), (_, mine) = players(operator, 2)
    table = operator.create_table("sette-e-mezzo", options={"max_bet": 5})
    hand_played(url, [theirs, mine], table.id)

    run = banco_bot_beside(url, theirs, mine, table.id, "--hands", "2", hands=2, deal=False)
    assert "seated at" not in run.stdout  # it had its seat
    assert re.findall(r"^dealt hand (\d+)$", run.stdout, re.M) == ["2", "3"], run.stdout
    assert re.search(r"^done: 2 hand\(s\), \d+ move\(s\), table open$", run.stdout, re.M), run.stdout
    hand = operator.table(table).hand
    assert hand is not None and operator.wait_settled(hand.id).number == 3


def test_banco_bot_with_no_deal_at_a_settled_hand_plays_the_next(banco, operator, proxy):
    """`banco bot --no-deal` at a table whose last hand is settled waits for the next hand, which
    another deals, and plays it to its end; it does not stop at the settled one."""
    url, _ = banco
    (_, theirs), (_, mine) = players(operator, 2)
    table = operator.create_table("sette-e-mezzo", options={"max_bet": 5, "turn_timeout_s": 10})
    hand_played(url, [theirs, mine], table.id)
    proxy.answered = bytearray()
    bot = subprocess.Popen([sys.executable, "-m", "service.cli", "bot", "--url", proxy.url, "--token", mine,
                            "--game", "sette-e-mezzo", "--table", table.id, "--no-deal"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    # It follows the table's stream, which tells it of the table open for its next hand.
    until(lambda: b"event: table" in proxy.answered or bot.poll() is not None)
    assert bot.poll() is None, bot.communicate()
    with Banco(url, theirs) as client:
        Bot(client, table.id).run()  # deals hand 2 and plays it
    out, err = bot.communicate(timeout=60)
    assert bot.returncode == 0, out + err
    assert re.search(r"^done: 1 hand\(s\), \d+ move\(s\), table open$", out, re.M), out
    assert "dealt" not in out
    hand = operator.table(table).hand
    assert hand is not None and operator.wait_settled(hand.id).number == 2
    # Every turn of hand 2 was played, none left to its deadline.
    assert not [e for e in operator.table_events(table) if e.hand == hand.id and e.kind == "game"
                and getattr(e.data, "timeout", None) is True]


def test_the_bots_bring_a_buy_in_of_their_own_where_the_game_fixes_none(banco, operator):
    """Without `--buy-in`, at a game with no fixed buy-in, `banco bot` and `python -m
    banco_sdk.bot` sit with ten times the table's max_bet, or what the wallet holds if less,
    and play."""
    url, _ = banco
    (ann, rich), = players(operator, 1)
    (bob, poor), = players(operator, 1, deposit=30)
    table = operator.create_table("sette-e-mezzo", options={"max_bet": 5})

    run = banco_bot_beside(url, poor, rich, table.id, "--players", "2", players=2, deal=False)
    assert "buying in with 50 (wallet 100)" in run.stdout, run.stdout
    assert re.search(r"^done: 1 hand\(s\)", run.stdout, re.M), run.stdout
    seated = {e.data.player_id: e.data.buy_in for e in operator.table_events(table)
              if isinstance(e, models.TableEventPlayerSeated)}
    assert seated == {ann: 50, bob: 30}
    assert operator.balance(bob).balance == 0

    cli = subprocess.run([sys.executable, "-m", "banco_sdk.bot", "--url", url, "--token", poor,
                          "--game", "cassino", "--table", operator.create_table("cassino").id],
                         capture_output=True, text=True, timeout=60)
    assert cli.returncode == 1 and "Traceback" not in cli.stderr, cli.stderr  # its wallet is empty
    assert "insufficient_treasure" in cli.stderr, cli.stderr


def test_both_bot_commands_say_the_same_of_hands_and_buy_in():
    """`banco bot --help` and `python -m banco_sdk.bot --help` say alike what --hands and
    --buy-in do: the bot stops after the hands (keeping its seat) and brings what it says."""
    helps = [subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=ROOT,
                            env={**os.environ, "COLUMNS": "1000"}).stdout
             for command in ([sys.executable, "-m", "service.cli", "bot", "--help"],
                             [sys.executable, "-m", "banco_sdk.bot", "--help"])]
    for said in ("hands to play, counted from when the bot comes (a hand already over then does not"
                 " count); then it stops, and keeps its seat",
                 "treasure to sit with when the bot takes a seat; if omitted, the table's fixed"
                 " buy-in (Casino pirate), else ten times its max_bet or stake, at most the"
                 " wallet's balance"):
        assert all(said in " ".join(h.split()) for h in helps), (said, helps)
    assert not [h for h in helps if "before leaving" in h]


def test_the_bots_take_a_token_that_begins_with_a_dash_and_one_from_the_environment(banco, operator):
    """A URL-safe token may begin with "-" (an operator key chosen by hand, or made by an older
    `banco run`): `--token -...` is that token, which Banco is then asked about, not a missing
    value. Without --token, both bots take BANCO_TOKEN (and the SDK's bot BANCO_URL)."""
    url, _ = banco
    (_, token), = players(operator, 1)
    table = operator.create_table("cassino").id
    dashed = "-" + token[1:]  # no such token
    sdk = [sys.executable, "-m", "banco_sdk.bot"]
    refused = [subprocess.run([*command, "--url", url, "--token", dashed, "--game", "cassino",
                               "--table", table], capture_output=True, text=True, timeout=60,
                              cwd=ROOT)
               for command in (sdk, [sys.executable, "-m", "service.cli", "bot"])]
    for run in refused:
        assert run.returncode == 2, run.stdout + run.stderr  # a refused token: the user's mistake
        assert "401" in run.stderr or "token" in run.stderr.lower(), run.stderr
        assert "argument" not in run.stderr and "Traceback" not in run.stderr, run.stderr
    from_env = subprocess.run([*sdk, "--game", "pirate-pairs", "--table", table],
                              capture_output=True, text=True, timeout=60, cwd=ROOT,
                              env={**os.environ, "BANCO_URL": url, "BANCO_TOKEN": token})
    assert from_env.returncode == 2, from_env.stdout + from_env.stderr
    assert f"table {table} plays cassino, not pirate-pairs" in from_env.stderr


def _not_banco() -> str:
    """A web server that is not Banco: under /json a 200 of JSON that is not the API's answer,
    under /html a 404 page."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            json = self.path.startswith("/json/")
            body = b'{"role": "player"}' if json else b"<html><body>Not Found</body></html>"
            self.send_response(200 if json else 404)
            self.send_header("Content-Type", "application/json" if json else "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def test_banco_bot_says_what_is_wrong_in_one_line(banco, operator):
    """A user's mistakes end `banco bot` with one line saying which, never a traceback, and
    without a seat taken: exit 2, as a mistaken option's (a refused token, an unknown game or
    table exited 1)."""
    url, key = banco
    (player_id, token), = players(operator, 1)
    table = operator.create_table("cassino").id
    closed = f"http://127.0.0.1:{free_port()}"
    other = _not_banco()
    mistakes = [
        ((url, token, "cassino", table, "--url", "banco.example"), "is not an http:// or https://"),
        ((url, token, "cassino", table, "--url", "http://[::1"), "is not a URL: Invalid IPv6 URL"),
        ((url, "\u201cbnc_pasted\u201d", "cassino", table), "the token holds characters a token"),
        ((url, token, "../tables", table), "'../tables' is not an id"),
        ((url, token, "cassino", table, "--buy-in", str(10**21)), "'--buy-in': 1000000000000000"),
        ((f"{other}/json", token, "cassino", table), f"{other}/json does not answer as Banco does"
                                                    " (its answer does not fit the API)"),
        ((f"{other}/html", token, "cassino", table), f"{other}/html does not answer as Banco does"
                                                    " (HTTP 404)"),
        ((closed, token, "cassino", table), f"cannot reach Banco at {closed}"),
        ((url, "not-a-token", "cassino", table), "refused the token"),
        ((url, key, "cassino", table), "the token is the operator's"),
        ((url, token, "poker", table), "no game 'poker'"),
        ((f"{url}/docs", token, "cassino", table), f"{url}/docs has no {url}/docs/v1/me"),
        ((url, token, "cassino", "tb_0000000000000000"), "no table tb_0000000000000000"),
        ((url, token, "sette-e-mezzo", table), f"table {table} plays cassino, not sette-e-mezzo"),
    ]
    # Each a process of its own, a few at a time: most of each is its start-up.
    with ThreadPoolExecutor(AT_ONCE) as pool:
        runs = list(pool.map(lambda mistake: banco_bot(*mistake[0]), mistakes))
    for (_, said), run in zip(mistakes, runs, strict=True):
        assert run.returncode == 2, (said, run.returncode, run.stdout)  # a usage error, as README says
        assert "Traceback" not in run.stderr and said in run.stderr, (said, run.stderr)
        assert [line for line in run.stderr.splitlines() if line.startswith("Error:")], run.stderr
    assert [s.player_id for s in operator.table(table).seats] == [], player_id


def test_the_bots_refuse_a_count_of_players_the_game_is_not_played_by(banco, operator):
    """`--players` below the game's minimum (GET /v1/games) would have every deal refused, and
    was dealt again at once until the player's rate limit ran out; above its maximum no deal
    would ever be tried. Both commands refuse either at once, in one line (exit 2), seatless."""
    url, _ = banco
    (_, token), = players(operator, 1)
    table = operator.create_table("cassino").id  # 2 to 4 players
    game = operator.game("cassino")
    sdk = [sys.executable, "-m", "banco_sdk.bot", "--url", url, "--token", token, "--game",
           "cassino", "--table", table, "--buy-in", "10"]
    runs = [([*sdk, "--players", str(n)], n) for n in (game.min_players - 1, 0, game.max_players + 1)]
    runs += [(["-m", "service.cli", "bot"], n) for n in (game.min_players - 1, game.max_players + 1)]

    def run(command: list[str], count: int) -> subprocess.CompletedProcess[str]:
        if command[0] == "-m":  # `banco bot`
            return banco_bot(url, token, "cassino", table, "--buy-in", "10", "--players", str(count))
        return subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=ROOT)

    with ThreadPoolExecutor(AT_ONCE) as pool:
        done = list(pool.map(lambda r: (r[1], run(*r)), runs))
    for count, ran in done:
        assert ran.returncode == 2, (count, ran.stdout, ran.stderr)
        assert "Traceback" not in ran.stderr and "dealt" not in ran.stdout, ran.stderr
        said = [line for line in ran.stderr.splitlines() if "players" in line]
        assert said == [line for line in said if f"cassino is played by 2 to 4 players, not {count}"
                        in line] and len(said) == 1, (count, ran.stderr)
    assert operator.table(table).seats == []
    with Banco(url, token) as client, pytest.raises(ValueError, match="played by 2 to 4"):
        Bot(client, table, players=1).run()
    assert operator.table(table).seats == []


class Counted(httpx.HTTPTransport):
    """A transport that counts its requests by method and path, and fails past `most`."""

    def __init__(self, most: int) -> None:
        super().__init__()
        self.most, self.sent = most, []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append((request.method, request.url.path))
        if len(self.sent) > self.most:
            raise RuntimeError(f"more than {self.most} requests: {self.sent[-4:]}")
        return super().handle_request(request)


def test_a_deal_refused_for_want_of_players_waits_for_the_table_to_change(banco, operator):
    """A bot whose deal is refused with 409 `not_enough_players` (the server's count, not the
    bot's) does not deal again at once, as it did, hundreds of times a second: it goes back to
    the table's stream, which shows it the table when someone changes it."""
    url, _ = banco
    (_, token), = players(operator, 1)
    table = operator.create_table("cassino")
    logged: list[str] = []
    counted = Counted(most=10)
    with Banco(url, token, transport=counted) as client:
        bot = Bot(client, table.id, buy_in=10, log=logged.append)
        seated = bot.sit()
        bot.players = 1  # as if the bot counted one player enough: the server says otherwise
        counted.sent.clear()
        after = bot.step(seated)
    assert after.status == "open" and after.hand is None
    assert [c for c in counted.sent if c[0] == "POST"] == [("POST", f"/v1/tables/{table.id}/hands")]
    assert any(line.startswith("waiting for players: cassino needs 2") for line in logged), logged


def test_a_deal_refused_for_a_deck_too_small_waits_for_the_table_to_change():
    """A Casino pirate table created before rules version 4 may hold a deck too small for its
    seats: its deal is a 409 `deck_too_small`, which the bot met with a Conflict and stopped on.
    It waits for the table to change, as for `not_enough_players` (games/sevenhalf/rules.md,
    "The deck's size")."""
    refused = errors.Conflict(409, "deck_too_small", "a hand of 3 seats needs a deck worth at least 37")
    dealt: list[str] = []

    class Client:
        def deal(self, table: Any) -> Any:
            dealt.append(table.id)
            raise refused

    table = SimpleNamespace(id="tb_1", status="open", hand=None, seats=[1, 2, 3])
    logged: list[str] = []
    bot = Bot(Client(), "tb_1", players=3, log=logged.append)
    assert bot.step(table) is table
    assert dealt == ["tb_1"]
    assert logged == ["waiting for fewer players: a hand of 3 seats needs a deck worth at least 37"]


def test_a_malformed_url_is_said_in_one_line(banco, operator):
    """A URL httpx cannot read (a bracket left open, two ports), or one ending in the /v1 the
    client adds itself (Flask's bare "not_found" else), ends `python -m banco_sdk.bot` with one
    line saying what is wrong with it (exit 2), as `banco bot` says; `Banco` and `AsyncBanco`
    refuse it with a ValueError saying the same, not httpx's InvalidURL."""
    said = {"http://[::1": "'http://[::1' is not a URL: Invalid IPv6 URL",
            "http://127.0.0.1:8391:80": "'http://127.0.0.1:8391:80' has a port that is not a port",
            "banco.example": "'banco.example' is not an http:// or https:// URL with a host",
            "http://127.0.0.1:8471/v1/": "'http://127.0.0.1:8471/v1/' ends in /v1: give Banco's"
                                         " address without it ('http://127.0.0.1:8471'); the"
                                         " client adds /v1 to each call"}
    for url, words in said.items():
        run = subprocess.run([sys.executable, "-m", "banco_sdk.bot", "--url", url, "--token", "X",
                              "--game", "sette-e-mezzo", "--table", "tb_x"],
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 2, (url, run.stdout, run.stderr)
        assert run.stderr.splitlines() == [f"error: --url: {words}"], run.stderr
        for client in (Banco, AsyncBanco):
            with pytest.raises(ValueError) as refused:
                client(url, "X")
            assert str(refused.value) == words
        cli = banco_bot(url, "X", "sette-e-mezzo", "tb_x")
        assert cli.returncode == 2 and words in cli.stderr and "Traceback" not in cli.stderr, cli.stderr


def followed(operator: Banco, after: int, until: Any) -> list[Any]:
    """The feed's events after position `after`, read on until one of them meets `until`."""
    deadline = time.monotonic() + 30
    seen: list[Any] = []
    while not [e for e in seen if until(e)]:
        assert time.monotonic() < deadline, "the event never reached the feed"
        new = list(operator.feed(after=after if not seen else seen[-1].position))
        seen += new
        if not new:
            time.sleep(0.05)
    return seen


def test_feed_head_reads_the_feed_from_now(operator):
    """`feed_head()` is the log's last event now: the feed after it holds what commits later
    (a deposit), never what was there before (the player's registration). The feed shows an event
    once no transaction older than it is still open on the server, in any database (README, the
    feed's watermark): the registration is waited for in the feed first, to be "before"."""
    before = operator.feed_head()
    created = operator.create_player("Head")

    def registered(e: Any) -> bool:
        return isinstance(e, models.FeedEventPlayerRegistered) and e.data.player_id == created.player.id

    followed(operator, before, registered)
    head = operator.feed_head()
    operator.deposit(created.player.id, 7, "after the head")
    seen = followed(operator, head, lambda e: isinstance(e, models.FeedEventTreasurePosted)
                    and e.data.to == f"wallet:{created.player.id}")
    assert not [e for e in seen if registered(e)]


def test_operator_keys_are_made_listed_rotated_and_revoked(banco, operator):
    """A key made with one scope does what its scope allows and nothing more; listed (never its
    secret) and read by its id; rotated, the old secret stops working and the new one works;
    revoked, none works. The async client lists and reads it alike."""
    url, _ = banco
    someone = operator.create_player("Keyed").player.id
    expires = datetime.now(UTC).replace(microsecond=0) + timedelta(days=30)
    issued = operator.create_key("desk", ["players:read"], expires_at=expires)
    assert issued.key.scopes == ["players:read"] and issued.key.status == "active"
    assert issued.key.expires_at == expires
    listed = operator.keys()
    assert issued.key.id in [k.id for k in listed.items] and "keys:admin" in [s.name for s in listed.scopes]
    assert operator.key(issued.key.id).name == "desk"
    with Banco(url, issued.secret) as desk:
        assert desk.player(someone).id == someone
        with pytest.raises(errors.Forbidden) as refused:
            desk.create_player("Not allowed")
        assert refused.value.code == "missing_scope"
    rotated = operator.rotate_key(issued.key.id)
    assert rotated.secret != issued.secret and rotated.key.rotated_at is not None
    with Banco(url, issued.secret) as old, pytest.raises(errors.Unauthorized):
        old.keys()
    with Banco(url, rotated.secret) as new:
        assert new.player(someone).id == someone

    async def read() -> tuple[list[str], str]:
        async with AsyncBanco(url, banco[1]) as client:
            return [k.id for k in (await client.keys()).items], (await client.key(issued.key.id)).status

    ids, status = asyncio.run(read())
    assert issued.key.id in ids and status == "active"
    assert operator.revoke_key(issued.key.id) is None
    assert operator.key(issued.key.id).status == "revoked"
    operator.revoke_key(issued.key.id)  # revoked already: nothing changes
    with Banco(url, rotated.secret) as new, pytest.raises(errors.Unauthorized):
        new.player(someone)


def test_an_id_is_sent_as_one_segment_of_the_path_and_reaches_no_other_endpoint(banco, operator):
    """An id from a caller's input goes into the path percent-encoded, as one segment (`/`, `?`,
    `#`, `%` and a segment of dots included): `leave(table, "../../../players/<id>/token")` was
    DELETE /v1/players/<id>/token with the operator's key, which revoked that player's token,
    and `table("../../v1/me")` read /v1/me. Now each is a 404 from the endpoint named, for the
    sync and the async client; an empty id, which would name another endpoint, is a ValueError."""
    url, key = banco
    (victim, token), = players(operator, 1)
    table = operator.create_table("cassino")
    evil = f"../../../players/{victim}/token"
    with pytest.raises(errors.NotFound):
        operator.leave(table, evil)
    for bad in ("../../v1/me", "..", ".", "tb_x?limit=1", "tb_x#y", "%2E%2E", "tb x"):
        with pytest.raises(errors.NotFound):
            operator.table(bad)
        with pytest.raises(errors.NotFound):
            operator.player(bad)
    with pytest.raises(ValueError, match="never empty"):
        operator.table("")

    async def leave() -> None:
        async with AsyncBanco(url, key) as client:
            with pytest.raises(errors.NotFound):
                await client.leave(table, evil)
            with pytest.raises(errors.NotFound):
                await client.table("../../v1/me")

    asyncio.run(leave())
    with Banco(url, token) as client:
        assert client.me().id == victim  # its token still works


def test_act_given_a_tables_id_says_it_takes_the_table_as_read():
    """`act("tb_...", action)` raised `AttributeError: 'str' object has no attribute 'version'`:
    it takes the table as read, for its version (If-Match). `deal` takes an id (and deals at any
    version), but a move is made only at the version its player saw, so `act` does not read the
    table for one: an id, or anything else without a version, is a TypeError saying what to pass,
    in the sync and the async client, and nothing is sent."""
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(500)

    said = r"^act\(\) takes the table as read \(from table\(\)\), for its version \(If-Match\)"
    with Banco("http://banco.test", "X", transport=httpx.MockTransport(answer)) as client:
        with pytest.raises(TypeError, match=said + r", not its id 'tb_1': act\(table\('tb_1'\), action\)$"):
            client.act("tb_1", {"type": "hit"})  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=said + ", not a dict$"):
            client.act({"id": "tb_1"}, {"type": "hit"})  # type: ignore[arg-type]

    async def act() -> None:
        async with AsyncBanco("http://banco.test", "X",
                              transport=httpx.MockTransport(answer)) as client:
            with pytest.raises(TypeError, match=said + ", not its id 'tb_1'"):
                await client.act("tb_1", {"type": "hit"})  # type: ignore[arg-type]

    asyncio.run(act())
    assert sent == []


def test_the_sdks_bot_refuses_a_malformed_id_or_hands_below_one(banco, operator):
    """`python -m banco_sdk.bot --table ../../v1/me` printed a traceback (it read /v1/me as a
    table), and `--hands -1` took a seat, brought its buy-in and stopped at once ("done: 0
    hand(s)"). Both are refused before anything is asked of Banco, exit 2: the id in one line,
    as `banco bot` says it; `--hands` below 1 as a usage error, as `banco-bot` does."""
    url, _ = banco
    (pid, token), = players(operator, 1)
    table = operator.create_table("cassino").id
    sdk = [sys.executable, "-m", "banco_sdk.bot", "--url", url, "--token", token]
    runs = [([*sdk, "--game", "cassino", "--table", "../../v1/me"], "--table: '../../v1/me' is not an id"),
            ([*sdk, "--game", "../games", "--table", table], "--game: '../games' is not an id"),
            *[([*sdk, "--game", "cassino", "--table", table, "--hands", n], "argument --hands")
              for n in ("-1", "0")],
            # Told of a table that is not there, or with a token refused: a usage error too, as
            # the README says (each exited 1).
            ([*sdk, "--game", "cassino", "--table", "tb_0000000000000000"], "table_not_found"),
            ([*sdk[:-1], "bnc_refused", "--game", "cassino", "--table", table], "unauthorized")]
    with ThreadPoolExecutor(AT_ONCE) as pool:
        done = list(pool.map(lambda r: subprocess.run(r[0], capture_output=True, text=True,
                                                      timeout=60, cwd=ROOT), runs))
    for (_, said), ran in zip(runs, done, strict=True):
        assert ran.returncode == 2, (said, ran.stdout, ran.stderr)
        assert said in ran.stderr and "Traceback" not in ran.stderr and ran.stdout == "", ran.stderr
    for ran in done[:2]:
        assert len(ran.stderr.splitlines()) == 1, ran.stderr
    assert operator.table(table).seats == []
    assert operator.balance(pid).balance == DEPOSIT


def test_the_sdks_bot_says_a_token_not_a_players_and_a_banco_out_of_reach_in_one_line(banco, operator):
    """`python -m banco_sdk.bot --token $OPERATOR_KEY` read the table, then was refused a seat:
    "error: 403 forbidden: operators may not do this", exit 1; with a URL nothing answers at it
    said "error: [Errno 111] Connection refused", naming no URL. The README promises a wrong
    token said in one line, exit 2, and `banco bot` and `banco-bot` name the URL: now the
    operator key or an auditor's token is said to be no player's, and a Banco out of reach is
    said with its URL, each in one line, exit 2, nothing asked of the table."""
    url, key = banco
    auditor = operator.create_auditor("Audrey").token
    table = operator.create_table("cassino").id
    closed = f"http://127.0.0.1:{free_port()}"
    sdk = [sys.executable, "-m", "banco_sdk.bot", "--game", "cassino", "--table", table]
    runs = [((url, key), "error: --token: that is the operator key; the bot plays with a player's token"),
            ((url, auditor), "error: --token: that is an auditor's token; the bot plays with a"
                             " player's token"),
            ((closed, key), f"error: cannot reach Banco at {closed}: ")]
    with ThreadPoolExecutor(AT_ONCE) as pool:
        done = list(pool.map(lambda r: subprocess.run([*sdk, "--url", r[0][0], "--token", r[0][1]],
                                                      capture_output=True, text=True, timeout=60,
                                                      cwd=ROOT), runs))
    for (_, said), ran in zip(runs, done, strict=True):
        assert ran.returncode == 2, (said, ran.stdout, ran.stderr)
        assert len(ran.stderr.splitlines()) == 1 and ran.stderr.startswith(said), ran.stderr
        assert ran.stdout == "", ran.stdout
    assert "Connection refused" in done[-1].stderr, done[-1].stderr
    assert operator.table(table).seats == []


class _Unavailable(http.server.BaseHTTPRequestHandler):
    """A server whose first answer is a 503 (`Retry-After: 0`) and every next a 404: it keeps
    each request's method, path and Idempotency-Key in the class's `seen`."""

    seen: list[tuple[str, str, str | None]]

    def answer(self) -> None:
        self.seen.append((self.command, self.path, self.headers.get("Idempotency-Key")))
        status = 503 if len(self.seen) == 1 else 404
        body = b'{"status": %d, "code": "x", "detail": "y"}' % status
        self.send_response(status)
        self.send_header("Content-Type", "application/problem+json")
        self.send_header("Content-Length", str(len(body)))
        if status == 503:
            self.send_header("Retry-After", "0")
        self.end_headers()
        self.wfile.write(body)

    do_DELETE = do_POST = do_GET = answer

    def log_message(self, *args: Any) -> None:
        pass


def test_a_delete_carries_an_idempotency_key_the_same_on_its_retry():
    """Every POST and DELETE accepts an Idempotency-Key (README): `leave` and `revoke_key` sent
    none, yet were retried after a 503, so a leave that had committed came back 404 `not_seated`.
    Now each try of a DELETE carries one key, drawn or given (`idempotency_key=`), in the sync
    and the async client; a GET carries none."""
    _Unavailable.seen = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Unavailable)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        calls: list[Any] = [lambda c: c.leave("tb_1", "pl_1"),
                            lambda c: c.leave("tb_1", "pl_1", idempotency_key="mine-1"),
                            lambda c: c.revoke_key("key_1"), lambda c: c.table("tb_1")]
        keys: list[list[str | None]] = []
        for call in calls:
            _Unavailable.seen = []
            with Banco(url, "k") as client, pytest.raises(errors.NotFound):
                call(client)
            keys.append([k for _, _, k in _Unavailable.seen])

        async def leave() -> None:
            async with AsyncBanco(url, "k") as client:
                with pytest.raises(errors.NotFound):
                    await client.leave("tb_1", "pl_1")

        _Unavailable.seen = []
        asyncio.run(leave())
        keys.append([k for _, _, k in _Unavailable.seen])
    finally:
        server.shutdown()
        server.server_close()
    drawn, given, revoked, read, in_async = keys
    for tries in (drawn, revoked, in_async):
        assert len(tries) == 2 and tries[0] and tries[0] == tries[1], keys
    assert given == ["mine-1", "mine-1"] and read == [None, None], keys
    assert len({drawn[0], revoked[0], in_async[0]}) == 3, keys


def test_a_leave_whose_answer_was_lost_is_retried_with_its_key_and_answered_as_before(
        banco, operator, proxy):
    """The proxy lets a player's leave through and drops its answer: the SDK sends it again with
    the same Idempotency-Key and gets the first answer back (200, the seat cashed out), where a
    retry without one is 404 `not_seated`; the async client alike."""
    (pid, token), = players(operator, 1)
    for leaving in ("sync", "async"):
        table = operator.create_table("cassino")
        with Banco(banco[0], token) as client:
            client.join(table, buy_in=20)

        if leaving == "sync":
            with Banco(proxy.url, token, retries=Retries(backoff=0.05)) as client:
                proxy.drop_next_answer = True
                left = client.leave(table, pid)
        else:
            async def leave(table_id: str) -> models.Left:
                async with AsyncBanco(proxy.url, token, retries=Retries(backoff=0.05)) as client:
                    proxy.drop_next_answer = True
                    return await client.leave(table_id, pid)

            left = asyncio.run(leave(table.id))
        assert proxy.dropped == (1 if leaving == "sync" else 2)
        assert (left.player_id, left.cash_out) == (pid, 20) and operator.table(table).seats == []
    assert operator.balance(pid).balance == DEPOSIT
    with Banco(banco[0], token) as client, pytest.raises(errors.NotFound) as refused:
        client.leave(table, pid)  # no key: another request, and the seat is gone
    assert refused.value.code == "not_seated"


APP = """from banco_sdk import AsyncBanco, Banco, errors


def me(url: str, token: str) -> str:
    with Banco(url, token) as banco:
        try:
            return banco.me().id
        except errors.NotFound as e:
            return e.detail or ""


async def tables(url: str, token: str) -> list[str]:
    async with AsyncBanco(url, token) as banco:
        return [t.id async for t in banco.tables()]
"""


def test_the_sdk_installed_as_its_readme_says_is_found_by_mypy_strict(tmp_path):
    """`pip install -e clients/python`, as the SDK's README said, installs setuptools' import hook,
    which mypy does not follow: `mypy --strict` on code using the SDK said it could not find
    `banco_sdk`. Each install command the README now shows (from Banco's clone) is run in one fresh
    virtualenv, and mypy --strict then checks a program using the client; the top README shows
    the same commands."""
    text = (SDK / "README.md").read_text()
    shown = [line.split("#", 1)[0].strip() for block in text.split("## A bot in", 1)[0].split("```sh\n")[1:]
             for line in block.split("```", 1)[0].splitlines() if line.startswith("pip install")]
    assert shown
    clone = tmp_path / "clone"
    shutil.copytree(SDK, clone / "clients" / "python",
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    (tmp_path / "app.py").write_text(APP)
    for command in shown:
        args = shlex.split(command)
        installed = subprocess.run([str(venv / "bin" / "python"), "-m", *args, "--quiet"], cwd=clone,
                                   capture_output=True, text=True, timeout=300)
        assert installed.returncode == 0, installed.stdout + installed.stderr
        # One cache for the test's runs, new with it: the second install's run reads the
        # libraries' types from the first's and checks again what moved, the SDK among them.
        checked = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir",
                                  str(tmp_path / "mypy-cache"), "--python-executable",
                                  str(venv / "bin" / "python"), "app.py"],
                                 cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert checked.returncode == 0, (command, checked.stdout + checked.stderr)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "uninstall", "--yes", "--quiet",
                        "banco-client"], check=True, timeout=120)
    top = " ".join((ROOT / "README.md").read_text().split("### Python\n", 1)[1].split("```", 1)[0].split())
    assert all(f"`{command}`" in top for command in shown), (shown, top)
