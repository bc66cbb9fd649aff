"""Token log-probabilities of replies, many per forward, by packing sequences that share a prefix.

A row is a base sequence (an episode, or a prompt and its reply) plus branches: short continuations of a
prefix of the base (the constrained mode's other candidates). All go into one sequence under a 4D mask
in which a branch sees its base prefix and itself, with the positions it would have had alone, so one
forward scores the whole conversation and every alternative. The LM head runs only on the positions
scored, so a long episode over a large vocabulary costs little memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

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
    """Per-token log-probs (temperature 1) of each span, then of each branch, in the row's order."""

    spans: list[torch.Tensor]
    branches: list[torch.Tensor]


def score(policy: Policy, rows: list[Row]) -> list[Scored]:
    """Scores a batch of rows in one forward; differentiable when called with grad enabled."""
    lm = policy.model.get_base_model()
    device = policy.device
    # The mask takes the hidden states' dtype, which QLoRA's preparation makes fp32 (embeddings upcast).
    dtype = lm.get_input_embeddings().weight.dtype
    width = max(row.length() for row in rows)
    ids = torch.zeros(len(rows), width, dtype=torch.long)
    positions = torch.zeros(len(rows), width, dtype=torch.long)
    allowed = torch.zeros(len(rows), width, width, dtype=torch.bool)
    picks: list[tuple[int, int, int]] = []  # (row, position whose logits predict, target id)
    layout: list[list[tuple[int, int]]] = []  # per row: (first pick, count) per span then per branch
    for r, row in enumerate(rows):
        n = len(row.base)
        ids[r, :n] = torch.tensor(row.base)
        positions[r, :n] = torch.arange(n)
        allowed[r, :n, :n] = torch.tril(torch.ones(n, n, dtype=torch.bool))
        entries = []
        for start, end in row.spans:
            entries.append((len(picks), end - start))
            picks += [(r, p - 1, row.base[p]) for p in range(start, end)]
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
    mask = torch.zeros(allowed.shape, dtype=dtype).masked_fill_(~allowed, torch.finfo(dtype).min)[:, None]
    hidden = lm.get_decoder()(
        input_ids=ids.to(device), attention_mask=mask.to(device), position_ids=positions.to(device), use_cache=False
    ).last_hidden_state
    rows_index = torch.tensor([p[0] for p in picks], device=device)
    at = torch.tensor([p[1] for p in picks], device=device)
    targets = torch.tensor([p[2] for p in picks], device=device)
    logits = lm.get_output_embeddings()(hidden[rows_index, at]).float()
    token_logprobs = logits.gather(1, targets[:, None]).squeeze(1) - torch.logsumexp(logits, dim=-1)
    results = []
    for row, entries in zip(rows, layout):
        pieces = [token_logprobs[first : first + count] for first, count in entries]
        results.append(Scored(spans=pieces[: len(row.spans)], branches=pieces[len(row.spans) :]))
    return results
