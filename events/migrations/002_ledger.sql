-- Projections of the treasure ledger, maintained in the appending transaction.
CREATE TABLE balances (
    account       text    PRIMARY KEY,
    balance       bigint  NOT NULL,
    last_position bigint  NOT NULL,   -- this row's checkpoint: the last posting applied to it
    CHECK (balance >= 0 OR account = 'house:issued')
);

CREATE TABLE balance_history (
    position      bigint      NOT NULL,
    account       text        NOT NULL,
    recorded_at   timestamptz NOT NULL,
    amount        bigint      NOT NULL,   -- signed: negative when the account paid
    balance_after bigint      NOT NULL,
    reason        text        NOT NULL,
    counterparty  text        NOT NULL,
    table_id      text,
    hand_id       text,
    PRIMARY KEY (account, position)
);

-- Where each projection stands in the global log, as (txid, position) of events/postgres.py.
CREATE TABLE projection_checkpoints (
    name     text   PRIMARY KEY,
    txid     xid8   NOT NULL,
    position bigint NOT NULL
);

CREATE TABLE players (
    player_id  text        PRIMARY KEY,
    name       text        NOT NULL,
    created_at timestamptz NOT NULL
);

-- Bearer tokens, stored only as their SHA-256.
CREATE TABLE tokens (
    token_hash bytea       PRIMARY KEY,
    role       text        NOT NULL CHECK (role IN ('player', 'auditor')),
    subject    text        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- A POST's response kept under its Idempotency-Key, written in the request's own transaction.
CREATE TABLE idempotency_keys (
    principal    text        NOT NULL,
    key          text        NOT NULL,
    request_hash bytea       NOT NULL,
    status       integer,
    body         bytea,
    headers      jsonb,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (principal, key)
);
