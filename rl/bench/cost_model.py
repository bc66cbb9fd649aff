"""One outer step's cost for a model of any depth: the work the rollout engine did (its forwards, as it ran
them), priced per forward, with the reference pass, the update, the critic, the commit and the writes.

The work comes from a real run (`Work.from_run`: an engine's record of its prefill and decoding forwards,
which does not depend on the model's size once the replies are forced) or, for the worst case, from its
shape (`Work.uniform`: every episode alike). The prices come either from points measured on a GPU at two
depths (`Fitted`, the GPU check: a per-layer slope and what lies outside the layers) or from a card's
bandwidth and bf16 rate (`Roofline`: a floor, what no engine can beat). Memory: the weights, the KV cache, the
adapter with its optimizer state, and the activations, against the card.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

GIB = 2**30


@dataclass(frozen=True)
class ModelShape:
    layers: int
    hidden: int
    intermediate: int
    heads: int
    kv_heads: int
    vocab: int
    lora_rank: int = 32

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads

    @property
    def layer_params(self) -> int:
        kv = self.kv_heads * self.head_dim
        attention = self.hidden * (self.hidden + 2 * kv) + (self.hidden + 2 * kv) + self.hidden * self.hidden
        return attention + 3 * self.hidden * self.intermediate + 2 * self.hidden

    @property
    def params(self) -> int:
        """Embeddings and head untied (Qwen2.5-14B), the layers, the final norm."""
        return 2 * self.vocab * self.hidden + self.layers * self.layer_params + self.hidden

    @property
    def lora_params(self) -> int:
        """LoRA on every projection of every layer (the paper's targets)."""
        kv = self.kv_heads * self.head_dim
        shapes = [(self.hidden, self.hidden), (self.hidden, kv), (self.hidden, kv), (self.hidden, self.hidden)]
        shapes += [(self.hidden, self.intermediate)] * 2 + [(self.intermediate, self.hidden)]
        return self.layers * sum(self.lora_rank * (a + b) for a, b in shapes)

    def kv_bytes_per_token(self, dtype_bytes: int = 2) -> int:
        return 2 * self.layers * self.kv_heads * self.head_dim * dtype_bytes


QWEN25_14B = ModelShape(layers=48, hidden=5120, intermediate=13824, heads=40, kv_heads=8, vocab=152064)


@dataclass(frozen=True)
class Card:
    name: str
    memory: float
    """Bytes."""
    bandwidth: float
    """Bytes per second that a copy reaches."""
    bf16: float
    """FLOP/s that a bf16 matmul reaches."""


H200 = Card("H200 (141 GB)", 141e9, 4.3e12, 790e12)
"""The rates measured on the project's H200 (docs: DESIGN.md, 'The GPU machine')."""
H100 = Card("H100 SXM (80 GB)", 80e9, 3.35e12 * 4.3 / 4.8, 790e12)
"""Its 3.35 TB/s at the share of the H200's 4.8 that a copy reached there; the same GH100 compute."""


@dataclass
class Work:
    """A step's forwards and token counts."""

    decode: list[tuple[int, int, int]] = field(default_factory=list)
    """(rows, key length, steps) per decoding window."""
    prefill: list[tuple[int, int]] = field(default_factory=list)
    """(slots, tokens) per prefill forward."""
    scored_tokens: int = 0
    """Tokens the reference pass and the update each run over."""
    decisions: int = 0
    longest: int = 0
    """The longest episode, in tokens: what a slot must hold."""

    @classmethod
    def from_run(cls, forwards: list[tuple[str, int, int]], steps_per_window: int, rollouts: list[Any]) -> Work:
        work = cls()
        for kind, a, b in forwards:
            if kind == "decode":
                work.decode.append((a, b, steps_per_window))
            else:
                work.prefill.append((a, b))
        unchosen = sum(len(ids) for e in rollouts for d in e.decisions for k, ids in enumerate(d.candidate_ids or []) if k != d.chosen)
        work.scored_tokens = sum(len(e.ids) for e in rollouts) + unchosen
        work.decisions = sum(len(e.decisions) for e in rollouts)
        work.longest = max(len(e.ids) for e in rollouts)
        return work

    @classmethod
    def uniform(cls, episodes: int, decisions: int, reply: int, first_prompt: int, turn_prompt: int, slots: int) -> Work:
        """Every episode alike, `slots` at a time (waves): a prefill per turn, then `reply` decoding steps."""
        work = cls()
        for first in range(0, episodes, slots):
            rows = min(slots, episodes - first)
            context = 0
            for j in range(decisions):
                prompt = first_prompt if j == 0 else turn_prompt
                work.prefill.append((rows, rows * prompt))
                context += prompt
                work.decode.append((rows, context + reply, reply))
                context += reply
        work.longest = first_prompt + (decisions - 1) * turn_prompt + decisions * reply
        work.scored_tokens = episodes * work.longest
        work.decisions = episodes * decisions
        return work

    @property
    def decode_steps(self) -> int:
        return sum(steps for _, _, steps in self.decode)

    @property
    def prefill_tokens(self) -> int:
        return sum(tokens for _, tokens in self.prefill)


class Prices(Protocol):
    def decode_step(self, rows: int, key_length: int) -> float: ...
    def prefill(self, slots: int, tokens: int) -> float: ...
    def reference(self, tokens: int) -> float: ...
    def update(self, tokens: int) -> float: ...


@dataclass(frozen=True)
class Roofline:
    """The floor of each forward on a card: the bytes it must read at the copy rate, or its FLOPs at the bf16
    rate, whichever is longer (the model in bf16, LoRA merged for decoding)."""

    model: ModelShape
    card: Card

    def _layers_flops(self, tokens: int) -> float:
        return 2 * (self.model.params - self.model.vocab * self.model.hidden) * tokens  # the embedding is a lookup

    def decode_step(self, rows: int, key_length: int) -> float:
        read = 2 * self.model.params + rows * key_length * self.model.kv_bytes_per_token()
        return max(read / self.card.bandwidth, self._layers_flops(rows) / self.card.bf16)

    def prefill(self, slots: int, tokens: int) -> float:
        return max(2 * self.model.params / self.card.bandwidth, self._layers_flops(tokens) / self.card.bf16)

    def reference(self, tokens: int) -> float:
        return self._layers_flops(tokens) / self.card.bf16

    def update(self, tokens: int) -> float:
        """Forward, the forward again (gradient checkpointing) and the backward (twice a forward)."""
        return 4 * self._layers_flops(tokens) / self.card.bf16


def least_squares(rows: list[list[float]], values: list[float]) -> list[float]:
    import torch

    solution = torch.linalg.lstsq(torch.tensor(rows, dtype=torch.float64), torch.tensor(values, dtype=torch.float64)[:, None]).solution
    return solution[:, 0].tolist()


@dataclass(frozen=True)
class Fitted:
    """Prices measured at two depths and extended to `layers`: each coefficient is what lies outside the layers
    plus `layers` times its per-layer slope. Decoding: a + b·rows + c·rows·keys a step; prefill: a + b·slots +
    c·tokens a forward; reference and update: seconds a token."""

    decode: list[float]
    prefill_: list[float]
    reference_: float
    update_: float

    @classmethod
    def at(cls, layers: int, measured: dict[int, dict[str, Any]]) -> Fitted:
        (small, a), (large, b) = sorted(measured.items())
        extend = lambda x, y: x + (y - x) / (large - small) * (layers - small)  # noqa: E731
        return cls(
            [extend(x, y) for x, y in zip(a["decode"], b["decode"])],
            [extend(x, y) for x, y in zip(a["prefill"], b["prefill"])],
            extend(a["reference"], b["reference"]),
            extend(a["update"], b["update"]),
        )

    def decode_step(self, rows: int, key_length: int) -> float:
        return self.decode[0] + self.decode[1] * rows + self.decode[2] * rows * key_length

    def prefill(self, slots: int, tokens: int) -> float:
        return self.prefill_[0] + self.prefill_[1] * slots + self.prefill_[2] * tokens

    def reference(self, tokens: int) -> float:
        return self.reference_ * tokens

    def update(self, tokens: int) -> float:
        return self.update_ * tokens


def fit_depth(decode_points: list[tuple[int, int, float]], prefill_points: list[tuple[int, int, float]], reference: float, update: float) -> dict[str, Any]:
    """One depth's coefficients from its points: (rows, key length, seconds a step), (slots, tokens, seconds)."""
    return {
        "decode": least_squares([[1, r, r * k] for r, k, _ in decode_points], [t for _, _, t in decode_points]),
        "prefill": least_squares([[1, s, n] for s, n, _ in prefill_points], [t for _, _, t in prefill_points]),
        "reference": reference,
        "update": update,
    }


def project(work: Work, prices: Prices, fixed: dict[str, float]) -> dict[str, float]:
    """Seconds by phase: rollouts (decoding, prefill, and the `fixed` host, merge and environment time), the
    reference pass, the update, and the `fixed` critic and commit."""
    decode = sum(steps * prices.decode_step(rows, key) for rows, key, steps in work.decode)
    prefill = sum(prices.prefill(slots, tokens) for slots, tokens in work.prefill)
    phases = {
        "decode": decode,
        "prefill": prefill,
        "rollout other": fixed.get("rollout other", 0.0),
        "reference": prices.reference(work.scored_tokens),
        "critic": fixed.get("critic", 0.0),
        "update": prices.update(work.scored_tokens),
        "commit": fixed.get("commit", 0.0),
    }
    phases["total"] = sum(phases.values())
    return phases


def memory(model: ModelShape, card: Card, slots: int, capacity: int, activations: float) -> dict[str, float]:
    """Bytes at the rollouts' peak and at the update's: bf16 weights, the KV cache (rollouts), the fp32 adapter
    with its gradient and AdamW's two moments, and `activations`; `fits` says whether the larger fits the card."""
    weights = 2 * model.params
    adapter = 16 * model.lora_params
    kv = slots * capacity * model.kv_bytes_per_token()
    out = {"weights": weights, "kv": kv, "adapter and optimizer": adapter, "activations": activations}
    out["rollout peak"] = weights + kv + adapter
    out["update peak"] = weights + adapter + activations
    out["fits"] = float(max(out["rollout peak"], out["update peak"]) <= card.memory)
    return out


def slots_that_fit(model: ModelShape, card: Card, capacity: int, reserve: float) -> int:
    """The most slots of `capacity` tokens beside the weights, the adapter and its optimizer, and `reserve`."""
    free = card.memory - 2 * model.params - 16 * model.lora_params - reserve
    return max(0, int(free // (capacity * model.kv_bytes_per_token())))


def describe(phases: dict[str, float]) -> str:
    parts = " + ".join(f"{name} {seconds:.1f}" for name, seconds in phases.items() if name != "total")
    return f"{phases['total']:.0f} s ({parts})"
