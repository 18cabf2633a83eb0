-- Change data capture: apply a batch of inserts, updates and deletes with one MERGE, then read
-- the changes the MERGE made, as Apache Hudi's CDC query returns them (op, ts_ms, before, after).
-- Run: hudi-sql --warehouse /tmp/wh -f sql_examples/cdc_merge.sql

CREATE TABLE customers (
    id         INT,
    name       STRING,
    email      STRING,
    updated_at TIMESTAMP
) USING hudi
TBLPROPERTIES (primaryKey = 'id', preCombineField = 'updated_at',
               'hoodie.table.cdc.enabled' = 'true', 'hoodie.table.cdc.supplemental.logging.mode' = 'data_before_after');

INSERT INTO customers VALUES
    (1, 'Alice', 'alice@example.com', TIMESTAMP '2024-01-01 10:00:00'),
    (2, 'Bob',   'bob@example.com',   TIMESTAMP '2024-01-01 10:00:00'),
    (3, 'Carol', 'carol@example.com', TIMESTAMP '2024-01-01 10:00:00');

-- A batch from the source database's change log: op is I(nsert), U(pdate) or D(elete);
-- one key may appear several times, the latest change wins.
CREATE TEMPORARY VIEW customer_changes AS SELECT * FROM VALUES
    ('U', 1, 'Alice',  'alice@new.example.com', TIMESTAMP '2024-01-02 09:00:00'),
    ('D', 2, 'Bob',    NULL,                    TIMESTAMP '2024-01-02 09:05:00'),
    ('I', 4, 'Dan',    'dan@example.com',       TIMESTAMP '2024-01-02 09:10:00'),
    ('U', 4, 'Daniel', 'dan@example.com',       TIMESTAMP '2024-01-02 09:20:00')
    AS changes(op, id, name, email, updated_at);

MERGE INTO customers AS t
USING (
    SELECT op, id, name, email, updated_at FROM (
        SELECT *, row_number() OVER (PARTITION BY id ORDER BY updated_at DESC) AS rn FROM customer_changes
    ) WHERE rn = 1
) AS s
ON t.id = s.id
WHEN MATCHED AND s.op = 'D' THEN DELETE
WHEN MATCHED THEN UPDATE SET name = s.name, email = s.email, updated_at = s.updated_at
WHEN NOT MATCHED AND s.op != 'D' THEN INSERT (id, name, email, updated_at) VALUES (s.id, s.name, s.email, s.updated_at);

SELECT id, name, email, updated_at FROM customers ORDER BY id;

-- Every change since the table began: the three inserts, then what the MERGE did.
SELECT op, CAST(coalesce(get_json_object(after, '$.id'), get_json_object(before, '$.id')) AS INT) AS id,
       get_json_object(before, '$.email') AS email_before, get_json_object(after, '$.email') AS email_after
FROM hudi_table_changes('customers', 'cdc', 'earliest')
ORDER BY ts_ms, id;
