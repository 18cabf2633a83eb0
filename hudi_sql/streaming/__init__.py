"""Structured Streaming into and out of Hudi tables: the sink (:mod:`.sink`) upserts each
micro-batch as one commit, exactly once; the source (:mod:`.source`) emits the records of each
newly completed commit."""
