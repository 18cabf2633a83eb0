-- Time travel: every commit is a version of the table that queries can read.
-- Run: hudi-sql --warehouse /tmp/wh -f sql_examples/time_travel.sql

CREATE TABLE prices (
    sku   STRING,
    price DOUBLE,
    ts    BIGINT
) USING hudi
TBLPROPERTIES (primaryKey = 'sku', preCombineField = 'ts');

INSERT INTO prices VALUES ('apple', 1.00, 1), ('pear', 2.00, 1);
INSERT INTO prices VALUES ('apple', 1.20, 2);

-- The commits, newest first: any commit_time below can be used with TIMESTAMP AS OF.
CALL show_commits(table => 'prices');

-- Before the first commit there is no version to read: TIMESTAMP AS OF '2000-01-01 00:00:00'
-- is an error naming the first commit. As of any later moment the table shows the versions
-- committed by then (an instant like
-- '20240501093000000' or a date-time like '2024-05-01 09:30:00' works).
SELECT sku, price FROM prices TIMESTAMP AS OF '2999-12-31 00:00:00' ORDER BY sku;

-- The same with a query hint, per table reference.
SELECT /*+ AS_OF(p, '2999-12-31') */ sku, price FROM prices p ORDER BY sku;

-- Every change since the beginning, with the commit that made it.
SELECT _hoodie_commit_time, sku, price FROM hudi_table_changes('prices', 'latest_state', 'earliest') ORDER BY sku;
