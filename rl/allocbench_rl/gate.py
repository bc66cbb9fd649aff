"""The step-0 credit-assignment gate: does the critic's advantage point the right way before any update?

Decisions are bucketed by action and the class's true role (and, for hot passes, first sight or later).
Expected signs: keeping a hot class and passing a trap are good (> 0), keeping a trap and passing a hot
class at first sight are bad (< 0); pass_hot_later is reported but has no expected sign.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

BUCKETS = ("keep_hot", "keep_trap", "pass_hot_first", "pass_hot_later", "pass_trap")
EXPECTED = {"keep_hot": 1, "pass_trap": 1, "keep_trap": -1, "pass_hot_first": -1}


def bucket(action: str, role: str, occurrence: int) -> str:
    if action == "commit":
        return f"keep_{role}"
    if role == "trap":
        return "pass_trap"
    return "pass_hot_first" if occurrence == 1 else "pass_hot_later"


@dataclass(frozen=True)
class GateResult:
    buckets: dict[str, dict[str, Any]]
    """name → {mean, n}; mean is None for an empty bucket (not evaluated)."""
    failed: list[str]

    @property
    def passed(self) -> bool:
        return not self.failed

    def as_json(self) -> dict[str, Any]:
        return {"buckets": self.buckets, "passed": self.passed, "failed": self.failed}

    def describe_failure(self) -> str:
        wrong = ", ".join(
            f"{name} {self.buckets[name]['mean']:+.2f} (expected {'> 0' if EXPECTED[name] > 0 else '< 0'})" for name in self.failed
        )
        return f"step-0 gate failed: {wrong}"


def check(decisions: list[tuple[str, str, int, float]]) -> GateResult:
    """`decisions` as (action, role, occurrence, advantage)."""
    sums = {name: [0.0, 0] for name in BUCKETS}
    for action, role, occurrence, advantage in decisions:
        entry = sums[bucket(action, role, occurrence)]
        entry[0] += advantage
        entry[1] += 1
    buckets = {name: {"mean": total / n if n else None, "n": n} for name, (total, n) in sums.items()}
    failed = [
        name
        for name, sign in EXPECTED.items()
        if buckets[name]["mean"] is not None and not buckets[name]["mean"] * sign > 0
    ]
    return GateResult(buckets, failed)
