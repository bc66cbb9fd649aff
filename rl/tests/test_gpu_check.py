"""The GPU check's whole path on the CPU at a small shape: the kit (the environment's module closure with its
packages, Qwen2.5's tokenizer and chat template from node-llama-cpp's copy of llama.cpp), a Qwen2 model with
Qwen2.5-Instruct's generation defaults saved and loaded through from_pretrained at two depths, one real
outer step each through the kit's environment, a constrained one, and the figures printed."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

RL = Path(__file__).resolve().parents[1]


def test_the_gpu_check_runs_its_path_on_the_cpu(tmp_path: Path, env_command: list[str]) -> None:
    kit = tmp_path / "kit"
    built = subprocess.run([sys.executable, str(RL / "bench" / "gpu_kit.py"), "--out", str(kit), "--no-node"], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    assert (kit / "env" / "dist" / "cli" / "rl-env-main.js").exists() and (kit / "qwen2.5-tokenizer" / "tokenizer.json").exists()
    assert not (kit / "env" / "node_modules" / "commander").exists()  # the environment alone, not the CLI
    done = subprocess.run(
        [sys.executable, str(RL / "bench" / "gpu_step.py"), "--device", "cpu", "--kit", str(kit), "--kit-env",
         "--episodes", "4", "--length", "3", "--new-tokens", "4"],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert '"processors": "temperature only"' in out and '"top_k": 20' in out  # Qwen2.5's defaults named, not applied
    deviations = [float(x) for x in re.findall(r"max \|π_update / π_sampler − 1\| = ([\d.e+-]+)", out)]
    assert len(deviations) == 3 and max(deviations) < 1e-4  # two free-text steps and the constrained one, in fp32
    assert re.search(r"projected, one outer step .* = -?\d+ s", out)  # a tiny model's per-layer cost is noise: the sign too
