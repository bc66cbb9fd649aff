"""Shared fixtures: the built environment, the SmolLM2 tokenizer's GGUF, tiny configs, scripted play."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import torch
from transformers import GenerationConfig, Qwen2Config, Qwen2ForCausalLM

from allocbench_rl.config import Config, EnvConfig, parse_config
from allocbench_rl.env import EnvClient, EnvError, Finished, Pending, Reply, StepResult, default_command, episode_request

# As the trainer runs on the CPU by default (cpuThreads: 1): on a busy 2-core machine a second thread
# mostly spins, and small models' backward passes get many times slower.
torch.set_num_threads(1)

REPO = Path(__file__).resolve().parents[2]
GGUF = REPO / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"

TINY: dict[str, Any] = {
    "model": {"kind": "tiny", "tokenizerGguf": str(GGUF), "lora": {"r": 8, "alpha": 16}},
    "env": {"length": 12},
    "steps": 2,
    "seedsPerStep": 2,
    "rolloutsPerSeed": 2,
    "decisionMode": "constrained",
    "learningRate": 1.0e-3,
    "critic": {"maxIterations": 100},
    "device": "cpu",
}


def merged(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in changes.items():
        out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


@pytest.fixture(scope="session")
def env_command() -> list[str]:
    try:
        return default_command()
    except EnvError as error:
        pytest.fail(str(error), pytrace=False)


@pytest.fixture(scope="session")
def gguf() -> Path:
    if not GGUF.exists():
        pytest.fail(f"{GGUF} is missing: run npm run fetch-model", pytrace=False)
    return GGUF


@pytest.fixture
def env(env_command: list[str]) -> Iterator[EnvClient]:
    with EnvClient(env_command) as client:
        yield client


@pytest.fixture
def tiny(gguf: Path) -> Callable[..., Config]:
    """A tiny-model config with changes (nested dicts merge)."""
    return lambda **changes: parse_config(merged(TINY, changes), REPO)


def eager(d: Pending) -> Reply:
    return Reply("First come, first kept.\nDECISION: KEEP")


def wait_one_repeat(d: Pending) -> Reply:
    """Pass a class's first sighting, keep it at its second."""
    return Reply(f"Seen {d.occurrence} time(s).\nDECISION: {'KEEP' if d.occurrence >= 2 else 'PASS'}")


def never(d: Pending) -> Reply:
    return Reply("DECISION: PASS")


def play(
    env: EnvClient, seed: int, decide: Callable[[Pending], Reply], config: EnvConfig, id: str = "scripted"
) -> tuple[list[tuple[Pending, StepResult]], Finished]:
    """One episode played by a scripted policy: each decision with what its reply did, and the outcome."""
    (decision,) = env.reset([episode_request(id, seed, config)])
    steps = []
    while isinstance(decision, Pending):
        (result,) = env.step({id: decide(decision)})
        steps.append((decision, result))
        decision = result.next
    env.close([id])
    return steps, decision


QWEN25_INSTRUCT_DEFAULTS = {"do_sample": True, "temperature": 0.7, "top_p": 0.8, "top_k": 20, "repetition_penalty": 1.05}
SUPPORT = 40
"""Tokens the model's fixed distribution spreads over (more than top-k 20 keeps)."""


@pytest.fixture(scope="session")
def kit(tmp_path_factory: pytest.TempPathFactory, env_command: list[str]) -> Path:
    """The GPU check's kit (bench/gpu_kit.py, without Node), built once: the environment's modules and Qwen2.5's
    tokenizer with Qwen2.5-Instruct's chat template."""
    import subprocess
    import sys

    out = tmp_path_factory.mktemp("gpu-kit") / "kit"
    built = subprocess.run([sys.executable, str(REPO / "rl" / "bench" / "gpu_kit.py"), "--out", str(out), "--no-node"], capture_output=True, text=True, timeout=300)
    if built.returncode != 0:
        pytest.fail(f"gpu_kit.py failed: {built.stderr}", pytrace=False)
    return out


@pytest.fixture(scope="session")
def fixed_model(tmp_path_factory: pytest.TempPathFactory, gguf: Path) -> tuple[Path, torch.Tensor]:
    """`fixed_distribution_model` saved once for the session: its directory and its logits."""
    from allocbench_rl.config import ModelConfig
    from allocbench_rl.model import load_tokenizer

    directory = tmp_path_factory.mktemp("qwen2-fixed-distribution")
    return directory, fixed_distribution_model(directory, load_tokenizer(ModelConfig(kind="gguf", path=str(gguf))))


def fixed_distribution_model(directory: Path, tokenizer: Any) -> torch.Tensor:
    """A Qwen2 whose logits are the same broad distribution after any context: every token embeds to one
    vector and the layers add nothing, so the head sees one hidden state. Saved with `save_pretrained`
    beside Qwen2.5-Instruct's sampling defaults; returns the logits it gives."""
    config = Qwen2Config(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, tie_word_embeddings=False, eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(0)
    model = Qwen2ForCausalLM(config)
    with torch.no_grad():
        model.model.embed_tokens.weight[:] = torch.ones(config.hidden_size)
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight.zero_()
            layer.mlp.down_proj.weight.zero_()
        head = torch.full((config.vocab_size,), -60.0)
        support = torch.arange(100, 100 + SUPPORT)
        head[support] = torch.linspace(20.0, 23.0, SUPPORT)  # positive logits, which a repetition penalty divides
        model.lm_head.weight[:] = 0
        model.lm_head.weight[:, 0] = head  # the normed hidden state is all ones: logit = head
    model.generation_config = GenerationConfig(**QWEN25_INSTRUCT_DEFAULTS, eos_token_id=tokenizer.eos_token_id)
    model.save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    with torch.no_grad():
        return model(input_ids=torch.tensor([[5, 6, 7]])).logits[0, -1]
