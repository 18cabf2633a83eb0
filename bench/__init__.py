"""Benchmarks of hudi-sql against its peers on one drone-telemetry upsert workload.

``python -m bench.run --scale small`` generates the inputs (once, deterministically), runs every
system in its own process on the same inputs, checks that all final tables hold the same rows,
and prints a Markdown table (JSON with every number goes to ``--out``). See ``bench/README.md``.
"""
