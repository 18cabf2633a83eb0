"""Peak memory: of this process, of one other process, and of a whole process tree.

The Python driver's high-water mark is ``VmHWM`` in ``/proc/self/status`` (``ru_maxrss`` where
there is no ``/proc``); a PySpark driver also has a JVM (the py4j gateway, a child process)
whose peak is its own ``VmHWM``. The runner samples the summed RSS of each system's process
tree (driver, JVM, Python workers; pages shared between forked workers count once per
process, so the sum overstates). The ``/proc`` readings exist on Linux only; elsewhere
they are ``None``.
"""

from __future__ import annotations

__all__ = ["TreeSampler", "process_peak_mb", "python_peak_mb", "reset_peak"]

import os
import resource
import sys
import threading
from pathlib import Path
from typing import Self

_PAGE_MB = os.sysconf("SC_PAGE_SIZE") / 2**20 if hasattr(os, "sysconf") else 0.0


def python_peak_mb() -> float:
    """This process's peak RSS. On Linux ``VmHWM``: ``ru_maxrss`` survives ``fork`` and ``exec``, so
    a worker would report its parent's peak when that is higher."""
    own = process_peak_mb(os.getpid())
    if own is not None:
        return own
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024  # bytes on macOS, KiB elsewhere


def process_peak_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def reset_peak(pid: int) -> bool:
    """Start *pid*'s ``VmHWM`` afresh (Linux: ``5`` into ``/proc/<pid>/clear_refs``), so a later
    reading is the peak of what ran since. False where that is not possible."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def _rss_and_children() -> tuple[dict[int, float], dict[int, list[int]]]:
    rss: dict[int, float] = {}
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            statm = Path(f"/proc/{entry}/statm").read_text().split()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # the command name may hold spaces
        pid, ppid = int(entry), int(fields[1])
        rss[pid] = int(statm[1]) * _PAGE_MB
        children.setdefault(ppid, []).append(pid)
    return rss, children


def tree_rss_mb(root: int) -> float:
    rss, children = _rss_and_children()
    total, stack = 0.0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0.0)
        stack.extend(children.get(pid, ()))
    return total


class TreeSampler:
    """Samples the summed RSS of *pid* and its descendants until stopped; keeps the peak."""

    def __init__(self, pid: int, interval: float = 0.25) -> None:
        self.pid = pid
        self.interval = interval
        self.peak_mb: float | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Self:
        if Path("/proc/self/stat").exists():
            self.peak_mb = 0.0
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.peak_mb = max(self.peak_mb or 0.0, tree_rss_mb(self.pid))
