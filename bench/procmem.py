"""Peak resident memory of a process tree, sampled from /proc.

The SDK's stdio client starts each server as a direct child of this process (in its own
session), so a server's tree is "our children except the ones we know (Chromium), and all
their descendants". A thread samples the summed VmRSS every ``interval`` seconds; the
peak is a lower bound of the true peak by at most what happens between two samples.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

__all__ = ["TreeMemorySampler", "children_of", "tree_of", "rss_bytes", "HARNESS_PIDS"]

#: The harness's own long-lived helpers (a real app's database and web server): never part of a
#: measured server's tree, so neither counted in its memory nor killed when its run ends.
HARNESS_PIDS: set[int] = set()

PROC = Path("/proc")


def _ppid_map() -> dict[int, int]:
    """pid -> parent pid for every live process."""
    out: dict[int, int] = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command name is in parentheses and may contain spaces: split after the last ')'.
        rest = stat[stat.rfind(")") + 2 :].split()
        out[int(entry.name)] = int(rest[1])
    return out


def children_of(pid: int) -> set[int]:
    return {p for p, parent in _ppid_map().items() if parent == pid}


def tree_of(roots: set[int]) -> set[int]:
    """``roots`` and all their descendants."""
    parents = _ppid_map()
    tree = {r for r in roots if r in parents}
    changed = True
    while changed:
        changed = False
        for p, parent in parents.items():
            if parent in tree and p not in tree:
                tree.add(p)
                changed = True
    return tree


def rss_bytes(pid: int) -> int:
    """VmRSS of one process in bytes (0 when it is gone or a zombie)."""
    try:
        for line in (PROC / str(pid) / "status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _comm(pid: int) -> str:
    try:
        return (PROC / str(pid) / "comm").read_text().strip()
    except OSError:
        return "?"


class TreeMemorySampler:
    """Sample the summed RSS of our child processes other than ``exclude`` (and their trees)."""

    def __init__(self, exclude: set[int], interval: float = 0.05) -> None:
        self.exclude = exclude
        self.interval = interval
        self.peak = 0
        self.peak_processes = 0
        #: RSS in MB by command name at the peak: which process of the tree holds the memory.
        self.peak_breakdown: dict[str, float] = {}
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rss-sampler", daemon=True)

    def _roots(self) -> set[int]:
        return children_of(os.getpid()) - self.exclude - HARNESS_PIDS

    def sample(self) -> int:
        pids = tree_of(self._roots())
        sizes = {p: rss_bytes(p) for p in pids}
        total = sum(sizes.values())
        if total > self.peak:
            self.peak = total
            self.peak_processes = len(pids)
            breakdown: dict[str, float] = {}
            for p, size in sizes.items():
                name = _comm(p)
                breakdown[name] = round(breakdown.get(name, 0.0) + size / 2**20, 1)
            self.peak_breakdown = breakdown
        self.samples += 1
        return total

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)

    def start(self) -> TreeMemorySampler:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def live_pids(self) -> set[int]:
        return tree_of(self._roots())
