"""Does the trainer learn on the paper's urn? A CPU run in constrained mode with a small model.

Per step it prints the mean training reward against the two heuristics on the same streams and
first-sight commitment on the training rollouts; before training and every few steps, a greedy
held-out evaluation (seeds 2000 onwards, the same truncated length): first-sight commitment among
commitments and items per stream. A figure printed, not a timed test: `npm run bench:rl-cpu`.

    rl/.venv/bin/python rl/bench/cpu_learning.py [--steps 30] [--out DIR] ...

The defaults (a 4-layer, 128-wide Llama with LoRA r16, lr 3e-4, T = 30, 30 steps × 16 seeds × 4
rollouts) take about 15 minutes on 2 cores. The tiny model cannot see whether a colour is a repeat
well; what it learns first is when to start keeping (pass the first draws, where the generator puts a
trap), which already lowers first-sight commitment and raises items per stream.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

RL = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(RL))

from allocbench_rl.config import parse_config  # noqa: E402
from allocbench_rl.env import EnvClient, default_command  # noqa: E402
from allocbench_rl.evaluate import Evaluation, evaluate  # noqa: E402
from allocbench_rl.train import Trainer  # noqa: E402

GGUF = RL.parent / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"


def percent(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.0%}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--seeds-per-step", type=int, default=16)
    parser.add_argument("--rollouts", type=int, default=4)
    parser.add_argument("--length", type=int, default=30)
    parser.add_argument("--learning-rate", type=float, default=3e-4)
    parser.add_argument("--lora-rank", type=int, default=16)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--eval-seeds", type=int, default=12, help="held-out seeds 2000 onwards")
    parser.add_argument("--eval-every", type=int, default=5)
    parser.add_argument("--run-seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="the run directory (default: a temporary one)")
    args = parser.parse_args()

    config = parse_config(
        {
            "model": {
                "kind": "tiny",
                "tokenizerGguf": str(GGUF),
                "tiny": {"hidden": args.hidden, "layers": args.layers, "heads": 4, "kvHeads": 2, "intermediate": 4 * args.hidden},
                "lora": {"r": args.lora_rank, "alpha": 2 * args.lora_rank},
            },
            "env": {"length": args.length},
            "decisionMode": "constrained",
            "steps": args.steps,
            "seedsPerStep": args.seeds_per_step,
            "rolloutsPerSeed": args.rollouts,
            "learningRate": args.learning_rate,
            "runSeed": args.run_seed,
            "device": "cpu",
        },
        RL,
    )
    eval_seeds = list(range(2000, 2000 + args.eval_seeds))
    out = args.out or Path(tempfile.mkdtemp(prefix="rl-cpu-learning-"))
    print(
        f"tiny Llama (hidden {args.hidden}, {args.layers} layers, SmolLM2 tokenizer) + LoRA r{args.lora_rank}, constrained, "
        f"T={args.length}, B=3, {args.steps} steps × {args.seeds_per_step} seeds × {args.rollouts} rollouts, "
        f"lr {args.learning_rate:g}; held-out seeds {eval_seeds[0]}-{eval_seeds[-1]} greedy; run dir {out}",
        flush=True,
    )
    started = time.perf_counter()
    curve: list[tuple[int, Evaluation]] = []
    with EnvClient(default_command()) as env:
        trainer = Trainer(config, out, env, log=lambda line: print(line, flush=True))
        heuristics = env.baselines(eval_seeds, 3, args.length)
        print(f"held-out heuristics: eager {heuristics['eager']:.2f}, wait-one-repeat {heuristics['waitOneRepeat']:.2f} items per stream")

        def held_out(after: int) -> None:
            e = evaluate(trainer.policy, env, config, eval_seeds)
            curve.append((after, e))
            print(f"  eval after {after:2d} steps: first-sight {percent(e.first_sight)} of {e.commitments} commitments, {e.items_per_stream:.2f} items/stream", flush=True)

        held_out(trainer.next_step)
        for step in range(trainer.next_step, args.steps):
            line = trainer.step(step, force_gate=True)
            gate = f" · gate {'passed' if line['gate']['passed'] else 'failed: ' + ', '.join(line['gate']['failed'])}" if "gate" in line else ""
            h = line["heuristics"]
            print(
                f"step {step + 1:2d}: train reward {line['meanReward']:5.2f} (eager {h['eager']:.2f}, wait-one-repeat {h['waitOneRepeat']:.2f}) · "
                f"first-sight {percent(line['firstSight'])} · kl {line['meanKl']:.4f} · {line['seconds']['total']:.0f} s{gate}",
                flush=True,
            )
            if (step + 1) % args.eval_every == 0 or step + 1 == args.steps:
                held_out(step + 1)
    print("held-out curve (steps: first-sight, items/stream): " + "; ".join(f"{s}: {percent(e.first_sight)}, {e.items_per_stream:.2f}" for s, e in curve))
    print(f"total {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
