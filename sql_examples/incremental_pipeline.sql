-- An incremental pipeline a scheduler reruns unchanged: each run folds into `daily_revenue`
-- only the days whose orders changed since the previous run, and the position it reached in
-- `orders` is kept in daily_revenue's own commit metadata (no state elsewhere).
-- Run: hudi-sql --warehouse /tmp/wh -f sql_examples/incremental_pipeline.sql   (again and again)

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

-- Upstream (another job in a real pipeline): orders arrive, some of them corrections.
INSERT INTO orders VALUES
    (1, 'alice', 10.00, 1, DATE '2024-05-01'),
    (2, 'bob',   20.50, 1, DATE '2024-05-01'),
    (3, 'carol',  7.25, 1, DATE '2024-05-02');

-- The pipeline step. 'checkpoint' resumes after the last `orders` instant this table's commits
-- recorded ('earliest' on the first run), and the MERGE's commit records the instant it read
-- up to. A rerun with nothing new in `orders` reads no change and writes nothing.
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

-- Where the pipeline stands: CALL show_commit_extra_metadata(table => 'daily_revenue') lists
-- the key _hudi_sql.checkpoint.<orders' base path> with the last `orders` instant it read.

SELECT day, orders, revenue FROM daily_revenue ORDER BY day;
