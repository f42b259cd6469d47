"""`banco dispute`: disputes about a hand from the command line, as the operator (who holds the
database) decides them: opened, given evidence, re-adjudicated, resolved or rejected, through the
same commands as the API's (`service.application.disputes`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
import orjson

from service.cli.failures import Unknown
from service.cli.servers import data_dir_option, database_url, reachable
from service.cli.text import shown

JSON_HELP = "print the answer as JSON"


@contextmanager
def _work(data_dir: Path) -> Iterator[Callable[[Any, str], Any]]:
    """A function that runs a command as the operator, each in a transaction of its own, with
    a refusal as one line."""
    from events.catalog import default_types
    from events.model import ConcurrencyConflict
    from events.postgres import PostgresEventStore, make_pool
    from service.application.bus import handle
    from service.application.errors import NotFound, Refused
    from service.application.postgres_unit_of_work import transaction
    from service.application.principal import OPERATOR

    with database_url(data_dir) as url:
        pool = make_pool(reachable(url), min_size=1, max_size=1)
        store = PostgresEventStore(pool, default_types())

        def run(command: Any, name: str) -> Any:
            try:
                with transaction(pool, store) as uow:
                    return handle(command, uow, {"actor": OPERATOR.key,
                                                 "key_id": OPERATOR.key_id, "command": name})
            except NotFound as e:  # the hand or dispute named: exit 2, as every unknown id
                raise Unknown(f"{shown(e.detail)} ({e.code})") from e
            except Refused as e:
                raise click.ClickException(f"{shown(e.detail)} ({e.code})") from e
            except ConcurrencyConflict as e:
                raise click.ClickException("the dispute changed meanwhile: run it again") from e

        try:
            yield run
        finally:
            pool.close()


def _echo(found: Any, as_json: bool, text: Callable[[Any], str]) -> None:
    if as_json:
        click.echo(orjson.dumps(found, option=orjson.OPT_INDENT_2 | orjson.OPT_NAIVE_UTC,
                                default=str).decode())
    else:
        click.echo(text(found))


def _dispute_text(d: dict[str, Any]) -> str:
    # The reason and the notes are their writers' text: escaped (`shown`), each stays on its line.
    lines = [f"{d['id']}  {d['status']}  hand {d['hand_id']}  table {d['table_id']}",
             f"  opened by the {shown(d['opened_by'])} at {d['opened_at'].isoformat()}:"
             f" {shown(d['reason'])}"]
    lines += [f"  evidence ({shown(e['attached_by'])}): {shown(e['note'])}" for e in d["evidence"]]
    for r in d["readjudications"]:
        outcome = "as recorded" if r["matches"] else (
            f"{r['events_differing']} events and {r['postings_differing']} postings differ"
            + (f", refused: {shown(r['refused'])}" if r["refused"] else ""))
        lines.append(f"  re-adjudicated under rules version {r['rules_version']}: {outcome}")
    if d["resolution"] is not None:
        lines.append(f"  {d['status']}: {shown(d['resolution']['note'])}")
    lines += [f"  correction: {c['amount']} from {c['from']} to {c['to']} (log position"
              f" {c['position']})" for c in d["corrections"]]
    return "\n".join(lines)


def _readjudication_text(r: dict[str, Any]) -> str:
    if r["matches"]:
        return (f"under rules version {r['rules_version']} the hand is as recorded"
                f" ({r['events_compared']} events compared)")
    lines = [f"under rules version {r['rules_version']} (the hand's: {r['hand_rules_version']})"
             f" {r['events_differing']} events and {r['postings_differing']} postings differ"]
    if r["refused_command"]:
        lines.append(f"  refused: {shown(r['refused_command']['code'])}"
                     f" ({shown(r['refused_command']['detail'])})")
    for e in r["events"]:
        lines.append(f"  event {e['index']}: recorded {_event(e['recorded'])},"
                     f" replayed {_event(e['replayed'])}")
    for p in r["postings"]:
        lines.append(f"  posting {p['index']}: recorded {_posting(p['recorded'])},"
                     f" replayed {_posting(p['replayed'])}")
    lines += [f"  net {n['account']}: {n['difference']:+d}" for n in r["net"]]
    return "\n".join(lines)


def _event(e: dict[str, Any] | None) -> str:
    # JSON escapes C0 but not DEL or C1, which a name in the data may hold.
    return "nothing" if e is None else shown(f"{e['type']} {orjson.dumps(e['data']).decode()}")


def _posting(p: dict[str, Any] | None) -> str:
    return "nothing" if p is None else f"{p['amount']} {p['from']} -> {p['to']}"


class Payment(click.ParamType):
    """A correction, `FROM:TO:AMOUNT`: each side a player's id or `house`."""

    name = "FROM:TO:AMOUNT"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None
                ) -> Any:
        from service.application.disputes import Correction

        if isinstance(value, Correction):
            return value
        source, _, rest = str(value).partition(":")
        target, _, amount = rest.partition(":")
        # ASCII digits only: str.isdigit takes '²' too, and other scripts' digits.
        if not (source and target and amount.isascii() and amount.isdigit()):
            self.fail(f"{value!r} is not FROM:TO:AMOUNT (a player's id or `house` on each side,"
                      " a whole amount)", param, ctx)
        return Correction(source, target, int(amount))


@click.group()
def dispute() -> None:
    """Disputes about a hand: open, list, show, re-adjudicate, resolve, reject."""


@dispute.command("open")
@click.argument("hand_id")
@click.option("--reason", required=True, help="why the hand is disputed")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@data_dir_option
def open_cmd(hand_id: str, reason: str, as_json: bool, data_dir: Path) -> None:
    """Open a dispute on a hand, as the operator."""
    from service.application.disputes import OpenDispute
    from service.application.principal import OPERATOR

    with _work(data_dir) as run:
        _echo(run(OpenDispute(hand_id, reason, OPERATOR), "OpenDispute"), as_json, _dispute_text)


@dispute.command("list")
@click.option("--hand", "hand_id", help="only the disputes about this hand")
@click.option("--status", type=click.Choice(["open", "resolved", "rejected"]))
@click.option("--limit", type=click.IntRange(1, 1000), default=50, show_default=True)
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@data_dir_option
def list_cmd(hand_id: str | None, status: str | None, limit: int, as_json: bool,
             data_dir: Path) -> None:
    """List disputes, newest first."""
    from service.application.dispute_reads import listed
    from service.cli.audit import connect

    with connect(data_dir) as conn:
        found = listed(conn, hand_id=hand_id, status=status, limit=limit)
    _echo(found, as_json, lambda ds: "\n".join(
        f"{d['id']}  {d['status']:<8}  hand {d['hand_id']}  {shown(d['reason'][:60])}" for d in ds)
        or "no disputes")


@dispute.command("show")
@click.argument("dispute_id")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@data_dir_option
def show_cmd(dispute_id: str, as_json: bool, data_dir: Path) -> None:
    """Show a dispute: reason, evidence, re-adjudications, resolution and corrections."""
    from service.application.disputes import fold, stream
    from service.cli.audit import connect
    from service.verification.hand_log import read_stream

    with connect(data_dir) as conn:
        found = fold(read_stream(conn, stream(dispute_id)))
    if found is None:
        raise Unknown(f"no dispute {dispute_id}")
    _echo(found, as_json, _dispute_text)


@dispute.command("evidence")
@click.argument("dispute_id")
@click.option("--note", required=True, help="what is attached")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@data_dir_option
def evidence_cmd(dispute_id: str, note: str, as_json: bool, data_dir: Path) -> None:
    """Attach a note of evidence to an open dispute."""
    from service.application.disputes import AttachEvidence
    from service.application.principal import OPERATOR

    with _work(data_dir) as run:
        _echo(run(AttachEvidence(dispute_id, note, OPERATOR), "AttachDisputeEvidence"), as_json,
              _dispute_text)


@dispute.command("readjudicate")
@click.argument("dispute_id")
@click.option("--rules-version", type=click.IntRange(1), default=None,
              help="replay under this rules version (default: the hand's own)")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@data_dir_option
def readjudicate_cmd(dispute_id: str, rules_version: int | None, as_json: bool,
                     data_dir: Path) -> None:
    """Replay the disputed hand under a rules version and print what would differ (the events
    as the operator sees the hand, a spectator's view)."""
    from service.application.disputes import Readjudicate
    from service.application.principal import OPERATOR

    with _work(data_dir) as run:
        _echo(run(Readjudicate(dispute_id, OPERATOR, rules_version), "ReadjudicateDispute"),
              as_json, _readjudication_text)


@dispute.command("resolve")
@click.argument("dispute_id")
@click.option("--note", required=True, help="the decision")
@click.option("--pay", "payments", type=Payment(), multiple=True, required=True,
              help="a corrective posting, FROM:TO:AMOUNT (a player's id or `house` each side);"
                   " repeat for more")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@data_dir_option
def resolve_cmd(dispute_id: str, note: str, payments: tuple[Any, ...], as_json: bool,
                data_dir: Path) -> None:
    """Resolve a dispute with corrective postings (all or none)."""
    from service.application.disputes import ResolveDispute

    with _work(data_dir) as run:
        _echo(run(ResolveDispute(dispute_id, note, tuple(payments)), "ResolveDispute"), as_json,
              _dispute_text)


@dispute.command("reject")
@click.argument("dispute_id")
@click.option("--note", required=True, help="why nothing is paid")
@click.option("--json", "as_json", is_flag=True, help=JSON_HELP)
@data_dir_option
def reject_cmd(dispute_id: str, note: str, as_json: bool, data_dir: Path) -> None:
    """Reject a dispute: closed, with nothing paid."""
    from service.application.disputes import RejectDispute

    with _work(data_dir) as run:
        _echo(run(RejectDispute(dispute_id, note), "RejectDispute"), as_json, _dispute_text)
