"""The real SmolLM2-135M from its GGUF with LoRA: a constrained rollout whose training forward reproduces
its behaviour log-probs, and one PPO update that moves only the adapter."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from allocbench_rl.config import Config, EnvConfig, LoraConfig, ModelConfig
from allocbench_rl.env import EnvClient
from allocbench_rl.model import load_policy
from allocbench_rl.ppo import decision_logprobs, ppo_update, reference_units
from allocbench_rl.rollout import run_rollouts


@pytest.mark.smollm2
def test_smollm2_gguf_rollout_and_update(env: EnvClient, gguf: Path) -> None:
    model = ModelConfig(kind="gguf", path=str(gguf), lora=LoraConfig(r=4, alpha=8))
    config = Config(model=model, env=EnvConfig(length=6), decision_mode="constrained", learning_rate=1e-3)
    policy = load_policy(model, torch.device("cpu"), seed=0)
    assert policy.model.get_base_model().config.num_hidden_layers == 30
    episodes = run_rollouts(
        policy, env, config.env, [("a", 9000, 0), ("b", 9000, 1)],
        constrained=True, temperature=1.2, max_new_tokens=8, slots=2, context=config.rollout_context, seed=0,
    )
    assert all(e.decisions and sum(d.reward for d in e.decisions) == e.items for e in episodes)
    with torch.no_grad():
        for e in episodes:
            old = torch.tensor([d.behaviour_logprob for d in e.decisions])
            assert torch.allclose(decision_logprobs(policy, e, config), old, atol=1e-3)
    base = {n: p.detach().clone() for n, p in policy.model.named_parameters() if "lora_" not in n and "layers.0." in n}
    optimizer = torch.optim.AdamW(policy.trainable(), lr=config.learning_rate)
    advantages = [[1.0 if d.action == "pass" else -1.0 for d in e.decisions] for e in episodes]
    ppo_update(policy, optimizer, episodes, advantages, reference_units(policy, episodes, config), config)
    assert all(torch.equal(p, base[n]) for n, p in policy.model.named_parameters() if n in base)
