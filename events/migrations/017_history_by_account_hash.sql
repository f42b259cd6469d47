-- The balance history partitioned by a hash of the account, 4 partitions, so that a rebuild can
-- replay it with one backend per partition: each builds the history of its accounts into a table
-- of its own, and the rebuild's transaction swaps them in (projections/history_rebuild.py). Every
-- account's rows stay in one partition, so the reads by account (pages, exports, balances at a
-- point) go to one partition, and the primary key (account, position) is each partition's own.
-- The columns, their order and the key are those of 002_ledger.sql; the rows are copied over.
ALTER TABLE balance_history RENAME TO balance_history_unpartitioned;
ALTER INDEX balance_history_pkey RENAME TO balance_history_unpartitioned_pkey;

CREATE TABLE balance_history (
    position      bigint      NOT NULL,
    account       text        NOT NULL,
    recorded_at   timestamptz NOT NULL,
    amount        bigint      NOT NULL,   -- signed: negative when the account paid
    balance_after bigint      NOT NULL,
    reason        text        NOT NULL,
    counterparty  text        NOT NULL,
    table_id      text,
    hand_id       text,
    PRIMARY KEY (account, position)
) PARTITION BY HASH (account);
-- A power of two: the rebuild computes each account's partition in SQL from the low bits of
-- the partitioning hash (projections/history_rebuild.py), and checks it by attaching.
CREATE TABLE balance_history_0 PARTITION OF balance_history FOR VALUES WITH (MODULUS 4, REMAINDER 0);
CREATE TABLE balance_history_1 PARTITION OF balance_history FOR VALUES WITH (MODULUS 4, REMAINDER 1);
CREATE TABLE balance_history_2 PARTITION OF balance_history FOR VALUES WITH (MODULUS 4, REMAINDER 2);
CREATE TABLE balance_history_3 PARTITION OF balance_history FOR VALUES WITH (MODULUS 4, REMAINDER 3);

INSERT INTO balance_history SELECT * FROM balance_history_unpartitioned;
DROP TABLE balance_history_unpartitioned;
