"""One outer step of the paper's run on one GPU, projected from what a CPU measures: the work the rollout engine
does on the authors' logged step 0, priced at a card's floor. No GPU figure here is a measurement.

Measured here, with the engine as a GPU runs it (a window of 8 decoding steps between host reads): the paper's
workload (bench/paper_workload.py: 100 episodes of step 0's seeds, the authors' decisions, reply lengths and
keep points forced) through the real environment and engine on a tiny Qwen2 with Qwen2.5's tokenizer and
template, which gives every forward the engine runs (rows, key lengths, prefill tokens) and the tokens the
reference pass and the update score; the critic fitted on those decisions; the host's time beside the
model's (the environment, the chat template, the engine's bookkeeping); the disk's write rate.

Priced (cost_model.py): each forward of a Qwen2.5-14B in bf16 at the card's copy rate or bf16 rate, whichever
is longer, with no launch or kernel overhead (a floor); the adapter's merge and restore as a copy of the
projection weights from pinned host memory at an assumed 25 GB/s; the commit as the 14B adapter, its AdamW
state and rollouts.jsonl at the measured disk rate. The worst case: every episode 60 decisions of 512-token
replies, as many at once as fit the card.

    rl/.venv/bin/python rl/bench/paper_projection.py     (npm run bench:rl-projection; about 5 minutes)
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

RL = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(RL))
sys.path.insert(0, str(RL / "bench"))

import cost_model  # noqa: E402
from allocbench_rl import decoder, engine as engine_module  # noqa: E402
from allocbench_rl.config import CriticConfig, EnvConfig, ModelConfig  # noqa: E402
from allocbench_rl.critic import Critic  # noqa: E402
from allocbench_rl.engine import TorchEngine  # noqa: E402
from allocbench_rl.env import EnvClient, default_command  # noqa: E402
from allocbench_rl.model import load_policy  # noqa: E402
from allocbench_rl.returns import reward_to_go  # noqa: E402
from allocbench_rl.rollout import RolloutStats, run_rollouts  # noqa: E402
from paper_workload import SOURCE, ScriptedSampler, paper_shapes, scripts  # noqa: E402

KIT_TOKENIZER = RL / ".gpu-kit" / "qwen2.5-tokenizer"
PINNED_COPY = 25e9
"""Bytes a second of a pinned host-to-device copy (an assumption: PCIe 5 ×16 gives up to about 50)."""


def tiny_qwen(directory: Path) -> None:
    from transformers import AutoTokenizer, Qwen2Config, Qwen2ForCausalLM

    if not (KIT_TOKENIZER / "tokenizer.json").exists():
        import gpu_kit

        print(f"writing Qwen2.5's tokenizer to {KIT_TOKENIZER} (once)", flush=True)
        gpu_kit.write_tokenizer(KIT_TOKENIZER)
    tokenizer = AutoTokenizer.from_pretrained(str(KIT_TOKENIZER))
    shape = Qwen2Config(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4,
        num_key_value_heads=2, tie_word_embeddings=True, eos_token_id=tokenizer.convert_tokens_to_ids("<|im_end|>"),
    )
    torch.manual_seed(0)
    Qwen2ForCausalLM(shape).save_pretrained(directory)
    tokenizer.save_pretrained(directory)


def disk_rate(directory: Path) -> float:
    """Bytes a second of a 256 MiB write with fsync."""
    data = os.urandom(2**20) * 256
    path = directory / "rate"
    started = time.perf_counter()
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    seconds = time.perf_counter() - started
    path.unlink()
    return len(data) / seconds


def main() -> int:
    torch.set_num_threads(1)
    scratch = Path(tempfile.mkdtemp(prefix="rl-projection-"))
    tiny_qwen(scratch / "tiny-qwen")
    policy = load_policy(ModelConfig(kind="hf", path=str(scratch / "tiny-qwen")), torch.device("cpu"), seed=0)
    ids = [f"0-{s}-{r}" for s in range(9000, 9025) for r in range(4)]
    stop = policy.tokenizer.convert_tokens_to_ids("<|im_end|>")
    sampler = ScriptedSampler(scripts(paper_shapes(), ids, policy.tokenizer, stop), 1.2)
    engines: list[TorchEngine] = []
    model_seconds = [0.0]

    def timed(real: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return real(*args, **kwargs)
            finally:
                model_seconds[0] += time.perf_counter() - started

        return run

    decoder.Decoder.prefill = timed(decoder.Decoder.prefill)  # type: ignore[method-assign]
    engine_module._Window.run = timed(engine_module._Window.run)  # type: ignore[method-assign]

    def engine(p: Any, **options: Any) -> TorchEngine:
        engines.append(TorchEngine(p, **(options | {"sampler": sampler}), sync_every=engine_module.SYNC_EVERY_ON_GPU))
        return engines[-1]

    print(f"the paper's workload ({SOURCE}), replies forced; a 1-layer Qwen2 of width 32 with Qwen2.5's tokenizer on the CPU", flush=True)
    with EnvClient(default_command()) as env:
        stats, started = RolloutStats(), time.perf_counter()
        rollouts = run_rollouts(
            policy, env, EnvConfig(), [(id, int(id.split("-")[1]), int(id.split("-")[2])) for id in ids], constrained=False,
            temperature=1.2, max_new_tokens=512, slots=100, context=2048, seed=0, stats=stats, engine=engine,
        )
        wall = time.perf_counter() - started
        features = env.feature_names
    host = wall - model_seconds[0]
    work = cost_model.Work.from_run(engines[0].forwards, engines[0].sync_every, rollouts)
    replies = sum(len(d.token_ids) for e in rollouts for d in e.decisions)
    print(f"measured: {len(rollouts)} episodes, {work.decisions} decisions (each episode ending at its third keep), {replies} reply tokens; "
          f"{len(work.decode)} decoding windows, {work.decode_steps} steps, {sum(r * s for r, _, s in work.decode)} rows run for "
          f"{stats.tokens_encoded - work.prefill_tokens} tokens decoded (slots per token {stats.slots_encoded / stats.tokens_encoded:.3f} with "
          f"8-step windows); {len(work.prefill)} prefill forwards, {work.prefill_tokens} tokens; {work.scored_tokens} tokens scored by the "
          f"reference pass and the update; the longest episode {work.longest} tokens; host and environment {host:.1f} s beside the model's forwards", flush=True)

    critic = Critic(CriticConfig(), features, 0)
    flat = [d.features for e in rollouts for d in e.decisions]
    returns = [g for e in rollouts for g in reward_to_go([float(d.reward) for d in e.decisions])]
    started = time.perf_counter()
    critic.fit(flat, returns)
    critic_seconds = time.perf_counter() - started

    model = cost_model.QWEN25_14B
    records = sum(len(json.dumps({"prompt": d.prompt, "tokenIds": d.token_ids, "tokenLogprobs": d.token_logprobs})) for e in rollouts for d in e.decisions)
    rate = disk_rate(scratch)
    commit = (3 * 4 * model.lora_params + records) / rate  # the fp32 adapter and AdamW's two moments, the records
    merge = 2 * (model.params - 2 * model.vocab * model.hidden) / PINNED_COPY
    fixed = {"rollout other": host + merge, "critic": critic_seconds, "commit": commit}
    print(f"fixed: host and environment {host:.1f} s + merge and restore {merge:.1f} s (26.4 GB at 25 GB/s, assumed); critic fit {critic_seconds:.1f} s "
          f"(measured); commit {commit:.1f} s ({3 * 4 * model.lora_params / 1e9:.2f} GB of adapter and optimizer state and {records / 1e6:.1f} MB of "
          f"records at the disk's {rate / 1e9:.2f} GB/s, measured)")

    first = sum(e.decisions[0].span[0] for e in rollouts) / len(rollouts)
    turns = [b.span[0] - a.span[1] for e in rollouts for a, b in zip(e.decisions, e.decisions[1:])]
    turn = sum(turns) / len(turns)
    longest = round(first + 59 * turn + 60 * 512)
    for card in (cost_model.H100, cost_model.H200):
        floor = cost_model.Roofline(model, card)
        slots = cost_model.slots_that_fit(model, card, longest, reserve=4 * cost_model.GIB)
        worst = cost_model.Work.uniform(len(rollouts), 60, 512, round(first), round(turn), slots)
        fits = cost_model.memory(model, card, 100, 2048, 4 * cost_model.GIB)
        print(f"{card.name}, {card.bandwidth / 1e12:.2f} TB/s and {card.bf16 / 1e12:.0f} TFLOP/s bf16; a Qwen2.5-14B in bf16 "
              f"({model.params / 1e9:.2f}B parameters, {model.kv_bytes_per_token() // 1024} KiB of KV a token):")
        print(f"  the paper's workload, floor: {cost_model.describe(cost_model.project(work, floor, fixed))}")
        print(f"  the worst case (60 decisions of 512-token replies, {worst.longest} tokens an episode, {slots} at a time), floor: "
              f"{cost_model.describe(cost_model.project(worst, floor, fixed))}")
        print(f"  memory at generationBatch 100 × rolloutContext 2048: weights {fits['weights'] / cost_model.GIB:.1f} GiB + KV "
              f"{fits['kv'] / cost_model.GIB:.1f} GiB + adapter and optimizer {fits['adapter and optimizer'] / cost_model.GIB:.1f} GiB + 4 GiB "
              f"of activations assumed: {'fits' if fits['fits'] else 'does not fit'} in {card.memory / 1e9:.0f} GB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
