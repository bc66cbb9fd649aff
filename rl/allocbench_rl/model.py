"""The policy: a causal LM with a LoRA adapter, and its reference (the same model with the adapter off).

Three sources, nothing downloaded: a GGUF file (transformers dequantizes it), an HF directory or a hub id
already in the local cache, or `tiny` (a small Llama built from a config with seeded random weights and
the real SmolLM2 tokenizer from its GGUF, for CPU tests and benches). 4-bit NF4 only where the config
asks, a GPU is present and bitsandbytes is installed; bf16 on a GPU (the frozen weights too), fp32 on the
CPU. No dropout anywhere. Attention is `grouped_sdpa` (attention.py): the key-value heads read as stored.
"""

from __future__ import annotations

import functools
import importlib.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from peft import LoraConfig, PeftModel, get_peft_model, prepare_model_for_kbit_training
from peft.tuners.lora import LoraLayer
from peft.utils import set_peft_model_state_dict
from safetensors.torch import load_file
from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaConfig, LlamaForCausalLM

from . import attention
from .chat import ChatRenderer
from .config import ConfigError, ModelConfig

ADAPTER_WEIGHTS = "adapter_model.safetensors"


def pick_device(name: str, cpu_threads: int) -> torch.device:
    """The device; on the CPU, a fixed thread count and deterministic algorithms (an exact resume); on a GPU,
    attention off cuDNN."""
    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError("config: device is cuda but no GPU is available")
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    device = torch.device(name)
    if device.type == "cpu":
        torch.set_num_threads(cpu_threads)
        torch.use_deterministic_algorithms(True)
    else:
        # cuDNN's attention builds an execution plan for each new shape, and a decode step's key length is new at
        # every step: on one H100 (torch 2.11) rollouts ran 9 times slower with it than on the flash and
        # memory-efficient kernels (bench:rl-gpu, docs/rl-study.md).
        torch.backends.cuda.enable_cudnn_sdp(False)
    return device


def _gguf(path: str) -> dict[str, str]:
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"model: no GGUF file at {p}")
    return {"pretrained_model_name_or_path": str(p.parent), "gguf_file": p.name}


@functools.lru_cache(maxsize=4)
def _tokenizer(kind: str, path: str) -> Any:
    """Cached: reading a GGUF's tokenizer takes seconds, and tests and the server load it repeatedly."""
    source = _gguf(path) if kind == "gguf" else {"pretrained_model_name_or_path": path, "local_files_only": True}
    tokenizer = AutoTokenizer.from_pretrained(**source)
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def load_tokenizer(config: ModelConfig) -> Any:
    if config.kind == "tiny":
        return _tokenizer("gguf", config.tokenizer_gguf)
    if config.kind == "gguf":
        return _tokenizer("gguf", config.path)
    try:
        return _tokenizer("hf", config.path)
    except OSError:
        raise ConfigError(f"model: no tokenizer at {config.path} (a directory, or a hub id in the local cache)") from None


def _tiny(config: ModelConfig, tokenizer: Any) -> LlamaForCausalLM:
    t = config.tiny
    shape = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=t.hidden,
        intermediate_size=t.intermediate,
        num_hidden_layers=t.layers,
        num_attention_heads=t.heads,
        num_key_value_heads=t.kv_heads,
        max_position_embeddings=16384,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        attn_implementation=attention.NAME,
    )
    return LlamaForCausalLM(shape)


def _base(config: ModelConfig, tokenizer: Any, device: torch.device, dtype: torch.dtype) -> Any:
    if config.kind == "tiny":
        return _tiny(config, tokenizer).to(device=device, dtype=dtype)
    options: dict[str, Any] = {"dtype": dtype, "attn_implementation": attention.NAME}
    if device.type == "cuda":
        options["device_map"] = {"": device.index or 0}  # weights straight onto the GPU, not through host memory
    if config.quantize4bit and device.type == "cuda" and _has_bitsandbytes():
        from transformers import BitsAndBytesConfig

        options["quantization_config"] = BitsAndBytesConfig(
            load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True, bnb_4bit_compute_dtype=dtype
        )
    elif config.quantize4bit:
        why = "needs a GPU" if device.type != "cuda" else "needs bitsandbytes, which is not installed"
        print(f"note: model.quantize4bit {why}; loading the base unquantized in {str(dtype).removeprefix('torch.')}", file=sys.stderr)
    source = _gguf(config.path) if config.kind == "gguf" else {"pretrained_model_name_or_path": config.path, "local_files_only": True}
    try:
        model = AutoModelForCausalLM.from_pretrained(**source, **options)
    except OSError:
        raise ConfigError(f"model: cannot load {config.path} (a directory, or a hub id in the local cache)") from None
    return model if "device_map" in options else model.to(device)


def _has_bitsandbytes() -> bool:
    return importlib.util.find_spec("bitsandbytes") is not None


def _without_dropout(model: Any) -> None:
    """Every dropout off, in train mode too: the update must score a reply as the rollout did, so that the
    ratio of unchanged weights is 1 (as trl's disable_dropout does)."""
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    for key, value in model.config.to_dict().items():
        if key.endswith("dropout") and isinstance(value, float) and value > 0:
            setattr(model.config, key, 0.0)
    for module in model.modules():
        if hasattr(module, "attention_dropout") and isinstance(module.attention_dropout, float):
            module.attention_dropout = 0.0


def _frozen_in(dtype: torch.dtype, model: Any) -> None:
    """QLoRA's preparation upcasts every non-quantized weight (embeddings, norms, the LM head) to fp32; the
    frozen ones go back to the compute dtype (the adapter stays fp32 for the optimizer)."""
    for parameter in model.parameters():
        if not parameter.requires_grad and parameter.dtype == torch.float32:
            parameter.data = parameter.data.to(dtype)


@dataclass
class Policy:
    """The trained model, its tokenizer and renderer, and where it computes."""

    model: PeftModel
    tokenizer: Any
    renderer: ChatRenderer
    device: torch.device
    quantized: bool = False
    _pinned_base: list[torch.Tensor] | None = field(default=None, repr=False)
    """The base weights under the adapter, copied once (they never train): what `merged` restores."""

    @contextmanager
    def reference(self) -> Iterator[None]:
        """The reference policy of the KL penalty: the same weights with the adapter off."""
        with self.model.disable_adapter():
            yield

    @contextmanager
    def merged(self) -> Iterator[bool]:
        """The adapter merged into the base weights (for rollouts: one matrix per projection), and the base
        restored bit for bit from a pinned copy afterwards (merging and unmerging in bf16 drifts). Yields False
        and merges nothing where the base is quantized or the adapter is off (the reference policy)."""
        layers = [m for m in self.model.modules() if isinstance(m, LoraLayer)]
        if self.quantized or not layers or any(m.disable_adapters for m in layers):
            yield False
            return
        bases = [m.get_base_layer().weight for m in layers]
        if self._pinned_base is None:
            pin = self.device.type == "cuda"
            self._pinned_base = [w.detach().to("cpu", copy=True).pin_memory() if pin else w.detach().clone() for w in bases]
        with torch.no_grad():
            for m in layers:
                m.merge()
        try:
            yield True
        finally:
            with torch.no_grad():
                for m, weight, pinned in zip(layers, bases, self._pinned_base):
                    weight.copy_(pinned, non_blocking=True)
                    m.merged_adapters.clear()

    def trainable(self) -> list[torch.nn.Parameter]:
        return [p for p in self.model.parameters() if p.requires_grad]

    def save_adapter(self, directory: Path) -> None:
        self.model.save_pretrained(str(directory))

    def load_adapter(self, directory: Path) -> None:
        """Overwrites the adapter's weights with a saved adapter's, exactly."""
        result = set_peft_model_state_dict(self.model, load_file(str(directory / ADAPTER_WEIGHTS), device=str(self.device)))
        unexpected = getattr(result, "unexpected_keys", [])
        if unexpected:
            raise ConfigError(f"adapter {directory} does not fit this model (e.g. {unexpected[0]})")


def load_policy(config: ModelConfig, device: torch.device, seed: int) -> Policy:
    """The base model with a fresh LoRA adapter (B = 0, so the policy starts as the base); seeded."""
    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    tokenizer = load_tokenizer(config)
    torch.manual_seed(seed)
    base = _base(config, tokenizer, device, dtype)
    base.config.use_cache = False
    _without_dropout(base)
    quantized = getattr(base, "is_loaded_in_4bit", False)
    if quantized:
        base = prepare_model_for_kbit_training(base, use_gradient_checkpointing=config.gradient_checkpointing)
        _frozen_in(dtype, base)
    elif config.gradient_checkpointing:
        base.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    lora = LoraConfig(
        r=config.lora.r,
        lora_alpha=config.lora.alpha,
        lora_dropout=0.0,
        target_modules=list(config.lora.targets),
        bias="none",
        task_type="CAUSAL_LM",
    )
    torch.manual_seed(seed)
    model = get_peft_model(base, lora)
    return Policy(model=model, tokenizer=tokenizer, renderer=ChatRenderer(tokenizer), device=device, quantized=quantized)
