-- The operator's scoped API keys, stored only as their SHA-256 under an id (`ok_...`) that events,
-- answers and log lines may name. A revoked key keeps its row, without its hash, so that the list
-- shows what it was and when it stopped; the bootstrap key (BANCO_OPERATOR_KEY) has no row.
CREATE TABLE operator_keys (
    key_id     text        PRIMARY KEY,
    key_hash   bytea       UNIQUE,              -- NULL once revoked
    name       text        NOT NULL,
    scopes     text[]      NOT NULL,
    expires_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    rotated_at timestamptz,
    revoked_at timestamptz,
    CHECK ((key_hash IS NULL) = (revoked_at IS NOT NULL))
);
