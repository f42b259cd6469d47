-- The rules version each table plays for its whole life (its TableCreated event records it). Tables
-- created before rules had versions play version 1, the only one there was.
ALTER TABLE tables ADD COLUMN rules_version integer NOT NULL DEFAULT 1;
