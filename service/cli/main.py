"""The `banco` command."""

from __future__ import annotations

import os
import sys
from datetime import datetime
from pathlib import Path
from typing import BinaryIO

import click
import psycopg

from service.cli import audit as cli_audit
from service.cli.runner import THREADS, gunicorn_command
from service.runtime.config import Config, ConfigError


def _database_url() -> str:
    url = os.environ.get("DATABASE_URL")
    if not url:
        raise click.UsageError("set DATABASE_URL (or use `banco run`, which embeds PostgreSQL)")
    return url


@click.group()
def main() -> None:
    """Banco: an event-sourced game ledger."""


@main.command("run")
@click.option("--data-dir", type=click.Path(path_type=Path),
              default=lambda: os.environ.get("BANCO_DATA_DIR", ".banco"), show_default=".banco")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=lambda: int(os.environ.get("BANCO_PORT", "8000")), type=int,
              show_default="8000")
@click.option("--workers", default=2, show_default=True, help="gunicorn worker processes")
def run_cmd(data_dir: Path, host: str, port: int, workers: int) -> None:
    """Run everything: API, worker and scheduler, on embedded servers unless URLs are set."""
    from service.cli.runner import run

    run(data_dir.resolve(), host, port, workers)


@main.command()
@click.option("--bind", default="127.0.0.1:8000", show_default=True)
@click.option("--workers", default=2, show_default=True)
@click.option("--threads", default=THREADS, show_default=True,
              help="threads per worker; every open stream holds one")
def serve(bind: str, workers: int, threads: int) -> None:
    """Run the API under gunicorn (needs DATABASE_URL, REDIS_URL, BANCO_OPERATOR_KEY)."""
    try:
        Config.from_env()
    except ConfigError as e:
        raise click.UsageError(str(e)) from e
    os.environ["BANCO_THREADS"] = str(threads)  # what streams and long polls may hold (service/http/slots.py)
    os.execvp(sys.executable, gunicorn_command(bind, workers, threads))


@main.command()
@click.option("--burst", is_flag=True, help="stop when the queue is empty")
def worker(burst: bool) -> None:
    """Run an RQ worker with its scheduler (needs DATABASE_URL and REDIS_URL)."""
    from workers.worker import run

    _database_url()
    run(_redis_url(), os.environ.get("BANCO_QUEUE", "banco"), burst=burst,
        sweep_every_s=float(os.environ.get("BANCO_SWEEP_EVERY_S", "1")))


def _redis_url() -> str:
    url = os.environ.get("REDIS_URL")
    if not url:
        raise click.UsageError("set REDIS_URL")
    return url


@main.group(invoke_without_command=True)
@click.pass_context
def jobs(ctx: click.Context) -> None:
    """Background jobs: queue lengths, scheduled, failed (see `banco jobs requeue`)."""
    if ctx.invoked_subcommand is not None:
        return
    from workers.jobs_report import report
    from workers.queues import connect

    state = report(connect(_redis_url()), os.environ.get("BANCO_QUEUE", "banco"))
    click.echo(f"queue {state['queue']}: {state['queued']} queued, {state['scheduled']} scheduled,"
               f" {state['started']} started, {state['failed']} failed")
    for worker_state in state["workers"]:
        click.echo(f"worker {worker_state['name']}: {worker_state['state']}")
    for job in state["failed_jobs"]:
        click.echo(f"failed {job['id']}: {job['call']}: {job['error']}")


@jobs.command("requeue")
@click.argument("job_ids", nargs=-1)
def jobs_requeue(job_ids: tuple[str, ...]) -> None:
    """Put failed jobs back on the queue (all failed jobs when no id is given)."""
    from workers.jobs_report import requeue
    from workers.queues import connect

    count = requeue(connect(_redis_url()), os.environ.get("BANCO_QUEUE", "banco"), list(job_ids))
    click.echo(f"requeued {count} job(s)")


@main.group()
def db() -> None:
    """Database schema."""


@db.command()
def upgrade() -> None:
    """Apply pending migrations (safe to run from several processes at once)."""
    from events import migrate

    with psycopg.connect(_database_url(), autocommit=True) as conn:
        applied = migrate.upgrade(conn)
    click.echo("applied: " + ", ".join(applied) if applied else "schema is current")


@main.group()
def projections() -> None:
    """Read models."""


@projections.command()
def rebuild() -> None:
    """Truncate every projection and replay it from the event log."""
    from projections.rebuild import rebuild_all

    with psycopg.connect(_database_url(), autocommit=True) as conn:
        count = rebuild_all(conn)
    click.echo(f"rebuilt projections from {count} events")


@main.group()
def export() -> None:
    """Exports."""


@export.command("balance-history")
@click.option("--player", required=True, help="player id")
@click.option("--from", "since", type=cli_audit.MOMENT, help="ISO time (UTC when no offset given)")
@click.option("--to", "until", type=cli_audit.MOMENT, help="ISO time, exclusive")
@click.option("--format", "fmt", type=click.Choice(["csv", "ndjson", "json"]), default="csv",
              show_default=True)
@click.option("-o", "--output", type=click.File("wb"), default="-", help="file (default: stdout)")
def export_history(player: str, since: datetime | None, until: datetime | None, fmt: str,
                   output: BinaryIO) -> None:
    """Write a player's balance history, streamed in constant memory (progress bar with -o)."""
    from events.ledger import wallet
    from events.postgres import configure_connection
    from projections import history
    from service.commands.export import export

    with psycopg.connect(_database_url(), autocommit=True) as conn:
        configure_connection(conn)
        if conn.execute("SELECT 1 FROM players WHERE player_id = %s", (player,)).fetchone() is None:
            raise click.UsageError(f"no player {player}")
        filters = history.Filters(wallet(player), since, until)
        if output.name == "<stdout>":
            for chunk in export(conn, filters, fmt):
                output.write(chunk)
            return
        total = history.count(conn, filters)
        with click.progressbar(length=total, label="exporting", file=sys.stderr) as bar:
            for chunk in export(conn, filters, fmt):
                output.write(chunk)
                bar.update(chunk.count(b"\n"))  # about one line a row (a header, brackets)


@main.group()
def openapi() -> None:
    """The OpenAPI document."""


@openapi.command("write")
@click.argument("path", type=click.Path(path_type=Path), default=Path("openapi.yaml"))
def openapi_write(path: Path) -> None:
    """Write the OpenAPI document generated from the code."""
    from service.http.spec import generate

    path.write_text(generate())
    click.echo(f"wrote {path}")


for _audit_command in (cli_audit.replay, cli_audit.verify, cli_audit.checkpoint):
    main.add_command(_audit_command)

if __name__ == "__main__":
    main()
