-- Incremental ETL: keep a daily summary table up to date from the changes of a source table.
-- Run: hudi-sql --warehouse /tmp/wh -f sql_examples/incremental_etl.sql

-- Partition columns come last in a table's columns (as in Spark), so they are declared last here
-- to keep positional INSERTs readable.
CREATE TABLE orders (
    order_id BIGINT,
    customer STRING,
    amount   DECIMAL(10, 2),
    ts       BIGINT,
    day      DATE
) USING hudi
PARTITIONED BY (day)
TBLPROPERTIES (primaryKey = 'order_id', preCombineField = 'ts');

CREATE TABLE daily_revenue (
    day     DATE,
    orders  BIGINT,
    revenue DECIMAL(20, 2)
) USING hudi
TBLPROPERTIES (primaryKey = 'day');

INSERT INTO orders VALUES
    (1, 'alice', 10.00, 1, DATE '2024-05-01'),
    (2, 'bob',   20.50, 1, DATE '2024-05-01'),
    (3, 'carol',  7.25, 1, DATE '2024-05-02');

-- Pull what changed in `orders` (here: everything since the beginning) and recompute the
-- days it touched. A pipeline keeps the last instant it processed and passes it as 'begin':
--   hudi_table_changes('orders', 'latest_state', '<last processed instant>')
MERGE INTO daily_revenue AS d
USING (
    SELECT o.day, count(*) AS orders, sum(o.amount) AS revenue
    FROM orders o
    WHERE o.day IN (SELECT DISTINCT day FROM hudi_table_changes('orders', 'latest_state', 'earliest'))
    GROUP BY o.day
) AS s
ON d.day = s.day
WHEN MATCHED THEN UPDATE SET *
WHEN NOT MATCHED THEN INSERT *;

-- New orders and a correction arrive.
INSERT INTO orders VALUES
    (2, 'bob',   22.50, 2, DATE '2024-05-01'),
    (4, 'dan',   12.00, 2, DATE '2024-05-03');

-- The INCREMENTAL hint reads changes the same way, from a begin instant (exclusive).
MERGE INTO daily_revenue AS d
USING (
    SELECT o.day, count(*) AS orders, sum(o.amount) AS revenue
    FROM orders o
    WHERE o.day IN (SELECT /*+ INCREMENTAL(c, '000') */ DISTINCT day FROM orders c)
    GROUP BY o.day
) AS s
ON d.day = s.day
WHEN MATCHED THEN UPDATE SET *
WHEN NOT MATCHED THEN INSERT *;

SELECT day, orders, revenue FROM daily_revenue ORDER BY day;
