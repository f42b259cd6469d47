-- The hashes of the player's and auditor's tokens that were revoked or replaced (their rows are
-- deleted): a request sent with one is refused as an unknown token is, and its log line names
-- the token it was (`key_id`, its `tk_...` id), as 021 does for the operator's keys. A SHA-256,
-- as the token's own, never the token.
CREATE TABLE retired_token_hashes (
    token_hash bytea       PRIMARY KEY,
    token_id   text        NOT NULL,
    retired_at timestamptz NOT NULL DEFAULT now()
);
