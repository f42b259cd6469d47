-- The event log partitioned by position, so that it can grow: each partition holds a range of
-- 1,000,000 positions (events/partitions.py PARTITION_SIZE says the same), its own indexes stay
-- the size of one range, and an old range can be vacuumed, moved or archived on its own. The
-- columns, the identity, the defaults, the checks and the immutability triggers are those of
-- 001_events.sql; appends, reads, the hash chain and the feed are unchanged.
--
-- An existing log becomes the first partition as it is (its rows are not copied): it keeps its
-- positions, from the lowest to the next multiple of the partition size above the highest. One
-- empty partition follows it, and the sweeper keeps one ahead of the appends from then on
-- (events/partitions.py); a DEFAULT partition takes what arrives should it ever fall behind.
--
-- UNIQUE (stream_id, version) cannot stay: a unique index of a partitioned table must include
-- the partition key, and (stream_id, version, position) is unique whatever the versions. The
-- guard was never that index alone: every append writes the stream's row in `streams` first,
-- under its row lock, checking the expected version there and setting the next one
-- (events/postgres.py, banco_append), and takes the new event's version from that row. Two
-- writers of one stream queue on that lock and the second sees the version move, so no two
-- events of a stream can get one version. (stream_id, version) keeps a plain index for reads.
ALTER TABLE events RENAME TO events_p000000000000;
ALTER INDEX events_pkey RENAME TO events_p000000000000_pkey;
ALTER INDEX events_txid_position RENAME TO events_p000000000000_txid_position;
ALTER INDEX events_type RENAME TO events_p000000000000_type;
ALTER TABLE events_p000000000000 DROP CONSTRAINT events_stream_id_version_key;
-- A partition takes its position from the parent's identity; the parent's row trigger is cloned
-- onto it when it is attached, so its own would fire twice.
ALTER TABLE events_p000000000000 ALTER COLUMN position DROP IDENTITY;
DROP TRIGGER events_no_update_delete ON events_p000000000000;
-- events_no_truncate stays: a TRUNCATE of one partition fires only that partition's own.

CREATE TABLE events (
    position       bigint GENERATED ALWAYS AS IDENTITY,
    stream_id      text        NOT NULL,
    version        integer     NOT NULL CONSTRAINT events_version_check CHECK (version > 0),
    type           text        NOT NULL,
    schema_version integer     NOT NULL DEFAULT 1,
    data           jsonb       NOT NULL,
    metadata       jsonb       NOT NULL DEFAULT '{}'::jsonb,
    recorded_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    -- The writing transaction: global readers order by (txid, position) below the snapshot's
    -- xmin so that a position drawn early but committed late is never skipped (events/postgres.py).
    txid           xid8        NOT NULL DEFAULT pg_current_xact_id(),
    hash           bytea       NOT NULL,
    PRIMARY KEY (position)
) PARTITION BY RANGE (position);
CREATE INDEX events_stream_version ON events (stream_id, version);
CREATE INDEX events_txid_position ON events (txid, position);
CREATE INDEX events_type ON events (type);
-- The table a hand was dealt at (service/verification/hand_log.py table_of_hand), found without
-- reading every HandBegan of the log.
CREATE INDEX events_hand_began ON events ((data->>'hand_id')) WHERE type = 'HandBegan';

CREATE TRIGGER events_no_update_delete BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_are_immutable();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_are_immutable();

DO $$
DECLARE
    size   constant bigint := 1000000;
    top    bigint;
    bound  bigint;
BEGIN
    SELECT coalesce(max(position), 0) INTO top FROM events_p000000000000;
    bound := (top / size + 1) * size;
    -- Attaching checks every row against the bound: one scan of the old log, no copy.
    EXECUTE format('ALTER TABLE events ATTACH PARTITION events_p000000000000'
                   ' FOR VALUES FROM (MINVALUE) TO (%s)', bound);
    EXECUTE format('ALTER TABLE events ALTER COLUMN position RESTART WITH %s', top + 1);
    EXECUTE format('CREATE TABLE %I PARTITION OF events FOR VALUES FROM (%s) TO (%s)',
                   'events_p' || lpad(bound::text, 12, '0'), bound, bound + size);
    EXECUTE format('CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON %I'
                   ' FOR EACH STATEMENT EXECUTE FUNCTION events_are_immutable()',
                   'events_p' || lpad(bound::text, 12, '0'));
END $$;

CREATE TABLE events_default PARTITION OF events DEFAULT;
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events_default
    FOR EACH STATEMENT EXECUTE FUNCTION events_are_immutable();

-- A checkpoint's Merkle frontier: the roots of the perfect subtrees its root was folded from
-- (service/verification/merkle.py), so that the next checkpoint reads only the events after it.
ALTER TABLE audit_checkpoints ADD COLUMN frontier bytea;
