-- Tokens with a lifecycle: each has an id that events and answers may name (never the token nor
-- its hash); revoking one deletes its row, so every API process refuses it on its next request.
ALTER TABLE tokens ADD COLUMN token_id text;
UPDATE tokens SET token_id = 'tk_' || substr(md5(random()::text || clock_timestamp()::text || subject), 1, 16);
ALTER TABLE tokens ALTER COLUMN token_id SET NOT NULL;
ALTER TABLE tokens ADD CONSTRAINT tokens_token_id_key UNIQUE (token_id);
CREATE INDEX tokens_subject ON tokens (role, subject);

-- Auditors, whose registration is now an event (`AuditorRegistered`, stream auditor-<id>). Those
-- registered before it have their first token's time and no name.
CREATE TABLE auditors (
    auditor_id text        PRIMARY KEY,
    name       text,
    created_at timestamptz NOT NULL
);
INSERT INTO auditors (auditor_id, name, created_at)
SELECT subject, NULL, min(created_at) FROM tokens WHERE role = 'auditor' GROUP BY subject;

-- A kept response that issued a token holds the token's id, never the token: its replay issues a
-- fresh one in place of that one (service/idempotency.py). Records expire, purged by created_at.
ALTER TABLE idempotency_keys ADD COLUMN token_id text;
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);

-- Responses kept before held their token in clear: keep them without it, under its id (an id no
-- token has when it was revoked since, so a replay says so instead of issuing one).
WITH kept AS MATERIALIZED (
    SELECT principal, key, convert_from(body, 'UTF8')::jsonb AS doc
    FROM idempotency_keys
    WHERE position(convert_to('"token":"bnc_', 'UTF8') IN body) > 0
)
UPDATE idempotency_keys k
SET body = convert_to((kept.doc - 'token')::text, 'UTF8'),
    token_id = coalesce((SELECT t.token_id FROM tokens t
                         WHERE t.token_hash = sha256(convert_to(kept.doc->>'token', 'UTF8'))),
                        'tk_revoked')
FROM kept
WHERE k.principal = kept.principal AND k.key = kept.key;
