-- Quickstart, Merge-On-Read: updates go to log files; snapshot reads merge them,
-- read-optimized reads see the base files only, until a compaction.
-- Run: hudi-sql --warehouse /tmp/wh -f sql_examples/quickstart_mor.sql

CREATE TABLE trips_mor (
    ts     BIGINT,
    uuid   STRING,
    rider  STRING,
    driver STRING,
    fare   DOUBLE,
    city   STRING
) USING hudi
PARTITIONED BY (city)
TBLPROPERTIES (type = 'mor', primaryKey = 'uuid', preCombineField = 'ts');

INSERT INTO trips_mor VALUES
    (1695159649087, '334e26e9-8355-45cc-97c6-c31daf0df330', 'rider-A', 'driver-K', 19.10, 'san_francisco'),
    (1695046462179, '9909a8b1-2d15-4d3d-8ec9-efc48c536a00', 'rider-D', 'driver-L', 33.90, 'san_francisco'),
    (1695516137016, 'e3cf430c-889d-4015-bc98-59bdce1e530c', 'rider-F', 'driver-P', 34.15, 'sao_paulo');

UPDATE trips_mor SET fare = 25.0 WHERE rider = 'rider-D';

-- Snapshot: the update is visible (base file merged with its log file).
SELECT rider, fare FROM trips_mor ORDER BY rider;

-- Read-optimized: base files only; rider-D still has the old fare.
SELECT /*+ READ_OPTIMIZED(t) */ rider, fare FROM trips_mor t ORDER BY rider;

CALL show_fsview_latest(table => 'trips_mor');
