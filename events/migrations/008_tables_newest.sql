-- `GET /v1/tables` lists tables newest first. Table ids are random, so the order needs the
-- creation time, with the id to break ties. Neither column ever changes, so these indexes cost
-- a table's moves nothing (their writes stay HOT, see 007); the index on (game, status) they
-- replace was written at every change of status, at every hand.
DROP INDEX tables_game_status;
CREATE INDEX tables_newest ON tables (created_at DESC, table_id DESC);
CREATE INDEX tables_game_newest ON tables (game, created_at DESC, table_id DESC);
