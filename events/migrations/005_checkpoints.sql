-- Digests of the event log. Each covers every event up to a watermark (txid, position) taken
-- below the snapshot's xmin, so no event can later appear inside what it covered; a copy kept
-- outside the database proves afterwards that the log still holds exactly that history.
CREATE TABLE audit_checkpoints (
    id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    txid        xid8        NOT NULL,
    position    bigint      NOT NULL,
    events      bigint      NOT NULL,
    root        bytea       NOT NULL
);
