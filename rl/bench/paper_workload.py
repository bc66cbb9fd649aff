"""The paper's RL workload as the authors' logs record it, and a sampler that forces replies to its shape.

Random weights never keep and rarely stop, so a bench on them would play every episode to the stream's end at
the reply limit. The benches (and only they) force what the authors' policy did instead: each episode's
decisions and reply lengths, and its keep points. The figures come from the authors' public repository
DragonWrangler25/AlloBench, runs/rl_urn_pilot_a2/rl_gate.log (the same file as runs/box_logs_2026-07-19/
rl_gate.log; commit 5a97586), outer step 0 of their Run 2, seeds 9000-9024 × 4:

- 597 decisions over 100 episodes (their advantage counts: keep_hot 208, keep_trap 92, pass_hot_first 124,
  pass_hot_later 99, pass_trap 74) and 300 keeps (`n_keeps`): every episode ended at its third keep;
- episode lengths in their trainer's tokens ("sequence lengths: min=138 p50=387 p95=883 max=1318") and 20 of
  them one by one (every fifth episode of the update: `seqlen=...`). Their trainer renders an episode without
  the game's system prompt (scripts/rl/train_lora.py `build_example` over `run_episode`'s messages), so a
  length is Qwen's default system turn (21 tokens) and, per decision, the user turn with the assistant header
  (35 tokens for "Draw n of 60: ...") and the reply with its end of turn and newline.

Reconstructed: 100 episode lengths, the 20 logged ones five times each with the smallest and largest copies
replaced by the logged minimum and maximum; decisions in proportion to each length past the preamble (at
least 3), 597 in all by largest remainders; each episode's replies of one length, the rest of its length
shared over its decisions (sampled tokens with the end of turn; at least what "DECISION: KEEP" takes).
Episodes pass until their last three decisions and keep at each of those. The worst case: 60 decisions (no
keep) of 512-token replies, the authors' limit (scripts/ladder/urn_session.py, `max_tokens` 512).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import torch

from allocbench_rl.sampling import Sampler

SOURCE = "DragonWrangler25/AlloBench runs/rl_urn_pilot_a2/rl_gate.log, outer step 0"
EPISODES, DECISIONS, BUDGET = 100, 597, 3
LOGGED_LENGTHS = [431, 268, 282, 335, 360, 637, 344, 231, 269, 828, 246, 362, 244, 951, 218, 435, 661, 259, 883, 407]
SHORTEST, LONGEST = 138, 1318
PREAMBLE, PER_DECISION = 21, 36
"""Their trainer's tokens: Qwen's default system turn; a decision's user turn, assistant header and the newline
after the reply's end of turn (the reply's own tokens, end of turn included, come on top)."""
WORST = {"decisions": 60, "reply": 512}


@dataclass(frozen=True)
class Shape:
    decisions: int
    reply: int
    """Sampled tokens of each reply, the end of turn included."""


def paper_shapes() -> list[Shape]:
    """The 100 episodes of the authors' step 0, reconstructed (see the module's docstring)."""
    lengths = sorted(LOGGED_LENGTHS * (EPISODES // len(LOGGED_LENGTHS)))
    lengths[0], lengths[-1] = SHORTEST, LONGEST
    spans = [length - PREAMBLE for length in lengths]
    low, high = 0.0, 1.0
    for _ in range(100):  # the scale at which max(3, span · scale) sums to the logged decisions
        scale = (low + high) / 2
        low, high = (scale, high) if sum(max(BUDGET, s * scale) for s in spans) < DECISIONS else (low, scale)
    shares = [max(BUDGET, s * scale) for s in spans]
    decisions = [int(x) for x in shares]
    for i in sorted(range(EPISODES), key=lambda i: decisions[i] - shares[i])[: DECISIONS - sum(decisions)]:
        decisions[i] += 1
    return [Shape(d, round(s / d - PER_DECISION)) for d, s in zip(decisions, spans)]


def worst_shapes() -> list[Shape]:
    return [Shape(WORST["decisions"], WORST["reply"])] * EPISODES


def scripts(shapes: list[Shape], episode_ids: list[str], tokenizer: Any, stop: int) -> dict[str, list[list[int]]]:
    """Per episode (shapes shuffled over the ids, seeded), its replies: filler, then the decision, then the stop
    token, `reply` tokens in all (at least the decision and the stop); a reply at the limit has no stop token.
    Passes until the last `BUDGET` decisions, keeps at those."""
    filler = tokenizer("Weighing the draws seen so far against the keeps left. ", add_special_tokens=False)["input_ids"]
    decide = {action: tokenizer(f"\nDECISION: {action}", add_special_tokens=False)["input_ids"] for action in ("KEEP", "PASS")}
    order = list(shapes)
    random.Random(0).shuffle(order)
    out = {}
    for id, shape in zip(episode_ids, order):
        replies = []
        for j in range(shape.decisions):
            keeps = shape.decisions < WORST["decisions"] and j >= shape.decisions - BUDGET
            ending = decide["KEEP" if keeps else "PASS"] + ([] if shape.reply >= WORST["reply"] else [stop])
            padding = max(0, shape.reply - len(ending))
            replies.append((filler * (padding // len(filler) + 1))[:padding] + ending)
        out[id] = replies
    return out


class ScriptedSampler(Sampler):
    """Draws each episode's scripted reply for its n-th turn whatever the logits (a bench's forcing: random
    weights never keep); each token's log-prob is the model's, at the scoring temperature, so the update
    scores what was "sampled" as it would a real draw. The neutral draw is still computed (and discarded), so
    a forced step costs what a sampled one does."""

    name = "scripted"

    def __init__(self, replies: dict[str, list[list[int]]], scoring_temperature: float = 1.0):
        super().__init__(scoring_temperature, scoring_temperature)
        self.replies = replies
        self.turns: dict[str, list[int]] = {}
        """Per episode, the lengths of the turns seen, in order: a new length is its next turn."""
        self.width = max(len(r) for episode in replies.values() for r in episode)
        self.table: torch.Tensor | None = None

    def prepare(self, rows: list[tuple[str, list[int], list[int]]], device: torch.device, slots: int) -> None:
        table = torch.zeros((slots, self.width), dtype=torch.long)
        for row, (id, turn, _) in enumerate(rows):
            seen = self.turns.setdefault(id, [])
            if not seen or seen[-1] != len(turn):
                seen.append(len(turn))
            reply = self.replies[id][len(seen) - 1]
            table[row, : len(reply)] = torch.tensor(reply, dtype=torch.long)
        if self.table is None or self.table.shape != table.shape:
            self.table = table.to(device)
        else:
            self.table.copy_(table)  # in place: a captured decoding window reads this buffer

    def draw(self, logits: torch.Tensor, u: torch.Tensor, count: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        super().draw(logits, u, count)  # the work of a real draw, its token discarded
        tokens = self.table[torch.arange(logits.shape[0], device=logits.device), count.clamp(max=self.width - 1)]
        return tokens, self._logprobs(logits, tokens)
