"""Greedy held-out evaluation through the same environment: one episode per seed at temperature 0
(argmax candidate in the constrained mode), scored as the harness scores a session.
"""

from __future__ import annotations

from dataclasses import dataclass

from .config import Config
from .env import EnvClient
from .model import Policy
from .rollout import run_rollouts


@dataclass(frozen=True)
class Evaluation:
    first_sight: float | None
    """Commitments at a class's first occurrence over all commitments (None without any)."""
    items_per_stream: float
    commitments: int


def evaluate(policy: Policy, env: EnvClient, config: Config, seeds: list[int]) -> Evaluation:
    episodes = run_rollouts(
        policy,
        env,
        config.env,
        [(f"eval-{seed}", seed, 0) for seed in seeds],
        constrained=config.decision_mode == "constrained",
        temperature=0.0,
        max_new_tokens=config.max_new_tokens,
        slots=config.generation_batch,
        context=config.rollout_context,
        seed=0,
    )
    commitments = sum(e.commitments for e in episodes)
    first = sum(e.first_sight_commitments for e in episodes)
    return Evaluation(
        first_sight=first / commitments if commitments else None,
        items_per_stream=sum(e.items for e in episodes) / len(episodes),
        commitments=commitments,
    )
