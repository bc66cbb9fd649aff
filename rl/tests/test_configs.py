"""Every shipped config parses; the GRPO pilots' `clip: null` trains with the unclipped policy gradient."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import torch

from allocbench_rl.config import Config, ConfigError, load_config, parse_config
from allocbench_rl.ppo import _episode_terms

CONFIGS = sorted((Path(__file__).resolve().parents[1] / "configs").glob("*.yaml"))


def test_configs_are_shipped() -> None:
    assert {"paper-run1.yaml", "paper-run2.yaml", "smoke-cpu.yaml"} <= {p.name for p in CONFIGS}
    assert [p.name for p in CONFIGS if p.name.startswith("grpo-pilot")] == [f"grpo-pilot-{n}.yaml" for n in range(1, 5)]


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_every_shipped_config_parses(path: Path) -> None:
    config = load_config(path)
    if path.name.startswith("grpo-pilot"):
        assert config.algorithm == "grpo" and config.clip is None
        assert config.sampler == "ollama-defaults" and config.max_new_tokens == 512  # the authors' Ollama, as it sampled


def test_clip_is_positive_or_null() -> None:
    assert parse_config({"model": {"kind": "tiny", "tokenizerGguf": "t.gguf"}, "clip": None}, Path(".")).clip is None
    with pytest.raises(ConfigError, match="clip must be positive"):
        parse_config({"model": {"kind": "tiny", "tokenizerGguf": "t.gguf"}, "clip": 0}, Path("."))


def test_null_clip_keeps_the_gradient_that_a_clip_cuts() -> None:
    """Ratios e^0.5 (advantage +1) and e^-0.5 (advantage −1) against old log-probs −1 both lie outside ε = 0.2 on
    the side the clip cuts."""
    advantages = [1.0, -1.0]
    grads, flags = {}, {}
    for clip in (0.2, None):
        new = torch.tensor([-0.5, -1.5], requires_grad=True)
        config = dataclasses.replace(Config(), clip=clip, kl_weight=0.0)
        units = [(new[i : i + 1], None) for i in range(2)]  # one unit a decision
        loss, clipped = _episode_terms(units, torch.full((2,), -1.0), advantages, [torch.zeros(1)] * 2, config)
        loss.backward()
        grads[clip], flags[clip] = new.grad, clipped.tolist()
    assert torch.equal(grads[0.2], torch.zeros(2)) and flags[0.2] == [True, True]
    ratio = torch.exp(torch.tensor([0.5, -0.5]))
    assert torch.allclose(grads[None], -torch.tensor(advantages) * ratio / 2) and flags[None] == [False, False]


def test_a_kl_in_the_reward_is_refused_where_the_rewards_are_not_trained_on() -> None:
    with pytest.raises(ConfigError, match="kl.placement reward needs algorithm ppo"):
        parse_config({"model": {"kind": "tiny", "tokenizerGguf": "t.gguf"}, "algorithm": "grpo", "kl": {"placement": "reward"}}, Path("."))
