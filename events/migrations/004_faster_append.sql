-- banco_append in fewer statements, with the same checks in the same order and the same rows.
--
-- A one-event append (the common case) is a single statement: the stream row is updated or
-- inserted, which checks the version and takes the row's lock, setting the new version and
-- head at once (the head is sha256(old head || the event's text), computed in the SET), and the
-- event row is inserted from what that write returns. When the version check fails the write
-- returns no row, so the INSERT reads no row and draws no position; the function then raises.
--
-- A batch is two statements: the stream row is taken first, which checks the version before
-- any position is drawn (an existing stream's row with SELECT ... FOR NO KEY UPDATE, the lock
-- the former UPDATE took, which under READ COMMITTED re-reads a row a concurrent writer has
-- just changed and so finds nothing when the version moved; a new stream's row by inserting
-- it). The hash chain is then computed in a loop that runs no SQL, and one statement inserts
-- every event row and writes the stream's version and head: one write of the stream row
-- instead of two, and one INSERT for the batch instead of one per event.
--
-- p_events and the hash chain are exactly those of 001_events.sql, and so is the result: one
-- row per event, in the order of p_events.
CREATE OR REPLACE FUNCTION banco_append(p_stream text, p_expected integer, p_events text[])
RETURNS TABLE (out_position bigint, out_version integer, out_recorded_at timestamptz, out_hash bytea, out_txid bigint)
LANGUAGE plpgsql AS $$
DECLARE
    n integer := cardinality(p_events);
    start_version integer;
    h bytea;
    hashes bytea[];
BEGIN
    IF n = 1 THEN
        IF p_expected IS NULL THEN
            RETURN QUERY
                WITH s AS (
                    INSERT INTO streams AS s (stream_id, version, head)
                    VALUES (p_stream, 1, sha256(convert_to(p_events[1], 'UTF8')))
                    ON CONFLICT (stream_id) DO UPDATE
                        SET version = s.version + 1,
                            head = sha256(s.head || convert_to(p_events[1], 'UTF8'))
                    RETURNING s.version, s.head
                )
                INSERT INTO events (stream_id, version, type, schema_version, data, metadata, hash)
                SELECT p_stream, s.version, j.e->>'type', (j.e->>'schema_version')::integer,
                       j.e->'data', j.e->'metadata', s.head
                FROM s CROSS JOIN (SELECT p_events[1]::jsonb AS e) AS j
                RETURNING position, version, recorded_at, hash, txid::text::bigint;
        ELSIF p_expected = 0 THEN
            RETURN QUERY
                WITH s AS (
                    INSERT INTO streams (stream_id, version, head)
                    VALUES (p_stream, 1, sha256(convert_to(p_events[1], 'UTF8')))
                    ON CONFLICT DO NOTHING
                    RETURNING head
                )
                INSERT INTO events (stream_id, version, type, schema_version, data, metadata, hash)
                SELECT p_stream, 1, j.e->>'type', (j.e->>'schema_version')::integer,
                       j.e->'data', j.e->'metadata', s.head
                FROM s CROSS JOIN (SELECT p_events[1]::jsonb AS e) AS j
                RETURNING position, version, recorded_at, hash, txid::text::bigint;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'stream % already exists', p_stream USING ERRCODE = 'BC409';
            END IF;
        ELSE
            RETURN QUERY
                WITH s AS (
                    UPDATE streams
                    SET version = p_expected + 1,
                        head = sha256(head || convert_to(p_events[1], 'UTF8'))
                    WHERE stream_id = p_stream AND version = p_expected
                    RETURNING head
                )
                INSERT INTO events (stream_id, version, type, schema_version, data, metadata, hash)
                SELECT p_stream, p_expected + 1, j.e->>'type', (j.e->>'schema_version')::integer,
                       j.e->'data', j.e->'metadata', s.head
                FROM s CROSS JOIN (SELECT p_events[1]::jsonb AS e) AS j
                RETURNING position, version, recorded_at, hash, txid::text::bigint;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'stream % is not at version %', p_stream, p_expected USING ERRCODE = 'BC409';
            END IF;
        END IF;
        RETURN;
    END IF;

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
        SELECT s.head INTO h FROM streams s
        WHERE s.stream_id = p_stream AND s.version = p_expected
        FOR NO KEY UPDATE;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'stream % is not at version %', p_stream, p_expected USING ERRCODE = 'BC409';
        END IF;
        start_version := p_expected;
    END IF;
    hashes := array_fill(NULL::bytea, ARRAY[n]);
    FOR i IN 1..n LOOP
        h := sha256(h || convert_to(p_events[i], 'UTF8'));
        hashes[i] := h;
    END LOOP;
    -- Rows are inserted in version order, so positions grow with versions as before.
    RETURN QUERY
        WITH head AS (
            UPDATE streams SET version = start_version + n, head = h WHERE stream_id = p_stream
        ), inserted AS (
            INSERT INTO events (stream_id, version, type, schema_version, data, metadata, hash)
            SELECT p_stream, start_version + t.i::integer, j.e->>'type',
                   (j.e->>'schema_version')::integer, j.e->'data', j.e->'metadata', hashes[t.i]
            FROM unnest(p_events) WITH ORDINALITY AS t(text, i)
            CROSS JOIN LATERAL (SELECT t.text::jsonb AS e) AS j
            ORDER BY t.i
            RETURNING position, version, recorded_at, hash, txid::text::bigint AS txid
        )
        SELECT * FROM inserted ORDER BY version;
END $$;

-- The error banco_append raises when a stream is not at the expected version, for statements
-- that append without calling it (events/postgres.py): raising it aborts the transaction
-- exactly as banco_append's own check does.
CREATE FUNCTION banco_conflict(p_stream text, p_expected integer) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    IF p_expected = 0 THEN
        RAISE EXCEPTION 'stream % already exists', p_stream USING ERRCODE = 'BC409';
    END IF;
    RAISE EXCEPTION 'stream % is not at version %', p_stream, p_expected USING ERRCODE = 'BC409';
END $$;
