"""Rollout engines: where replies are sampled and candidate replies scored, behind one interface.

An engine serves a fixed group of episodes. Each call names, per episode, the whole conversation so far as
token ids; a conversation only grows at its end, so an engine that keeps each episode's context (a KV
cache here, prefix caching in a server such as vLLM) encodes only what is new since the last call: the
turn's prompt and, in the constrained mode, the candidates.

Sampling draws from softmax(logits / T) and nothing else: no top-k, top-p, min-p or repetition penalty,
whatever the model's own generation_config.json says (this engine never calls `generate`, so no default
can be inherited). Each sampled token's log-prob is taken from the same logits, at the scoring temperature
(the sampling temperature, or 1 in the authors' replica mode), so the behaviour log-probs need no second
forward.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import torch

from .model import Policy


@dataclass(frozen=True)
class Sampled:
    ids: list[int]
    """The sampled ids, the stop token last when the reply stopped."""
    logprobs: list[float]
    """Each sampled id's log-prob at the scoring temperature."""
    stopped: bool
    """The model ended its turn; False when the token limit cut it off."""


@dataclass(frozen=True)
class Choice:
    index: int
    sequence_logprobs: list[float]
    """Each candidate's summed token log-prob at temperature 1: its likelihood as a reply."""
    logprob: float
    """The chosen index's log-prob in the choice distribution softmax(sequence_logprobs / T)."""


class RolloutEngine(Protocol):
    """Replies for a group of episodes, each named by its id and given as its whole conversation's ids."""

    tokens_encoded: int
    """Every token run through the model so far: the measure of context reuse."""
    slots_encoded: int
    """Every position run through the model, padding included: what the batching costs beside it."""

    def sample(self, prompts: dict[str, list[int]], max_new_tokens: int) -> dict[str, Sampled]: ...

    def choose(self, prompts: dict[str, list[int]], candidates: dict[str, list[list[int]]]) -> dict[str, Choice]: ...


EngineFactory = Callable[[Policy, list[str], float, "torch.Generator | None", float], RolloutEngine]
"""Makes the engine of one cohort: (policy, episode ids, temperature, generator, scoring temperature)."""


def draw(logits: torch.Tensor, temperature: float, generator: torch.Generator | None) -> torch.Tensor:
    """One id per row of `logits`: from softmax(logits / T) by inverting its distribution function at one
    uniform draw per row (torch.multinomial is many times slower over a large vocabulary on the CPU), or
    the argmax at T = 0."""
    if temperature == 0:
        return torch.argmax(logits, dim=-1)
    cumulative = torch.softmax(logits.double() / temperature, dim=-1).cumsum(dim=-1)
    uniform = torch.rand((logits.shape[0], 1), generator=generator, dtype=torch.float64, device=logits.device)
    return torch.searchsorted(cumulative, uniform * cumulative[:, -1:], right=True).squeeze(-1).clamp_(max=logits.shape[-1] - 1)


def choose(sequence_logprobs: torch.Tensor, temperature: float, generator: torch.Generator | None) -> int:
    """A candidate index drawn from softmax(sequence log-probs / T), or the best at T = 0."""
    return int(draw(sequence_logprobs[None], temperature, generator)[0])


def stop_ids(policy: Policy) -> set[int]:
    """The ids that end a reply: the tokenizer's end of sequence and the model's configured ones."""
    stops = {policy.tokenizer.eos_token_id}
    configured = getattr(policy.model.generation_config, "eos_token_id", None)
    stops |= set(configured if isinstance(configured, list) else [configured])
    return {s for s in stops if s is not None}


class TorchEngine:
    """Pure PyTorch: one batch of episodes decoded together, each row keeping its KV cache across turns.

    The cache is one rectangle for the batch. A row's slots hold its real tokens and holes (padding that
    lines the rows up, a finished row's idle steps, the candidates not chosen), which the attention mask
    hides; each real token has the position it has in the row's own sequence, so the logits are those a
    forward over that sequence alone would give. At the start of each turn the holes are squeezed out
    (each row's real slots gathered to the right), so the cache holds one turn's holes at most.
    """

    def __init__(self, policy: Policy, episode_ids: list[str], temperature: float, generator: torch.Generator | None, scoring_temperature: float):
        self.policy = policy
        self.rows = {id: r for r, id in enumerate(episode_ids)}
        self.temperature, self.generator, self.scoring_temperature = temperature, generator, scoring_temperature
        self.lm = policy.model.get_base_model()
        self.device = policy.device
        self.stops = stop_ids(policy)
        self.pad = policy.tokenizer.pad_token_id or 0
        self.cache = None
        self.mask = torch.zeros((len(episode_ids), 0), dtype=torch.bool, device=self.device)
        self.cached: list[list[int]] = [[] for _ in episode_ids]
        """Per row, the real tokens whose keys and values are in the cache."""
        self.tokens_encoded = 0
        self.slots_encoded = 0
        # transformers renames past_key_values to cache (5.24 warns); the GPU machine's 5.17 may not know it.
        self._cache_argument = "cache" if "cache" in inspect.signature(self.lm.get_decoder().forward).parameters else "past_key_values"

    def _new_tokens(self, prompts: dict[str, list[int]]) -> dict[int, list[int]]:
        """Per row named, what its conversation adds to what the cache holds."""
        fresh = {}
        for id, ids in prompts.items():
            r = self.rows[id]
            seen = self.cached[r]
            if ids[: len(seen)] != seen:
                raise ValueError(f"engine: the conversation of {id} does not extend what it saw before")
            fresh[r] = ids[len(seen) :]
        return fresh

    def _forward(self, ids: torch.Tensor, real: torch.Tensor, positions: torch.Tensor, attention: torch.Tensor, count: int) -> torch.Tensor:
        """Runs `ids` ([rows, L]) on the cache; returns the last layer's hidden states. `real` marks the new
        slots that are tokens (`count` of them); `attention` is the mask over every slot, [rows, L, cached + L]
        (True = sees)."""
        dtype = self.lm.get_input_embeddings().weight.dtype
        additive = torch.zeros(attention.shape, dtype=dtype, device=self.device).masked_fill_(~attention, torch.finfo(dtype).min)
        decoder = self.lm.get_decoder()
        output = decoder(
            input_ids=ids, attention_mask=additive[:, None], position_ids=positions, use_cache=True, **{self._cache_argument: self.cache}
        )
        self.cache = getattr(output, self._cache_argument)
        self.mask = torch.cat([self.mask, real], dim=1)
        self.tokens_encoded += count
        self.slots_encoded += ids.numel()
        return output.last_hidden_state

    def _compact(self) -> None:
        """Drops the holes: each row's real slots, in order, gathered to the right of a narrower rectangle."""
        if self.cache is None:
            return
        counts = [len(c) for c in self.cached]
        width = max(counts)
        if width == self.mask.shape[1]:
            return
        index = torch.zeros((len(counts), width), dtype=torch.long)
        mask = torch.zeros((len(counts), width), dtype=torch.bool)
        for r, slots in enumerate(self.mask.cpu()):
            real = slots.nonzero().squeeze(1)
            index[r, width - len(real) :] = real
            mask[r, width - len(real) :] = True
        index = index.to(self.device)
        for layer in self.cache.layers:
            heads, dim = layer.keys.shape[1], layer.keys.shape[3]
            gather = index[:, None, :, None].expand(-1, heads, -1, dim)
            layer.keys, layer.values = layer.keys.gather(2, gather), layer.values.gather(2, gather)
        self.mask = mask.to(self.device)

    def _next_positions(self) -> torch.Tensor:
        return torch.tensor([len(c) for c in self.cached], device=self.device)

    def _causal_chunk(self, fresh: dict[int, list[int]], tails: dict[int, list[list[int]]] | None = None) -> tuple[torch.Tensor, ...]:
        """A chunk of new tokens per row, left-padded so every row's prompt ends at the same slot; with
        `tails`, each row's candidates follow its prompt, each seeing the prompt and itself only."""
        rows = len(self.cached)
        prompt_width = max((len(t) for t in fresh.values()), default=0)
        tail_width = max((sum(len(c) for c in tails.get(r, [])) for r in range(rows)), default=0) if tails else 0
        width = prompt_width + tail_width
        ids = torch.full((rows, width), self.pad, dtype=torch.long)
        positions = torch.zeros((rows, width), dtype=torch.long)
        real = torch.zeros((rows, width), dtype=torch.bool)
        sees = torch.zeros((rows, width, width), dtype=torch.bool)
        for r in range(rows):
            new = fresh.get(r, [])
            start, base = prompt_width - len(new), len(self.cached[r])
            ids[r, start:prompt_width] = torch.tensor(new, dtype=torch.long)
            positions[r, start:prompt_width] = torch.arange(base, base + len(new))
            real[r, start:prompt_width] = True
            sees[r, start:prompt_width, start:prompt_width] = torch.tril(torch.ones(len(new), len(new), dtype=torch.bool))
            offset = prompt_width
            for candidate in (tails or {}).get(r, []):
                k = len(candidate)
                ids[r, offset : offset + k] = torch.tensor(candidate, dtype=torch.long)
                positions[r, offset : offset + k] = torch.arange(base + len(new), base + len(new) + k)
                sees[r, offset : offset + k, start:prompt_width] = True
                sees[r, offset : offset + k, offset : offset + k] = torch.tril(torch.ones(k, k, dtype=torch.bool))
                offset += k
        sees |= torch.eye(width, dtype=torch.bool)  # a hole sees itself, so no row of the mask is empty
        past = self.mask[:, None, :].expand(rows, width, self.mask.shape[1])
        attention = torch.cat([past, sees.to(self.device)], dim=2)
        return ids.to(self.device), real.to(self.device), positions.to(self.device), attention

    @torch.no_grad()
    def sample(self, prompts: dict[str, list[int]], max_new_tokens: int) -> dict[str, Sampled]:
        fresh = self._new_tokens(prompts)
        for r, new in fresh.items():
            if not new:
                raise ValueError("engine: a prompt must add at least one token")
        self._compact()
        ids, real, positions, attention = self._causal_chunk(fresh)
        hidden = self._forward(ids, real, positions, attention, sum(map(len, fresh.values())))[:, -1]
        for r, new in fresh.items():
            self.cached[r] += new
        active = sorted(fresh)
        sampled: dict[int, list[int]] = {r: [] for r in active}
        logprobs: dict[int, list[float]] = {r: [] for r in active}
        running = set(active)
        rows = len(self.cached)
        while True:
            logits = self.lm.get_output_embeddings()(hidden[active]).float()
            tokens = draw(logits, self.temperature, self.generator)
            scored = torch.log_softmax(logits / self.scoring_temperature, dim=-1).gather(1, tokens[:, None]).squeeze(1)
            step, fed = [self.pad] * rows, [False] * rows
            drawn, drawn_logprobs = torch.stack([tokens.double(), scored.double()]).tolist()  # one wait on the device a step
            for r, token, logprob in zip(active, map(int, drawn), drawn_logprobs):
                if r not in running:
                    continue
                sampled[r].append(token)
                logprobs[r].append(logprob)
                if token in self.stops or len(sampled[r]) >= max_new_tokens:
                    running.discard(r)
                else:
                    step[r], fed[r] = token, True
            if not running:
                break
            feeding = torch.tensor(fed, device=self.device)[:, None]
            # Each row sees its real slots and this one; a row not fed sees only its own (hole) slot.
            attention = torch.cat([self.mask[:, None, :], torch.ones((rows, 1, 1), dtype=torch.bool, device=self.device)], dim=2)
            positions = self._next_positions()[:, None]
            hidden = self._forward(torch.tensor(step, device=self.device)[:, None], feeding, positions, attention, sum(fed))[:, -1]
            for r in running:
                self.cached[r].append(sampled[r][-1])
        return {
            id: Sampled(ids=sampled[r], logprobs=logprobs[r], stopped=sampled[r][-1] in self.stops)
            for id, r in ((id, self.rows[id]) for id in prompts)
        }

    @torch.no_grad()
    def choose(self, prompts: dict[str, list[int]], candidates: dict[str, list[list[int]]]) -> dict[str, Choice]:
        fresh = self._new_tokens(prompts)
        tails = {self.rows[id]: c for id, c in candidates.items()}
        self._compact()
        ids, real, positions, attention = self._causal_chunk(fresh, tails)
        prompt_width = max(len(t) for t in fresh.values())
        hidden = self._forward(ids, real, positions, attention, sum(map(len, fresh.values())))
        # Each candidate token's log-prob (temperature 1), the head run only where one is predicted: the first
        # token by the prompt's last slot, the rest by the candidate's own slots.
        picks: list[tuple[int, int, int]] = []
        for id in prompts:
            r, offset = self.rows[id], prompt_width
            for candidate in tails[r]:
                predictors = [prompt_width - 1] + list(range(offset, offset + len(candidate) - 1))
                picks += [(r, p, t) for p, t in zip(predictors, candidate)]
                offset += len(candidate)
        rows, at, targets = (torch.tensor(column, device=self.device) for column in zip(*picks))
        logits = self.lm.get_output_embeddings()(hidden[rows, at]).float()
        token_logprobs = (logits.gather(1, targets[:, None]).squeeze(1) - torch.logsumexp(logits, dim=-1)).tolist()
        choices, kept, first = {}, real.clone(), 0
        for id in prompts:
            r = self.rows[id]
            sequences = []
            for candidate in tails[r]:
                sequences.append(sum(token_logprobs[first : first + len(candidate)]))
                first += len(candidate)
            sequence = torch.tensor(sequences, dtype=torch.float64, device=self.device)  # the generator's device
            k = choose(sequence, self.temperature, self.generator)
            start = prompt_width + sum(len(c) for c in tails[r][:k])
            kept[r, start : start + len(tails[r][k])] = True
            self.cached[r] += fresh[r] + tails[r][k]
            choices[id] = Choice(k, sequences, float(torch.log_softmax(sequence / self.scoring_temperature, 0)[k]))
        self.mask[:, -ids.shape[1] :] = kept  # the chosen candidate's slots stay real, the others become holes
        self.tokens_encoded += sum(len(candidate) for options in tails.values() for candidate in options)
        return choices
