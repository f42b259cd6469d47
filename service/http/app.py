"""The application factory."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from inspect import iscoroutinefunction
from types import FunctionType, MethodType
from typing import Any

import psycopg
import redis
from flask import Flask, Response, url_for
from flask_smorest import Api
from psycopg_pool import ConnectionPool, PoolTimeout
from werkzeug.exceptions import HTTPException

from events.catalog import default_types
from events.ledger import InsufficientTreasure
from events.model import ConcurrencyConflict, InvalidEvent
from events.postgres import PostgresEventStore, make_pool
from projections import tables as table_projection
from service.application import erasure_journal, notify
from service.application.bus import Bus, Subscriber
from service.application.errors import (
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    PreconditionRequired,
    Refused,
    Stale,
)
from service.application.file_erasure_journal import FileJournal, JournalUnwritable
from service.http import (
    audit,
    auditors,
    balances,
    bodies,
    charts,
    contract,
    cors,
    db,
    disputes,
    evidence,
    feed,
    follow_up,
    games_api,
    hand_audit,
    hands,
    headers,
    idempotency,
    jobs_api,
    limits,
    me,
    metrics,
    operator_keys,
    pages,
    players,
    probes,
    reference,
    request_log,
    stream_tickets,
    streams,
    tables,
    tokens,
    webhooks,
)
from service.http.problems import Problem, ProblemSchema, render, retry_later
from service.http.unions import UnionPlugin
from service.runtime import house_key, tracing
from service.runtime.config import Config
from service.runtime.replica import Replica
from service.runtime.slots import Slots, for_waiting
from service.streaming.feeds import Feeds
from service.streaming.relay import Relay
from workers import queues
from workers.deferred_jobs import DeferredJobs

# Each request's session: a lock held longer than this by another transaction (a node hung or
# cut off in the middle of a move holds its table's) answers 503 `locked` rather than holding
# one of the pool's few connections until it is released, which took every connection of the
# pool and answered 503 to requests about anything else; and a transaction left idle this long
# (its node hung, its network gone) is ended by PostgreSQL, its locks released, rather than
# after TCP's keepalive, two hours on. A request's own transaction is never idle for long.
REQUEST_SESSION = {"lock_timeout": "10s", "idle_in_transaction_session_timeout": "60s"}

API_SPEC = {
    "API_TITLE": "Banco",
    "API_VERSION": "1.0.0",
    "OPENAPI_VERSION": "3.0.3",
    "API_SPEC_OPTIONS": {
        "info": {"description": "An event-sourced game ledger for traditional card games."},
        # Relative: the Banco that serves the document is the one it describes.
        "servers": [{"url": "/", "description": "This Banco."}],
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        "security": [{"bearer": []}],
    },
    **reference.SETTINGS,
}


class BancoFlask(Flask):
    """Flask, asking once per function whether it is a coroutine function.

    Flask asks it of every hook and view it calls, each time (`ensure_sync`): about fifteen
    times a request, which cost more of a request's CPU than its routing. Whether a function is
    `async def` never changes, so the answer is kept, by the plain function (a view's method
    is bound anew for each request: its function is the key). Functions made for one request
    (`after_this_request`) would each add a key: past `KEPT` answers, no more are kept."""

    KEPT = 4096

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._is_async: dict[FunctionType, bool] = {}

    def make_default_options_response(self) -> Response:
        # Flask's answers 200 with an empty text/html body: an OPTIONS request is told what the
        # path allows (`Allow`) and nothing else.
        response = super().make_default_options_response()
        response.status_code = 204
        response.headers.pop("Content-Type", None)
        return response

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        plain = func.__func__ if isinstance(func, MethodType) else func
        if not isinstance(plain, FunctionType):
            return super().ensure_sync(func)
        is_async = self._is_async.get(plain)
        if is_async is None:
            is_async = iscoroutinefunction(func)
            if len(self._is_async) < self.KEPT:
                self._is_async[plain] = is_async
        return self.async_to_sync(func) if is_async else func


class BancoApi(Api):
    """flask-smorest with every error rendered as problem+json."""

    ERROR_SCHEMA = ProblemSchema
    # Each operation lists the statuses it answers (`service.http.contract`): a `default` would
    # let any other status pass for documented.
    DEFAULT_ERROR_RESPONSE_NAME = None

    def _register_responses(self) -> None:
        super()._register_responses()
        contract.register_responses(self.spec)

    def _register_pagination_header(self) -> None:
        # Banco pages in its bodies (`next_cursor`), not with flask-smorest's header: its
        # schema would be a component nothing uses.
        pass

    def handle_http_exception(self, error: HTTPException) -> Any:
        return render(error)

    def _openapi_json(self) -> Any:
        # The contract as committed in openapi.yaml, not flask-smorest's draft of it.
        return reference.contract_json()

    def _openapi_swagger_ui(self) -> Any:
        # Swagger UI started by a script file, not flask-smorest's inline one: the page's CSP
        # runs no inline script.
        return reference.swagger_ui(self.spec.title, url_for("api-docs.openapi_json"),
                                    self.config.get("OPENAPI_SWAGGER_UI_CONFIG", {}))


# The HTTP status of each kind of refusal of the application (`service.application.errors`).
REFUSED_STATUS: dict[type[Refused], int] = {
    NotFound: 404, Conflict: 409, Invalid: 422, Forbidden: 403, PreconditionRequired: 428,
    Stale: 412}


def _no_query_in_traces(span: Any, *_: Any) -> None:
    """A request's span without its query string: one may carry a stream ticket (a credential
    for a minute), and the logs hold no query string either. On the response: the request's
    attributes are set again after the request hook."""
    attributes = getattr(span, "attributes", None) or {}
    for name in ("http.target", "http.url", "url.full"):
        value = attributes.get(name)
        if isinstance(value, str) and "?" in value:
            span.set_attribute(name, value.split("?", 1)[0])
    if "url.query" in attributes:
        span.set_attribute("url.query", "")


def _domain_errors(app: Flask) -> None:
    """The one map from domain errors to HTTP problems."""

    @app.errorhandler(Refused)
    def refused(e: Refused) -> Any:
        return render(Problem(REFUSED_STATUS[type(e)], e.code, e.detail, **e.extra))

    @app.errorhandler(ConcurrencyConflict)
    def conflict(e: ConcurrencyConflict) -> Any:
        return render(Problem(409, "version_conflict", "someone else changed this first; reload and retry"))

    @app.errorhandler(InsufficientTreasure)
    def insufficient(e: InsufficientTreasure) -> Any:
        return render(Problem(422, "insufficient_treasure", str(e), balance=e.balance))

    @app.errorhandler(psycopg.errors.LockNotAvailable)
    def locked(e: Exception) -> Any:
        # Another transaction has held what the request needs for REQUEST_SESSION's
        # lock_timeout: nothing was written (the request's transaction is rolled back).
        app.logger.warning("a lock was held past the request's lock_timeout: %s", e)
        return retry_later("locked", "what this request needs (a table, a wallet) has been held by"
                           " another transaction for over " + REQUEST_SESSION["lock_timeout"] +
                           ": nothing was changed", retry_after_s=5)

    @app.errorhandler(psycopg.OperationalError)
    @app.errorhandler(PoolTimeout)
    def unavailable(e: Exception) -> Any:
        app.logger.warning("database unavailable: %s", type(e).__name__)
        return db.unavailable()

    @app.errorhandler(redis.ConnectionError)
    @app.errorhandler(redis.TimeoutError)
    def queue_unavailable(e: Exception) -> Any:
        app.logger.warning("redis unavailable: %s", type(e).__name__)
        return retry_later("unavailable", "the job queue is unavailable", retry_after_s=1)

    @app.errorhandler(JournalUnwritable)
    def journal_unwritable(e: JournalUnwritable) -> Any:
        # The erasure was not made: it commits only once the journal keeps it. (A revocation
        # or a rotation is made all the same: `erasure_journal.keeper`.)
        app.logger.warning("%s", e)
        return retry_later("unavailable", "the erasure journal cannot be written now: nothing"
                           " was erased", retry_after_s=30)

    @app.errorhandler(psycopg.DataError)
    def bad_value(e: psycopg.DataError) -> Any:
        # Values the schemas let through but PostgreSQL cannot hold (the body's NUL characters
        # are refused before, naming their field): a sum past a bigint's range, say.
        if isinstance(e, psycopg.errors.NumericValueOutOfRange):
            return render(Problem(422, "invalid_input", "a number in the request, or a balance or"
                                  f" total it would make, is past the largest Banco keeps ({2**63 - 1})",
                                  reason=type(e).__name__))
        return render(Problem(422, "invalid_input", "a value in the request cannot be stored",
                              reason=type(e).__name__))

    @app.errorhandler(InvalidEvent)
    def invalid(e: InvalidEvent) -> Any:
        return render(Problem(422, "invalid_event", f"invalid {e.event_type} event", errors=e.errors))


def _table_versions(pool: ConnectionPool, table_ids: Sequence[str]) -> dict[str, int]:
    with pool.connection() as conn:
        return table_projection.versions(conn, table_ids)


def create_app(config: Config, pool: ConnectionPool | None = None,
               redis_client: redis.Redis | None = None, connect: bool = True) -> Flask:
    """A Banco app on `config`; pass `pool` / `redis_client` to share existing ones.

    With `connect=False` nothing is opened: enough to write the OpenAPI document.
    """
    # With an OTLP endpoint set (service/runtime/tracing.py); before any pool connects, so that
    # every connection's statements are traced.
    if connect:
        tracing.configure("banco-api")
    # The pages' scripts and styles are the app's static files (`/static/...`).
    app = BancoFlask("banco", static_folder=str(pages.STATIC))
    app.request_class = bodies.Request  # a chunked body held to the cap too
    # `/v1//tables` is no route: werkzeug would redirect it to `/v1/tables` with an HTML 308
    # that no error handler sees, where every other unknown path is a 404 problem.
    app.url_map.merge_slashes = False
    app.config.update(API_SPEC, BANCO=config, MAX_CONTENT_LENGTH=config.max_body_bytes)
    app.json.sort_keys = False  # type: ignore[attr-defined]
    # A short wait for a connection: with PostgreSQL away, answer 503 soon rather than hang.
    db_pool = pool or make_pool(config.database_url, max_size=config.pool_size, open=connect,
                                timeout=5, settings=REQUEST_SESSION)
    # Streamed exports read from a pool of their own (`service.http.players`), a quarter the size: a
    # client reading one slowly holds one of these, never a connection other requests need. Its
    # slots tell an export too many (503 exports_busy) from a database away (503 unavailable).
    exports = max(1, config.pool_size // 4)
    app.extensions["banco.export_pool"] = make_pool(config.database_url, min_size=0,
                                                    max_size=exports, open=connect, timeout=5)
    app.extensions["banco.export_slots"] = Slots(exports)
    app.extensions["banco.waits"] = for_waiting(config.threads)
    app.extensions["banco.streams"] = Slots(config.streams)
    store = PostgresEventStore(db_pool, default_types())
    app.extensions["banco.store"] = store
    # The house's signing key (service/http/evidence.py), loaded once; a bad file stops the start.
    if config.house_key_file is not None:
        app.extensions["banco.house_key"] = house_key.load(config.house_key_file)
    # Opens its LISTEN connection only when a first stream follows a table.
    app.extensions["banco.notify"] = notify.Listener(config.database_url)
    app.extensions["banco.feeds"] = Feeds()
    # Passes the streams gunicorn hands over to the worker's streamer, which gunicorn's worker
    # starts as it loads the app (`service.http.gunicorn_worker`).
    app.extensions["banco.relay"] = Relay(config.metrics_dir)
    app.extensions["banco.redis"] = redis_client or queues.connect(config.redis_url)
    db_replica = None
    if config.replica_url is not None:
        # The primary's pools' twins on the streaming replica (`service.runtime.replica`).
        db_replica = Replica(
            {"requests": make_pool(config.replica_url, min_size=0, max_size=config.pool_size,
                                   settings=REQUEST_SESSION,
                                   open=connect, timeout=5),
             "exports": make_pool(config.replica_url, min_size=0, max_size=exports, open=connect,
                                  timeout=5)},
            app.extensions["banco.redis"], config.replica_wait_ms / 1000, config.queue_name)
    app.extensions["banco.jobs"] = DeferredJobs(
        app.extensions["banco.redis"], config.queue_name,
        versions=lambda table_ids: _table_versions(db_pool, table_ids))
    # Every command the API gives goes through its bus, which tells what moved a table's play
    # on to the table's followers and to the jobs that follow it, and each erasure and each
    # retired credential (a token, an operator key or its secret) to the journal that a restore
    # of the database does not take back.
    subscribers: list[Subscriber] = [follow_up.table_played]
    if config.erasure_journal is not None:
        subscribers.append(erasure_journal.keeper(FileJournal(config.erasure_journal)))
    app.extensions["banco.bus"] = Bus(subscribers)
    if tracing.enabled():
        from opentelemetry.instrumentation.flask import FlaskInstrumentor

        FlaskInstrumentor().instrument_app(app, response_hook=_no_query_in_traces)
    headers.init_app(app)
    cors.init_app(app, config.cors_origins)
    metrics.init_app(app)
    request_log.init_app(app)
    db.init_app(app, db_pool, db_replica)
    limits.init_app(app, config.redis_url, config.rate_limit)
    idempotency.init_app(app)
    api = BancoApi(app, spec_kwargs={"marshmallow_plugin": UnionPlugin()})
    app.register_blueprint(reference.blp)
    app.register_blueprint(pages.blp)
    for blueprint in (probes.blp, players.blp, auditors.blp, audit.blp, games_api.blp, tables.blp,
                      streams.blp, hands.blp, hand_audit.blp, evidence.blp, charts.blp, tokens.blp, me.blp,
                      jobs_api.blp, metrics.blp, feed.blp, balances.blp, webhooks.blp,
                      stream_tickets.blp, operator_keys.blp, disputes.blp):
        api.register_blueprint(blueprint)
    if config.bench_endpoints:
        from service.http import bench_endpoint

        api.register_blueprint(bench_endpoint.blp)
    _domain_errors(app)
    app.extensions["banco.api"] = api
    return app
