"""The rollout engine on the CPU: tokens encoded per second of rollouts at 16 and 100 episodes a step, slots
encoded per token encoded, aten ops per decoder layer a forward, and the update's importance weights.

The smoke config's tiny model (random weights, the SmolLM2 tokenizer) plays R0 at T = 60, B = 3, through the
real trainer: one outer step per row (rollouts, reference, critic, update, commit). Constrained decisions end
by the game's rules (the random choice between the KEEP and PASS replies keeps about every other time, so
episodes end unevenly); free-text replies of random weights never keep, so every episode plays all its
decisions at the reply limit. Aten ops are counted by a dispatch mode over a short free-text rollout: those
dispatched between the start of decoder layer 0 and the start of layer 1, per forward (prefill or decode),
with and without view ops (a view launches no kernel).

    rl/.venv/bin/python rl/bench/rollout_engine.py [--episodes 16 100] [--free-length 30]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

RL = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(RL))

from allocbench_rl.config import load_config, parse_config, to_dict  # noqa: E402
from allocbench_rl.env import EnvClient, default_command  # noqa: E402
from allocbench_rl.rollout import RolloutStats  # noqa: E402
from allocbench_rl.train import Trainer  # noqa: E402


class OpCounter(TorchDispatchMode):
    """Counts the aten ops dispatched while `counting` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.counting, self.ops, self.kernels = False, 0, 0

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if self.counting:
            self.ops += 1
            self.kernels += not func.is_view
        return func(*args, **(kwargs or {}))


def ops_per_layer_forward(trainer: Trainer) -> tuple[float, float]:
    """(aten ops, non-view ops) dispatched in decoder layer 0 per forward, over one short rollout."""
    layers = trainer.policy.model.get_base_model().get_decoder().layers
    counter, forwards = OpCounter(), [0]

    def enter_first(*_: Any) -> None:
        counter.counting = True
        forwards[0] += 1

    def enter_second(*_: Any) -> None:
        counter.counting = False

    hooks = [layers[0].input_layernorm.register_forward_pre_hook(enter_first), layers[1].input_layernorm.register_forward_pre_hook(enter_second)]
    try:
        with counter:
            trainer.rollouts(0)
    finally:
        for hook in hooks:
            hook.remove()
    return counter.ops / forwards[0], counter.kernels / forwards[0]


def config_for(smoke: dict[str, Any], mode: str, episodes: int, length: int, reply: int) -> Any:
    raw = smoke | {
        "steps": 1, "seedsPerStep": episodes // 4, "rolloutsPerSeed": 4, "decisionMode": mode, "maxNewTokens": reply,
        "env": smoke["env"] | {"length": length}, "gate": {"enabled": False},
    }
    return parse_config(raw, RL / "configs")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, nargs="+", default=[16, 100], help="episodes a step (multiples of 4)")
    parser.add_argument("--length", type=int, default=60, help="stream length T of the constrained rows")
    parser.add_argument("--free-length", type=int, default=30, help="stream length T of the free-text rows")
    parser.add_argument("--reply", type=int, default=16, help="the free-text reply limit")
    args = parser.parse_args()
    smoke = to_dict(load_config(RL / "configs" / "smoke-cpu.yaml"))
    print(f"tiny Llama of smoke-cpu.yaml ({smoke['model']['tiny']['layers']} layers, width {smoke['model']['tiny']['hidden']}), "
          f"R0, B = 3, one thread; torch {torch.__version__}", flush=True)
    with EnvClient(default_command()) as env:
        probe = Trainer(config_for(smoke, "free", 4, 4, 8), Path(tempfile.mkdtemp(prefix="rl-engine-")), env, log=lambda _: None)
        ops, kernels = ops_per_layer_forward(probe)
        print(f"aten ops per decoder layer a forward: {ops:.1f} ({kernels:.1f} not views)", flush=True)
        del probe
        for mode, length in (("constrained", args.length), ("free", args.free_length)):
            for episodes in args.episodes:
                config = config_for(smoke, mode, episodes, length, args.reply)
                trainer = Trainer(config, Path(tempfile.mkdtemp(prefix="rl-engine-")), env, log=lambda _: None)
                started, stats = time.perf_counter(), RolloutStats()
                rollouts = trainer.rollouts(0, stats)
                line = trainer.learn(0, rollouts, stats, started, force_gate=True)
                seconds = line["seconds"]
                decisions = [len(e.decisions) for e in rollouts]
                tis = line.get("importanceWeights")
                weights = "" if tis is None else f" · importance weights {tis['min']:.6f}–{tis['max']:.6f} (mean {tis['mean']:.6f})"
                print(
                    f"{mode}, T = {length}{'' if mode == 'constrained' else f', {args.reply}-token replies'}, {episodes} episodes "
                    f"({min(decisions)}–{max(decisions)} decisions, mean {statistics.fmean(decisions):.1f}): rollouts {seconds['rollout']:.1f} s, "
                    f"{stats.tokens_encoded / seconds['rollout']:,.0f} tokens encoded/s, {stats.slots_encoded / stats.tokens_encoded:.2f} slots "
                    f"per token · reference {seconds['reference']:.1f} s · update {seconds['update']:.1f} s{weights}",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
