"""The update's invariants a real model exposes: a KL term that pulls the policy toward the reference (choices
between candidates, and free text); old and new log-probs computed the same way (ratio 1 for unchanged
weights, at a step after the first update, when the adapter is no longer zero); no dropout in the update even
where the model's config asks for it; and, where sampler and learner differ, truncated importance weights."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM

from allocbench_rl.config import Config, ModelConfig
from allocbench_rl.env import EnvClient
from allocbench_rl.logprobs import Row, score
from allocbench_rl.model import Policy, load_policy
from allocbench_rl.model import load_tokenizer
from allocbench_rl.ppo import _episode_terms, decision_logprobs, importance_weights, kl_estimate, ppo_update, reference_units, rollout_kl
from allocbench_rl.rollout import EpisodeRollout, run_rollouts

T = 1.2


def rollouts(policy: Policy, env: EnvClient, config: Config, seed: int) -> list[EpisodeRollout]:
    return run_rollouts(
        policy, env, config.env, [(f"e{seed}-{i}", 9000 + i // 2, i % 2) for i in range(4)],
        constrained=config.decision_mode == "constrained", temperature=T, max_new_tokens=config.max_new_tokens, slots=3,
        context=config.rollout_context, seed=seed,
    )


def moved_away(policy: Policy, seed: int = 3) -> None:
    """An adapter away from zero, so the policy differs from its reference."""
    generator = torch.Generator().manual_seed(seed)
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


@torch.no_grad()
def exact_free_text_kl(policy: Policy, episodes: list[EpisodeRollout]) -> float:
    """KL(π‖π_ref) of the next-token distribution at temperature T, averaged over the reply tokens."""
    policy.model.eval()
    per_token = []
    for e in episodes:
        ids = torch.tensor([e.ids])
        log_p = torch.log_softmax(policy.model(input_ids=ids).logits[0].double() / T, -1)
        with policy.reference():
            log_ref = torch.log_softmax(policy.model(input_ids=ids).logits[0].double() / T, -1)
        for d in e.decisions:
            p, ref = log_p[d.span[0] - 1 : d.span[1] - 1], log_ref[d.span[0] - 1 : d.span[1] - 1]
            per_token.append((p.exp() * (p - ref)).sum(-1))
    return float(torch.cat(per_token).mean())


# Free text on a model whose replies spread over 40 tokens (conftest's fixed distribution; a tiny random model's
# are near uniform over 49k, so no update moves them measurably).
def test_in_free_text_the_kl_term_pulls_toward_the_reference(env: EnvClient, tiny: Callable[..., Config], fixed_model: tuple[Path, torch.Tensor]) -> None:
    config = tiny(
        model={"kind": "hf", "path": str(fixed_model[0])}, decisionMode="free", maxNewTokens=8, env={"length": 4},
        learningRate=3e-4, weightDecay=0.0, klWeight=1.0,
    )
    policy = load_policy(config.model, torch.device("cpu"), seed=0)
    moved_away(policy)
    episodes = rollouts(policy, env, config, 1)
    reference = reference_units(policy, episodes, config)
    before = exact_free_text_kl(policy, episodes)
    assert before > 1e-3
    optimizer = torch.optim.AdamW(policy.trainable(), lr=config.learning_rate, weight_decay=0.0)
    for _ in range(5):
        ppo_update(policy, optimizer, episodes, [[0.0] * len(e.decisions) for e in episodes], reference, config)
    assert exact_free_text_kl(policy, episodes) < 0.1 * before


def test_attention_dropout_in_the_models_config_is_off_in_the_update(tmp_path: Path, gguf: Path) -> None:
    """A model saved with attention dropout 0.5 scores a reply the same in train mode as in eval mode."""
    tokenizer = load_tokenizer(ModelConfig(kind="gguf", path=str(gguf)))
    shape = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, attention_dropout=0.5, eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(0)
    LlamaForCausalLM(shape).save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    policy = load_policy(ModelConfig(kind="hf", path=str(tmp_path)), torch.device("cpu"), seed=0)
    rows = [Row(base=list(range(40, 90)), spans=[(30, 50)])]
    policy.model.eval()
    with torch.no_grad():
        evaluated = score(policy, rows)[0].spans[0]
    policy.model.train()
    trained = [score(policy, rows)[0].spans[0].detach() for _ in range(2)]
    assert torch.equal(trained[0], trained[1]) and torch.allclose(trained[0], evaluated, atol=1e-6)


def test_importance_weights_scale_each_decisions_gradient_up_to_the_cap() -> None:
    new = torch.tensor([-1.0, -1.0, -1.0], requires_grad=True)
    old = new.detach().clone()  # the learner's own log-probs: ratio 1
    behaviour = torch.tensor([-1.0, -1.5, -4.0])  # the sampler's: equal, less likely, far less likely
    weights = importance_weights(old, behaviour, cap=2.0)
    assert torch.allclose(weights, torch.tensor([1.0, float(torch.e**0.5), 2.0]))
    assert torch.equal(importance_weights(old, behaviour, cap=None), torch.ones(3))
    config = dataclasses.replace(Config(), kl_weight=0.0)
    grads = []
    for w in (None, weights):
        new.grad = None
        loss, _ = _episode_terms([(new[i : i + 1], None) for i in range(3)], old, [1.0, 1.0, 1.0], [torch.zeros(1)] * 3, config, w)
        loss.backward()
        grads.append(new.grad.clone())
    assert torch.allclose(grads[1], grads[0] * weights)


def test_where_sampler_and_learner_differ_the_update_weights_the_decisions(env: EnvClient, tiny: Callable[..., Config]) -> None:
    """Rollouts from one adapter, the update on another (a sampler that computes differently): the weights
    logged are the learner's probabilities over the sampler's, capped; with the correction off they are 1."""
    config = tiny(decisionMode="constrained", env={"length": 6}, importanceCap=1.5)
    policy = load_policy(config.model, torch.device("cpu"), seed=0)
    moved_away(policy, seed=3)
    episodes = rollouts(policy, env, config, 1)
    moved_away(policy, seed=4)
    reference = reference_units(policy, episodes, config)
    advantages = [[1.0] * len(e.decisions) for e in episodes]
    with torch.no_grad():
        learner = torch.cat([decision_logprobs(policy, e, config) for e in episodes])
    sampler = torch.tensor([d.behaviour_logprob for e in episodes for d in e.decisions])
    expected = torch.exp(learner - sampler).clamp(max=config.importance_cap).double()
    assert float(expected.min()) < 0.9 and float(expected.max()) == config.importance_cap  # the two differ, both ways
    state = {n: p.detach().clone() for n, p in policy.model.named_parameters() if p.requires_grad}
    moved = {}
    for cap in (config.importance_cap, None):
        with torch.no_grad():
            for n, p in policy.model.named_parameters():
                if p.requires_grad:
                    p.copy_(state[n])
        optimizer = torch.optim.SGD(policy.trainable(), lr=1.0)
        stats = ppo_update(policy, optimizer, episodes, advantages, reference, dataclasses.replace(config, importance_cap=cap))
        moved[cap] = {n: p.detach() - state[n] for n, p in policy.model.named_parameters() if p.requires_grad}
        if cap is None:
            assert stats.importance_weights == {"mean": 1.0, "min": 1.0, "max": 1.0, "capped": 0.0}
        else:
            weights = stats.importance_weights
            assert weights["min"] == pytest.approx(float(expected.min()), rel=1e-4)
            assert weights["max"] == pytest.approx(config.importance_cap) and weights["capped"] == pytest.approx(float((expected >= 1.5).double().mean()))
            assert weights["mean"] == pytest.approx(float(expected.mean()), rel=1e-4)
    assert any(not torch.allclose(moved[config.importance_cap][n], moved[None][n]) for n in state)
