"""Banco's service, in layers whose imports only go down (tests/test_layers.py checks it):
`cli` (the banco command) → `http` (the API) → `workers` → `commands` (the application) and
`verification` (audits) → `runtime` (configuration, embedded servers, logs) → `projections`,
`events` and `games`."""
