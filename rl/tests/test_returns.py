"""2. Per-decision rewards decompose the items collected; reward-to-go of known sequences."""

from __future__ import annotations

from allocbench_rl.config import EnvConfig
from allocbench_rl.env import EnvClient
from allocbench_rl.grpo import group_advantages
from allocbench_rl.returns import reward_to_go
from conftest import eager, never, play, wait_one_repeat


def test_reward_to_go() -> None:
    assert reward_to_go([]) == []
    assert reward_to_go([0, 4, 0, 3]) == [7, 7, 3, 3]
    assert reward_to_go([5]) == [5]
    assert reward_to_go([0, 0, 0]) == [0, 0, 0]


def test_a_keep_earns_its_class_from_here_on(env: EnvClient) -> None:
    config = EnvConfig(length=40)
    for seed in (9000, 9001, 9002, 9003):
        # Never keeping, every draw is a decision: the whole class sequence is visible.
        passes, nothing = play(env, seed, never, config)
        classes = [d.class_id for d, _ in passes]
        assert len(classes) == 40 and nothing.items == 0
        for policy in (eager, wait_one_repeat):
            steps, outcome = play(env, seed, policy, config)
            for decision, result in steps:
                later = classes[decision.t - 1 :].count(decision.class_id)
                assert decision.occurrence == classes[: decision.t].count(decision.class_id)
                assert result.reward == (later if result.reading["action"] == "commit" else 0)
            rewards = [r.reward for _, r in steps]
            assert sum(rewards) == outcome.items
            assert reward_to_go(rewards)[0] == outcome.items


def test_group_advantages() -> None:
    seeds, totals = [1, 1, 1, 1, 2, 2], [10.0, 20.0, 30.0, 40.0, 7.0, 7.0]
    a = group_advantages(seeds, totals)
    std = (125.0) ** 0.5  # population std of 10, 20, 30, 40
    assert [round(x, 9) for x in a[:4]] == [round(v, 9) for v in (-15 / std, -5 / std, 5 / std, 15 / std)]
    assert a[4:] == [0.0, 0.0]
    assert group_advantages([3], [5.0]) == [0.0]
