-- The immutable event log and the stream heads that guard its versions.
CREATE TABLE events (
    position       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    stream_id      text        NOT NULL,
    version        integer     NOT NULL CHECK (version > 0),
    type           text        NOT NULL,
    schema_version integer     NOT NULL DEFAULT 1,
    data           jsonb       NOT NULL,
    metadata       jsonb       NOT NULL DEFAULT '{}'::jsonb,
    recorded_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    -- The writing transaction: global readers order by (txid, position) below the snapshot's
    -- xmin so that a position drawn early but committed late is never skipped (events/postgres.py).
    txid           xid8        NOT NULL DEFAULT pg_current_xact_id(),
    hash           bytea       NOT NULL,
    UNIQUE (stream_id, version)
);
CREATE INDEX events_txid_position ON events (txid, position);
CREATE INDEX events_type ON events (type);

-- One row per stream: its version and the head of its hash chain. Appends take this row's lock,
-- which serialises writers of one stream and lets a loser fail before it draws a position.
CREATE TABLE streams (
    stream_id text    PRIMARY KEY,
    version   integer NOT NULL,
    head      bytea   NOT NULL
);

CREATE FUNCTION events_are_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are immutable: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;

CREATE TRIGGER events_no_update_delete BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_are_immutable();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_are_immutable();

-- Append a batch to one stream in a single round trip. p_expected NULL means "any version".
-- The stream row is updated (and so locked) before any event row is inserted: a writer that
-- lost the race raises here, before drawing a position from the identity sequence.
-- p_events holds each event's canonical JSON text ({stream_id, type, schema_version, data,
-- metadata} with sorted keys, made by the caller); its hash is sha256(previous hash || that text).
CREATE FUNCTION banco_append(p_stream text, p_expected integer, p_events text[])
RETURNS TABLE (out_position bigint, out_version integer, out_recorded_at timestamptz, out_hash bytea, out_txid bigint)
LANGUAGE plpgsql AS $$
DECLARE
    n integer := cardinality(p_events);
    start_version integer;
    h bytea;
    e jsonb;
    i integer;
BEGIN
    IF p_expected IS NULL THEN
        INSERT INTO streams AS s (stream_id, version, head) VALUES (p_stream, n, '\x'::bytea)
        ON CONFLICT (stream_id) DO UPDATE SET version = s.version + n
        RETURNING s.version - n, s.head INTO start_version, h;
    ELSIF p_expected = 0 THEN
        INSERT INTO streams (stream_id, version, head) VALUES (p_stream, n, '\x'::bytea)
        ON CONFLICT DO NOTHING;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'stream % already exists', p_stream USING ERRCODE = 'BC409';
        END IF;
        start_version := 0;
        h := '\x'::bytea;
    ELSE
        UPDATE streams SET version = version + n
        WHERE stream_id = p_stream AND version = p_expected
        RETURNING head INTO h;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'stream % is not at version %', p_stream, p_expected USING ERRCODE = 'BC409';
        END IF;
        start_version := p_expected;
    END IF;
    FOR i IN 1..n LOOP
        h := sha256(h || convert_to(p_events[i], 'UTF8'));
        e := p_events[i]::jsonb;
        RETURN QUERY INSERT INTO events (stream_id, version, type, schema_version, data, metadata, hash)
            VALUES (p_stream, start_version + i, e->>'type', (e->>'schema_version')::integer,
                    e->'data', e->'metadata', h)
            RETURNING position, version, recorded_at, hash, txid::text::bigint;
    END LOOP;
    UPDATE streams SET head = h WHERE stream_id = p_stream;
END $$;
