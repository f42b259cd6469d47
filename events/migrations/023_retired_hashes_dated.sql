-- The retired secrets' hashes (021, 022) are kept for `BANCO_RETIRED_SECRETS_RETENTION_DAYS`,
-- then purged by the workers' sweeper (workers/purges.py), which finds the oldest by these.
CREATE INDEX operator_key_retired_hashes_retired_at ON operator_key_retired_hashes (retired_at);
CREATE INDEX retired_token_hashes_retired_at ON retired_token_hashes (retired_at);
