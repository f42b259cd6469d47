-- When the turn in play times out. Kept in PostgreSQL, not only in Redis: a sweeper finds every
-- overdue turn here, so a deadline whose scheduled job was lost still fires.
ALTER TABLE tables ADD COLUMN deadline timestamptz;
CREATE INDEX tables_deadline ON tables (deadline) WHERE status = 'playing';
CREATE INDEX tables_settling ON tables (updated_at) WHERE status = 'settling';
