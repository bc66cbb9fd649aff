"""The decoder's forward as the rollout engine runs it: a Llama-family model (Llama, Qwen2) over a KV cache of
fixed slots, computed with the model's own modules and weights (LoRA merged into them during rollouts, or
applied by peft's layers where the base is quantized).

The cache holds `slots` sequences of up to `capacity` tokens for every layer, allocated once: its bytes are
fixed by those two numbers. A token's keys and values are written at a storage index of its slot (its
position, except for the constrained mode's candidates, stored side by side after the prompt), and attention
reads a slot's stored prefix in place through `grouped_attention` (no concatenation, no copy per query head).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .attention import grouped_attention

ARCHITECTURES = ("llama", "qwen2")


@dataclass(frozen=True)
class Chunk:
    """New tokens of one slot for a prefill forward: `ids` at `positions`, their keys and values stored at
    `storage`; `sees` [len(ids), max(storage) + 1] says which stored entries each token attends to."""

    slot: int
    ids: list[int]
    positions: list[int]
    storage: list[int]
    sees: torch.Tensor


def causal_chunk(slot: int, ids: list[int], start: int) -> Chunk:
    """Tokens continuing a slot that holds `start` tokens: each sees the slot's prefix and itself."""
    n = len(ids)
    sees = torch.ones(n, start + n, dtype=torch.bool).tril(start)
    return Chunk(slot, ids, list(range(start, start + n)), list(range(start, start + n)), sees)


class KVCache:
    """Keys and values [layers, slots, kv_heads, capacity, head_dim], allocated once."""

    def __init__(self, layers: int, slots: int, kv_heads: int, capacity: int, head_dim: int, dtype: torch.dtype, device: torch.device):
        shape = (layers, slots, kv_heads, capacity, head_dim)
        self.keys = torch.zeros(shape, dtype=dtype, device=device)
        self.values = torch.zeros(shape, dtype=dtype, device=device)
        self.capacity = capacity

    @property
    def nbytes(self) -> int:
        return self.keys.nbytes + self.values.nbytes

    def move(self, source: int, target: int, storage: slice, to: slice | None = None) -> None:
        """Copies a slot's stored entries `storage` (every layer) to slot `target` at `to` (the same by default)."""
        to = to or storage
        for tensor in (self.keys, self.values):
            tensor[:, target, :, to] = tensor[:, source, :, storage].clone()


def _rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return x * cos + torch.cat((-x[..., half:], x[..., :half]), dim=-1) * sin


class Decoder:
    """The model's decoder layers, norm and head over a `KVCache`."""

    def __init__(self, lm: torch.nn.Module, slots: int, capacity: int):
        config = lm.config
        if config.model_type not in ARCHITECTURES or "sliding_attention" in (getattr(config, "layer_types", None) or []):
            raise ValueError(f"the rollout engine runs {' and '.join(ARCHITECTURES)} decoders with full attention, not {config.model_type}")
        model = lm.get_decoder()
        self.embed, self.layers, self.norm, self.head = model.embed_tokens, model.layers, model.norm, lm.get_output_embeddings()
        self.heads, self.kv_heads = config.num_attention_heads, config.num_key_value_heads
        self.head_dim = getattr(config, "head_dim", None) or config.hidden_size // self.heads
        self.scale = self.head_dim**-0.5
        weight = self.embed.weight
        self.device, self.dtype = weight.device, weight.dtype
        self.cache = KVCache(len(self.layers), slots, self.kv_heads, capacity, self.head_dim, self.dtype, self.device)
        positions = torch.arange(capacity, device=self.device)[None]
        cos, sin = model.rotary_emb(weight[:1], positions)  # the model's own RoPE, one row per position
        self.cos, self.sin = cos[0], sin[0]

    def _layer(self, layer: torch.nn.Module, h: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, attend) -> torch.Tensor:
        attention, n = layer.self_attn, h.shape[0]
        x = layer.input_layernorm(h)
        q = _rotate(attention.q_proj(x).view(n, self.heads, self.head_dim), cos[:, None], sin[:, None])
        k = _rotate(attention.k_proj(x).view(n, self.kv_heads, self.head_dim), cos[:, None], sin[:, None])
        v = attention.v_proj(x).view(n, self.kv_heads, self.head_dim)
        h = h + attention.o_proj(attend(q, k, v).reshape(n, -1))
        x = layer.post_attention_layernorm(h)
        mlp = layer.mlp
        return h + mlp.down_proj(mlp.act_fn(mlp.gate_proj(x)) * mlp.up_proj(x))

    def prefill(self, chunks: list[Chunk]) -> torch.Tensor:
        """Runs the chunks' tokens (all slots in one forward, no padding); returns their last hidden states,
        in order [sum of lengths, hidden]."""
        cat = lambda values: torch.tensor([v for c in chunks for v in values(c)], device=self.device)  # noqa: E731
        ids, positions, storage = cat(lambda c: c.ids), cat(lambda c: c.positions), cat(lambda c: c.storage)
        slots = cat(lambda c: [c.slot] * len(c.ids))
        bounds, masks, first = [], [], 0
        for c in chunks:
            bounds.append((first, first + len(c.ids), c.slot, c.sees.shape[1]))
            masks.append(c.sees.to(self.device)[None, None])
            first += len(c.ids)
        cos, sin = self.cos[positions], self.sin[positions]

        def attend(layer_index: int):
            keys, values = self.cache.keys[layer_index], self.cache.values[layer_index]

            def run(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
                keys[slots, :, storage] = k
                values[slots, :, storage] = v
                outs = []
                for (a, b, slot, end), mask in zip(bounds, masks):
                    query = q[a:b].transpose(0, 1)[None]
                    out = grouped_attention(query, keys[slot : slot + 1, :, :end], values[slot : slot + 1, :, :end], mask, self.scale)
                    outs.append(out[0].transpose(0, 1))
                return torch.cat(outs)

            return run

        h = self.embed(ids)
        for index, layer in enumerate(self.layers):
            h = self._layer(layer, h, cos, sin, attend(index))
        return self.norm(h)

    def decode(self, tokens: torch.Tensor, positions: torch.Tensor, key_length: int) -> torch.Tensor:
        """One token for each of slots 0..rows-1 at `positions` (all below `key_length`); returns the last hidden
        states [rows, hidden]. Only tensor operations of fixed shapes: capturable as a CUDA graph."""
        rows = tokens.shape[0]
        order = torch.arange(rows, device=self.device)
        mask = (torch.arange(key_length, device=self.device) <= positions[:, None])[:, None, None]
        cos, sin = self.cos[positions], self.sin[positions]

        def attend(layer_index: int):
            keys, values = self.cache.keys[layer_index], self.cache.values[layer_index]

            def run(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
                keys[order, :, positions] = k
                values[order, :, positions] = v
                out = grouped_attention(q[:, :, None], keys[:rows, :, :key_length], values[:rows, :, :key_length], mask, self.scale)
                return out

            return run

        h = self.embed(tokens)
        for index, layer in enumerate(self.layers):
            h = self._layer(layer, h, cos, sin, attend(index))
        return self.norm(h)

    def logits(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.head(hidden).float()
