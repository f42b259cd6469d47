-- A running sum of bigints that stays a bigint, for the balance history's replay
-- (projections/balances.py REBUILD): `sum(bigint)` accumulates and returns numeric, which a
-- window over every leg of the log built and converted back for each of its rows (a sixth of the
-- replay's time). int8pl is bigint addition, overflow checked: an overflow is an error, as the
-- numeric sum's cast into the bigint column was.
CREATE AGGREGATE banco_running_sum(bigint) (SFUNC = int8pl, STYPE = bigint);
