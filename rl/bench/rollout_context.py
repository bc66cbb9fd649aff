"""How much each decision costs the model on the CPU: tokens run through it per decision, against the
conversation's length and against what re-encoding it would take, and one outer step's time by part.

For each CPU config (the smoke run's constrained decisions, and free text on the same tiny model) it runs
steps of the real trainer and prints, per decision: the tokens the engine encoded; the turn's new tokens
plus the reply (the target: the engine should encode no more); and what encoding the whole conversation
again took before each episode kept its KV cache (free text: twice, to generate and to score; constrained:
once, with the candidates). Then the step's seconds: rollout, reference, critic, update.

    rl/.venv/bin/python rl/bench/rollout_context.py [--steps 2] [--length 60]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

RL = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(RL))

from allocbench_rl.config import load_config, parse_config, to_dict  # noqa: E402
from allocbench_rl.env import EnvClient, default_command  # noqa: E402
from allocbench_rl.rollout import EpisodeRollout, RolloutStats  # noqa: E402
from allocbench_rl.train import Trainer  # noqa: E402


def per_decision(episodes: list[EpisodeRollout]) -> tuple[float, float, float]:
    """(new tokens plus the reply, what re-encoding took, the conversation's length) per decision. Before
    each episode kept its context, a free reply cost the conversation twice (generation, then a scoring
    forward) and a constrained choice the conversation once with its candidates."""
    new, again, length = [], [], []
    for e in episodes:
        end = 0
        for d in e.decisions:
            start, stop = d.span
            unchosen = sum(len(ids) for k, ids in enumerate(d.candidate_ids or []) if k != d.chosen)
            new.append(stop - end + unchosen)
            again.append((1 if d.candidate_ids else 2) * start + (stop - start) + unchosen)
            length.append(stop)
            end = stop
    return statistics.fmean(new), statistics.fmean(again), statistics.fmean(length)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--length", type=int, default=60, help="stream length T (the paper's 60)")
    args = parser.parse_args()
    smoke = to_dict(load_config(RL / "configs" / "smoke-cpu.yaml"))
    base = smoke | {"steps": args.steps, "env": smoke["env"] | {"length": args.length}}
    configs = {
        "constrained (smoke-cpu)": base,
        "free text, 24-token replies": base | {"decisionMode": "free", "maxNewTokens": 24},
    }
    print(f"tiny Llama of smoke-cpu.yaml, T = {args.length}, {base['seedsPerStep']} seeds × {base['rolloutsPerSeed']} rollouts, "
          f"{args.steps} steps each; figures per decision")
    with EnvClient(default_command()) as env:
        for name, raw in configs.items():
            config = parse_config(raw, RL / "configs")
            trainer = Trainer(config, Path(tempfile.mkdtemp(prefix="rl-context-")), env, log=lambda _: None)
            for step in range(args.steps):
                started, stats = time.perf_counter(), RolloutStats()
                episodes = trainer.rollouts(step, stats)
                line = trainer.learn(step, episodes, stats, started, force_gate=True)
                target, again, length = per_decision(episodes)
                seconds = " · ".join(f"{part} {value:.1f} s" for part, value in line["seconds"].items())
                print(f"{name}, step {step + 1}: encoded {line['tokensEncodedPerDecision']:.1f} tokens "
                      f"(new tokens + reply {target:.1f}; re-encoding {again:.0f}; conversation {length:.0f}) · {seconds}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
