"""8. `export` writes a checkpoint as GGUF through llama.cpp's own converter, and llama.cpp (node-llama-cpp,
the gguf/ provider's runtime) computes the trained policy's logits from it, within q8_0's error at q8_0
and to float precision at f32; `allocbench export` then `allocbench run --model gguf/…` plays R0."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
from gguf import GGMLQuantizationType
from gguf.quants import dequantize, quantize
from safetensors.torch import load_file, save_file

from allocbench_rl import export
from allocbench_rl.checkpoint import RunDir
from allocbench_rl.config import from_dict
from allocbench_rl.env import EnvClient
from allocbench_rl.model import Policy, load_policy, pick_device
from allocbench_rl.train import Trainer

HERE = Path(__file__).resolve().parent
# A chat-shaped stretch of SmolLM2's vocabulary: BOS, text, the turn markers, more text.
TOKENS = [1, 504, 3126, 28, 905, 17, 2, 1, 42, 4000, 9690, 198, 1218, 314, 253, 1930]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, env_command: list[str], gguf: Path) -> Path:
    """A one-step tiny run whose adapter is then moved far from zero (its B matrices drawn at random), so
    that an export that dropped or mangled the adapter would show far beyond q8_0's error."""
    from conftest import REPO, TINY, merged

    from allocbench_rl.config import parse_config

    config = parse_config(merged(TINY, {"steps": 1, "seedsPerStep": 1, "gate": {"enabled": False}}), REPO)
    out = tmp_path_factory.mktemp("exported") / "run"
    with EnvClient(env_command) as env:
        Trainer(config, out, env, log=lambda _: None).train()
    weights = out / "checkpoint" / "adapter" / "adapter_model.safetensors"
    tensors = load_file(str(weights))
    generator = torch.Generator().manual_seed(7)
    for name, tensor in tensors.items():
        if "lora_B" in name:
            tensors[name] = torch.randn(tensor.shape, generator=generator) * 0.05
    save_file(tensors, str(weights))
    return out


def trained_policy(run: Path) -> Policy:
    """The policy as the trainer computes it: the base with the adapter applied unmerged (or off)."""
    directory = RunDir(run)
    config = from_dict(directory.settings()["config"])
    policy = load_policy(config.model, pick_device("cpu", 1), config.run_seed)
    policy.load_adapter(directory.adapter(None)[1])
    policy.model.eval()
    return policy


def torch_logits(policy: Policy, adapter: bool = True) -> np.ndarray:
    with torch.no_grad():
        if adapter:
            return policy.model(torch.tensor([TOKENS])).logits[0].numpy()
        with policy.reference():
            return policy.model(torch.tensor([TOKENS])).logits[0].numpy()


def llama_logits(path: Path) -> np.ndarray:
    done = subprocess.run(["node", str(HERE / "gguf_logits.mjs"), str(path), json.dumps(TOKENS)], capture_output=True, text=True, check=True)
    rows = np.array(json.loads(done.stdout)["rows"], dtype=np.float64)
    assert rows.shape[0] == len(TOKENS) and not np.isnan(rows).any()
    return rows


def q8_0_rounding(policy: Policy) -> np.ndarray:
    """The logits with every matrix the converter stores at q8_0 (rows in whole 32-value blocks) rounded
    to Q8_0 and back by the gguf package: the error q8_0 puts in the weights themselves."""
    merged = policy.model.merge_and_unload()
    with torch.no_grad():
        for parameter in merged.parameters():
            if parameter.ndim == 2 and parameter.shape[-1] % 32 == 0:
                blocks = quantize(parameter.numpy(), GGMLQuantizationType.Q8_0)
                parameter.copy_(torch.from_numpy(dequantize(blocks, GGMLQuantizationType.Q8_0)))
        return merged(torch.tensor([TOKENS])).logits[0].numpy()


def test_llama_cpp_computes_the_trained_policy_from_the_export(run: Path) -> None:
    policy = trained_policy(run)
    trained, base = torch_logits(policy), torch_logits(policy, adapter=False)
    rounded = q8_0_rounding(policy)
    weight_error = np.abs(rounded - trained)
    # q8_0's error: its rounding of the weights, counted twice, as llama.cpp also rounds the activations
    # to 8 bits in each q8_0 product.
    bound_max, bound_mean = 2 * weight_error.max(), 2 * weight_error.mean()

    q8_0 = llama_logits(export.export(run, None, "q8_0", None, base=False))
    difference = np.abs(q8_0 - trained)
    print(f"q8_0: max {difference.max():.2e} (bound {bound_max:.2e}), mean {difference.mean():.2e} (bound {bound_mean:.2e})")
    assert difference.max() <= bound_max and difference.mean() <= bound_mean
    # The adapter moves the logits far beyond that bound: an export without it could not pass.
    assert np.abs(base - trained).max() > 10 * bound_max

    f32 = llama_logits(export.export(run, 0, "f32", run / "f32.gguf", base=False))
    print(f"f32: max {np.abs(f32 - trained).max():.2e}")
    assert np.abs(f32 - trained).max() <= bound_max / 10  # llama.cpp keeps its KV cache in f16

    base_file = export.export(run, None, "q8_0", None, base=True)
    assert base_file == run / "gguf" / "base.q8_0.gguf"
    assert np.abs(llama_logits(base_file) - base).max() <= bound_max


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--type", "q4_k_m"], "export: unknown type 'q4_k_m' (one of q8_0, f16, bf16, f32)\n"),
        (["--step", "3"], "run: no adapter of step 3 in {run} (keepCheckpoints: all keeps every step's)\n"),
        (["--step", "1", "--base"], "export: argument --base: not allowed with argument --step\n"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(run: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert exit_code(["--run", str(run), *args]) == 2
    assert capsys.readouterr().err == message.format(run=run)


def exit_code(argv: list[str]) -> int | str | None:
    try:
        return export.main(argv)
    except SystemExit as error:  # argparse's errors
        return error.code


def test_not_a_training_dir_or_no_finished_step(tmp_path: Path, run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert export.main(["--run", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"run: no readable settings.json in {tmp_path}\n"
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / "settings.json").write_text((run / "settings.json").read_text())
    assert export.main(["--run", str(fresh)]) == 2
    assert capsys.readouterr().err == f"run: {fresh} has no finished step yet\n"


def test_the_cli_exports_and_the_gguf_provider_plays_r0(run: Path, env_command: list[str], tmp_path: Path) -> None:
    node, flag, main = env_command[:3]
    cli = [node, flag, main]
    exported = subprocess.run([*cli, "export", str(run), "--out", str(tmp_path / "checkpoint.gguf")], capture_output=True, text=True)
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.strip().startswith(f"wrote {tmp_path / 'checkpoint.gguf'} (")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    played = subprocess.run(
        [*cli, "run", "--model", f"gguf/{tmp_path / 'checkpoint.gguf'}", "--rung", "R0", "--seeds", "2000",
         "--token-cap", "600", "--out", str(tmp_path / "played"), "--temporal-port", str(port), "--json"],
        capture_output=True, text=True, timeout=600,
    )
    # The cap (input plus output) ends the session after the first reply: a random tiny model writes 512 tokens.
    assert played.returncode == 0, played.stderr[-2000:]
    (transcript,) = (tmp_path / "played").glob("sessions/*/transcript.jsonl")
    records = [json.loads(line) for line in transcript.read_text().splitlines()]
    replies = [r for r in records if r["type"] == "attempt" and r["outcome"] == "ok"]
    assert replies and all(r["usage"]["outputTokens"] > 0 for r in replies)
    assert [r["termination"] for r in records if r["type"] == "end"] == ["token-cap"]
