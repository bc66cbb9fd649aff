"""Token log-probabilities of replies, many per forward.

A row is a base sequence (an episode, or a prompt and its reply) plus branches: short continuations of a
prefix of the base (the constrained mode's other candidates). A batch of rows is one forward. Rows
without branches are right-padded under the model's own causal mask; rows with branches go into one
sequence each under a 4D mask in which a branch sees its base prefix and itself, with the positions it
would have had alone. The LM head runs only on the positions scored, so a long episode over a large
vocabulary costs little memory; the head runs a chunk of positions at a time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch.utils.checkpoint import checkpoint

from .model import Policy


@dataclass
class Row:
    """`base` ids; `spans` of the base to score ([start, end), start ≥ 1); `branches` (start, ids) to score whole."""

    base: list[int]
    spans: list[tuple[int, int]] = field(default_factory=list)
    branches: list[tuple[int, list[int]]] = field(default_factory=list)

    def length(self) -> int:
        return len(self.base) + sum(len(ids) for _, ids in self.branches)


@dataclass
class Scored:
    """Per-token log-probs of each span, then of each branch, in the row's order; with `entropies`, the
    entropy of the distribution each span token was drawn from (detached)."""

    spans: list[torch.Tensor]
    branches: list[torch.Tensor]
    span_entropies: list[torch.Tensor] | None = None


def _inputs(rows: list[Row]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, list[tuple[int, int, int]], list[list[tuple[int, int]]]]:
    """(ids, positions, mask, picks, layout): picks are (row, position whose logits predict, target id);
    layout per row is (first pick, count) per span, then per branch."""
    width = max(row.length() for row in rows)
    packed = any(row.branches for row in rows)
    ids = torch.zeros(len(rows), width, dtype=torch.long)
    positions = torch.zeros(len(rows), width, dtype=torch.long)
    allowed = torch.zeros(len(rows), width, width, dtype=torch.bool) if packed else torch.zeros(len(rows), width, dtype=torch.long)
    picks: list[tuple[int, int, int]] = []
    layout: list[list[tuple[int, int]]] = []
    for r, row in enumerate(rows):
        n = len(row.base)
        ids[r, :n] = torch.tensor(row.base)
        positions[r, :n] = torch.arange(n)
        entries = []
        for start, end in row.spans:
            entries.append((len(picks), end - start))
            picks += [(r, p - 1, row.base[p]) for p in range(start, end)]
        if not packed:
            allowed[r, :n] = 1
            layout.append(entries)
            continue
        allowed[r, :n, :n] = torch.tril(torch.ones(n, n, dtype=torch.bool))
        offset = n
        for start, branch in row.branches:
            k = len(branch)
            ids[r, offset : offset + k] = torch.tensor(branch)
            positions[r, offset : offset + k] = torch.arange(start, start + k)
            allowed[r, offset : offset + k, :start] = True
            allowed[r, offset : offset + k, offset : offset + k] = torch.tril(torch.ones(k, k, dtype=torch.bool))
            entries.append((len(picks), k))
            picks += [(r, start - 1 if j == 0 else offset + j - 1, branch[j]) for j in range(k)]
            offset += k
        for pad in range(offset, width):
            allowed[r, pad, pad] = True  # padding sees itself only, so no row of the mask is empty
        layout.append(entries)
    # Packed: a 4D boolean mask (True = sees), passed through as it is; else the 2D padding mask, to which the
    # model adds causality.
    mask = allowed[:, None] if packed else allowed
    return ids, positions, mask, picks, layout


HEAD_CHUNK = 2048
"""Scored positions whose full-vocabulary logits exist at once (152k columns in fp32: 1.2 GB a chunk)."""


def _chunk_logprobs(
    head: torch.nn.Module, hidden: torch.Tensor, targets: torch.Tensor, temperature: float, entropies: bool
) -> tuple[torch.Tensor, torch.Tensor]:
    """(log-prob of each target, the entropy of its distribution (detached; empty unless asked)) at `temperature`."""
    logits = head(hidden).float() / temperature
    normaliser = torch.logsumexp(logits, dim=-1)
    entropy = normaliser.new_empty(0)
    if entropies:
        with torch.no_grad():
            entropy = normaliser - (torch.softmax(logits, dim=-1) * logits).sum(-1)
    return logits.gather(1, targets[:, None]).squeeze(1) - normaliser, entropy


def _target_logprobs(
    head: torch.nn.Module, hidden: torch.Tensor, targets: torch.Tensor, temperature: float, entropies: bool
) -> tuple[torch.Tensor, torch.Tensor]:
    """The head a chunk of positions at a time; with gradients on, each chunk is recomputed in the backward
    pass instead of keeping its logits (a step's logits would otherwise take tens of GB at 152k ids)."""
    parts = []
    for h, t in zip(hidden.split(HEAD_CHUNK), targets.split(HEAD_CHUNK)):
        if torch.is_grad_enabled():
            parts.append(checkpoint(_chunk_logprobs, head, h, t, temperature, entropies, use_reentrant=False))
        else:
            parts.append(_chunk_logprobs(head, h, t, temperature, entropies))
    return torch.cat([p[0] for p in parts]), torch.cat([p[1] for p in parts])


def score(policy: Policy, rows: list[Row], temperature: float = 1.0, entropies: bool = False) -> list[Scored]:
    """Scores a batch of rows in one forward at `temperature` (logits / T); differentiable with grad enabled."""
    lm = policy.model.get_base_model()
    device = policy.device
    ids, positions, mask, picks, layout = _inputs(rows)
    hidden = lm.get_decoder()(
        input_ids=ids.to(device), attention_mask=mask.to(device), position_ids=positions.to(device), use_cache=False
    ).last_hidden_state
    rows_index = torch.tensor([p[0] for p in picks], device=device)
    at = torch.tensor([p[1] for p in picks], device=device)
    targets = torch.tensor([p[2] for p in picks], device=device)
    token_logprobs, entropy = _target_logprobs(lm.get_output_embeddings(), hidden[rows_index, at], targets, temperature, entropies)
    results = []
    for row, entries in zip(rows, layout):
        pieces = [token_logprobs[first : first + count] for first, count in entries]
        spans = len(row.spans)
        span_entropies = [entropy[first : first + count] for first, count in entries[:spans]] if entropies else None
        results.append(Scored(spans=pieces[:spans], branches=pieces[spans:], span_entropies=span_entropies))
    return results
