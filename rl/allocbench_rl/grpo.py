"""The flat episode-scalar GRPO pilot: no critic; an episode's advantage is its total reward's z-score
within its seed's group of rollouts, applied to every decision of the episode.
"""

from __future__ import annotations

import statistics
from collections import defaultdict


def group_advantages(seeds: list[int], totals: list[float]) -> list[float]:
    """Per episode, (total − group mean) / group population std; zeros for a group without spread."""
    groups: dict[int, list[float]] = defaultdict(list)
    for seed, total in zip(seeds, totals):
        groups[seed].append(total)
    advantages = []
    for seed, total in zip(seeds, totals):
        group = groups[seed]
        std = statistics.pstdev(group) if len(group) > 1 else 0.0
        advantages.append(0.0 if std < 1e-9 else (total - statistics.fmean(group)) / std)
    return advantages
