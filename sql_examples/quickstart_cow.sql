-- Quickstart, Copy-On-Write: create a table, write it with SQL, read it back.
-- Run: hudi-sql --warehouse /tmp/wh -f sql_examples/quickstart_cow.sql

CREATE TABLE trips_cow (
    ts     BIGINT,
    uuid   STRING,
    rider  STRING,
    driver STRING,
    fare   DOUBLE,
    city   STRING
) USING hudi
PARTITIONED BY (city)
TBLPROPERTIES (type = 'cow', primaryKey = 'uuid', preCombineField = 'ts');

-- With a preCombine field, INSERT INTO upserts.
INSERT INTO trips_cow VALUES
    (1695159649087, '334e26e9-8355-45cc-97c6-c31daf0df330', 'rider-A', 'driver-K', 19.10, 'san_francisco'),
    (1695091554788, 'e96c4396-3fad-413a-a942-4cb36106d721', 'rider-C', 'driver-M', 27.70, 'san_francisco'),
    (1695046462179, '9909a8b1-2d15-4d3d-8ec9-efc48c536a00', 'rider-D', 'driver-L', 33.90, 'san_francisco'),
    (1695516137016, 'e3cf430c-889d-4015-bc98-59bdce1e530c', 'rider-F', 'driver-P', 34.15, 'sao_paulo'),
    (1695115999911, 'c8abbe79-8d89-47ea-b4ce-4d224bae5bfa', 'rider-J', 'driver-T', 17.85, 'chennai');

SELECT uuid, rider, fare, city FROM trips_cow ORDER BY uuid;

UPDATE trips_cow SET fare = 25.0 WHERE rider = 'rider-D';

DELETE FROM trips_cow WHERE rider = 'rider-F';

-- What a write would do, without doing it.
EXPLAIN UPDATE trips_cow SET fare = fare * 1.1 WHERE city = 'chennai';

SELECT city, count(*) AS trips, round(sum(fare), 2) AS total_fare FROM trips_cow GROUP BY city ORDER BY city;

SHOW PARTITIONS trips_cow;

CALL show_commits(table => 'trips_cow');
