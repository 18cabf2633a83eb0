-- Passthrough regeneration: each input statement is followed by the Spark SQL the analyzer
-- hands to the runner. Statements with table references in query positions are regenerated
-- with placeholders; statements without any reach Spark exactly as written.

CREATE VIEW v AS SELECT * FROM db.t WHERE a > 1;
CREATE VIEW v AS SELECT * FROM __hudi_ref_0 AS t WHERE a > 1;

create temporary view v as select t.id, s.name from t join db.s s on t.id = s.id;
CREATE TEMPORARY VIEW v AS SELECT t.id, s.name FROM __hudi_ref_0 AS t JOIN __hudi_ref_1 AS s ON t.id = s.id;

CREATE OR REPLACE VIEW v AS SELECT /*+ SNAPSHOT(t) */ * FROM t TIMESTAMP AS OF '20240101000000000';
CREATE OR REPLACE VIEW v AS SELECT * FROM __hudi_ref_0 AS t;

CREATE TABLE p USING parquet AS SELECT * FROM hudi_t WHERE dt = '2024-01-01';
CREATE TABLE p USING PARQUET AS SELECT * FROM __hudi_ref_0 AS hudi_t WHERE dt = '2024-01-01';

CREATE TABLE p (a INT, b STRING) USING parquet PARTITIONED BY (b) LOCATION '/tmp/p';
CREATE TABLE p (a INT, b STRING) USING parquet PARTITIONED BY (b) LOCATION '/tmp/p';

ALTER TABLE p CHANGE COLUMN a a BIGINT;
ALTER TABLE p CHANGE COLUMN a a BIGINT;

DESCRIBE FUNCTION upper;
DESCRIBE FUNCTION upper;

CACHE TABLE c AS SELECT * FROM t;
CACHE TABLE c AS SELECT * FROM __hudi_ref_0 AS t;

CREATE DATABASE IF NOT EXISTS sales;
CREATE DATABASE IF NOT EXISTS sales;

DROP VIEW IF EXISTS v;
DROP VIEW IF EXISTS v;

USE sales;
USE sales;

SHOW TABLES IN sales LIKE 'trip*';
SHOW TABLES IN sales LIKE 'trip*';

SHOW   DATABASES;
SHOW   DATABASES;

ADD JAR '/opt/udf.jar';
ADD JAR '/opt/udf.jar';

MSCK REPAIR TABLE p;
MSCK REPAIR TABLE p;

ALTER TABLE p DROP COLUMN a;
ALTER TABLE p DROP COLUMN a;

DESCRIBE DATABASE sales;
DESCRIBE DATABASE sales;
