"""Shared fixtures: the built environment, the SmolLM2 tokenizer's GGUF, tiny configs, scripted play."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import torch

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
