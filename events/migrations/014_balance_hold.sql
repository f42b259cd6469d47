-- The balance check of a posting, in the database, so that it goes in one round trip with the
-- append it guards (events/ledger.py `post`), sent before it in the same pipeline.
--
-- banco_hold locks the balance rows of every account the transfers touch (creating missing ones),
-- in sorted order, as `ledger.lock_balances` does: two transfers in opposite directions queue
-- instead of deadlocking, and the positions the append draws afterwards follow each account's
-- lock order, so replaying the log by position gives the same running balances. It then walks
-- the transfers in order, as the client did, and refuses the first that would leave an account
-- other than the house's issuing account negative. The refusal is an error: the append sent after
-- it in the pipeline is skipped with the rest of the transaction, so a refused posting writes
-- nothing and draws no position.
--
-- A refusal is a lost race rather than a shortfall when the stream is no longer at the version
-- the caller decided on: a writer that got there first moved the balance (we waited on its row
-- lock, and read what it left). The stream's version is read by a statement of its own, after
-- the locks, whose snapshot sees that writer's commit. Then the error is banco_conflict's
-- (BC409, the append's own), else BC402 with the account, its balance and the amount as JSON in
-- the error's detail.
CREATE FUNCTION banco_hold(p_stream text, p_expected integer, p_from text[], p_to text[],
                           p_amount bigint[]) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    short record;
    at_version integer;
BEGIN
    WITH locked AS (
        INSERT INTO balances AS b (account, balance, last_position)
        SELECT a, 0, 0 FROM (SELECT DISTINCT unnest(p_from || p_to) AS a) AS u ORDER BY a
        ON CONFLICT (account) DO UPDATE SET balance = b.balance
        RETURNING account, balance
    ), legs AS (
        -- A transfer's payment (side 0) counts before its receipt (side 1).
        SELECT i, 0 AS side, account, -amount AS amount
        FROM unnest(p_from, p_amount) WITH ORDINALITY AS t(account, amount, i)
        UNION ALL
        SELECT i, 1, account, amount
        FROM unnest(p_to, p_amount) WITH ORDINALITY AS t(account, amount, i)
    ), running AS (
        SELECT l.i, l.side, l.account, l.amount,
               k.balance + sum(l.amount) OVER (PARTITION BY l.account ORDER BY l.i, l.side
                                               ROWS UNBOUNDED PRECEDING) AS after
        FROM legs l JOIN locked k USING (account)
    )
    SELECT account, after - amount AS held, -amount AS amount INTO short
    FROM running
    WHERE side = 0 AND after < 0 AND account <> 'house:issued'
    ORDER BY i LIMIT 1;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    IF p_expected IS NOT NULL THEN
        SELECT version INTO at_version FROM streams WHERE stream_id = p_stream;
        IF coalesce(at_version, 0) <> p_expected THEN
            PERFORM banco_conflict(p_stream, p_expected);
        END IF;
    END IF;
    RAISE EXCEPTION 'account % holds %, cannot pay %', short.account, short.held, short.amount
        USING ERRCODE = 'BC402',
              DETAIL = json_build_object('account', short.account, 'balance', short.held,
                                         'amount', short.amount)::text;
END $$;
