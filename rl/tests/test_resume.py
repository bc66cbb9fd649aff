"""5. Killing a run and rerunning the same command gives the same adapter and the same steps.jsonl as an
uninterrupted run (CPU): a kill inside step 2 after its rollouts, and one in the middle of its commit."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
from safetensors.torch import load_file

from allocbench_rl import train
from allocbench_rl.checkpoint import RunDir
from allocbench_rl.config import Config, ConfigError
from allocbench_rl.env import EnvClient

TIMINGS = ("seconds", "memoryMb")


class Killed(Exception):
    pass


def kill_on_second_call(real: Callable[..., Any]) -> Callable[..., Any]:
    calls = []

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:
            raise Killed
        return real(*args, **kwargs)

    return wrapper


def steps_without_timings(run: Path) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in (run / "steps.jsonl").read_text().splitlines()]
    return [{k: v for k, v in line.items() if k not in TIMINGS} for line in lines]


def same_run(a: Path, b: Path) -> None:
    left, right = (load_file(str(r / "checkpoint" / "adapter" / "adapter_model.safetensors")) for r in (a, b))
    assert left.keys() == right.keys()
    for name in left:
        assert torch.equal(left[name], right[name]), name
    assert steps_without_timings(a) == steps_without_timings(b)
    for step in ("step-0000", "step-0001"):
        assert (a / "steps" / step / "rollouts.jsonl").read_text() == (b / "steps" / step / "rollouts.jsonl").read_text()
    assert sorted(p.name for p in a.iterdir()) == sorted(p.name for p in b.iterdir())


@pytest.mark.parametrize("kill", ["after-rollouts", "mid-commit"])
def test_kill_and_resume_gives_the_same_run(
    env: EnvClient, tiny: Callable[..., Config], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kill: str
) -> None:
    config = tiny(gate={"enabled": False}, decisionMode="free", maxNewTokens=4)  # free text: the sampler's state resumes too
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    train.Trainer(config, whole, env, log=lambda _: None).train()

    if kill == "after-rollouts":
        monkeypatch.setattr(train, "reference_units", kill_on_second_call(train.reference_units))
    else:  # the new checkpoint is in place, the steps.jsonl line is not
        monkeypatch.setattr(RunDir, "append_step", kill_on_second_call(RunDir.append_step))
    with pytest.raises(Killed):
        train.Trainer(config, killed, env, log=lambda _: None).train()
    monkeypatch.undo()
    assert len(steps_without_timings(killed)) == 1

    log: list[str] = []
    resumed = train.Trainer(config, killed, env, log=log.append)
    assert resumed.next_step == 1
    resumed.train()
    assert log[0].startswith("sampling: ") and log[1] == "resuming after step 1/2" and log[-1].startswith("done: 2 steps")
    same_run(whole, killed)


def test_a_different_config_is_refused(env: EnvClient, tiny: Callable[..., Config], tmp_path: Path) -> None:
    train.Trainer(tiny(steps=1, gate={"enabled": False}), tmp_path, env, log=lambda _: None).train()
    with pytest.raises(ConfigError, match=r"learningRate differs"):
        train.Trainer(tiny(steps=1, gate={"enabled": False}, learningRate=0.5), tmp_path, env, log=lambda _: None)


def test_a_second_trainer_on_the_same_directory_is_refused_and_a_killed_one_leaves_no_lock(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    run = tmp_path / "run"
    holder = subprocess.Popen(
        [sys.executable, "-c", f"from pathlib import Path; from allocbench_rl.checkpoint import RunDir; RunDir(Path({str(run)!r})).claim(); print('held', flush=True); input()"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(ConfigError, match=rf"is being trained by another process \(pid {holder.pid}\)"):
            RunDir(run).claim()
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
    RunDir(run).claim()  # the kernel released the killed holder's lock
