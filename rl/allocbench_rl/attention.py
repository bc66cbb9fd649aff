"""Attention that reads grouped key-value heads as they are stored, for the rollout engine and for transformers.

A query head h reads key-value head h // g (g query heads per key-value head, heads numbered group by group).
Folding each group's g query heads into the query length ([b, kv_heads, g·q, d]) makes it an ordinary attention
over kv_heads heads: SDPA reads each key and value once, on every backend. transformers' own SDPA path repeats
them to the query heads (`repeat_kv`) whenever there is a mask or more than one query, and SDPA's `enable_gqa`
repeats them on kernels without native grouping. Registered with transformers as `grouped_sdpa` (with SDPA's
masks), so the reference pass and the update use it too (model.py loads every model with it).
"""

from __future__ import annotations

from typing import Any

import torch
from transformers import AttentionInterface
from transformers.masking_utils import ALL_MASK_ATTENTION_FUNCTIONS, AttentionMaskInterface

NAME = "grouped_sdpa"


def grouped_attention(
    query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, mask: torch.Tensor | None, scale: float, dropout: float = 0.0
) -> torch.Tensor:
    """query [b, heads, q, d], key and value [b, kv_heads, k, d], mask [b or 1, 1, q, k] (True = sees; None: causal,
    the queries being the last q of the k positions) → [b, heads, q, d]."""
    batch, heads, length, dim = query.shape
    groups = heads // key.shape[1]
    if mask is None:
        mask = torch.ones(length, key.shape[2], dtype=torch.bool, device=query.device).tril(key.shape[2] - length)[None, None]
    if groups > 1:
        query = query.reshape(batch, key.shape[1], groups * length, dim)
        # A query row of the fold is (head in group, position): each group member reads the position's mask row.
        mask = mask.expand(-1, -1, groups, -1) if length == 1 else mask.repeat(1, 1, groups, 1)
    out = torch.nn.functional.scaled_dot_product_attention(query, key, value, attn_mask=mask, dropout_p=dropout, scale=scale)
    return out.reshape(batch, heads, length, dim)


def _for_transformers(
    module: torch.nn.Module, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, attention_mask: torch.Tensor | None,
    dropout: float = 0.0, scaling: float | None = None, **_: Any,
) -> tuple[torch.Tensor, None]:
    if attention_mask is not None and attention_mask.dtype != torch.bool:
        raise TypeError("grouped_sdpa takes boolean masks (True = sees)")
    scale = scaling if scaling is not None else query.shape[-1] ** -0.5
    return grouped_attention(query, key, value, attention_mask, scale, dropout).transpose(1, 2).contiguous(), None


AttentionInterface.register(NAME, _for_transformers)
AttentionMaskInterface.register(NAME, ALL_MASK_ATTENTION_FUNCTIONS["sdpa"])
