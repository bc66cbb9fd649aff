"""3. The critic and the gate on scripted play: fitted with the privileged rate on rollouts of the eager
and wait-for-one-repeat heuristics, the step-0 gate's signs come out as the paper's."""

from __future__ import annotations

import random

import pytest

from allocbench_rl.config import CriticConfig, EnvConfig
from allocbench_rl.critic import Critic, ReturnNormalizer
from allocbench_rl.env import EnvClient
from allocbench_rl.gate import check
from allocbench_rl.returns import reward_to_go
from conftest import eager, play, wait_one_repeat

FEATURES = ("elapsed", "budgetLeft", "occurrence", "otherUnkept", "rate")


def test_gate_signs_on_scripted_play(env: EnvClient) -> None:
    # Each decision follows eager or wait-for-one-repeat by a seeded coin, so what follows a decision
    # does not depend on it (two whole-episode policies would make the critic tell them apart instead).
    rows = []  # (action, role, occurrence, features, return)
    for seed in range(9000, 9024):
        for rollout in range(2):
            coin = random.Random(seed * 10 + rollout)
            mixed = lambda d: (eager if coin.random() < 0.5 else wait_one_repeat)(d)  # noqa: E731
            steps, _ = play(env, seed, mixed, EnvConfig())
            returns = reward_to_go([r.reward for _, r in steps])
            rows += [(r.reading["action"], d.role, d.occurrence, d.features, g) for (d, r), g in zip(steps, returns)]
    critic = Critic(CriticConfig(), FEATURES, seed=0)
    fit = critic.fit([r[3] for r in rows], [r[4] for r in rows])
    assert fit.iterations > 1 and fit.loss < 1.0  # better than the mean (normalised targets)
    values = critic.values([r[3] for r in rows])
    gate = check([(a, role, occ, g - v) for (a, role, occ, _, g), v in zip(rows, values)])
    assert gate.passed, gate.describe_failure()
    for name in ("keep_hot", "keep_trap", "pass_hot_first", "pass_trap"):
        assert gate.buckets[name]["n"] > 20 and abs(gate.buckets[name]["mean"]) > 0.5  # clear margins, not luck
    assert gate.as_json()["passed"] is True


def test_gate_reports_wrong_signs_and_skips_empty_buckets() -> None:
    gate = check([("commit", "trap", 1, 2.0), ("pass", "hot", 1, 1.0), ("commit", "hot", 1, 3.0), ("commit", "hot", 2, 1.0)])
    assert gate.failed == ["keep_trap", "pass_hot_first"]
    assert gate.buckets["keep_hot"] == {"mean": 2.0, "n": 2}
    assert gate.buckets["pass_trap"] == {"mean": None, "n": 0}
    assert gate.describe_failure() == "step-0 gate failed: keep_trap +2.00 (expected < 0), pass_hot_first +1.00 (expected < 0)"


def test_critic_without_privilege_drops_the_rate_and_restores_its_state() -> None:
    critic = Critic(CriticConfig(privileged=False, max_iterations=20), FEATURES, seed=0)
    assert critic.inputs == FEATURES[:4]
    features = [dict(zip(FEATURES, (i / 10, 1.0, 0.1, 0.0, 0.03))) for i in range(10)]
    critic.fit(features, [float(i) for i in range(10)])
    twin = Critic(CriticConfig(privileged=False, max_iterations=20), FEATURES, seed=1)
    twin.load_state_dict(critic.state_dict())
    assert twin.values(features) == critic.values(features)


def test_return_normalizer() -> None:
    n = ReturnNormalizer()
    assert n.std == 1.0
    n.update([5.0])
    assert (n.mean, n.std) == (5.0, 1.0)
    n.update([7.0, 9.0])
    assert n.mean == pytest.approx(7.0) and n.std == pytest.approx(2.0)  # sample std of 5, 7, 9
    flat = ReturnNormalizer()
    flat.update([3.0, 3.0, 3.0])
    assert flat.std == 1.0
