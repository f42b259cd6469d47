"""The application: table commands, settling, notices, exports, redaction and replay, raising
the refusals of `service.application.errors`. It imports `service.verification`, `service.runtime`,
`projections`, `events` and `games`; never the API, the workers or the command line."""
