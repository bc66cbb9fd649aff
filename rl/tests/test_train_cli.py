"""6. The real loop through `python -m allocbench_rl.train`: 2 steps, 2 seeds, truncated streams, a tiny
model; the run directory it writes; rerunning resumes (here: nothing left); exit codes 2 and 3."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from allocbench_rl import train
from allocbench_rl.gate import GateResult
from conftest import TINY, merged

RL = Path(__file__).resolve().parents[1]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "allocbench_rl.train", *args], cwd=RL, capture_output=True, text=True, timeout=300)


def write_config(path: Path, **changes: object) -> Path:
    path.write_text(yaml.safe_dump(merged(TINY, changes)))
    return path


def test_end_to_end_run_writes_the_run_directory(tmp_path: Path, gguf: Path, env_command: list[str]) -> None:
    config, out = write_config(tmp_path / "run.yaml", keepCheckpoints="all"), tmp_path / "run"
    done = cli("--config", str(config), "--out", str(out), "--force-gate")
    assert done.returncode == 0, done.stderr
    progress = [line for line in done.stdout.splitlines() if line.startswith("step ")]
    assert len(progress) == 2
    assert re.fullmatch(r"step 2/2 · reward [\d.]+ \(eager [\d.]+, wait-one-repeat [\d.]+\) · first-sight (\d+%|n/a) · kl [\d.]+ · entropy [\d.]+ · \d+ s", progress[1])

    settings = json.loads((out / "settings.json").read_text())
    assert settings["features"] == ["elapsed", "budgetLeft", "occurrence", "otherUnkept", "rate"]
    assert settings["config"]["env"]["length"] == 12 and set(settings["versions"]) == {"python", "torch", "transformers", "peft"}
    lines = [json.loads(line) for line in (out / "steps.jsonl").read_text().splitlines()]
    assert [line["step"] for line in lines] == [0, 1]
    assert lines[0]["seeds"] == [9000, 9001] and lines[1]["seeds"] == [9002, 9003]
    assert "gate" in lines[0] and "gate" not in lines[1]
    assert set(lines[0]["gate"]["buckets"]) == {"keep_hot", "keep_trap", "pass_hot_first", "pass_hot_later", "pass_trap"}
    for line in lines:
        assert set(line["heuristics"]) == {"eager", "waitOneRepeat"} and line["algorithm"] == "ppo"
        assert line["rewardMin"] <= line["meanReward"] <= line["rewardMax"]
        assert set(line["seconds"]) == {"rollout", "reference", "critic", "update", "total"} and all(phase["rssMb"] > 0 for phase in line["memoryMb"].values())
        assert line["meanKl"] >= 0 and line["entropy"] > 0 and line["tokensEncodedPerDecision"] > 0
        assert line["samplerDeviation"] < 1e-4  # the update scores as the rollout sampled (fp32 on the CPU)
        assert 1 - 1e-4 < line["importanceWeights"]["min"] <= line["importanceWeights"]["max"] < 1 + 1e-4
        assert line["slotsPerToken"] == 1.0  # continuous batching: no padding, no idle rows (episodes end unevenly)
    records = [json.loads(r) for r in (out / "steps" / "step-0001" / "rollouts.jsonl").read_text().splitlines()]
    assert {r["episode"].rsplit("-", 1)[0] for r in records} == {"1-9002", "1-9003"}
    for episode in {r["episode"] for r in records}:
        own = [r for r in records if r["episode"] == episode]
        assert own[0]["return"] == sum(r["reward"] for r in own) and own[-1]["done"]
        assert all(abs(r["advantage"] - (r["return"] - r["value"])) < 1e-9 for r in own)
        assert all(len(r["candidateLogprobs"]) == 2 and r["chosen"] in (0, 1) and r["tokenIds"] for r in own)
    for part in ("adapter/adapter_model.safetensors", "optimizer.pt", "critic.pt", "rng.pt", "step.json"):
        assert (out / "checkpoint" / part).exists(), part
    assert json.loads((out / "checkpoint" / "step.json").read_text()) == {"step": 1}
    assert (out / "checkpoints" / "step-0000" / "adapter_model.safetensors").exists()

    again = cli("--config", str(config), "--out", str(out))
    assert again.returncode == 0 and again.stdout.strip() == f"already finished: 2 steps in {out}"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"steps": 0}, "config: steps must be at least 1"),
        ({"firstSeed": 1999}, "config: training seeds 1999-2002 overlap the evaluation seeds 2000-2023"),
        ({"decisionMode": "greedy"}, "config: decisionMode must be one of free | constrained, not 'greedy'"),
        ({"model": {"lora": {"rank": 4}}}, "config: unknown field model.lora.rank"),
    ],
)
def test_bad_config_is_one_line_and_exit_2(
    tmp_path: Path, changes: dict[str, object], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert train.main(["--config", str(write_config(tmp_path / "bad.yaml", **changes)), "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err == message + "\n"
    assert not (tmp_path / "o").exists()


def test_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert train.main(["--config", str(tmp_path / "missing.yaml"), "--out", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.startswith("config: cannot read")
    with pytest.raises(SystemExit) as exit:
        train.main(["--out", "x"])
    assert exit.value.code == 2 and capsys.readouterr().err == "train: the following arguments are required: --config\n"


def test_failed_gate_exits_3_naming_the_signs(
    tmp_path: Path, gguf: Path, env_command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    wrong = GateResult({"keep_trap": {"mean": 1.5, "n": 3}, "keep_hot": {"mean": 1.0, "n": 4}}, ["keep_trap"])
    monkeypatch.setattr(train, "check", lambda _: wrong)
    config = write_config(tmp_path / "run.yaml", steps=1, seedsPerStep=1)
    assert train.main(["--config", str(config), "--out", str(tmp_path / "run")]) == 3
    err = capsys.readouterr().err
    assert err == "step-0 gate failed: keep_trap +1.50 (expected < 0) (rerun with --force-gate to train anyway)\n"
    assert not (tmp_path / "run" / "steps.jsonl").exists()
