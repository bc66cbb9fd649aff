"""The GPU check: the paper's RL workload through the trainer's real path on one GPU, and one outer step of the
14B projected from a cost model fitted on what it measures.

It writes a model of Qwen2.5-14B's width (hidden 5120, 40 query and 8 key-value heads, MLP 13824, vocabulary
152064; random bf16 weights) with Qwen2.5's tokenizer, Qwen2.5-Instruct's chat template and its
generation_config.json, and loads it back through from_pretrained as the trainer does at two depths
(--layers). At each depth:

- points of the cost model: decoding steps of the rollout engine at several rows and context lengths (CUDA
  graphs captured, timed on replays), prefill forwards of those rows and contexts, and the time of merging the
  adapter and restoring the base;
- one real outer step on the paper's workload (bench/paper_workload.py): 100 episodes of the R0 game on
  training step 0's seeds, each ending by the game's rules, with the decisions, reply lengths and keep points
  of the authors' logged step 0 forced on the random weights; rollouts, reference pass, critic, gate,
  update, commit; the allocated memory peak of each phase with the reserve beside it.

Then the cost model (cost_model.py) at 48 layers, its inputs printed: the paper's workload as the engine ran it,
and the worst case (every episode 60 decisions of 512-token replies, as many episodes at once as fit the card),
with the memory check against an 80 GB card, and the bandwidth and bf16 floors beside.

The base runs in bf16 unless bitsandbytes is installed (then NF4, the adapter unmerged), and the path is
printed with the library versions. On a machine with the project installed: `npm run bench:rl-gpu`. On a
bare GPU machine (PyTorch, transformers and peft only): build the kit here (`npm run rl:gpu-kit`), carry
rl/.gpu-kit, and run `python3 rl/bench/gpu_step.py` (about 4 minutes on an H200). Prints "skipped: no GPU"
without CUDA unless --device cpu (a small shape, for testing the path).
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
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
sys.path.insert(0, str(RL / "bench"))

import cost_model  # noqa: E402
from allocbench_rl.config import parse_config  # noqa: E402
from allocbench_rl.decoder import causal_chunk  # noqa: E402
from allocbench_rl.engine import SYNC_EVERY_ON_GPU, TorchEngine, Turn  # noqa: E402
from allocbench_rl.env import CLI, EnvClient, default_command  # noqa: E402
from allocbench_rl.rollout import RolloutStats  # noqa: E402
from allocbench_rl.sampling import describe  # noqa: E402
from allocbench_rl.train import Trainer  # noqa: E402
from paper_workload import SOURCE, ScriptedSampler, paper_shapes, scripts  # noqa: E402

KIT = RL / ".gpu-kit"
QWEN25_INSTRUCT_GENERATION = {
    "do_sample": True, "temperature": 0.7, "top_p": 0.8, "top_k": 20, "repetition_penalty": 1.05,
    "bos_token_id": 151643, "pad_token_id": 151643, "eos_token_id": [151645, 151643],
}
QWEN25_14B = {"hidden_size": 5120, "num_attention_heads": 40, "num_key_value_heads": 8, "intermediate_size": 13824}
SMALL_SHAPE = {"hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128}
PAPER_LAYERS = 48
CONTEXT = 2048
"""rolloutContext of the check (and of the paper configs): the longest forced episode is about 1,500 tokens."""


def environment(kit: Path, scratch: Path, use_kit: bool) -> list[str]:
    """The env's command: the project's CLI when Node and a build are here (unless `use_kit`), else the kit's
    env with the Node on PATH or, failing that, the kit's."""
    if not use_kit and shutil.which("node") and CLI.exists():
        return default_command()
    entry = kit / "env" / "dist" / "rl" / "bridge" / "rl-env-main.js"
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


def write_model(directory: Path, kit: Path, shape: dict[str, int], layers: int, device: torch.device) -> None:
    """Random weights of the shape, saved with Qwen's tokenizer, template and generation defaults."""
    from transformers import AutoTokenizer, GenerationConfig, Qwen2Config, Qwen2ForCausalLM

    tokenizer_directory = kit / "qwen2.5-tokenizer"
    if not (tokenizer_directory / "tokenizer.json").exists():
        raise SystemExit(f"gpu check: no Qwen2 tokenizer in {tokenizer_directory}: run npm run rl:gpu-kit")
    tokenizer = AutoTokenizer.from_pretrained(str(tokenizer_directory))
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


def clock(device: torch.device) -> float:
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return time.perf_counter()


def cut_to(directory: Path, layers: int) -> None:
    """The saved model's config cut to its first `layers` layers (from_pretrained leaves the others unread)."""
    full = directory / "config.full.json"
    if not full.exists():
        shutil.copy(directory / "config.json", full)
    saved = json.loads(full.read_text())
    saved["num_hidden_layers"] = layers
    if "layer_types" in saved:
        saved["layer_types"] = saved["layer_types"][:layers]
    (directory / "config.json").write_text(json.dumps(saved))


def trainer_for(directory: Path, layers: int, args: argparse.Namespace, env: EnvClient, device: torch.device) -> Trainer:
    cut_to(directory, layers)
    nf4 = device.type == "cuda" and importlib.util.find_spec("bitsandbytes") is not None
    config = parse_config(
        {
            "model": {"kind": "hf", "path": str(directory), "quantize4bit": nf4, "gradientCheckpointing": True},
            "env": {"rung": "R0", "length": 60}, "steps": 1, "seedsPerStep": args.episodes // 4, "rolloutsPerSeed": 4,
            "temperature": 1.2, "maxNewTokens": 512, "decisionMode": "free", "generationBatch": args.episodes,
            "rolloutContext": CONTEXT, "updateBatch": 4, "device": device.type, "gate": {"enabled": True},
        },
        RL,
    )
    return Trainer(config, Path(tempfile.mkdtemp(prefix=f"gpu-step-{layers}-")), env, log=lambda _: None)


def points(trainer: Trainer, args: argparse.Namespace, device: torch.device) -> dict[str, Any]:
    """Decoding steps and prefill forwards of the engine at each (rows, context), and a merge and restore."""
    policy, k = trainer.policy, SYNC_EVERY_ON_GPU if device.type == "cuda" else 1
    filler = policy.tokenizer("so", add_special_tokens=False)["input_ids"][0]
    decode, prefill, failure, captured = [], [], None, 0
    for rows in args.rows:
        for context in args.contexts:
            prompt = [filler] * context
            length = (args.windows + 2) * k
            replies = {str(r): [[filler] * length] for r in range(rows)}
            with TorchEngine(policy, slots=rows, capacity=context + length, sampler=ScriptedSampler(replies), seed=0) as engine:
                started = clock(device)
                engine.decoder.prefill([causal_chunk(r, prompt[:-1], 0) for r in range(rows)])
                prefill.append((rows, rows * (context - 1), clock(device) - started))
                for r in range(rows):
                    engine.submit(Turn(str(r), prompt, length))
                engine.step()  # the prefill again, and the window's first run (eager: it warms the kernels up)
                engine.step()  # captured as a CUDA graph on a GPU
                started = clock(device)
                for _ in range(args.windows):
                    engine.step()
                seconds = (clock(device) - started) / (args.windows * k)
                keys = [key for kind, _, key in engine.forwards[-args.windows :] if kind == "decode"]
                decode.append((rows, sum(keys) / len(keys), seconds))
            failure, captured = failure or engine.graph_failure, captured + engine.graphs_captured
            release(device)
    with policy.merged():  # the first merge copies the base aside
        pass
    started = clock(device)
    with policy.merged():
        pass
    return {"decode": decode, "prefill": prefill, "merge": clock(device) - started, "graphs": (failure or f"{captured} captured") if device.type == "cuda" else "off (CPU)"}


def workload_step(trainer: Trainer, device: torch.device) -> dict[str, Any]:
    """One real outer step on the paper's workload, the replies forced (paper_workload.py)."""
    c = trainer.config
    ids = [f"0-{s}-{r}" for s in c.step_seeds(0) for r in range(c.rollouts_per_seed)]
    stop = trainer.policy.tokenizer.convert_tokens_to_ids("<|im_end|>")
    sampler = ScriptedSampler(scripts(paper_shapes(), ids, trainer.policy.tokenizer, stop), c.temperature)
    engines: list[TorchEngine] = []

    def engine(policy: Any, **options: Any) -> TorchEngine:
        engines.append(TorchEngine(policy, **(options | {"sampler": sampler})))
        return engines[-1]

    started, stats = time.perf_counter(), RolloutStats()
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    rollouts = trainer.rollouts(0, stats, engine=engine)
    line = trainer.learn(0, rollouts, stats, started, force_gate=True)
    work = cost_model.Work.from_run(engines[0].forwards, engines[0].sync_every, rollouts)
    seconds = line["seconds"]
    seconds["commit"] = seconds["total"] - sum(seconds[p] for p in ("rollout", "reference", "critic", "update"))
    prompts = [e.decisions[0].span[0] for e in rollouts]
    turns = [b.span[0] - a.span[1] for e in rollouts for a, b in zip(e.decisions, e.decisions[1:])]
    return {
        "line": line, "seconds": seconds, "work": work, "episodes": len(rollouts), "decisions": stats.decisions,
        "replies": sum(len(d.token_ids) for e in rollouts for d in e.decisions), "first prompt": sum(prompts) / len(prompts),
        "turn prompt": sum(turns) / len(turns), "graphs": engines[0].graph_failure,
    }


def depth_prices(point: dict[str, Any], step: dict[str, Any]) -> dict[str, Any]:
    tokens = step["work"].scored_tokens
    fitted = cost_model.fit_depth(point["decode"], point["prefill"], step["seconds"]["reference"] / tokens, step["seconds"]["update"] / tokens)
    model_time = cost_model.project(step["work"], cost_model.Fitted(fitted["decode"], fitted["prefill"], 0.0, 0.0), {})
    return fitted | {
        "rollout other": step["seconds"]["rollout"] - model_time["decode"] - model_time["prefill"],
        "critic": step["seconds"]["critic"], "commit": step["seconds"]["commit"],
    }


def extend(values: dict[int, float], layers: int) -> float:
    (a, x), (b, y) = sorted(values.items())
    return x + (y - x) / (b - a) * (layers - a)


def report_depth(layers: int, point: dict[str, Any], step: dict[str, Any], device: torch.device) -> str:
    s, line = step["seconds"], step["line"]
    decode = "; ".join(f"{r} rows × {k:.0f} keys {t * 1e3:.2f} ms" for r, k, t in point["decode"])
    prefill = "; ".join(f"{r} × {n // r} tokens {t * 1e3:.1f} ms" for r, n, t in point["prefill"])
    memory = " · ".join(
        f"{phase} {m['allocatedMb'] / 1024:.1f} GiB allocated ({m['reservedMb'] / 1024:.1f} reserved)" if "allocatedMb" in m else f"{phase} {m['rssMb'] / 1024:.1f} GiB RSS"
        for phase, m in line["memoryMb"].items()
    )
    weights = line["importanceWeights"]
    return (
        f"{layers} layers: decoding step {decode}; prefill {prefill}; merge and restore {point['merge']:.2f} s; graphs {point['graphs']}\n"
        f"  workload: {step['episodes']} episodes, {step['decisions']} decisions, {step['replies']} reply tokens, "
        f"{step['work'].decode_steps} decoding steps in {len(step['work'].decode)} windows, {step['work'].prefill_tokens} prefill tokens in "
        f"{len(step['work'].prefill)} forwards, {step['work'].scored_tokens} tokens scored; seconds: rollout {s['rollout']:.1f}, "
        f"reference {s['reference']:.1f}, critic {s['critic']:.1f}, update {s['update']:.1f}, commit and writes {s['commit']:.1f}, "
        f"total {s['total']:.1f}; slots per token {line['slotsPerToken']:.3f}; importance weights {weights['min']:.4f}–{weights['max']:.4f} "
        f"(mean {weights['mean']:.4f}, capped {weights['capped']:.1%}); sampler gap {line['samplerDeviation']:.2e}\n  memory: {memory}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--kit", type=Path, default=KIT, help="the kit (npm run rl:gpu-kit)")
    parser.add_argument("--kit-env", action="store_true", help="run the kit's environment even where the project's is built")
    parser.add_argument("--layers", type=int, nargs=2, default=[2, 6], help="the two depths measured")
    parser.add_argument("--episodes", type=int, default=100, help="episodes of the workload step (the paper's 100; a multiple of 4)")
    parser.add_argument("--rows", type=int, nargs="+", default=[8, 32, 100], help="rows of the decoding points")
    parser.add_argument("--contexts", type=int, nargs="+", default=[512, 1536], help="context lengths of the decoding points")
    parser.add_argument("--windows", type=int, default=4, help="decoding windows timed per point")
    args = parser.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        print("skipped: no GPU")
        return 0
    device = torch.device(args.device)
    shape = QWEN25_14B if device.type == "cuda" else SMALL_SHAPE
    import peft
    import transformers

    transformers.logging.set_verbosity_error()  # the cut model's unused layers are expected, not news
    nf4 = device.type == "cuda" and importlib.util.find_spec("bitsandbytes") is not None
    base = "NF4 (bitsandbytes; the adapter applied unmerged)" if nf4 else ("bf16, LoRA merged for rollouts (bitsandbytes absent)" if device.type == "cuda" else "fp32 (CPU)")
    gpu = torch.cuda.get_device_name(device) if device.type == "cuda" else "CPU"
    print(f"{gpu}; torch {torch.__version__}, transformers {transformers.__version__}, peft {peft.__version__}; base {base}; "
          f"workload: {SOURCE}", flush=True)
    started = time.perf_counter()
    measured: dict[int, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as scratch:
        directory = Path(scratch) / "qwen2.5-shaped"
        write_model(directory, args.kit, shape, max(args.layers), device)
        print(f"wrote {max(args.layers)} layers of width {shape['hidden_size']} (random bf16) in {time.perf_counter() - started:.0f} s", flush=True)
        with EnvClient(environment(args.kit, Path(scratch), args.kit_env)) as env:
            for layers in args.layers:
                trainer = trainer_for(directory, layers, args, env, device)
                if layers == args.layers[0]:
                    print(f"the trainer's {describe(trainer.sampling)} (this check forces its replies)", flush=True)
                point = points(trainer, args, device)
                step = workload_step(trainer, device)
                measured[layers] = {"point": point, "step": step, "prices": depth_prices(point, step)}
                print(report_depth(layers, point, step, device), flush=True)
                del trainer
                release(device)
    print(projection(measured, device))
    print(f"total {time.perf_counter() - started:.0f} s")
    return 0


def projection(measured: dict[int, dict[str, Any]], device: torch.device) -> str:
    """The 14B from the two depths: its prices, the paper's workload and the worst case, memory, floors."""
    model = cost_model.QWEN25_14B
    prices = cost_model.Fitted.at(PAPER_LAYERS, {layers: m["prices"] for layers, m in measured.items()})
    fixed = {name: extend({layers: m["prices"][name] for layers, m in measured.items()}, PAPER_LAYERS) for name in ("rollout other", "critic", "commit")}
    step = measured[min(measured)]["step"]
    paper = cost_model.project(step["work"], prices, fixed)
    peaks = {
        phase: extend({layers: m["step"]["line"]["memoryMb"][phase].get("allocatedMb", 0.0) * 2**20 for layers, m in measured.items()}, PAPER_LAYERS)
        for phase in ("rollout", "reference", "update")
    }
    activations = max(0.0, peaks["update"] - 2 * model.params - 16 * model.lora_params)
    card = cost_model.H100
    config_memory = cost_model.memory(model, card, step["episodes"], CONTEXT, activations)
    longest = round(step["first prompt"] + 59 * step["turn prompt"] + 60 * 512)
    slots = cost_model.slots_that_fit(model, card, longest, reserve=activations)
    worst = cost_model.Work.uniform(step["episodes"], 60, 512, round(step["first prompt"]), round(step["turn prompt"]), max(slots, 1))
    worst_phases = cost_model.project(worst, prices, fixed)
    floors = {c.name: cost_model.project(step["work"], cost_model.Roofline(model, c), {}) for c in (cost_model.H100, cost_model.H200)}
    coefficients = (
        f"decoding step {prices.decode[0] * 1e3:.2f} ms + {prices.decode[1] * 1e6:.1f} µs a row + {prices.decode[2] * 1e9:.2f} ns a row-key; "
        f"prefill {prices.prefill_[0] * 1e3:.1f} ms + {prices.prefill_[1] * 1e3:.2f} ms a slot + {prices.prefill_[2] * 1e6:.1f} µs a token; "
        f"reference {prices.reference_ * 1e6:.1f} µs and update {prices.update_ * 1e6:.1f} µs a scored token; "
        + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in fixed.items())
    )
    gib = lambda x: f"{x / cost_model.GIB:.1f} GiB"  # noqa: E731
    where = "this GPU" if device.type == "cuda" else "the CPU (a tiny shape: the figures test the path, they project nothing)"
    return (
        f"projected to {PAPER_LAYERS} layers (Qwen2.5-14B) from the two depths on {where}; inputs: {coefficients}\n"
        f"  the paper's workload (step 0 of Run 2): {cost_model.describe(paper)}\n"
        f"  the worst case (60 decisions of 512-token replies, {worst.longest} tokens an episode, {max(slots, 1)} at a time on an "
        f"80 GB card): {cost_model.describe(worst_phases)}\n"
        f"  memory on an 80 GB card at generationBatch {step['episodes']} × rolloutContext {CONTEXT}: weights {gib(config_memory['weights'])} "
        f"+ KV {gib(config_memory['kv'])} + adapter and optimizer {gib(config_memory['adapter and optimizer'])}; update activations "
        f"{gib(activations)}; peaks by phase (allocated, extended) " + ", ".join(f"{p} {gib(v)}" for p, v in peaks.items())
        + f": {'fits' if config_memory['fits'] else 'does not fit'}\n"
        f"  floors of the paper's workload (bandwidth and bf16 rate, no overhead): "
        + "; ".join(f"{name} {cost_model.describe(f)}" for name, f in floors.items())
    )


if __name__ == "__main__":
    sys.exit(main())
