-- Query regeneration: hints of ours are removed (Spark's stay), time travel moves into the
-- TableRef, every table reference becomes an aliased placeholder.

SELECT * FROM t;
SELECT * FROM __hudi_ref_0 AS t;

SELECT db.t.id FROM db.t WHERE db.t.id > 0;
SELECT t.id FROM __hudi_ref_0 AS t WHERE t.id > 0;

SELECT /*+ BROADCAST(s), SNAPSHOT(t) */ t.a, s.b FROM t JOIN s ON t.id = s.id;
SELECT /*+ BROADCAST(s) */ t.a, s.b FROM __hudi_ref_0 AS t JOIN __hudi_ref_1 AS s ON t.id = s.id;

SELECT /*+ INCREMENTAL(x, '001', '002') */ x.* FROM trips AS x;
SELECT x.* FROM __hudi_ref_0 AS x;

SELECT * FROM t FOR SYSTEM_TIME AS OF '2024-01-01 00:00:00' AS x LEFT JOIN u USING (id);
SELECT * FROM __hudi_ref_0 AS x LEFT JOIN __hudi_ref_1 AS u USING (id);

WITH recent AS (SELECT * FROM t WHERE ts > 10) SELECT r.id, count(*) FROM recent r GROUP BY r.id;
WITH recent AS (SELECT * FROM __hudi_ref_0 AS t WHERE ts > 10) SELECT r.id, COUNT(*) FROM recent AS r GROUP BY r.id;

SELECT * FROM t WHERE id IN (SELECT id FROM u) UNION ALL SELECT * FROM v;
SELECT * FROM __hudi_ref_0 AS t WHERE id IN (SELECT id FROM __hudi_ref_1 AS u) UNION ALL SELECT * FROM __hudi_ref_2 AS v;

SELECT * FROM (SELECT /*+ READ_OPTIMIZED(t) */ * FROM t) AS sub;
SELECT * FROM (SELECT * FROM __hudi_ref_0 AS t) AS sub;

SELECT c.* FROM hudi_table_changes('db.trips', 'latest_state', 'earliest') AS c;
SELECT c.* FROM __hudi_ref_0 AS c;

SELECT * FROM t LATERAL VIEW explode(t.items) e AS item;
SELECT * FROM __hudi_ref_0 AS t LATERAL VIEW EXPLODE(t.items) e AS item;

SELECT * FROM range(10) AS r JOIN t ON r.id = t.id;
SELECT * FROM RANGE(10) AS r JOIN __hudi_ref_0 AS t ON r.id = t.id;

VALUES (1, 'a'), (2, 'b');
VALUES (1, 'a'), (2, 'b');
