"""One way in for every write: a command, as data, goes to its handler, a function of the unit
of work it runs in, the command and the metadata its events record.

The API's resources, the workers and the command line all hand their commands to `Bus.handle`;
none calls a handler itself. Notices a handler publishes on the unit of work
(`commands.TablePlayed`, `players.Erasing`, `tokens.TokensRetiring`, `operator_keys.KeyRevoking`
and `KeyRotating`) go, as the handler returns and before its work commits, to the subscribers the
process gave its bus: the API hands the table to its streams and queues its jobs for after the
commit, and keeps each erasure and each retired credential in its journal; a worker, which
follows up on what it returns, subscribes none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from service.application import (
    auditors,
    commands,
    disputes,
    handlers,
    operator_keys,
    players,
    settling,
    tokens,
    webhook_deliveries,
    webhook_subscriptions,
)
from service.application.unit_of_work import UnitOfWork

Handler = Callable[[Any, Any, dict[str, Any]], Any]

HANDLERS: dict[type, Handler] = {
    # Tables
    commands.CreateTable: handlers.create,
    commands.JoinTable: handlers.join,
    commands.LeaveTable: handlers.leave_table,
    commands.OpenHand: handlers.deal,
    commands.Act: handlers.play,
    commands.TimeOut: handlers.time_out_turn,
    commands.SettleHand: settling.settle_hand,
    commands.EndTable: settling.end_table,
    # Players, their wallets and tokens; auditors
    players.RegisterPlayer: players.register,
    players.Deposit: players.deposit,
    players.Withdraw: players.withdraw,
    players.ErasePlayer: players.erase,
    tokens.RotateTokens: tokens.rotate,
    tokens.RevokeTokens: tokens.revoke,
    tokens.ReissueToken: tokens.reissue,
    tokens.RetireToken: tokens.retire,
    auditors.RegisterAuditor: auditors.register,
    # The operator's scoped keys
    operator_keys.CreateKey: operator_keys.create,
    operator_keys.RotateKey: operator_keys.rotate,
    operator_keys.RevokeKey: operator_keys.revoke,
    operator_keys.RetireKeySecret: operator_keys.retire_secret,
    # Disputes about a hand, and their corrective postings
    disputes.OpenDispute: disputes.open_dispute,
    disputes.AttachEvidence: disputes.attach,
    disputes.Readjudicate: disputes.readjudicate_dispute,
    disputes.ResolveDispute: disputes.resolve,
    disputes.RejectDispute: disputes.reject,
    # Webhooks: the operator's subscriptions, and the delivery worker's records
    webhook_subscriptions.CreateWebhook: webhook_subscriptions.subscribe,
    webhook_subscriptions.PauseWebhook: webhook_subscriptions.pause_subscription,
    webhook_subscriptions.ResumeWebhook: webhook_subscriptions.resume_subscription,
    webhook_subscriptions.ReplayWebhook: webhook_subscriptions.replay_subscription,
    webhook_subscriptions.DeleteWebhook: webhook_subscriptions.delete_subscription,
    webhook_deliveries.RecordAttempt: webhook_deliveries.attempt,
    webhook_deliveries.MoveCursor: webhook_deliveries.skip,
}

# Told every notice (`commands.TablePlayed`, `players.Erasing`, ...); each takes those it follows.
Subscriber = Callable[[Any, UnitOfWork], None]


class Bus:
    """Commands to their handlers; what they publish to the process's `subscribers`."""

    def __init__(self, subscribers: Sequence[Subscriber] = ()) -> None:
        self.subscribers = tuple(subscribers)

    def handle(self, command: Any, uow: UnitOfWork, metadata: dict[str, Any] | None = None
               ) -> Any:
        """Run the command's handler in `uow`; what it returns. The caller commits."""
        result = HANDLERS[type(command)](uow, command, metadata or {})
        for notice in uow.collect_notices():
            for subscriber in self.subscribers:
                subscriber(notice, uow)
        return result


# For a process that subscribes to nothing: the workers, the command line, the tests.
handle = Bus().handle
