"""4. A PPO update changes the adapter and not the base, and lowers the clipped loss on its own batch;
before it, the training forward reproduces the behaviour log-probs recorded at rollout (ratio 1)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch

from allocbench_rl.config import Config
from allocbench_rl.env import EnvClient
from allocbench_rl.model import load_policy
from allocbench_rl.ppo import batch_loss, decision_logprobs, ppo_update, reference_units
from allocbench_rl.returns import reward_to_go
from allocbench_rl.rollout import run_rollouts


@pytest.mark.parametrize("mode", ["constrained", "free"])
def test_update_moves_the_adapter_only_and_lowers_the_loss(env: EnvClient, tiny: Callable[..., Config], mode: str) -> None:
    config = tiny(decisionMode=mode, maxNewTokens=6, env={"length": 10}, learningRate=1.0e-3)
    policy = load_policy(config.model, torch.device("cpu"), seed=0)
    torch.manual_seed(1)
    episodes = run_rollouts(
        policy, env, config.env, [(f"e{i}", 9000 + i // 2, i % 2) for i in range(4)],
        constrained=mode == "constrained", temperature=1.2, max_new_tokens=6, slots=3, context=config.rollout_context, seed=1,
    )
    for e in episodes:
        with torch.no_grad():
            new = decision_logprobs(policy, e, config)
        old = torch.tensor([d.behaviour_logprob for d in e.decisions])
        assert torch.allclose(new, old, atol=1e-4)
    # Advantages with both signs, so the update has something to push.
    advantages = []
    for e in episodes:
        returns = reward_to_go([float(d.reward) for d in e.decisions])
        advantages.append([g - 3.0 + (0.5 if d.action == "pass" else -0.5) for g, d in zip(returns, e.decisions)])
    before = {n: p.detach().clone() for n, p in policy.model.named_parameters()}
    reference = reference_units(policy, episodes, config)
    loss_before = batch_loss(policy, episodes, advantages, reference, config)
    optimizer = torch.optim.AdamW(policy.trainable(), lr=config.learning_rate, weight_decay=config.weight_decay)
    stats = ppo_update(policy, optimizer, episodes, advantages, reference, config)
    assert stats.loss == pytest.approx(loss_before, abs=1e-5)
    assert stats.clip_fraction == 0.0  # the adapter starts at B = 0
    changed = {n for n, p in policy.model.named_parameters() if not torch.equal(p, before[n])}
    assert changed and all("lora_" in n for n in changed)
    assert any("lora_B" in n for n in changed)
    assert batch_loss(policy, episodes, advantages, reference, config) < loss_before
    with torch.no_grad(), policy.reference():  # the reference is the policy with the adapter off (batched otherwise: rounding apart)
        off = torch.cat([decision_logprobs(policy, e, config) for e in episodes])
        assert torch.allclose(off, torch.stack([u.mean() for r in reference for u in r]), rtol=0, atol=1e-5)
