"""Keeping the metadata table in step, inside the commit protocol: applying a data instant to it
before the instant completes (:mod:`.sync`) and its own compaction, clean and recovery
(:mod:`.services`), both under the data table's lock."""
