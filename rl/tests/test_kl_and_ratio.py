"""The update's two invariants a real model exposes: a KL term that pulls the policy toward the reference, and
old and new log-probs computed the same way (ratio 1 for unchanged weights, at a step after the first update,
when the adapter is no longer zero)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch

from allocbench_rl.config import Config
from allocbench_rl.env import EnvClient
from allocbench_rl.logprobs import Row, score
from allocbench_rl.model import Policy, load_policy
from allocbench_rl.ppo import decision_logprobs, kl_estimate, ppo_update, reference_units, rollout_kl
from allocbench_rl.rollout import EpisodeRollout, run_rollouts

T = 1.2


def rollouts(policy: Policy, env: EnvClient, config: Config, seed: int) -> list[EpisodeRollout]:
    return run_rollouts(
        policy, env, config.env, [(f"e{seed}-{i}", 9000 + i // 2, i % 2) for i in range(4)],
        constrained=config.decision_mode == "constrained", temperature=T, max_new_tokens=config.max_new_tokens, batch=3,
        generator=torch.Generator().manual_seed(seed),
    )


def moved_away(policy: Policy) -> None:
    """An adapter away from zero, so the policy differs from its reference."""
    generator = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for name, parameter in policy.model.named_parameters():
            if "lora_B" in name:
                parameter.copy_(torch.randn(parameter.shape, generator=generator) * 0.2)


@torch.no_grad()
def exact_kl(policy: Policy, episodes: list[EpisodeRollout]) -> float:
    """KL(π‖π_ref) of the choice between the candidates at temperature T, averaged over the decisions."""

    def choices() -> torch.Tensor:
        rows = [
            Row(base=e.ids[: d.span[0]], branches=[(d.span[0], ids) for ids in d.candidate_ids]) for e in episodes for d in e.decisions
        ]
        return torch.stack([torch.log_softmax(torch.stack([b.sum() for b in s.branches]).double() / T, 0) for s in score(policy, rows)])

    policy.model.eval()
    log_p = choices()
    with policy.reference():
        log_ref = choices()
    return float((log_p.exp() * (log_p - log_ref)).sum(-1).mean())


def test_estimators() -> None:
    d = torch.linspace(-3, 3, 61)
    assert torch.equal(kl_estimate(d, "k1"), d)
    assert torch.allclose(kl_estimate(d, "k2"), d**2 / 2)
    k3 = kl_estimate(d, "k3")
    assert torch.all(k3 >= 0) and float(k3[30]) == 0.0  # never negative; zero where the policies agree


# Constrained decisions (a choice between two replies), where the tiny model's policy can be far from its
# reference: its free-text distributions are all near uniform over 49k tokens.
# k1 in the loss (the authors' form) is the third case: its gradient is ∇log π alone, and it pushes away.
@pytest.mark.parametrize(("weight", "estimator", "pulls"), [(1.0, "k2", True), (0.0, "k2", None), (1.0, "k1", False)])
def test_with_zero_advantages_the_kl_term_pulls_toward_the_reference(
    env: EnvClient, tiny: Callable[..., Config], weight: float, estimator: str, pulls: bool | None
) -> None:
    config = tiny(env={"length": 10}, learningRate=1e-2, weightDecay=0.0, klWeight=weight, kl={"estimator": estimator})
    policy = load_policy(config.model, torch.device("cpu"), seed=0)
    moved_away(policy)
    episodes = rollouts(policy, env, config, 1)
    reference = reference_units(policy, episodes, config)
    before_kl = exact_kl(policy, episodes)
    assert before_kl > 0.01
    assert rollout_kl(episodes, reference) > 0  # the logged k3 estimate sees the gap too
    before = {n: p.detach().clone() for n, p in policy.model.named_parameters() if p.requires_grad}
    optimizer = torch.optim.AdamW(policy.trainable(), lr=config.learning_rate, weight_decay=0.0)
    zeros = [[0.0] * len(e.decisions) for e in episodes]
    for _ in range(5):
        ppo_update(policy, optimizer, episodes, zeros, reference, config)
    after_kl = exact_kl(policy, episodes)
    moved = any(not torch.equal(p, before[n]) for n, p in policy.model.named_parameters() if p.requires_grad)
    if pulls is None:
        assert not moved and after_kl == before_kl
    elif pulls:
        assert after_kl < 0.5 * before_kl
    else:
        assert after_kl > before_kl


@pytest.mark.parametrize("mode", ["free", "constrained"])
def test_ratio_is_one_before_the_optimizer_step_after_a_first_update(env: EnvClient, tiny: Callable[..., Config], mode: str) -> None:
    config = tiny(decisionMode=mode, maxNewTokens=6, env={"length": 8}, learningRate=1e-2)
    policy = load_policy(config.model, torch.device("cpu"), seed=0)
    first = rollouts(policy, env, config, 1)
    optimizer = torch.optim.AdamW(policy.trainable(), lr=config.learning_rate)
    advantages = [[1.0 if d.action == "pass" else -1.0 for d in e.decisions] for e in first]
    ppo_update(policy, optimizer, first, advantages, reference_units(policy, first, config), config)
    assert any(float(p.detach().abs().max()) > 0 for n, p in policy.model.named_parameters() if "lora_B" in n)

    second = rollouts(policy, env, config, 2)
    policy.model.train()  # as the update scores them, gradients on
    for e in second:
        new = decision_logprobs(policy, e, config)
        old = torch.tensor([d.behaviour_logprob for d in e.decisions])
        assert new.requires_grad
        assert torch.allclose(torch.exp(new.detach() - old), torch.ones_like(old), atol=1e-5)
