"""Undiscounted Monte-Carlo reward-to-go: a decision's return is every reward from it to the episode's end.

With per-decision rewards of items collected (a keep at the c-th of n occurrences earns n − c + 1), the
first decision's return is the episode's items; exact Monte Carlo, as GAE with γ = λ = 1.
"""

from __future__ import annotations


def reward_to_go(rewards: list[float]) -> list[float]:
    returns, total = [], 0.0
    for reward in reversed(rewards):
        total += reward
        returns.append(total)
    return returns[::-1]
