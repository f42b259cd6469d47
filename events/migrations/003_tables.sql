-- The table-state projection: one row per table with a snapshot of the hand in play, so that
-- handling a command never folds the table's whole history.
CREATE TABLE tables (
    table_id      text        PRIMARY KEY,
    game          text        NOT NULL,
    options       jsonb       NOT NULL,
    status        text        NOT NULL CHECK (status IN ('open', 'playing', 'settling', 'over')),
    version       integer     NOT NULL,          -- the table stream's version this row reflects
    seats         jsonb       NOT NULL DEFAULT '[]'::jsonb,
    hand_id       text,
    hand_number   integer     NOT NULL DEFAULT 0,
    state         bytea,                         -- the engine's state after the last event
    turn          jsonb,
    created_by    text        NOT NULL,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL
);
CREATE INDEX tables_game_status ON tables (game, status, table_id);

CREATE TABLE hands (
    hand_id       text        PRIMARY KEY,
    table_id      text        NOT NULL REFERENCES tables,
    number        integer     NOT NULL,
    status        text        NOT NULL CHECK (status IN ('playing', 'settling', 'settled')),
    seats         jsonb       NOT NULL,
    commitment    text        NOT NULL,
    first_version integer     NOT NULL,          -- the hand's first event in the table stream
    last_version  integer,
    postings      jsonb,
    opened_at     timestamptz NOT NULL,
    settled_at    timestamptz,
    UNIQUE (table_id, number)
);
CREATE INDEX hands_table ON hands (table_id, number);
