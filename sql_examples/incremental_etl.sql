-- Incremental ETL: keep a daily summary table up to date from the changes of a source table.
-- The MERGE is a pipeline step a scheduler reruns unchanged: each run folds in only the days
-- whose orders changed since the previous run, and the position it reached in `orders` is kept
-- in daily_revenue's own commit metadata (no state anywhere else).
-- Run: hudi-sql --warehouse /tmp/wh -f sql_examples/incremental_etl.sql   (again and again)

-- Partition columns come last in a table's columns (as in Spark), so they are declared last here
-- to keep positional INSERTs readable.
CREATE TABLE IF NOT EXISTS orders (
    order_id BIGINT,
    customer STRING,
    amount   DECIMAL(10, 2),
    ts       BIGINT,
    day      DATE
) USING hudi
PARTITIONED BY (day)
TBLPROPERTIES (primaryKey = 'order_id', preCombineField = 'ts');

CREATE TABLE IF NOT EXISTS daily_revenue (
    day     DATE,
    orders  BIGINT,
    revenue DECIMAL(20, 2)
) USING hudi
TBLPROPERTIES (primaryKey = 'day');

-- Upstream (another job in a real pipeline): the first orders arrive.
INSERT INTO orders VALUES
    (1, 'alice', 10.00, 1, DATE '2024-05-01'),
    (2, 'bob',   20.50, 1, DATE '2024-05-01'),
    (3, 'carol',  7.25, 1, DATE '2024-05-02');

-- The pipeline step. 'checkpoint' resumes after the last `orders` instant this table's commits
-- recorded ('earliest' on the first run), and the MERGE's commit records the instant it read up
-- to: CALL show_commit_extra_metadata(table => 'daily_revenue') shows it. A run with nothing new
-- in `orders` reads no change and writes nothing.
MERGE INTO daily_revenue AS d
USING (
    SELECT o.day, count(*) AS orders, sum(o.amount) AS revenue
    FROM orders o
    WHERE o.day IN (SELECT DISTINCT day FROM hudi_table_changes('orders', 'latest_state', 'checkpoint'))
    GROUP BY o.day
) AS s
ON d.day = s.day
WHEN MATCHED THEN UPDATE SET *
WHEN NOT MATCHED THEN INSERT *;

-- A correction and a new order arrive.
INSERT INTO orders VALUES
    (2, 'bob',   22.50, 2, DATE '2024-05-01'),
    (4, 'dan',   12.00, 2, DATE '2024-05-03');

-- The next run of the same step recomputes 2024-05-01 and 2024-05-03 only.
MERGE INTO daily_revenue AS d
USING (
    SELECT o.day, count(*) AS orders, sum(o.amount) AS revenue
    FROM orders o
    WHERE o.day IN (SELECT DISTINCT day FROM hudi_table_changes('orders', 'latest_state', 'checkpoint'))
    GROUP BY o.day
) AS s
ON d.day = s.day
WHEN MATCHED THEN UPDATE SET *
WHEN NOT MATCHED THEN INSERT *;

-- Changes from a fixed instant read the same way with the INCREMENTAL hint (begin exclusive).
SELECT /*+ INCREMENTAL(c, '000') */ count(*) AS changed_orders FROM orders c;

SELECT day, orders, revenue FROM daily_revenue ORDER BY day;
