"""`python -m allocbench_rl.train --config C --out DIR`: the outer loop of Appendix F, resumable.

Each step: rollouts on fresh seeds (continuously batched), the heuristics on the same streams, returns,
the critic fit and advantages (PPO) or group z-scores (GRPO), the step-0 gate, one PPO update, and a
commit of the run directory. Rerunning the same command resumes after the last finished step.
Exit codes: 0 done, 2 bad input, 3 the step-0 gate failed (unless --force-gate), 1 anything else.
"""

from __future__ import annotations

import platform
import random
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy
import peft
import torch
import transformers

from .chat import ChatError
from .checkpoint import RunDir
from .command_line import CommandParser
from .config import Config, ConfigError, load_config, to_dict
from .critic import Critic
from .env import EnvClient, EnvError, parse_command
from .gate import GateResult, check
from .grpo import group_advantages
from .model import load_policy, pick_device
from .ppo import decision_kl, ppo_update, reference_units, rollout_kl, scoring_temperature
from .returns import reward_to_go
from .rollout import EpisodeRollout, RolloutStats, run_rollouts
from .engine import EngineFactory, TorchEngine, stop_ids
from .sampling import describe, sampling_settings


class GateFailed(RuntimeError):
    """The step-0 gate found a wrong sign: the message is the one line naming them."""


def step_seed(run_seed: int, step: int) -> int:
    """The seed of a step's sampling: a function of the run's seed and the step only, so a step replays."""
    return (run_seed * 1_000_003 + step * 7919 + 12_345) % (2**63)


def settings_for(config: Config, features: tuple[str, ...], sampling: dict[str, Any]) -> dict[str, Any]:
    versions = {"python": platform.python_version(), "torch": torch.__version__, "transformers": transformers.__version__, "peft": peft.__version__}
    return {"config": to_dict(config), "versions": versions, "features": list(features), "sampling": sampling}


def _behaviour(rollouts: list[EpisodeRollout]) -> dict[str, Any]:
    decisions = [d for e in rollouts for d in e.decisions]
    keeps = [d for d in decisions if d.action == "commit"]
    items = [e.items for e in rollouts]
    return {
        "meanReward": statistics.fmean(items),
        "rewardStd": statistics.pstdev(items),
        "rewardMin": min(items),
        "rewardMax": max(items),
        "firstSight": sum(d.occurrence == 1 for d in keeps) / len(keeps) if keeps else None,
        "meanLateness": statistics.fmean(d.occurrence - 1 for d in keeps) if keeps else None,
        "keeps": len(keeps),
        "unresolvedRate": sum(not d.reading.get("resolved", False) for d in decisions) / len(decisions),
    }


def _records(rollouts: list[EpisodeRollout], returns: list[list[float]], values: list[list[float]] | None, advantages: list[list[float]]) -> list[dict[str, Any]]:
    records = []
    for i, episode in enumerate(rollouts):
        for j, d in enumerate(episode.decisions):
            record: dict[str, Any] = {
                "episode": episode.id,
                "seed": episode.seed,
                "rollout": episode.rollout,
                "t": d.t,
                "classId": d.class_id,
                "occurrence": d.occurrence,
                "role": d.role,
                "features": d.features,
                "prompt": d.prompt,
                "reply": {"text": d.reply.text, "toolCalls": list(d.reply.tool_calls)},
                "tokenIds": d.token_ids,
                "behaviourLogprob": d.behaviour_logprob,
            }
            if d.candidate_ids is None:
                record["tokenLogprobs"] = d.token_logprobs
            else:
                record |= {"candidateLogprobs": d.candidate_logprobs, "chosen": d.chosen}
            record |= {
                "reading": d.reading,
                "reward": d.reward,
                "done": d.done,
                "return": returns[i][j],
                "value": values[i][j] if values is not None else None,
                "advantage": advantages[i][j],
            }
            records.append(record)
    return records


def _memory_mb(device: torch.device) -> dict[str, float]:
    """Since the last reset: on a GPU, the peak of what tensors took and what the allocator reserved beside
    them; on the CPU, the process's peak RSS (not reset: since the start)."""
    if device.type == "cuda":
        return {"allocatedMb": torch.cuda.max_memory_allocated(device) / 2**20, "reservedMb": torch.cuda.max_memory_reserved(device) / 2**20}
    return {"rssMb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}  # KiB on Linux


def progress_line(line: dict[str, Any], steps: int) -> str:
    h = line["heuristics"]
    sight = "n/a" if line["firstSight"] is None else f"{line['firstSight']:.0%}"
    return (
        f"step {line['step'] + 1}/{steps} · reward {line['meanReward']:.1f} (eager {h['eager']:.1f}, "
        f"wait-one-repeat {h['waitOneRepeat']:.1f}) · first-sight {sight} · kl {line['meanKl']:.3f} · "
        f"entropy {line['entropy']:.2f} · {line['seconds']['total']:.0f} s"
    )


class Trainer:
    """The model, optimizer, critic and run directory of one training run."""

    def __init__(self, config: Config, out: Path, env: EnvClient, log: Callable[[str], None] = print):
        self.config, self.env, self.log = config, env, log
        self.run = RunDir(out)
        self.run.claim()
        features = env.probe_features(config.env)
        device = pick_device(config.device, config.cpu_threads)
        self.policy = load_policy(config.model, device, config.run_seed)
        self.sampling = sampling_settings(
            self.policy, config.sampler, config.temperature, scoring_temperature(config), sorted(stop_ids(self.policy))
        )
        self.run.prepare(settings_for(config, features, self.sampling))
        self.optimizer = torch.optim.AdamW(self.policy.trainable(), lr=config.learning_rate, weight_decay=config.weight_decay)
        self.critic = Critic(config.critic, features, config.run_seed) if config.algorithm == "ppo" else None
        self.history = self.run.finished_steps()
        last = self.history[-1]["step"] if self.history else None
        state = self.run.recover(last)
        if state is not None:
            self._load(state)
        self.next_step = 0 if last is None else last + 1

    def _load(self, directory: Path) -> None:
        self.policy.load_adapter(directory / "adapter")
        self.optimizer.load_state_dict(torch.load(directory / "optimizer.pt", map_location=self.policy.device))
        if self.critic is not None:
            self.critic.load_state_dict(torch.load(directory / "critic.pt"))
        rng = torch.load(directory / "rng.pt", weights_only=False)
        torch.set_rng_state(rng["torch"])
        numpy.random.set_state(rng["numpy"])
        random.setstate(rng["python"])

    def _save(self, directory: Path) -> None:
        self.policy.save_adapter(directory / "adapter")
        torch.save(self.optimizer.state_dict(), directory / "optimizer.pt")
        if self.critic is not None:
            torch.save(self.critic.state_dict(), directory / "critic.pt")
        torch.save({"torch": torch.get_rng_state(), "numpy": numpy.random.get_state(), "python": random.getstate()}, directory / "rng.pt")

    def rollouts(self, step: int, stats: RolloutStats | None = None, engine: EngineFactory = TorchEngine) -> list[EpisodeRollout]:
        c = self.config
        seed = step_seed(c.run_seed, step)
        torch.manual_seed(seed)
        episodes = [(f"{step}-{s}-{r}", s, r) for s in c.step_seeds(step) for r in range(c.rollouts_per_seed)]
        return run_rollouts(
            self.policy,
            self.env,
            c.env,
            episodes,
            constrained=c.decision_mode == "constrained",
            temperature=c.temperature,
            max_new_tokens=c.max_new_tokens,
            slots=c.generation_batch,
            context=c.rollout_context,
            seed=seed,
            sampler=c.sampler,
            scoring_temperature=scoring_temperature(c),
            stats=stats,
            engine=engine,
        )

    def _clock(self) -> float:
        """Now, once the device has done what was asked of it (a GPU runs behind the host)."""
        if self.policy.device.type == "cuda":
            torch.cuda.synchronize(self.policy.device)
        return time.perf_counter()

    def _phase_memory(self) -> dict[str, float]:
        """The memory peak of the phase that just ended; the next phase's peak starts from here."""
        memory = _memory_mb(self.policy.device)
        if self.policy.device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(self.policy.device)
        return memory

    def step(self, step: int, force_gate: bool = False) -> dict[str, Any]:
        """Runs and commits one outer step; returns its steps.jsonl line."""
        started = time.perf_counter()
        self._phase_memory()
        stats = RolloutStats()
        return self.learn(step, self.rollouts(step, stats), stats, started, force_gate)

    def learn(self, step: int, rollouts: list[EpisodeRollout], stats: RolloutStats, started: float, force_gate: bool = False) -> dict[str, Any]:
        """The rest of a step from its rollouts (begun at `started`): critic, gate, update, commit."""
        c = self.config
        rolled = self._clock()
        memory = {"rollout": self._phase_memory()}
        seeds = c.step_seeds(step)
        heuristics = self.env.baselines(seeds, c.env.budget, c.env.length)
        reference = reference_units(self.policy, rollouts, c)
        referenced = self._clock()
        memory["reference"] = self._phase_memory()

        rewards = [[float(d.reward) for d in e.decisions] for e in rollouts]
        if c.kl.placement == "reward" and c.kl_weight > 0:
            penalties = decision_kl(rollouts, reference, c.kl.estimator)
            rewards = [[r - c.kl_weight * k for r, k in zip(rs, ks)] for rs, ks in zip(rewards, penalties)]
        returns = [reward_to_go(rs) for rs in rewards]
        fit, values = None, None
        if self.critic is not None:
            features = [d.features for e in rollouts for d in e.decisions]
            fit = self.critic.fit(features, [g for r in returns for g in r])
            flat = iter(self.critic.values(features))
            values = [[next(flat) for _ in e.decisions] for e in rollouts]
            advantages = [[g - v for g, v in zip(r, vs)] for r, vs in zip(returns, values)]
        else:
            scalars = group_advantages([e.seed for e in rollouts], [float(e.items) for e in rollouts])
            advantages = [[a] * len(e.decisions) for a, e in zip(scalars, rollouts)]
        gate: GateResult | None = None
        if step == 0 and self.critic is not None:
            gate = check([(d.action, d.role, d.occurrence, a) for e, adv in zip(rollouts, advantages) for d, a in zip(e.decisions, adv)])
            if not gate.passed and c.gate.enabled:
                if not force_gate:
                    raise GateFailed(gate.describe_failure() + " (rerun with --force-gate to train anyway)")
                self.log(gate.describe_failure() + "; going on (--force-gate)")
        criticised = self._clock()

        update = ppo_update(self.policy, self.optimizer, rollouts, advantages, reference, c)
        updated = self._clock()
        memory["update"] = self._phase_memory()

        flat_advantages = [a for adv in advantages for a in adv]
        line: dict[str, Any] = {"step": step, "seeds": [seeds[0], seeds[-1]], **_behaviour(rollouts), "heuristics": heuristics}
        line |= {
            "criticLoss": fit.loss if fit else None,
            "criticIterations": fit.iterations if fit else None,
            "meanAdvantage": statistics.fmean(flat_advantages),
            "meanAbsAdvantage": statistics.fmean(abs(a) for a in flat_advantages),
            "loss": update.loss,
            "meanKl": rollout_kl(rollouts, reference),
            "entropy": update.entropy,
            "clipFraction": update.clip_fraction,
            "samplerDeviation": update.sampler_deviation,
            "importanceWeights": update.importance_weights,
            "tokensEncodedPerDecision": stats.tokens_encoded / stats.decisions,
            "slotsPerToken": stats.slots_encoded / stats.tokens_encoded,
        }
        if gate is not None:
            line["gate"] = gate.as_json()
        line |= {
            "algorithm": c.algorithm,
            "seconds": {
                "rollout": rolled - started,
                "reference": referenced - rolled,  # with the heuristics' baselines (milliseconds)
                "critic": criticised - referenced,
                "update": updated - criticised,
                "total": time.perf_counter() - started,
            },
            "memoryMb": memory,
        }
        self._save(self.run.staging())
        self.run.commit(step, _records(rollouts, returns, values, advantages), line, c.keep_checkpoints == "all")
        self.history.append(line)
        return line

    def train(self, force_gate: bool = False) -> None:
        """Runs the remaining steps; the run directory, claimed when the trainer was made, is let go at the end."""
        try:
            steps = self.config.steps
            if self.next_step >= steps:
                self.log(f"already finished: {steps} steps in {self.run.path}")
                return
            self.log(describe(self.sampling))
            if self.next_step > 0:
                self.log(f"resuming after step {self.next_step}/{steps}")
            for step in range(self.next_step, steps):
                self.log(progress_line(self.step(step, force_gate), steps))
            self.log(f"done: {steps} steps in {self.run.path}")
        finally:
            self.run.release()


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser("train", description="Train a policy on the urn (per-decision PPO or the GRPO pilot).")
    parser.add_argument("--config", required=True, help="the run's YAML config")
    parser.add_argument("--out", required=True, help="the run directory (rerun to resume)")
    parser.add_argument("--force-gate", action="store_true", help="train on when the step-0 gate fails")
    parser.add_argument("--env-command", help="the environment's command line (default: node dist/bin/allocbench.js rl-env)")
    args = parser.parse_args(argv)
    log = lambda text: print(text, flush=True)  # noqa: E731
    try:
        config = load_config(args.config)
        command = parse_command(args.env_command)
    except (ConfigError, EnvError) as error:
        print(error, file=sys.stderr)
        return 2
    try:
        with EnvClient(command) as env:
            Trainer(config, Path(args.out), env, log).train(args.force_gate)
    except (ConfigError, ChatError) as error:
        print(error, file=sys.stderr)
        return 2
    except GateFailed as error:
        print(error, file=sys.stderr)
        return 3
    except EnvError as error:
        print(error, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: rerun the same command to resume", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
