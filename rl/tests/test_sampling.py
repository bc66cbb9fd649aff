"""Sampling is exactly what the config says: a Qwen2-architecture model saved with Qwen2.5-Instruct's sampling
defaults in its generation_config.json, loaded through from_pretrained, samples softmax(logits / T), token
after token, and records log-probs of that distribution; none of the model's defaults (top-k 20, top-p 0.8,
repetition penalty 1.05, temperature 0.7) reach a rollout. The replica sampler draws as Ollama's defaults do."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from allocbench_rl.config import ModelConfig
from allocbench_rl.engine import Sampled, TorchEngine, Turn, stop_ids
from allocbench_rl.model import Policy, load_policy
from allocbench_rl.sampling import OLLAMA, Sampler, make_sampler, repetition_penalty, sampling_settings, splitmix, uniform, uniforms
from conftest import QWEN25_INSTRUCT_DEFAULTS, SUPPORT

T = 1.2


@pytest.fixture(scope="module")
def qwen_like(fixed_model: tuple[Path, torch.Tensor]) -> tuple[Policy, torch.Tensor]:
    """The model as the trainer loads it (from_pretrained), and the logits it gives."""
    directory, logits = fixed_model
    return load_policy(ModelConfig(kind="hf", path=str(directory)), torch.device("cpu"), seed=0), logits


def chi_square_p_value(observed: torch.Tensor, expected: torch.Tensor) -> float:
    statistic = float(((observed - expected) ** 2 / expected).sum())
    df = observed.numel() - 1
    return float(1 - torch.distributions.Chi2(torch.tensor(float(df))).cdf(torch.tensor(statistic)))


class PenalisedSampler(Sampler):
    """Neutral sampling with a repetition penalty on the reply so far (what transformers' generate would add
    from Qwen2.5-Instruct's generation_config.json): the multi-token test must reject it."""

    def prepare(self, rows: list[tuple[str, list[int], list[int]]], device: torch.device, slots: int) -> None:
        self.reply = torch.full((slots, 64), -1, dtype=torch.long)
        for row, (_, _, reply) in enumerate(rows):
            self.reply[row, : len(reply)] = torch.tensor(reply, dtype=torch.long)

    def draw(self, logits: torch.Tensor, u: torch.Tensor, count: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        penalty = QWEN25_INSTRUCT_DEFAULTS["repetition_penalty"]
        return super().draw(repetition_penalty(logits, self.reply[: logits.shape[0]], penalty), u, count)


PROMPT_TEXT = "Draw a ball."


def replies(policy: Policy, sampler: Sampler, rows: int, length: int) -> dict[str, Sampled]:
    prompt = policy.renderer.encode(PROMPT_TEXT)
    out: dict[str, Sampled] = {}
    with TorchEngine(policy, slots=rows, capacity=len(prompt) + length, sampler=sampler, seed=7) as engine:
        for i in range(rows):
            engine.submit(Turn(str(i), prompt, length))
        while len(out) < rows:
            out |= engine.step()
    return out


def test_first_tokens_follow_softmax_of_logits_over_t(qwen_like: tuple[Policy, torch.Tensor]) -> None:
    policy, logits = qwen_like
    assert policy.model.generation_config.top_k == 20  # the model's own defaults came through from_pretrained

    draws = 2000
    sampled = replies(policy, make_sampler("neutral", T, T), draws, 1)
    firsts = torch.tensor([s.ids[0] for s in sampled.values()])
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
    recorded = torch.tensor([s.logprobs[0] for s in sampled.values()], dtype=torch.float64)
    assert torch.allclose(recorded, expected, atol=1e-5)


def repeats_z(policy: Policy, logits: torch.Tensor, sampler: Sampler) -> float:
    """Over 200 replies of 10 tokens: how many of the 2nd to 10th tokens repeat a token earlier in their reply,
    against independent draws from softmax(logits / T) (a z-score; a repetition penalty makes it negative).
    Also checks that those tokens lie in the support."""
    sampled = replies(policy, sampler, 200, 10)
    p = torch.softmax(logits.double() / T, dim=-1)[100 : 100 + SUPPORT]
    observed = expected = variance = 0.0
    for j in range(1, 10):
        column = [s.ids for s in sampled.values()]
        assert all(100 <= ids[j] < 100 + SUPPORT for ids in column)
        observed += sum(ids[j] in ids[:j] for ids in column)
        q = float((p * (1 - (1 - p) ** j)).sum())  # P(the j-th draw repeats one of the j before it)
        expected, variance = expected + len(column) * q, variance + len(column) * q * (1 - q)
    return (observed - expected) / variance**0.5


def test_every_token_of_a_reply_is_drawn_afresh_and_a_repetition_penalty_would_not_be(qwen_like: tuple[Policy, torch.Tensor]) -> None:
    policy, logits = qwen_like
    assert abs(repeats_z(policy, logits, make_sampler("neutral", T, T))) < 4
    assert repeats_z(policy, logits, PenalisedSampler(T, T)) < -6


def test_the_replica_sampler_draws_from_ollamas_nucleus(qwen_like: tuple[Policy, torch.Tensor]) -> None:
    """ollama-defaults: top-k 40 and top-p 0.9 at temperature 1, then T; the log-prob is that of the kept set."""
    policy, logits = qwen_like
    sampled = replies(policy, make_sampler("ollama-defaults", T, T), 1000, 1)
    firsts = torch.tensor([s.ids[0] for s in sampled.values()])
    top, index = torch.topk(logits.double(), OLLAMA["top_k"])
    p = torch.softmax(top, 0)
    kept = index[(p.cumsum(0) - p) < OLLAMA["top_p"]]
    assert 0 < kept.numel() < SUPPORT
    assert set(firsts.tolist()) <= set(kept.tolist())
    nucleus = torch.log_softmax(logits.double()[kept] / T, 0)
    recorded = {s.ids[0]: s.logprobs[0] for s in sampled.values()}
    for token, logprob in recorded.items():
        assert logprob == pytest.approx(float(nucleus[(kept == token).nonzero()[0, 0]]), abs=1e-5)


def test_uniforms_are_splitmix64_on_every_device() -> None:
    seeds = torch.tensor([0, 1, -5, 2**62], dtype=torch.long)
    counters = torch.tensor([0, 7, 123456, 3], dtype=torch.long)
    on_device = uniforms(seeds, counters).tolist()
    assert on_device == [uniform(int(s), int(c)) for s, c in zip(seeds, counters)]
    assert splitmix(0, 1) == 0xE220A8397B1DCDAF  # splitmix64's first output from state 0


def test_the_settings_name_the_defaults_not_applied(qwen_like: tuple[Policy, torch.Tensor]) -> None:
    policy, _ = qwen_like
    settings = sampling_settings(policy, "neutral", T, T, sorted(stop_ids(policy)))
    assert settings["processors"] == "temperature only" and settings["temperature"] == T
    assert settings["modelDefaultsNotApplied"] == {"top_k": 20, "top_p": 0.8, "repetition_penalty": 1.05, "temperature": 0.7}
    replica = sampling_settings(policy, "ollama-defaults", T, 1.0, [])
    assert replica["processors"]["order"] == ["repeat_penalty", "top_k", "top_p", "temperature"] and replica["processors"]["top_k"] == 40
