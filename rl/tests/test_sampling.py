"""Sampling is exactly what the config says: a Qwen2-architecture model saved with Qwen2.5-Instruct's sampling
defaults in its generation_config.json, loaded through from_pretrained, samples softmax(logits / T) and
records log-probs of that distribution; none of the model's defaults (top-k 20, top-p 0.8, repetition
penalty 1.05, temperature 0.7) reach a rollout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import torch
from transformers import GenerationConfig, Qwen2Config, Qwen2ForCausalLM

from allocbench_rl.config import ModelConfig
from allocbench_rl.engine import TorchEngine
from allocbench_rl.model import Policy, load_policy, load_tokenizer
from allocbench_rl.sampling import sampling_settings

QWEN25_INSTRUCT_DEFAULTS = {"do_sample": True, "temperature": 0.7, "top_p": 0.8, "top_k": 20, "repetition_penalty": 1.05}
SUPPORT = 40
"""Tokens the model's fixed distribution spreads over (more than top-k 20 keeps)."""
T = 1.2


def fixed_distribution_model(directory: Path, tokenizer: Any) -> torch.Tensor:
    """A Qwen2 whose logits are the same broad distribution after any context: every token embeds to one
    vector and the layers add nothing, so the head sees one hidden state. Saved with `save_pretrained`
    beside Qwen2.5-Instruct's sampling defaults; returns the logits it gives."""
    config = Qwen2Config(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, tie_word_embeddings=False, eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(0)
    model = Qwen2ForCausalLM(config)
    with torch.no_grad():
        model.model.embed_tokens.weight[:] = torch.ones(config.hidden_size)
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight.zero_()
            layer.mlp.down_proj.weight.zero_()
        head = torch.full((config.vocab_size,), -60.0)
        support = torch.arange(100, 100 + SUPPORT)
        head[support] = torch.linspace(0.0, 3.0, SUPPORT)
        model.lm_head.weight[:] = 0
        model.lm_head.weight[:, 0] = head  # the normed hidden state is all ones: logit = head
    model.generation_config = GenerationConfig(**QWEN25_INSTRUCT_DEFAULTS, eos_token_id=tokenizer.eos_token_id)
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    with torch.no_grad():
        return model(input_ids=torch.tensor([[5, 6, 7]])).logits[0, -1]


@pytest.fixture(scope="module")
def qwen_like(tmp_path_factory: pytest.TempPathFactory, gguf: Path) -> tuple[Policy, torch.Tensor]:
    """The model as the trainer loads it (from_pretrained), and the logits it gives."""
    directory = tmp_path_factory.mktemp("qwen2-with-defaults")
    logits = fixed_distribution_model(directory, load_tokenizer(ModelConfig(kind="gguf", path=str(gguf))))
    return load_policy(ModelConfig(kind="hf", path=str(directory)), torch.device("cpu"), seed=0), logits


def chi_square_p_value(observed: torch.Tensor, expected: torch.Tensor) -> float:
    statistic = float(((observed - expected) ** 2 / expected).sum())
    df = observed.numel() - 1
    return float(1 - torch.distributions.Chi2(torch.tensor(float(df))).cdf(torch.tensor(statistic)))


def test_first_tokens_follow_softmax_of_logits_over_t(qwen_like: tuple[Policy, torch.Tensor]) -> None:
    policy, logits = qwen_like
    assert policy.model.generation_config.top_k == 20  # the model's own defaults came through from_pretrained

    draws = 2000
    ids = [str(i) for i in range(draws)]
    engine = TorchEngine(policy, ids, T, torch.Generator().manual_seed(7), scoring_temperature=T)
    prompt = policy.renderer.encode("Draw a ball.")
    sampled = engine.sample({id: prompt for id in ids}, max_new_tokens=1)
    firsts = torch.tensor([sampled[id].ids[0] for id in ids])

    target = torch.softmax(logits.double() / T, dim=-1)
    support = torch.arange(100, 100 + SUPPORT)
    assert float(target[support].sum()) > 1 - 1e-9
    observed = torch.bincount(firsts, minlength=len(target))[support].double()
    assert int(observed.sum()) == draws  # nothing outside the support
    assert chi_square_p_value(observed, draws * target[support]) > 0.001
    # Top-k 20 (what transformers' generate inherits from the model's file) would never draw the 20 least likely tokens of the support; they are drawn here.
    assert int(observed[: SUPPORT - 20].sum()) > 0.1 * draws
    # Each recorded log-prob is that of the distribution sampled.
    expected = torch.log(target)[firsts]
    recorded = torch.tensor([sampled[id].logprobs[0] for id in ids], dtype=torch.float64)
    assert torch.allclose(recorded, expected, atol=1e-5)


def test_the_settings_name_the_defaults_not_applied(qwen_like: tuple[Policy, torch.Tensor]) -> None:
    policy, _ = qwen_like
    settings = sampling_settings(policy, T, T)
    assert settings["processors"] == "temperature only" and settings["temperature"] == T
    assert settings["modelDefaultsNotApplied"] == {"top_k": 20, "top_p": 0.8, "repetition_penalty": 1.05, "temperature": 0.7}
