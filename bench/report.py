"""The Markdown report of a run, from its results (the same dict the JSON file holds)."""

from __future__ import annotations

__all__ = ["render", "summarize"]

import statistics
from typing import Any

from bench.systems import APACHE_PEER_OF, PEERS

_MB = 2**20
_PEER_LABELS = {"naive_pyspark": "naive", "deltars": "delta-rs", "pyarrow_floor": "floor"}


def _ok(results: list[dict[str, Any]], phase: str) -> dict[str, dict[str, Any]]:
    return {r["system"]: r for r in results if r["phase"] == phase and r.get("status") == "ok"}


#: Ratios of median upserts among our own systems, as issue targets state them.
_OWN_RATIOS = (
    ("MOR upsert ÷ COW upsert (bloom)", "hudi_mor", "hudi_cow_bloom"),
    ("MERGE INTO (UPDATE SET *) ÷ COW upsert", "hudi_sql_merge", "hudi_cow_bloom"),
    ("MERGE INTO (partial UPDATE SET) ÷ COW upsert", "hudi_sql_merge_partial", "hudi_cow_bloom"),
    ("COW upsert, bucket index ÷ bloom index", "hudi_cow_bucket", "hudi_cow_bloom"),
)


def summarize(results: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per system of the base run: median upsert, ratios to the peers, amplification, memory."""
    base = _ok(results, "base")
    summary: dict[str, dict[str, Any]] = {}
    for name, r in base.items():
        batches = r["batches"]
        n = len(batches)
        input_bytes = sum(b["input_bytes"] for b in batches)
        summary[name] = {
            "initial_load_s": r["initial"]["seconds"],
            "median_upsert_s": statistics.median(b["seconds"] for b in batches),
            "mb_written_per_batch": sum(b["bytes_written"] for b in batches) / n / _MB,
            "files_written_per_batch": sum(b["files_written"] for b in batches) / n,
            "write_amplification": sum(b["data_bytes_written"] for b in batches) / input_bytes,
            "python_peak_mb": r["memory_writes"].get("python_peak_mb"),
            "jvm_peak_mb": r["memory_writes"].get("jvm_peak_mb"),
            "tree_peak_mb": r.get("tree_peak_mb"),
            "rows": r["final"]["count"],
            "table_mb": r["table"]["bytes"] / _MB,
            "scans_s": {k: min(v) for k, v in r.get("scans", {}).items()},
        }
    for name, s in summary.items():
        s["ratio_to"] = {
            peer: s["median_upsert_s"] / summary[peer]["median_upsert_s"]
            for peer in PEERS
            if peer in summary and peer != name
        }
    for name, peer in APACHE_PEER_OF.items():
        if name in summary and peer in summary:
            summary[name]["ratio_to_apache"] = summary[name]["median_upsert_s"] / summary[peer]["median_upsert_s"]
    scaling = _ok(results, "scaling")
    for name, r in scaling.items():
        if name in base:
            first, big = base[name]["batches"][0], r["batches"][0]
            summary[name]["scaling"] = {
                "batch1_s": first["seconds"],
                "batch1_10x_s": big["seconds"],
                "ratio": big["seconds"] / first["seconds"],
                "data_mb": first["data_bytes_written"] / _MB,
                "data_mb_10x": big["data_bytes_written"] / _MB,
                "python_peak_mb": base[name]["memory_writes"].get("python_peak_mb"),
                "python_peak_mb_10x": r["memory_writes"].get("python_peak_mb"),
                "jvm_peak_mb": base[name]["memory_writes"].get("jvm_peak_mb"),
                "jvm_peak_mb_10x": r["memory_writes"].get("jvm_peak_mb"),
            }
    return summary


def _table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(" --- " for _ in headers) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _f(value: float | None, digits: int = 2, suffix: str = "") -> str:
    return "–" if value is None else f"{value:.{digits}f}{suffix}"


def render(run: dict[str, Any]) -> str:
    results, summary = run["results"], run["summary"]
    scale, meta = run["scale"], run["meta"]
    out = [
        (
            f"## hudi-sql benchmark, scale `{scale['name']}`: {scale['rows_per_day']:,} rows/day, "
            f"{scale['days']} initial days, {scale['batches']} batches"
        ),
        "",
        (
            f"{meta['date']} · {meta['machine']} · {meta['versions_line']} · "
            f"master `{run['settings']['master']}`"
        ),
        "",
    ]
    peers = [p for p in PEERS if p in summary]
    apache = any("ratio_to_apache" in s for s in summary.values())
    headers = [
        "system",
        "initial load s",
        "median upsert s",
        *[f"÷ {_PEER_LABELS[p]}" for p in peers],
        *(["÷ Apache Hudi"] if apache else []),
        "MB written/batch",
        "files/batch",
        "write amp.",
        "peak RSS MB (py / JVM / tree)",
        "rows",
    ]
    rows = []
    for name, s in summary.items():
        memory = " / ".join(_f(s[k], 0) for k in ("python_peak_mb", "jvm_peak_mb", "tree_peak_mb"))
        ratios = [("–" if p == name else _f(s["ratio_to"].get(p), 2, "×")) for p in peers]
        rows.append(
            [
                name,
                _f(s["initial_load_s"]),
                _f(s["median_upsert_s"]),
                *ratios,
                *([_f(s.get("ratio_to_apache"), 2, "×")] if apache else []),
                _f(s["mb_written_per_batch"], 1),
                _f(s["files_written_per_batch"], 1),
                _f(s["write_amplification"], 1),
                memory,
                f"{s['rows']:,}",
            ]
        )
    out += ["### Upserts", "", _table(headers, rows), ""]
    ours = [f"{label}: {summary[name]['median_upsert_s'] / summary[base]['median_upsert_s']:.2f}×"
            for label, name, base in _OWN_RATIOS if name in summary and base in summary]
    out += [f"- {line}" for line in ours] + ([""] if ours else [])

    per_batch = []
    for r in results:
        if r["phase"] == "base" and r.get("status") == "ok":
            for b in r["batches"]:
                per_batch.append(
                    [
                        r["system"],
                        str(b["batch"]),
                        _f(b["seconds"]),
                        _f(b["bytes_written"] / 2**20, 1),
                        str(b["files_written"]),
                        f"{b['rows_after']:,}",
                    ]
                )
    out += [
        "### Per batch",
        "",
        _table(["system", "batch", "s", "MB written", "files written", "rows after"], per_batch),
        "",
    ]

    reads = [
        [name, scan, _f(seconds)] for name, s in summary.items() for scan, seconds in s["scans_s"].items()
    ]
    if reads:
        out += [
            "### Snapshot read of the final table (best of the repeats)",
            "",
            _table(["system", "read", "s"], reads),
            "",
        ]
        derived = []
        cow = summary.get("hudi_cow_bloom", {}).get("scans_s", {})
        if "snapshot" in cow and "parquet_same_files" in cow:
            derived.append(
                f"COW snapshot ÷ Spark Parquet scan of the same files: "
                f"{cow['snapshot'] / cow['parquet_same_files']:.2f}×"
            )
        mor = summary.get("hudi_mor", {}).get("scans_s", {})
        if "snapshot" in mor and "snapshot" in cow:
            derived.append(f"MOR snapshot ÷ COW snapshot: {mor['snapshot'] / cow['snapshot']:.2f}×")
        for name, peer in APACHE_PEER_OF.items():
            mine, theirs = summary.get(name, {}).get("scans_s", {}), summary.get(peer, {}).get("scans_s", {})
            if "snapshot" in mine and "snapshot" in theirs:
                derived.append(f"{name} snapshot ÷ {peer} snapshot: {mine['snapshot'] / theirs['snapshot']:.2f}×")
        out += [f"- {line}" for line in derived] + ([""] if derived else [])

    scaling = [
        [
            name,
            _f(s["scaling"]["batch1_s"]),
            _f(s["scaling"]["batch1_10x_s"]),
            _f(s["scaling"]["ratio"], 2, "×"),
            _f(s["scaling"]["data_mb"], 1),
            _f(s["scaling"]["data_mb_10x"], 1),
            f"{_f(s['scaling']['python_peak_mb'], 0)} / {_f(s['scaling']['jvm_peak_mb'], 0)}",
            f"{_f(s['scaling']['python_peak_mb_10x'], 0)} / {_f(s['scaling']['jvm_peak_mb_10x'], 0)}",
        ]
        for name, s in summary.items()
        if "scaling" in s
    ]
    if scaling:
        out += [
            "### Scaling: batch 1 into a table 10× larger",
            "",
            _table(["system", "batch 1 s", "batch 1 s (10×)", "ratio", "data MB", "data MB (10×)",
                    "upsert peak RSS MB py / JVM", "(10×)"], scaling),
            "",
        ]

    other = [r for r in results if r.get("status") != "ok"]
    for r in other:
        out.append(f"- **{r['system']}** ({r['phase']}): {r['status']}: {r.get('message', '')}")
    notes = [(r["system"], note) for r in results for note in r.get("notes", [])]
    out += [f"- {name}: {note}" for name, note in notes]
    c = run["correctness"]
    out += ["", f"**Correctness: {'OK' if c['ok'] else 'FAILED'}**: {c['detail']}"]
    return "\n".join(out)
