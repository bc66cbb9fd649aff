"""The GPU check: the trainer's real path on one GPU in minutes, and the paper's run projected from it.

It writes a model of Qwen2.5-14B's width (hidden 5120, 40 query and 8 key-value heads, MLP 13824, vocabulary
152064) with random bf16 weights to a directory with Qwen2.5's tokenizer, Qwen2.5-Instruct's chat template
and its generation_config.json (do_sample, temperature 0.7, top_p 0.8, top_k 20, repetition_penalty 1.05),
and loads it back through from_pretrained as the trainer does, twice: with --layers-small and
--layers-large decoder layers. Each runs one real outer step through the trainer on one cohort of
episodes at the paper's length (T = 60): sampled free-text R0 rollouts at T = 1.2 through the environment,
the reference pass, the critic, the gate, the PPO update, the commit. Then one short constrained step on
the small model, the constrained choice's path on the device. QLoRA is asked for; without bitsandbytes
the base runs in bf16, and the trainer says so.

Printed: the sampling actually used (and the model defaults not applied), the ratio at the first update
(exactly 1: the update's own log-probs) and how far the sampler's log-probs are from the update's,
tokens per second of rollouts and update, peak memory, and the paper's 20 × 25 × 4 run projected: the two
depths give a cost per decoder layer and a cost outside the layers, for the rollout and the update apart
(attention over the growing context included, since the episodes have the paper's length); 48 layers are
a 14B; then the rollout scales with the number of cohorts of `--episodes` and the update with the
episodes. Random weights rarely stop before the reply limit, so replies are --new-tokens long; the
projection says so.

On a machine with the project installed: `npm run bench:rl-gpu`. On a bare GPU machine (PyTorch,
transformers and peft only): build the kit here (`npm run rl:gpu-kit`), carry rl/.gpu-kit, and run
`python3 rl/bench/gpu_step.py`. Prints "skipped: no GPU" without CUDA unless --device cpu (a small shape,
for testing the path).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

RL = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(RL))

from allocbench_rl.config import parse_config  # noqa: E402
from allocbench_rl.env import CLI, EnvClient, default_command  # noqa: E402
from allocbench_rl.rollout import RolloutStats  # noqa: E402
from allocbench_rl.train import Trainer  # noqa: E402

KIT = RL / ".gpu-kit"
QWEN25_INSTRUCT_GENERATION = {
    "do_sample": True, "temperature": 0.7, "top_p": 0.8, "top_k": 20, "repetition_penalty": 1.05,
    "bos_token_id": 151643, "pad_token_id": 151643, "eos_token_id": [151645, 151643],
}
QWEN25_14B = {"hidden_size": 5120, "num_attention_heads": 40, "num_key_value_heads": 8, "intermediate_size": 13824}
SMALL_SHAPE = {"hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128}
PAPER = {"steps": 20, "episodes": 100, "decisions": 60, "layers": 48}


def environment(kit: Path, scratch: Path, use_kit: bool) -> list[str]:
    """The env's command: the project's CLI when Node and a build are here (unless `use_kit`), else the kit's
    env with the Node on PATH or, failing that, the kit's."""
    if not use_kit and shutil.which("node") and CLI.exists():
        return default_command()
    entry = kit / "env" / "dist" / "cli" / "rl-env-main.js"
    if not entry.exists():
        raise SystemExit(f"gpu check: no Node build here and no kit at {kit}: run npm run rl:gpu-kit where the project is installed")
    node = shutil.which("node")
    if node is None:
        if not (kit / "node.tar.gz").exists():
            raise SystemExit(f"gpu check: no node on PATH and no {kit / 'node.tar.gz'}: build the kit without --no-node")
        with tarfile.open(kit / "node.tar.gz") as packed:
            packed.extractall(scratch / "node", filter="data")
        node = str(scratch / "node" / "package" / "bin" / "node")
        os.chmod(node, 0o755)
    return [node, "--no-node-snapshot", str(entry)]


def tokenizer_source(kit: Path) -> Path:
    directory = kit / "qwen2.5-tokenizer"
    if not (directory / "tokenizer.json").exists():
        raise SystemExit(f"gpu check: no Qwen2 tokenizer in {directory}: run npm run rl:gpu-kit")
    return directory


def write_model(directory: Path, kit: Path, shape: dict[str, int], layers: int, device: torch.device) -> None:
    """Random weights of the shape, saved with Qwen's tokenizer, template and generation defaults."""
    from transformers import AutoTokenizer, GenerationConfig, Qwen2Config, Qwen2ForCausalLM

    tokenizer = AutoTokenizer.from_pretrained(str(tokenizer_source(kit)))
    config = Qwen2Config(
        **shape, num_hidden_layers=layers, vocab_size=152064, rope_theta=1_000_000.0, max_position_embeddings=32768,
        tie_word_embeddings=False, bos_token_id=151643, eos_token_id=151645,
    )
    torch.manual_seed(0)
    with torch.device(device):
        model = Qwen2ForCausalLM(config).to(torch.bfloat16)
    model.generation_config = GenerationConfig(**QWEN25_INSTRUCT_GENERATION)
    model.save_pretrained(str(directory))
    tokenizer.save_pretrained(str(directory))
    del model
    release(device)


def release(device: torch.device) -> None:
    """Gives the GPU memory of what is gone back (peft's modules hold cycles), so each step's peak is its own."""
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def run_step(directory: Path, layers: int, args: argparse.Namespace, env: EnvClient, device: torch.device, constrained: bool = False) -> dict[str, Any]:
    """One outer step of the trainer on the saved model cut to `layers` layers (constrained: a short one)."""
    full = directory / "config.full.json"
    if not full.exists():
        shutil.copy(directory / "config.json", full)
    saved = json.loads(full.read_text())
    saved["num_hidden_layers"] = layers
    if "layer_types" in saved:
        saved["layer_types"] = saved["layer_types"][:layers]
    (directory / "config.json").write_text(json.dumps(saved))
    config = parse_config(
        {
            "model": {"kind": "hf", "path": str(directory), "quantize4bit": True, "gradientCheckpointing": True},
            "env": {"rung": "R0", "length": 10 if constrained else args.length},
            "steps": 1, "seedsPerStep": args.episodes // 4, "rolloutsPerSeed": 4, "temperature": 1.2,
            "maxNewTokens": args.new_tokens, "decisionMode": "constrained" if constrained else "free", "generationBatch": args.episodes,
            "updateBatch": args.update_batch, "device": device.type, "gate": {"enabled": True},
        },
        RL,
    )
    out = Path(tempfile.mkdtemp(prefix=f"gpu-step-{layers}-"))
    lines: list[str] = []
    trainer = Trainer(config, out, env, log=lines.append)
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    started, stats = time.perf_counter(), RolloutStats()
    episodes = trainer.rollouts(0, stats)
    line = trainer.learn(0, episodes, stats, started, force_gate=True)
    allocated = torch.cuda.max_memory_allocated(device) / 2**30 if device.type == "cuda" else None
    tokens = sum(len(e.ids) for e in episodes)
    replies = sum(len(d.token_ids) for e in episodes for d in e.decisions)
    decisions = sum(len(e.decisions) for e in episodes)
    del trainer, episodes
    release(device)
    return {
        "line": line, "tokens": tokens, "replies": replies, "decisions": decisions, "encoded": stats.tokens_encoded,
        "slots": stats.slots_encoded, "sampling": trainer_sampling(out), "allocatedGib": allocated,
    }


def trainer_sampling(run: Path) -> dict[str, Any]:
    return json.loads((run / "settings.json").read_text())["sampling"]


def projection(small: dict[str, Any], large: dict[str, Any], args: argparse.Namespace) -> str:
    """The paper's run from the two depths; see the module's docstring for how."""
    per_layer, outside, at_48 = {}, {}, {}
    for part in ("rollout", "update"):
        a, b = (seconds_of(run, part) for run in (small, large))
        per_layer[part] = (b - a) / (args.layers_large - args.layers_small)
        outside[part] = a - per_layer[part] * args.layers_small
        at_48[part] = outside[part] + per_layer[part] * PAPER["layers"]
    cohorts = -(-PAPER["episodes"] // args.episodes)
    scale = PAPER["decisions"] / args.length
    rollout = at_48["rollout"] * cohorts * scale
    update = at_48["update"] * (PAPER["episodes"] / args.episodes) * scale
    step = rollout + update
    shorter = "" if args.length == PAPER["decisions"] else f" Episodes of {args.length} decisions, scaled to 60 linearly: attention's growth is left out."
    return (
        f"projected, one outer step of 25 seeds × 4 rollouts at T = 60 on a 48-layer 14B (replies of {args.new_tokens} tokens, "
        f"cohorts of {args.episodes}): rollouts {rollout:.0f} s + reference and update {update:.0f} s = {step:.0f} s "
        f"(target 325 s, aim 163 s); the 20-step run {PAPER['steps'] * step / 3600:.1f} h. Per layer: rollout "
        f"{per_layer['rollout']:.2f} s, update {per_layer['update']:.2f} s; outside the layers: rollout "
        f"{outside['rollout']:.1f} s, update {outside['update']:.1f} s.{shorter}"
    )


def seconds_of(result: dict[str, Any], part: str) -> float:
    """A step's rollout seconds, or its reference pass and update together."""
    seconds = result["line"]["seconds"]
    return seconds["rollout"] if part == "rollout" else seconds["reference"] + seconds["update"]


def report(name: str, result: dict[str, Any], device: torch.device) -> str:
    line, seconds = result["line"], result["line"]["seconds"]
    rollout_rate = result["encoded"] / seconds["rollout"]
    generated_rate = result["replies"] / seconds["rollout"]
    update_rate = result["tokens"] / seconds["update"]
    return (
        f"{name}: ratio at the first update 1 (the update's own log-probs); the sampler's log-probs against the update's: "
        f"max |π_update / π_sampler − 1| = {line['samplerDeviation']:.2e}; rollouts "
        f"{seconds['rollout']:.1f} s ({result['decisions']} decisions, {rollout_rate:.0f} tokens/s encoded, {generated_rate:.0f} "
        f"tokens/s sampled, {line['tokensEncodedPerDecision']:.0f} tokens and {line['slotsEncodedPerDecision']:.0f} positions "
        f"with padding encoded per decision); reference {seconds['reference']:.1f} s; "
        f"update {seconds['update']:.1f} s ({update_rate:.0f} tokens/s forward and backward); peak "
        f"{peak(result, device)}; kl {line['meanKl']:.4f}, entropy {line['entropy']:.2f}"
    )


def peak(result: dict[str, Any], device: torch.device) -> str:
    held = result["line"]["peakMemoryMb"] / 1024
    if device.type != "cuda":
        return f"{held:.1f} GiB RSS"
    return f"{held:.1f} GiB GPU held by the allocator ({result['allocatedGib']:.1f} GiB allocated)"


def attention_backends() -> str:
    kernels = {"flash": torch.backends.cuda.flash_sdp_enabled(), "memory-efficient": torch.backends.cuda.mem_efficient_sdp_enabled(),
               "cuDNN": torch.backends.cuda.cudnn_sdp_enabled(), "math": torch.backends.cuda.math_sdp_enabled()}
    return ", ".join(f"{name} {'on' if on else 'off'}" for name, on in kernels.items())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--kit", type=Path, default=KIT, help="the kit (npm run rl:gpu-kit)")
    parser.add_argument("--episodes", type=int, default=16, help="episodes of the step (one cohort); a multiple of 4")
    parser.add_argument("--length", type=int, default=60, help="decisions per episode (the paper's 60)")
    parser.add_argument("--new-tokens", type=int, default=96, help="the reply limit (random weights rarely stop before it)")
    parser.add_argument("--update-batch", type=int, default=4)
    parser.add_argument("--layers-small", type=int, default=2)
    parser.add_argument("--layers-large", type=int, default=6)
    parser.add_argument("--kit-env", action="store_true", help="run the kit's environment even where the project's is built")
    args = parser.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        print("skipped: no GPU")
        return 0
    device = torch.device(args.device)
    shape = QWEN25_14B if device.type == "cuda" else SMALL_SHAPE
    import peft
    import transformers

    transformers.logging.set_verbosity_error()  # the cut model's unused layers are expected, not news
    gpu = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"
    print(f"{gpu}; torch {torch.__version__}, transformers {transformers.__version__}, peft {peft.__version__}; "
          f"bitsandbytes {'present' if _has('bitsandbytes') else 'absent: the base runs in bf16'}", flush=True)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as scratch:
        directory = Path(scratch) / "qwen2.5-shaped"
        write_model(directory, args.kit, shape, args.layers_large, device)
        print(f"wrote {directory.name} ({args.layers_large} layers of width {shape['hidden_size']}, random bf16) in "
              f"{time.perf_counter() - started:.0f} s", flush=True)
        with EnvClient(environment(args.kit, Path(scratch), args.kit_env)) as env:
            results = {}
            for layers in (args.layers_small, args.layers_large):
                results[layers] = run_step(directory, layers, args, env, device)
                if layers == args.layers_small:
                    sampling = results[layers]["sampling"]
                    print(f"generation config used: {json.dumps(sampling)}", flush=True)
                    if device.type == "cuda":
                        print(f"attention backends enabled: {attention_backends()}", flush=True)
                print(report(f"{layers} layers, {args.episodes} episodes × {args.length} decisions", results[layers], device), flush=True)
            constrained = run_step(directory, args.layers_small, args, env, device, constrained=True)
            print(report(f"{args.layers_small} layers, constrained, {args.episodes} episodes × 10 decisions", constrained, device), flush=True)
    print(projection(results[args.layers_small], results[args.layers_large], args))
    print(f"total {time.perf_counter() - started:.0f} s")
    return 0


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


if __name__ == "__main__":
    sys.exit(main())
