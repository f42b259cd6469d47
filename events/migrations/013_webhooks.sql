-- Webhook subscriptions: where each sends the log's events, and how far it has got.
--
-- The cursor is a place in the global log as (txid, position), the order events/postgres.py
-- reads it in; everything up to it was delivered (or did not match the subscription's types).
-- `generation` grows with each pause, resume and replay: a delivery still in flight when the
-- operator moved the cursor writes nothing back, as its updates name the generation it began in.
CREATE TABLE webhook_subscriptions (
    subscription_id text        PRIMARY KEY,
    url             text        NOT NULL,
    event_types     text[]      NOT NULL,
    -- The signing secret, sealed (AES-256-GCM) under the subscription's key in webhook_keys: a
    -- dump or a copy of this table alone holds no usable secret.
    secret_enc      text        NOT NULL,
    status          text        NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused')),
    paused_reason   text,
    cursor_txid     bigint      NOT NULL DEFAULT 0,
    cursor_position bigint      NOT NULL DEFAULT 0,
    failures        integer     NOT NULL DEFAULT 0,  -- failed attempts in a row, at the cursor
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    generation      integer     NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_subscriptions_due ON webhook_subscriptions (next_attempt_at)
    WHERE status = 'active';

CREATE TABLE webhook_keys (
    subscription_id text  PRIMARY KEY REFERENCES webhook_subscriptions ON DELETE CASCADE,
    key             bytea NOT NULL
);

-- One row per event sent to a subscription (a replay sends it again: same row, more attempts).
CREATE TABLE webhook_deliveries (
    subscription_id text        NOT NULL REFERENCES webhook_subscriptions ON DELETE CASCADE,
    position        bigint      NOT NULL,
    webhook_id      text        NOT NULL,
    event_type      text        NOT NULL,
    status          text        NOT NULL CHECK (status IN ('pending', 'delivered')),
    attempts        integer     NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT now(),
    delivered_at    timestamptz,
    PRIMARY KEY (subscription_id, position)
);
CREATE INDEX webhook_deliveries_newest ON webhook_deliveries (subscription_id, created_at DESC);

CREATE TABLE webhook_attempts (
    subscription_id text        NOT NULL,
    position        bigint      NOT NULL,
    attempt         integer     NOT NULL,
    attempted_at    timestamptz NOT NULL DEFAULT now(),
    status_code     integer,
    error           text,
    duration_ms     integer     NOT NULL,
    PRIMARY KEY (subscription_id, position, attempt)
);
