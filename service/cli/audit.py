"""`banco replay`, `banco verify` and `banco checkpoint`: auditing from the command line."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
import orjson
import psycopg

from events.postgres import configure_connection
from service.cli.failures import Unknown
from service.cli.files import written
from service.cli.servers import data_dir_option, database_url
from service.cli.text import shown


class Moment(click.ParamType):
    """An ISO 8601 time; one without an offset is taken as UTC."""

    name = "time"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> datetime:
        """The aware datetime, or a usage error naming the value."""
        if isinstance(value, datetime):
            return value
        try:
            moment = datetime.fromisoformat(str(value))
        except ValueError:
            self.fail(f"{value!r} is not an ISO 8601 time", param, ctx)
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


MOMENT = Moment()


@contextmanager
def connect(data_dir: Path) -> Iterator[psycopg.Connection]:
    """An autocommit connection to the command's database (service/cli/servers.py)."""
    with database_url(data_dir) as url, psycopg.connect(url, autocommit=True) as conn:
        configure_connection(conn)
        yield conn


@click.command()
@click.argument("hand_id")
@click.option("--step", "stepwise", is_flag=True, help="one event at a time: Enter for the next, q to stop")
@data_dir_option
def replay(hand_id: str, stepwise: bool, data_dir: Path) -> None:
    """Print a hand's transcript (as an auditor sees it): cards, totals, bets and payouts."""
    from games.contract import AUDITOR
    from service.application.principal import Principal
    from service.application.replay import steps
    from service.verification.hand_log import load_hand
    from service.verification.transcript import transcript

    with connect(data_dir) as conn:
        hand = load_hand(conn, hand_id)
        if hand is None:
            raise Unknown(f"no hand {hand_id}")
        seats = ", ".join(f"{s['seat']} {s['player_id']}" for s in hand.seats)
        click.echo(f"hand {hand_id} at {hand.table_id} ({hand.game}); seats: {seats}")
        if stepwise:
            click.echo("(Enter: next event, q then Enter: stop)", err=True)
        for text in transcript(steps(conn, hand, Principal("auditor", "cli"), AUDITOR)):
            # A line and its totals' line below it; what the events' data put in each escaped.
            click.echo("\n".join(shown(part) for part in text.split("\n")))
            if stepwise and sys.stdin.readline().strip().lower() == "q":
                break


def _show(found: dict[str, Any], every: bool, as_json: bool = False) -> None:
    if as_json:
        click.echo(orjson.dumps(found).decode())
        return
    state = "passed" if found["passed"] else "FAILED"
    click.echo(f"{found['hand_id']} ({found['game']} at {found['table_id']}): {state}")
    for check in found["checks"]:
        if every or not check["passed"]:
            mark = "ok  " if check["passed"] else "FAIL"
            reason = check["evidence"].get("reason", "")
            click.echo(f"  {mark} {check['name']}{': ' + shown(reason) if reason else ''}")


# A checkpoint file's fields `--against` reads (what `banco checkpoint -o` writes, among others).
CHECKPOINT_COUNTS = ("txid", "position", "events")
ROOT = re.compile(r"[0-9a-f]{64}")


def _checkpoint_file(path: Path) -> dict[str, Any]:
    """The checkpoint saved in `path`, or a usage error that says in words what is wrong."""
    def refused(why: str) -> click.UsageError:
        return click.UsageError(f"{path} is not a checkpoint file: {why}")

    try:
        text = path.read_bytes()
    except OSError as e:
        raise click.UsageError(f"cannot read {path}: {e.strerror}") from e
    try:
        # The standard library's reader: orjson reads a number wider than 64 bits as a float,
        # which would be refused as no whole number.
        saved = json.loads(text)
    except ValueError as e:  # not JSON, or not UTF-8
        raise refused(f"it is not JSON ({e})") from e
    if not isinstance(saved, dict):
        raise refused(f"it holds a JSON {_json_kind(saved)}, not an object")
    for name in (*CHECKPOINT_COUNTS, "root"):
        if name not in saved:
            raise refused(f'it has no "{name}"')
    for name in CHECKPOINT_COUNTS:
        value = saved[name]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise refused(f'its "{name}" is not a whole number ({json.dumps(value)})')
        if value >= 2**63:
            raise refused(f'its "{name}" is larger than any the log holds ({value})')
    if not isinstance(saved["root"], str) or not ROOT.fullmatch(saved["root"]):
        raise refused('its "root" is not 64 hexadecimal digits (lowercase)')
    return saved


def _json_kind(value: object) -> str:
    kinds = {list: "list", str: "string", int: "number", float: "number", bool: "boolean"}
    return "null" if value is None else kinds.get(type(value), type(value).__name__)


def _against(conn: psycopg.Connection, path: Path, saved: dict[str, Any], as_json: bool) -> bool:
    from service.verification.checkpoints import compare

    result = compare(conn, saved)
    now = result["recomputed"]
    if as_json:
        click.echo(orjson.dumps({"against": str(path), **result}).decode())
    elif result["passed"]:
        click.echo(f"log matches {path}: {now['events']} events up to position "
                   f"{saved['position']}, root {now['root']}")
    else:
        click.echo(f"log DIFFERS from {path}: saved {saved['events']} events, root {saved['root']};"
                   f" now {now['events']} events, root {now['root']}")
    return bool(result["passed"])


def _disputes(conn: psycopg.Connection, as_json: bool) -> bool:
    """Check every dispute's corrective postings and chain; whether all hold."""
    from service.verification.dispute_check import check_dispute, dispute_streams

    streams = dispute_streams(conn)
    failed = 0
    for stream_id in streams:
        found = check_dispute(conn, stream_id)
        failed += not found["passed"]
        if as_json:
            click.echo(orjson.dumps(found).decode())
        elif not found["passed"]:
            click.echo(f"{found['dispute_id']} (about {found['hand_id']}): FAILED")
            for check in found["checks"]:
                if not check["passed"]:
                    click.echo(f"  FAIL {check['name']}: {shown(check['evidence'].get('reason', ''))}")
    click.echo(f"{len(streams) - failed} of {len(streams)} disputes' corrections hold", err=as_json)
    return failed == 0


@click.command()
@click.argument("hand_id", required=False)
@click.option("--table", "table_id", help="every hand of this table")
@click.option("--all", "everything", is_flag=True, help="every hand ever dealt")
@click.option("--against", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="a checkpoint file (banco checkpoint -o): the log must still hold that history")
@click.option("--json", "as_json", is_flag=True, help="one JSON report a line, evidence included"
              " (the counts go to stderr)")
@data_dir_option
def verify(hand_id: str | None, table_id: str | None, everything: bool, against: Path | None,
           as_json: bool, data_dir: Path) -> None:
    """Check hands (deck, rules, money, hash chain) and the log against a saved digest; with
    --all, every dispute's corrective postings too."""
    from service.verification import verify as v
    from service.verification.hand_log import load_table

    if sum(map(bool, (hand_id, table_id, everything))) > 1 or not (hand_id or table_id or everything
                                                                   or against):
        raise click.UsageError("give one of HAND, --table T or --all (and/or --against FILE)")
    ok = True
    # Read first: a file that is no checkpoint is refused before any server is reached.
    saved = _checkpoint_file(against) if against is not None else None
    with connect(data_dir) as conn:
        # The hand or table named is looked for before anything is printed: an unknown one is
        # the one line of a mistake, not the end of a progress bar or of a comparison's result.
        hand = v.verify_hand(conn, hand_id) if hand_id else None
        if hand_id and hand is None:
            raise Unknown(f"no hand {hand_id}")
        named = load_table(conn, table_id) if table_id else None
        if table_id and named is None:
            raise Unknown(f"no table {table_id}")
        if against is not None and saved is not None:
            ok = _against(conn, against, saved, as_json)
        if hand is not None:
            _show(hand, every=True, as_json=as_json)
            ok = ok and hand["passed"]
        elif table_id or everything:
            ids = [table_id] if table_id else v.table_ids(conn)
            total, failed = v.hand_count(conn, table_id), 0
            with click.progressbar(length=total, label="verifying hands", file=sys.stderr) as bar:
                for tid in ids:
                    table = named if named is not None else load_table(conn, tid)
                    if table is None:  # listed by its TableCreated, so not to be
                        raise click.ClickException(f"table {tid} could not be read from the log")
                    for found in v.verify_table(conn, table):
                        bar.update(1)
                        failed += not found["passed"]
                        if as_json or not found["passed"]:
                            _show(found, every=False, as_json=as_json)
            click.echo(f"{total - failed} of {total} hands passed every check", err=as_json)
            ok = ok and failed == 0
            if everything:
                ok = _disputes(conn, as_json) and ok
    sys.exit(0 if ok else 1)


@click.command()
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="also write the digest to this file, to keep outside the database (a file"
                   " there already is kept: see --replace)")
@click.option("--replace", is_flag=True,
              help="replace the file -o names if it is there (an earlier digest, say)")
@data_dir_option
def checkpoint(output: Path | None, replace: bool, data_dir: Path) -> None:
    """Record a digest of the event log now (a Merkle root up to a watermark)."""
    from workers.checkpoints import record_checkpoint

    if output is not None and str(output) == "-":
        raise click.BadParameter("the digest is printed anyway: -o names a file to keep it in",
                                 param_hint="'-o'")
    if output is not None and output.is_file() and not replace:
        # A digest kept outside the database is what `banco verify --against` checks the log
        # by later: a second one must not take its place unasked.
        raise click.ClickException(f"{output} is there already (an earlier digest?): name"
                                   " another file, or give --replace")
    with ExitStack() as stack:
        # The file first: one that cannot be written fails before anything is recorded.
        file = stack.enter_context(written(output)) if output is not None else None
        url = stack.enter_context(database_url(data_dir))
        text = orjson.dumps(record_checkpoint(url), option=orjson.OPT_INDENT_2).decode()
        if file is not None:
            file.write(text.encode() + b"\n")
    click.echo(text)
