-- A table's snapshot is stored as msgspec JSON in an envelope naming its shape's version
-- (projections/snapshots.py), no longer pickled: a pickle names classes by their paths (renaming
-- one made every live table unreadable) and reading one runs whatever code it names. The rows
-- already stored are folded anew from their tables' events by the step that follows this file
-- (events/migrate.py, `projections.table_fold.resnapshot`): none is unpickled.
COMMENT ON COLUMN tables.state IS
    'the engine state after the last event: {"schema": n, "state": ...} as projections/snapshots.py writes it';
