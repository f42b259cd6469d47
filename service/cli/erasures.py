"""`banco erasures`: the erasure journal, and erasures and revocations made again after a restore.

A restore of the database to a point before an erasure brings back the erased player's key,
and with it his name; one before a revocation or a rotation brings back the token, the key or
the key's secret it retired. Each erasure and each retired credential is also kept in a journal
outside the database (`service.application.erasure_journal`); after a restore,
`banco erasures reapply` erases again everyone it names whom the restored database does not hold
erased, and retires again every credential it names that the restored database holds valid
(docs/operations.md).
"""

from __future__ import annotations

from pathlib import Path

import click

from service.cli.failures import Unknown
from service.cli.servers import data_dir_option, database_url, reachable
from service.cli.text import shown
from service.runtime.config import Local

JOURNAL_HELP = ("the erasure journal (default: BANCO_ERASURE_JOURNAL, else erasures.jsonl in the"
                " data folder)")


@click.group()
def erasures() -> None:
    """The erasure journal, kept apart from the database so that a restore loses no erasure,
    and brings back no revoked token or key nor a key's rotated secret."""


def _journal(journal: Path | None, data_dir: Path) -> tuple[Path, bool]:
    """The journal's file, and whether it exists. The file is made by the first erasure or
    retired credential, so none at the default place means that none was journaled; one named
    with --journal must exist."""
    path = journal or Local.from_env().journal(data_dir)
    if journal is None and not path.exists():
        return path, False
    if not path.is_file():
        raise Unknown(f"no erasure journal at {path}")
    return path, True


@erasures.command("list")
@click.option("--journal", type=click.Path(dir_okay=False, path_type=Path), help=JOURNAL_HELP)
@data_dir_option
def list_cmd(journal: Path | None, data_dir: Path) -> None:
    """Print every erasure and retired credential the journal keeps, oldest first."""
    from service.application.erasure_journal import Erasure, KeyRevoked, KeyRotated
    from service.application.file_erasure_journal import FileJournal, JournalError

    path, exists = _journal(journal, data_dir)
    try:
        kept = FileJournal(path).entries() if exists else []
    except JournalError as e:
        raise click.ClickException(str(e)) from e
    for entry in kept:
        at, by = entry.recorded_at.isoformat(), shown(entry.actor)
        if isinstance(entry, Erasure):
            click.echo(f"{at}  {shown(entry.player_id)}  by {by}")
        elif isinstance(entry, KeyRevoked):
            click.echo(f"{at}  {shown(entry.key_id)}  operator key revoked by {by}")
        elif isinstance(entry, KeyRotated):
            click.echo(f"{at}  {shown(entry.key_id)}  operator key rotated by {by}, retiring"
                       f" its secret of {entry.issued_at.isoformat()}")
        else:
            click.echo(f"{at}  {shown(entry.token_id)}  token of {entry.role}"
                       f" {shown(entry.subject)} revoked by {by}")
    if not kept:  # said apart from the listing, which stays empty
        click.echo(f"no erasure or retired credential journaled in {path}"
                   f"{'' if exists else ' (no such file yet)'}", err=True)


@erasures.command("reapply")
@click.option("--journal", type=click.Path(dir_okay=False, path_type=Path), help=JOURNAL_HELP)
@data_dir_option
def reapply_cmd(journal: Path | None, data_dir: Path) -> None:
    """Erase again everyone the journal names whom the database does not hold erased, and
    retire again every token, key and key's secret it names that the database holds valid: run
    it after a restore, before the service is let back in. Running it again changes nothing."""
    from events.catalog import default_types
    from events.postgres import PostgresEventStore, make_pool
    from service.application.bus import handle
    from service.application.erasure_journal import reapply, retire_again
    from service.application.file_erasure_journal import FileJournal, JournalError
    from service.application.postgres_unit_of_work import PostgresUnitOfWork, transaction
    from service.application.unit_of_work import UnitOfWork
    from service.http.idempotency import forget_name

    path, exists = _journal(journal, data_dir)
    if not exists:
        click.echo("nothing to reapply: no erasure or retired credential was journaled"
                   f" ({path} does not exist)")
        # Unless the journal is elsewhere: the API's BANCO_ERASURE_JOURNAL, not set here.
        click.echo("a journal kept elsewhere (the API's BANCO_ERASURE_JOURNAL) is named with"
                   " --journal FILE", err=True)
        return
    try:
        entries = FileJournal(path).entries()
    except JournalError as e:
        raise click.ClickException(str(e)) from e

    def answers_rewritten(uow: UnitOfWork, player_id: str) -> None:
        # The answers kept for a retry that show his name, as the API's erasure blanks them
        # (service/http/players.py).
        assert isinstance(uow, PostgresUnitOfWork)
        forget_name(player_id, uow.connection)

    with database_url(data_dir) as url:
        pool = make_pool(reachable(url), min_size=1, max_size=1)
        try:
            store = PostgresEventStore(pool, default_types())
            done = reapply(entries, lambda: transaction(pool, store), handle, answers_rewritten)
            # After the erasures, which revoke their players' tokens themselves.
            retired = retire_again(entries, lambda: transaction(pool, store), handle)
        finally:
            pool.close()
    for player_id in done.erased:
        click.echo(f"erased again: {player_id}")
    for credential in retired.revoked:
        click.echo(f"revoked again: {credential}")
    for key_id in retired.replaced:
        click.echo(f"secret replaced: {key_id} (rotated after the restore point: rotate it to"
                   " hand its holder a new secret)")
    click.echo(f"{len(done.erased)} erased again, {len(done.already)} already erased,"
               f" {len(done.absent)} not in the database")
    click.echo(f"{len(retired.revoked)} tokens or keys revoked again, {len(retired.replaced)}"
               f" keys' secrets replaced, {len(retired.already)} not valid in the database"
               " already")
