"""The API: the Flask app, its resources and schemas, authentication, limits, idempotency and
problem+json. It may import the workers (to queue jobs), the application (`service.application`),
`service.runtime` and the layers below; never `service.cli`."""
