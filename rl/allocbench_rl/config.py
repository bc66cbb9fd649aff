"""The trainer's configuration: YAML with camelCase keys, frozen dataclasses with snake_case fields.

Every field defaults to the paper's Run 2 (Appendix F), so a config names only what it changes.
Errors are one line that names the field, because a user sees them.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

EVALUATION_SEEDS = range(2000, 2024)
"""The paper's held-out seeds: never trained on."""


class ConfigError(ValueError):
    """A bad configuration or run directory: the message is the one line the user sees."""


@dataclass(frozen=True)
class LoraConfig:
    """The adapter. It has no dropout: the update must score log-probs as the rollout sampled them."""

    r: int = 32
    alpha: int = 64
    targets: tuple[str, ...] = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


@dataclass(frozen=True)
class TinyConfig:
    """The shape of `kind: tiny`, a randomly initialised Llama for CPU tests and benches."""

    hidden: int = 64
    layers: int = 2
    heads: int = 4
    kv_heads: int = 2
    intermediate: int = 256


@dataclass(frozen=True)
class ModelConfig:
    kind: Literal["gguf", "hf", "tiny"] = "gguf"
    path: str | None = None
    tokenizer_gguf: str | None = None
    quantize4bit: bool = False
    gradient_checkpointing: bool = False
    lora: LoraConfig = field(default_factory=LoraConfig)
    tiny: TinyConfig = field(default_factory=TinyConfig)


@dataclass(frozen=True)
class EnvConfig:
    rung: Literal["R0", "probe", "R1", "R2"] = "R0"
    budget: int = 3
    length: int = 60
    announce_n: bool = True
    reskin: Literal["ball", "chest", "quiver", "cauldron"] = "ball"


@dataclass(frozen=True)
class CriticConfig:
    hidden: int = 64
    learning_rate: float = 1.0e-3
    max_iterations: int = 500
    patience: int = 25
    privileged: bool = True


@dataclass(frozen=True)
class GateConfig:
    enabled: bool = True


@dataclass(frozen=True)
class KlConfig:
    """The penalty toward the reference policy (the base model, adapter off), weighted by `klWeight`.

    Per reply token, with d = log π − log π_ref at the sampling temperature: k1 = d, k2 = d²/2,
    k3 = exp(−d) − 1 + d. In the loss, k2's gradient on the policy's own samples is the gradient of
    KL(π‖π_ref); k3's is that of the reverse direction KL(π_ref‖π); k1's is ∇log π alone, which pulls
    nowhere (the authors' form). In the reward, k1 is the classic shaped reward whose policy gradient is
    KL(π‖π_ref)'s. The default is k2 in the loss: the right gradient, and the critic's targets stay the
    items collected.
    """

    estimator: Literal["k1", "k2", "k3"] = "k2"
    placement: Literal["loss", "reward"] = "loss"


@dataclass(frozen=True)
class Config:
    model: ModelConfig = field(default_factory=ModelConfig)
    env: EnvConfig = field(default_factory=EnvConfig)
    algorithm: Literal["ppo", "grpo"] = "ppo"
    steps: int = 20
    seeds_per_step: int = 25
    first_seed: int = 9000
    rollouts_per_seed: int = 4
    temperature: float = 1.2
    max_new_tokens: int = 512
    decision_mode: Literal["free", "constrained"] = "free"
    learning_rate: float = 6.0e-5
    weight_decay: float = 0.01
    grad_clip: float = 1.0
    clip: float | None = 0.2
    """PPO's ratio clip ε; null: no clip (the plain policy gradient of the authors' GRPO pilots)."""
    kl_weight: float = 0.05
    kl: KlConfig = field(default_factory=KlConfig)
    logprob_temperature: Literal["sampling", "one"] = "sampling"
    """Log-probs (the ratio, the KL, the records) from logits divided by the sampling temperature, as the
    distribution sampled; `one` keeps the authors' temperature-1 scoring, a replica of their trainer."""
    epochs: int = 1
    critic: CriticConfig = field(default_factory=CriticConfig)
    gate: GateConfig = field(default_factory=GateConfig)
    generation_batch: int = 100
    """Episodes in flight at once: the slots of the rollout engine's KV cache, each holding one episode's context
    from turn to turn; the step's other episodes join as episodes end. With `rolloutContext`, it fixes the
    cache's size: slots × context × (2 · layers · kv heads · head dim · 2 bytes in bf16), 192 KiB a token for
    a 14B, so 37.5 GiB for 100 slots of 2,048 tokens."""
    rollout_context: int = 2048
    """Tokens of KV cache per slot: the longest episode (prompts and replies) a rollout can hold."""
    sampler: Literal["neutral", "ollama-defaults"] = "neutral"
    """`neutral` samples softmax(logits / T) alone; `ollama-defaults` as the authors' Ollama did (sampling.py)."""
    update_batch: int = 4
    """Episodes per forward and backward of the update (and of the reference pass), grouped by length."""
    importance_cap: float | None = 2.0
    """Truncated importance sampling: each decision's term is weighted by min(π_learner / π_sampler, cap), the
    learner's log-probs against those the sampler recorded (their gap is numerical, and by design in the
    ollama-defaults sampler); null turns the correction off."""
    run_seed: int = 0
    device: Literal["auto", "cpu", "cuda"] = "auto"
    cpu_threads: int = 1
    """torch's threads on the CPU: fixed, so a resumed run computes exactly as the first did (and one
    thread is much the fastest for small models on a shared 2-core machine, where more threads spin)."""
    keep_checkpoints: Literal["last", "all"] = "last"

    def step_seeds(self, step: int) -> list[int]:
        """Step k trains on fresh seeds firstSeed + seedsPerStep·k onwards."""
        first = self.first_seed + self.seeds_per_step * step
        return list(range(first, first + self.seeds_per_step))


RESUMABLE_CHANGES = (("model", "path"), ("model", "tokenizerGguf"), ("generationBatch",), ("rolloutContext",))
"""Fields that may differ when a run is resumed: paths (a moved checkout or model file) and the rollout
engine's memory (what fits the machine), which does not change what is sampled."""

_RESKINS = {"ball", "chest", "quiver", "cauldron"}


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _value(kind: Any, raw: Any, where: str) -> Any:
    origin = typing.get_origin(kind)
    if dataclasses.is_dataclass(kind):
        if not isinstance(raw, dict):
            raise ConfigError(f"config: {where} must be a mapping")
        return _build(kind, raw, f"{where}.")
    if origin is Literal:
        if raw not in typing.get_args(kind):
            allowed = " | ".join(str(a) for a in typing.get_args(kind))
            raise ConfigError(f"config: {where} must be one of {allowed}, not {raw!r}")
        return raw
    if origin in (types.UnionType, typing.Union):
        if raw is None:
            return None
        (inner,) = [a for a in typing.get_args(kind) if a is not type(None)]
        return _value(inner, raw, where)
    if origin is tuple:
        if not isinstance(raw, list) or not raw or not all(isinstance(x, str) and x for x in raw):
            raise ConfigError(f"config: {where} must be a non-empty list of names")
        return tuple(raw)
    if kind is bool:
        if not isinstance(raw, bool):
            raise ConfigError(f"config: {where} must be true or false")
        return raw
    if kind is int:
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise ConfigError(f"config: {where} must be an integer")
        return raw
    if kind is float:
        if isinstance(raw, bool) or not isinstance(raw, (int, float)):
            raise ConfigError(f"config: {where} must be a number")
        return float(raw)
    if kind is str:
        if not isinstance(raw, str) or not raw:
            raise ConfigError(f"config: {where} must be a non-empty string")
        return raw
    raise TypeError(f"config: no reader for {kind}")


def _build(cls: type, data: dict[str, Any], prefix: str = "") -> Any:
    hints = typing.get_type_hints(cls)
    known = {camel(f.name): f for f in dataclasses.fields(cls)}
    unknown = [key for key in data if key not in known]
    if cls is LoraConfig and "dropout" in unknown:
        raise ConfigError(f"config: {prefix}dropout is not a setting: the adapter has no dropout, so the update scores as the rollout did")
    if unknown:
        raise ConfigError(f"config: unknown field {prefix}{unknown[0]}")
    values = {known[key].name: _value(hints[known[key].name], raw, f"{prefix}{key}") for key, raw in data.items()}
    return cls(**values)


def _check(config: Config) -> None:
    def need(ok: bool, message: str) -> None:
        if not ok:
            raise ConfigError(f"config: {message}")

    m, e = config.model, config.env
    need(m.kind == "tiny" or m.path is not None, f"model.path is required for kind {m.kind}")
    need(m.kind != "tiny" or m.tokenizer_gguf is not None, "model.tokenizerGguf is required for kind tiny")
    need(m.lora.r >= 1 and m.lora.alpha >= 1, "model.lora.r and model.lora.alpha must be at least 1")
    t = m.tiny
    need(min(t.hidden, t.layers, t.heads, t.kv_heads, t.intermediate) >= 1, "model.tiny sizes must be at least 1")
    need(t.hidden % t.heads == 0 and t.heads % t.kv_heads == 0, "model.tiny.hidden must divide by heads, heads by kvHeads")
    need(1 <= e.budget <= 8, "env.budget must be in 1..8")
    need(1 <= e.length <= 10_000, "env.length must be in 1..10000")
    need(e.reskin in _RESKINS, "env.reskin must be ball | chest | quiver | cauldron")
    for name in ("steps", "seeds_per_step", "rollouts_per_seed", "max_new_tokens", "epochs", "generation_batch", "rollout_context", "update_batch", "cpu_threads"):
        need(getattr(config, name) >= 1, f"{camel(name)} must be at least 1")
    need(config.first_seed >= 0 and config.run_seed >= 0, "firstSeed and runSeed must not be negative")
    need(config.temperature > 0, "temperature must be positive (rollouts sample)")
    need(config.learning_rate > 0 and config.weight_decay >= 0, "learningRate must be positive, weightDecay not negative")
    clip_ok = config.clip is None or config.clip > 0
    need(config.algorithm != "grpo" or config.kl.placement == "loss", "kl.placement reward needs algorithm ppo (GRPO's advantages come from the episode's items)")
    need(config.grad_clip > 0 and clip_ok and config.kl_weight >= 0, "gradClip and clip must be positive (clip may be null), klWeight not negative")
    need(config.importance_cap is None or config.importance_cap >= 1, "importanceCap must be at least 1 (or null: no correction)")
    c = config.critic
    need(c.hidden >= 1 and c.learning_rate > 0 and c.max_iterations >= 1 and c.patience >= 1, "critic settings must be positive")
    last = config.first_seed + config.seeds_per_step * config.steps - 1
    overlap = max(config.first_seed, EVALUATION_SEEDS.start) <= min(last, EVALUATION_SEEDS.stop - 1)
    need(not overlap, f"training seeds {config.first_seed}-{last} overlap the evaluation seeds 2000-2023")


def _resolve(path: str | None, base: Path) -> str | None:
    """A relative path is read from the config's folder; one that is not there stays as written (a hub id)."""
    if path is None:
        return None
    p = Path(path).expanduser()
    if p.is_absolute():
        return str(p)
    local = (base / p).resolve()
    return str(local) if local.exists() or path.startswith(".") else path


def parse_config(data: Any, base: Path) -> Config:
    """A validated config from parsed YAML; relative model paths are taken from `base` (the config's folder)."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError("config: the top level must be a mapping")
    config: Config = _build(Config, data)
    m = config.model
    model = dataclasses.replace(m, path=_resolve(m.path, base), tokenizer_gguf=_resolve(m.tokenizer_gguf, base))
    config = dataclasses.replace(config, model=model)
    _check(config)
    return config


def load_config(path: str | Path) -> Config:
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as error:
        raise ConfigError(f"config: cannot read {p}: {error.strerror}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        first = re.sub(r"\s+", " ", str(error)).strip()
        raise ConfigError(f"config: {p} is not valid YAML: {first}") from None
    return parse_config(data, p.resolve().parent)


def to_dict(value: Any) -> Any:
    """The config as the YAML/JSON shape (camelCase keys, lists for tuples)."""
    if dataclasses.is_dataclass(value):
        return {camel(f.name): to_dict(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple):
        return [to_dict(v) for v in value]
    return value


def from_dict(data: dict[str, Any]) -> Config:
    """A config stored by `to_dict` (paths already resolved)."""
    config: Config = _build(Config, data)
    _check(config)
    return config
