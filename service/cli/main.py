"""The `banco` command."""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from datetime import datetime
from pathlib import Path

import click
import psycopg

from service.cli import audit as cli_audit
from service.cli import bot as cli_bot
from service.cli import disputes as cli_disputes
from service.cli import erasures as cli_erasures
from service.cli import metrics_dir
from service.cli.failures import Banco, Unknown
from service.cli.files import written
from service.cli.runner import THREADS, gunicorn_command
from service.cli.servers import data_dir_option, database_url, reachable, redis_url, servers
from service.cli.text import shown
from service.runtime.config import Config, ConfigError, Local, WorkerConfig, child_environment


@click.group(cls=Banco)
def main() -> None:
    """Banco: an event-sourced game ledger.

    A command that uses PostgreSQL or Redis finds them from DATABASE_URL / REDIS_URL, else in
    the data folder: those of a running `banco run`, or started for the command. The data
    folder is the command's own --data-dir, given after its name (`banco jobs --data-dir DIR`),
    else BANCO_DATA_DIR, else .banco. (`banco serve` takes the URLs only.)
    """


@main.command("run")
@click.option("--data-dir", type=click.Path(path_type=Path),
              default=lambda: str(Local.from_env().data_dir), show_default=".banco")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=lambda: Local.from_env().port,
              type=click.IntRange(1, 65535), show_default="8000")
@click.option("--workers", default=2, type=click.IntRange(min=1), show_default=True,
              help="gunicorn worker processes")
def run_cmd(data_dir: Path, host: str, port: int, workers: int) -> None:
    """Run everything: API, worker and scheduler, on embedded servers unless URLs are set."""
    from service.cli.runner import run

    run(data_dir.resolve(), host, port, workers)


@main.command()
@click.option("--bind", default="127.0.0.1:8000", show_default=True)
@click.option("--workers", default=2, type=click.IntRange(min=1), show_default=True)
@click.option("--threads", default=THREADS, type=click.IntRange(min=1), show_default=True,
              help="threads per worker, for requests (and waiting long polls); streams are"
              " bounded by BANCO_STREAMS")
def serve(bind: str, workers: int, threads: int) -> None:
    """Run the API under gunicorn (needs DATABASE_URL, REDIS_URL, BANCO_OPERATOR_KEY)."""
    from gunicorn.util import parse_address

    from service.cli.runner import refuse_taken

    try:
        address = parse_address(bind)
    except RuntimeError as e:  # a port that is no number
        raise click.BadParameter(str(e), param_hint="'--bind'") from e
    if isinstance(address, tuple) and not 0 < address[1] < 65536:
        raise click.BadParameter(f"port {address[1]} is not between 1 and 65535",
                                 param_hint="'--bind'")
    try:
        config = Config.from_env()
    except ConfigError as e:
        raise click.UsageError(str(e)) from e
    # Said now, in one line: gunicorn's workers would start and answer nothing while their
    # pools retry for 30 s.
    reachable(config.database_url)
    if isinstance(address, tuple):  # not a Unix socket's path nor a file descriptor
        refuse_taken(address[0], address[1], "choose another address with --bind HOST:PORT")
    # Every gunicorn process writes its metrics there, and GET /metrics adds them up; a
    # `banco worker` given the same folder has its own counted too.
    metrics = metrics_dir.chosen(config.metrics_dir)
    env = child_environment(
        BANCO_THREADS=str(threads),  # what streams and long polls may hold (service/runtime/slots.py)
        **{metrics_dir.VARIABLE: str(metrics)})
    os.execvpe(sys.executable, gunicorn_command(bind, workers, threads), env)


@main.command()
@click.option("--burst", is_flag=True, help="stop when the queue is empty")
@click.option("--webhooks", "webhooks_only", is_flag=True,
              help="deliver webhooks only, from their own queue (with BANCO_WEBHOOK_THREADS=0"
                   " on the other workers)")
@data_dir_option
def worker(burst: bool, webhooks_only: bool, data_dir: Path) -> None:
    """Run an RQ worker with its scheduler, and threads that deliver webhooks."""
    try:  # a bad setting fails here, at start-up, not in the first job that reads it
        config = WorkerConfig.from_env()
    except ConfigError as e:
        raise click.UsageError(str(e)) from e
    if config.metrics_dir:  # the API's folder: it cleans it, this only writes
        try:
            config.metrics_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise click.UsageError(f"{metrics_dir.VARIABLE}: cannot make {config.metrics_dir}:"
                                   f" {e.strerror}") from e
    # Only now: the metrics' module opens its files in that folder as it is imported.
    from workers.worker import run

    with servers(data_dir, database=True, redis=True) as found:
        if burst:  # a run that ends by itself says it could not work, rather than exit 0
            reachable(found.database_url)
        # The modules live as long as the worker: kept out of the collector's sight, a full
        # collection (which stops every job and lane thread) walks what the jobs made only.
        gc.freeze()
        run(config.with_servers(found.database_url, found.redis_url), burst=burst,
            webhooks_only=webhooks_only)


@main.group(invoke_without_command=True)
@data_dir_option
@click.pass_context
def jobs(ctx: click.Context, data_dir: Path) -> None:
    """Background jobs of every queue (the queue and its webhooks' lane): lengths, scheduled,
    failed (see `banco jobs requeue`)."""
    ctx.obj = data_dir
    if ctx.invoked_subcommand is not None:
        return
    from workers.jobs_report import alive, report
    from workers.queues import connect

    with redis_url(data_dir) as url:
        state = report(connect(url), Local.from_env().queue_name)
    for q in state["queues"]:  # every queue the service runs, as GET /metrics reports them
        click.echo(f"queue {q['name']}: {q['queued']} queued, {q['scheduled']} scheduled,"
                   f" {q['started']} started, {q['failed']} failed")
    click.echo(f"workers: {alive(state['workers'], state['queue'])}")
    for worker_state in state["workers"]:
        click.echo(f"worker {shown(worker_state['name'])} ({shown(', '.join(worker_state['queues']))}):"
                   f" {worker_state['state']}")
    for job in state["failed_jobs"]:  # a job's call and error may quote what a user wrote
        click.echo(f"failed {job['id']} ({job['queue']}): {shown(job['call'])}: {shown(job['error'])}")


@jobs.command("requeue")
@click.argument("job_ids", nargs=-1)
@click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path),
              help="as for `banco jobs`")
@click.pass_obj
def jobs_requeue(group_data_dir: Path, job_ids: tuple[str, ...], data_dir: Path | None) -> None:
    """Put failed jobs back on their queues (all failed jobs when no id is given)."""
    from workers.jobs_report import failed_in, requeue
    from workers.queues import connect, served

    name = Local.from_env().queue_name
    with redis_url(data_dir or group_data_dir) as url:
        connection = connect(url)
        # Every id checked before any is requeued: a typo requeues nothing.
        unknown = [job_id for job_id in job_ids if failed_in(connection, name, job_id) is None]
        if unknown:
            raise Unknown(f"no failed job {', '.join(unknown)} in queues"
                          f" {', '.join(served(name))}")
        count = requeue(connection, name, list(job_ids))
    click.echo(f"requeued {count} job(s)")


@main.group()
def db() -> None:
    """Database schema."""


@db.command()
@data_dir_option
def upgrade(data_dir: Path) -> None:
    """Apply pending migrations (safe to run from several processes at once)."""
    from projections import migrate

    with database_url(data_dir) as url, psycopg.connect(url, autocommit=True) as conn:
        applied = migrate.upgrade(conn)
    click.echo("applied: " + ", ".join(applied) if applied else "schema is current")


@main.group()
def projections() -> None:
    """Read models."""


@projections.command()
@data_dir_option
def rebuild(data_dir: Path) -> None:
    """Truncate every projection and replay it from the event log."""
    from projections.rebuild import rebuild_all

    with database_url(data_dir) as url, psycopg.connect(url, autocommit=True) as conn:
        count = rebuild_all(conn)
    click.echo(f"rebuilt projections from {count} events")


@projections.command("check")
@data_dir_option
def projections_check(data_dir: Path) -> None:
    """Compare every projection with a replay of the log, changing nothing (exit 1 on a
    difference). It blocks writers while it replays, as a rebuild does."""
    from projections.check import differences

    with database_url(data_dir) as url, psycopg.connect(url, autocommit=True) as conn:
        found = differences(conn)
    for name, difference in found.items():
        columns = ", ".join(f"{c} in {n}" for c, n in difference.columns.items())
        click.echo(f"{name}: {difference.held_only} row(s) not given by a replay,"
                   f" {difference.replayed_only} row(s) of the replay missing"
                   + (f"; rows differ in {columns}" if columns else ""))
    if found:
        raise SystemExit(1)
    click.echo("projections agree with the log")


@main.group()
def export() -> None:
    """Exports."""


@export.command("balance-history")
@click.option("--player", required=True, help="player id")
@click.option("--from", "since", type=cli_audit.MOMENT, help="ISO time (UTC when no offset given)")
@click.option("--to", "until", type=cli_audit.MOMENT, help="ISO time, exclusive")
@click.option("--format", "fmt", type=click.Choice(["csv", "ndjson", "json"]), default="csv",
              show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
              default="-", help="file (default: stdout), written whole or not at all")
@data_dir_option
def export_history(player: str, since: datetime | None, until: datetime | None, fmt: str,
                   output: Path, data_dir: Path) -> None:
    """Write a player's balance history, streamed in constant memory (progress bar with -o)."""
    from events.ledger import wallet
    from events.postgres import configure_connection
    from projections import history
    from service.application.export import export

    if since is not None and until is not None and until < since:
        raise click.UsageError(f"--to ({until.isoformat()}) is before --from ({since.isoformat()})")
    # The rows are read in a transaction of the export's: a Ctrl-C that ends the export leaves
    # it open, and psycopg's `with` would try a rollback there and log it as forbidden. The
    # connection is closed instead, and the server rolls the transaction back.
    with database_url(data_dir) as url, \
            contextlib.closing(psycopg.connect(url, autocommit=True)) as conn:
        configure_connection(conn)
        if conn.execute("SELECT 1 FROM players WHERE player_id = %s", (player,)).fetchone() is None:
            raise Unknown(f"no player {player}")
        filters = history.Filters(wallet(player), since, until)
        if str(output) == "-":
            stdout = sys.stdout.buffer
            for chunk in export(conn, filters, fmt):
                stdout.write(chunk)
            return
        with written(output) as f:
            total = history.count(conn, filters)
            with click.progressbar(length=total, label="exporting", file=sys.stderr) as bar:
                for chunk in export(conn, filters, fmt):
                    f.write(chunk)
                    bar.update(chunk.count(b"\n"))  # about one line a row (a header, brackets)


@main.group()
def openapi() -> None:
    """The OpenAPI document."""


@openapi.command("write")
@click.argument("path", type=click.Path(path_type=Path), default=Path("openapi.yaml"))
def openapi_write(path: Path) -> None:
    """Write the OpenAPI document generated from the code."""
    from service.http.spec import generate

    try:
        path.write_text(generate())
    except OSError as e:
        raise click.ClickException(f"cannot write {path}: {e.strerror}") from e
    click.echo(f"wrote {path}")


main.add_command(cli_erasures.erasures)
main.add_command(cli_disputes.dispute)

for _command in (cli_audit.replay, cli_audit.verify, cli_audit.checkpoint, cli_bot.bot):
    main.add_command(_command)

if __name__ == "__main__":
    main()
