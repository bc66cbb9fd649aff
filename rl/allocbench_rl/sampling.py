"""Sampling as the config says: the temperature alone, and a record of the model defaults left unused.

A model's generation_config.json may carry sampling defaults (Qwen2.5-Instruct: top_k 20, top_p 0.8,
repetition_penalty 1.05, temperature 0.7) that transformers' `generate` would apply to any field left
unset. The engines here never call `generate`: they draw from softmax(logits / T) themselves
(engine.py), so none of these can reach a rollout. `sampling_settings` says what is used and which of the
model's defaults are not, for the run's settings.json and the start-up line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from .engine import TorchEngine, stop_ids
from .model import Policy

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


def sampling_settings(policy: Policy, temperature: float, scoring_temperature: float) -> dict[str, Any]:
    """What the rollouts use, and the model's generation defaults that they do not (non-neutral ones)."""
    config = policy.model.generation_config
    ignored = {}
    for name, neutral in _PROCESSORS.items():
        value = getattr(config, name, None)
        if value not in neutral:
            ignored[name] = value
    return {
        "temperature": temperature,
        "scoringTemperature": scoring_temperature,
        "stopIds": sorted(stop_ids(policy)),
        "processors": "temperature only",
        "modelDefaultsNotApplied": ignored,
    }


def describe(settings: dict[str, Any]) -> str:
    """The start-up line."""
    ignored = settings["modelDefaultsNotApplied"]
    unused = ", ".join(f"{k} {v}" for k, v in ignored.items()) if ignored else "none"
    return (
        f"sampling: softmax(logits / {settings['temperature']:g}), nothing else; log-probs at temperature "
        f"{settings['scoringTemperature']:g}; the model's own sampling defaults not applied: {unused}"
    )


@dataclass(frozen=True)
class Generated:
    content_ids: list[int]
    """The reply's ids before the end-of-turn token (which the template adds back)."""
    stopped: bool
    """The model ended its turn; False when max_new_tokens cut it off."""


@torch.no_grad()
def generate(
    policy: Policy, prompts: list[list[int]], temperature: float, max_new_tokens: int, generator: torch.Generator | None = None
) -> list[Generated]:
    """Independent replies to whole prompts, batched (a server's requests; rollouts keep their engine)."""
    policy.model.eval()
    ids = [str(i) for i in range(len(prompts))]
    engine = TorchEngine(policy, ids, temperature, generator, scoring_temperature=1.0)
    sampled = engine.sample(dict(zip(ids, prompts)), max_new_tokens)
    return [
        Generated(content_ids=s.ids[:-1] if s.stopped else s.ids, stopped=s.stopped) for s in (sampled[id] for id in ids)
    ]
