-- A table's row is rewritten at every move (version, state, turn, deadline, updated_at). The
-- indexes on deadline and updated_at made every such write a new row version with an entry in
-- each of the table's indexes; the sweeper only ever looks among the tables playing (or
-- settling), so index those sets by id instead. With no indexed column changing during a hand,
-- and room left on each page, a move's write stays on its page (a HOT update): no index entry,
-- less WAL, and no index bloat to read through when the row is loaded.
DROP INDEX tables_deadline;
DROP INDEX tables_settling;
CREATE INDEX tables_playing ON tables (table_id) WHERE status = 'playing';
CREATE INDEX tables_settling ON tables (table_id) WHERE status = 'settling';
ALTER TABLE tables SET (fillfactor = 50);
