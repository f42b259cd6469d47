-- The hashes an operator key held before it was rotated or revoked (a revoked key's row keeps no
-- hash): a request sent with such a secret is refused as an unknown one is, and its log line
-- names the key it was (`key_id`), so that a leaked key's later use is found by the key's id.
-- A SHA-256, as the key's own, never the secret.
CREATE TABLE operator_key_retired_hashes (
    key_hash   bytea       PRIMARY KEY,
    key_id     text        NOT NULL REFERENCES operator_keys,
    retired_at timestamptz NOT NULL
);
