"""Turning prompts into replies: batched free-text generation, and the constrained mode's choice.

Free text samples at the temperature alone (no top-k or top-p), so the recorded temperature-1 log-probs
are those of the distribution that was sampled, sharpened. Temperature 0 is greedy / argmax.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from transformers import GenerationConfig

from .model import Policy


@dataclass(frozen=True)
class Generated:
    content_ids: list[int]
    """The reply's ids before the end-of-turn token (which the template adds back)."""
    stopped: bool
    """The model ended its turn; False when max_new_tokens cut it off."""


def _stop_ids(policy: Policy) -> set[int]:
    stops = {policy.tokenizer.eos_token_id}
    configured = getattr(policy.model.generation_config, "eos_token_id", None)
    stops |= set(configured if isinstance(configured, list) else [configured])
    return {s for s in stops if s is not None}


@torch.no_grad()
def generate(policy: Policy, prompts: list[list[int]], temperature: float, max_new_tokens: int) -> list[Generated]:
    """Left-padded batched generation; sampling draws from torch's global RNG (seeded by the caller)."""
    pad = policy.tokenizer.pad_token_id
    width = max(len(p) for p in prompts)
    ids = torch.full((len(prompts), width), pad, dtype=torch.long)
    attention = torch.zeros((len(prompts), width), dtype=torch.long)
    for i, prompt in enumerate(prompts):
        ids[i, width - len(prompt) :] = torch.tensor(prompt)
        attention[i, width - len(prompt) :] = 1
    stops = _stop_ids(policy)
    sample = temperature > 0
    settings = GenerationConfig(
        max_new_tokens=max_new_tokens,
        do_sample=sample,
        temperature=temperature if sample else None,
        top_k=None,
        top_p=None,
        pad_token_id=pad,
        eos_token_id=sorted(stops),
        use_cache=True,
    )
    policy.model.eval()
    output = policy.model.generate(
        input_ids=ids.to(policy.device), attention_mask=attention.to(policy.device), generation_config=settings
    )
    results = []
    for row in output[:, width:].tolist():
        end = next((i for i, token in enumerate(row) if token in stops), None)
        results.append(Generated(content_ids=row if end is None else row[:end], stopped=end is not None))
    return results


def choose(sequence_logprobs: torch.Tensor, temperature: float, generator: torch.Generator | None) -> int:
    """A candidate index: sampled from softmax(logp / temperature), or the argmax at temperature 0."""
    if temperature == 0:
        return int(torch.argmax(sequence_logprobs))
    probabilities = torch.softmax(sequence_logprobs.double() / temperature, dim=0)
    return int(torch.multinomial(probabilities, 1, generator=generator))
