"""Streams: a table's or the log's news written to many followers at once.

A request that follows a table (`GET /v1/tables/{id}/events?stream=true`) or the log starts in
the API's thread; once it has sent its head, the gunicorn worker hands its socket over
(`service.http.gunicorn_worker`), and the worker's relay passes it to the worker's streamer, a
process of its own. What the API uses of this package is small:

- `relay.Relay`: `take` a stream to hand over, `offer` a table a request wrote;
- `feeds.Feeds` and `follower.Follower`, `log_follower.LogFollower`: where one stream stands
  and what it is sent next, the same in the request's thread and in the streamer;
- `fanout`: the hand-over's constants, and the fan-out that writes every stream of a streamer
  from one thread, woken by its inbox (`inbox.Inbox`) as each notice comes.

Everything leaves through the application's redaction (`service.application.table_view`,
`service.application.redaction`); nothing here imports the API.
"""
