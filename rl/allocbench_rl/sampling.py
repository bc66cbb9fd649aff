"""Sampling as the config names it, on the device, from uniforms that depend on the episode alone.

`neutral` (the default) draws from softmax(logits / T) and nothing else. `ollama-defaults` replays what the
authors' rollouts got from Ollama, which they called with only the temperature set (their
scripts/ladder/urn_session.py, `max_tokens` 512), so Ollama's defaults applied as its llama.cpp runner does:
a repeat penalty of 1.1 on the last 64 tokens of the context (prompt and reply), then top-k 40, then top-p 0.9
(on the probabilities at temperature 1), then the temperature. Either way a model's generation_config.json
(Qwen2.5-Instruct: top_k 20, top_p 0.8, repetition_penalty 1.05, temperature 0.7) never reaches a rollout:
transformers' `generate` is not called. `sampling_settings` records what is used and which of the model's
defaults are not, for the run's settings.json and the start-up line.

Each token's log-prob is read from the distribution it was drawn from, at the scoring temperature (the
sampling temperature, or 1 where logprobTemperature is `one`): the behaviour log-probs need no second forward.

Draws invert the distribution function at one uniform per token, and the uniform is a hash of the episode's
seed and its count of draws (splitmix64): an episode samples the same tokens whichever episodes share its
batch and however often the host reads the device.
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any

import torch

from .model import Policy

OLLAMA = {"repeat_penalty": 1.1, "repeat_last_n": 64, "top_k": 40, "top_p": 0.9}
"""Ollama's defaults (api.DefaultOptions) that shape a draw when a request sets only the temperature."""

# generation_config fields that change which tokens are drawn or how likely they are, and their neutral values.
_PROCESSORS: dict[str, Any] = {
    "top_k": (None, 0),
    "top_p": (None, 1.0),
    "min_p": (None, 0.0),
    "typical_p": (None, 1.0),
    "epsilon_cutoff": (None, 0.0),
    "eta_cutoff": (None, 0.0),
    "repetition_penalty": (None, 1.0),
    "encoder_repetition_penalty": (None, 1.0),
    "no_repeat_ngram_size": (None, 0),
    "bad_words_ids": (None,),
    "suppress_tokens": (None,),
    "begin_suppress_tokens": (None,),
    "sequence_bias": (None,),
    "forced_bos_token_id": (None,),
    "forced_eos_token_id": (None,),
    "min_new_tokens": (None, 0),
    "min_length": (None, 0),
    "guidance_scale": (None, 1.0),
    "temperature": (None,),
}

_MASK64 = (1 << 64) - 1
_GOLDEN, _MIX1, _MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def _signed(value: int) -> int:
    value &= _MASK64
    return value - (1 << 64) if value >= 1 << 63 else value


def splitmix(seed: int, counter: int) -> int:
    """splitmix64 of seed + counter·golden, as an unsigned 64-bit integer."""
    z = (seed + counter * _GOLDEN) & _MASK64
    z = ((z ^ (z >> 30)) * _MIX1) & _MASK64
    z = ((z ^ (z >> 27)) * _MIX2) & _MASK64
    return z ^ (z >> 31)


def uniform(seed: int, counter: int) -> float:
    """The uniform in [0, 1) that `uniforms` gives for one (seed, counter)."""
    return (splitmix(seed, counter) >> 11) * 2.0**-53


def _shift(z: torch.Tensor, bits: int) -> torch.Tensor:
    """A logical right shift of int64 values (torch's is arithmetic)."""
    return (z >> bits) & ((1 << (64 - bits)) - 1)


def uniforms(seeds: torch.Tensor, counters: torch.Tensor) -> torch.Tensor:
    """`uniform` for each row, on the tensors' device (int64 arithmetic wraps as uint64 does)."""
    z = seeds + counters * _signed(_GOLDEN)
    z = (z ^ _shift(z, 30)) * _signed(_MIX1)
    z = (z ^ _shift(z, 27)) * _signed(_MIX2)
    z = z ^ _shift(z, 31)
    return _shift(z, 11).double() * 2.0**-53


def episode_seed(seed: int, id: str) -> int:
    """An episode's sampling seed: the step's seed mixed with a hash of the episode's id (as a signed int64)."""
    digest = int.from_bytes(hashlib.blake2b(id.encode(), digest_size=8).digest(), "little")
    return _signed(splitmix(seed, digest))


@functools.lru_cache(maxsize=8)
def _block(vocabulary: int) -> int:
    """The largest divisor of the vocabulary up to 4,096: the width of the blocks a draw sums first."""
    return max(d for d in range(1, min(vocabulary, 4096) + 1) if vocabulary % d == 0)


def draw(logits: torch.Tensor, temperature: float, u: torch.Tensor) -> torch.Tensor:
    """One index per row of `logits` from softmax(logits / T), by inverting its distribution function at `u`;
    the argmax at T = 0. The cumulative sums run in float64 over block totals, then inside the one block
    reached: the same draw as one cumulative sum over the vocabulary, with a few passes over it instead of ten."""
    if temperature == 0:
        return torch.argmax(logits, dim=-1)
    rows, vocabulary = logits.shape
    width = _block(vocabulary)
    weights = logits / temperature
    weights = weights.sub_(weights.max(dim=-1, keepdim=True).values).exp_().view(rows, vocabulary // width, width)
    totals = weights.sum(dim=-1).double()
    through = totals.cumsum(dim=-1)
    target = (u * through[:, -1])[:, None]
    block = torch.searchsorted(through, target, right=True).clamp_(max=through.shape[1] - 1)
    before = through.gather(1, block) - totals.gather(1, block)
    inside = weights.gather(1, block[:, :, None].expand(rows, 1, width)).squeeze(1).double().cumsum(dim=-1)
    index = torch.searchsorted(inside, target - before, right=True).clamp_(max=width - 1)
    return (block * width + index).squeeze(1)


def choose(sequence_logprobs: torch.Tensor, temperature: float, u: float) -> int:
    """A candidate index drawn from softmax(sequence log-probs / T), or the best at T = 0."""
    return int(draw(sequence_logprobs[None], temperature, torch.tensor([u], dtype=torch.float64, device=sequence_logprobs.device))[0])


def repetition_penalty(logits: torch.Tensor, recent: torch.Tensor, penalty: float) -> torch.Tensor:
    """llama.cpp's (and transformers') repetition penalty: the logit of each token in `recent` (ids per row, -1
    for none) divided by `penalty` if positive, multiplied by it if not."""
    seen = torch.zeros_like(logits, dtype=torch.int32).scatter_add_(1, recent.clamp(min=0), (recent >= 0).int()) > 0
    return torch.where(seen, torch.where(logits > 0, logits / penalty, logits * penalty), logits)


class Sampler:
    """Neutral sampling: softmax(logits / T), nothing else."""

    name = "neutral"

    def __init__(self, temperature: float, scoring_temperature: float):
        self.temperature, self.scoring_temperature = temperature, scoring_temperature

    def prepare(self, rows: list[tuple[str, list[int], list[int]]], device: torch.device, slots: int) -> None:
        """Before a decoding window: per row, (episode id, the turn's ids, the reply so far)."""

    def draw(self, logits: torch.Tensor, u: torch.Tensor, count: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(token, its log-prob at the scoring temperature) per row; `count` is each row's reply length so far."""
        tokens = draw(logits, self.temperature, u)
        return tokens, self._logprobs(logits, tokens)

    def _logprobs(self, logits: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
        scaled = logits / self.scoring_temperature
        return scaled.gather(1, tokens[:, None]).squeeze(1) - torch.logsumexp(scaled, dim=-1)


class OllamaSampler(Sampler):
    """Ollama's defaults through its llama.cpp runner: repeat penalty, top-k, top-p, temperature (`OLLAMA`)."""

    name = "ollama-defaults"
    recent: torch.Tensor | None = None

    def prepare(self, rows: list[tuple[str, list[int], list[int]]], device: torch.device, slots: int) -> None:
        window = OLLAMA["repeat_last_n"]
        recent = torch.full((slots, window), -1, dtype=torch.long)
        for row, (_, turn, reply) in enumerate(rows):
            tail = (turn[-window:] + reply)[-window:]
            recent[row, window - len(tail) :] = torch.tensor(tail, dtype=torch.long)
        if self.recent is None or self.recent.shape != recent.shape:
            self.recent = recent.to(device)
        else:
            self.recent.copy_(recent)  # in place: a captured decoding window reads this buffer

    def draw(self, logits: torch.Tensor, u: torch.Tensor, count: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        rows = logits.shape[0]
        recent = self.recent[:rows]
        logits = repetition_penalty(logits, recent, OLLAMA["repeat_penalty"])
        top, index = torch.topk(logits, OLLAMA["top_k"], dim=-1)  # sorted, most likely first
        probabilities = torch.softmax(top, dim=-1)
        # The nucleus: the fewest most likely tokens whose probability reaches top_p (the one crossing it kept).
        kept = (probabilities.cumsum(-1) - probabilities) < OLLAMA["top_p"]
        top = top.masked_fill(~kept, float("-inf"))
        if self.temperature == 0:
            choice = torch.zeros(rows, dtype=torch.long, device=logits.device)
        else:
            choice = draw(top, self.temperature, u)
        tokens = index.gather(1, choice[:, None]).squeeze(1)
        self.recent[:rows] = torch.cat([recent[:, 1:], tokens[:, None]], dim=1)
        return tokens, self._logprobs(top, choice)


def make_sampler(kind: str, temperature: float, scoring_temperature: float) -> Sampler:
    return {"neutral": Sampler, "ollama-defaults": OllamaSampler}[kind](temperature, scoring_temperature)


def sampling_settings(policy: Policy, sampler: str, temperature: float, scoring_temperature: float, stops: list[int]) -> dict[str, Any]:
    """What the rollouts use, and the model's generation defaults that they do not (non-neutral ones)."""
    config = policy.model.generation_config
    ignored = {}
    for name, neutral in _PROCESSORS.items():
        value = getattr(config, name, None)
        if value not in neutral:
            ignored[name] = value
    return {
        "sampler": sampler,
        "temperature": temperature,
        "scoringTemperature": scoring_temperature,
        "stopIds": stops,
        "processors": "temperature only" if sampler == "neutral" else {"order": ["repeat_penalty", "top_k", "top_p", "temperature"], **OLLAMA},
        "modelDefaultsNotApplied": ignored,
    }


def describe(settings: dict[str, Any]) -> str:
    """The start-up line."""
    ignored = settings["modelDefaultsNotApplied"]
    unused = ", ".join(f"{k} {v}" for k, v in ignored.items()) if ignored else "none"
    how = (
        f"softmax(logits / {settings['temperature']:g}), nothing else"
        if settings["sampler"] == "neutral"
        else f"Ollama's defaults (repeat penalty {OLLAMA['repeat_penalty']} on the last {OLLAMA['repeat_last_n']} tokens, top-k "
        f"{OLLAMA['top_k']}, top-p {OLLAMA['top_p']}) at temperature {settings['temperature']:g}"
    )
    return (
        f"sampling: {how}; log-probs at temperature {settings['scoringTemperature']:g}; the model's own sampling "
        f"defaults not applied: {unused}"
    )
