"""The GPU check's whole path on the CPU at a small shape: the kit (the environment's module closure with its
packages, Qwen2.5's tokenizer and chat template from node-llama-cpp's copy of llama.cpp), a Qwen2 model with
Qwen2.5-Instruct's generation defaults saved and loaded through from_pretrained at two depths, the cost
model's points, one real outer step each on the paper's workload (its replies forced) through the kit's
environment, and the projection printed."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

RL = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(RL / "bench"))
from paper_workload import paper_shapes  # noqa: E402


def test_the_gpu_check_runs_its_path_on_the_cpu(kit: Path) -> None:
    assert (kit / "env" / "dist" / "rl" / "bridge" / "rl-env-main.js").exists() and (kit / "qwen2.5-tokenizer" / "tokenizer.json").exists()
    assert not (kit / "env" / "node_modules" / "commander").exists()  # the environment alone, not the CLI
    done = subprocess.run(
        [sys.executable, str(RL / "bench" / "gpu_step.py"), "--device", "cpu", "--kit", str(kit), "--kit-env",
         "--layers", "1", "2", "--episodes", "4", "--rows", "1", "2", "--contexts", "24", "48", "--windows", "1"],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert re.search(r"torch [\d.]+\S*, transformers [\d.]+, peft [\d.]+; base fp32 \(CPU\)", out)
    assert "the model's own sampling defaults not applied: top_k 20, top_p 0.8, repetition_penalty 1.05, temperature 0.7" in out
    shapes = paper_shapes()
    random.Random(0).shuffle(shapes)
    decisions = sum(s.decisions for s in shapes[:4])  # the episodes ended where the authors' did: at their third keep
    steps = re.findall(r"workload: 4 episodes, (\d+) decisions, .* slots per token ([\d.]+); importance weights", out)
    assert steps == [(str(decisions), "1.000")] * 2
    assert re.search(r"the paper's workload \(step 0 of Run 2\): -?\d+ s \(decode", out)
    assert re.search(r"the worst case \(60 decisions of 512-token replies, \d+ tokens an episode, \d+ at a time", out)
    assert "memory on an 80 GB card at generationBatch 4 × rolloutContext 2048" in out and "floors of the paper's workload" in out
