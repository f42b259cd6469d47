-- A checkpoint's RFC 3161 time-stamp: the authority's reply (DER TimeStampResp) over SHA-256 of
-- the checkpoint's statement, and the authority asked. NULL: not stamped (none configured, or it
-- did not answer).
ALTER TABLE audit_checkpoints ADD COLUMN timestamp_reply bytea;
ALTER TABLE audit_checkpoints ADD COLUMN tsa_url text;
