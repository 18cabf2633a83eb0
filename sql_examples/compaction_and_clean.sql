-- Table services from SQL: compact a Merge-On-Read table, then clean old file versions.
-- Run: hudi-sql --warehouse /tmp/wh -f sql_examples/compaction_and_clean.sql

CREATE TABLE events (
    id    INT,
    kind  STRING,
    value DOUBLE,
    ts    BIGINT
) USING hudi
TBLPROPERTIES (type = 'mor', primaryKey = 'id', preCombineField = 'ts');

INSERT INTO events VALUES (1, 'click', 1.0, 1), (2, 'view', 2.0, 1), (3, 'click', 3.0, 1);
UPDATE events SET value = value + 10 WHERE kind = 'click';
UPDATE events SET value = value + 100 WHERE id = 2;

-- Log files are waiting to be merged into new base files.
CALL show_fsview_latest(table => 'events');

-- Schedule a compaction and run it. As in Apache Hudi, a compaction is scheduled once the trigger
-- is met (hoodie.compact.inline.max.delta.commits, 5 deltacommits by default): this table has 3.
CALL run_compaction(op => 'scheduleAndExecute', table => 'events',
                    options => 'hoodie.compact.inline.max.delta.commits=3');
CALL show_compaction(table => 'events');

-- The compaction wrote new base files; older file slices stay for time travel until cleaned.
-- Keeping one commit, the slice before the compaction goes once a later commit exists.
UPDATE events SET value = value * 2 WHERE id = 3;
CALL run_clean(table => 'events', retain_commits => 1);
CALL show_cleans(table => 'events');

SELECT id, kind, value FROM events ORDER BY id;
