"""Time and memory of one training step's parts at the paper's scale, on one GPU, with no download.

A model of Qwen2.5-14B's shape is built from its config (random weights), its decoder's linear layers
quantized to 4-bit NF4 (double quantization, bf16 compute) as QLoRA loads them, LoRA r32 on every
projection, gradient checkpointing. The SmolLM2 tokenizer from the repository's GGUF stands in for
Qwen's (same ChatML template; the ids fit in Qwen's vocabulary), so prompts have realistic lengths.

It times, through the trainer's own code: rollouts of scripted free-text episodes at T = 60 (replies
of about 40 tokens, as Qwen's are; the scoring forwards are real), one batch of 16 generations of
--new-tokens tokens, and the PPO update (reference pass, forward and backward per episode); then it
projects one outer step of 25 seeds × 4 rollouts and the 20-step run. Prints "skipped: no GPU" without CUDA.

    rl/.venv/bin/python rl/bench/gpu_step.py [--episodes 16] [--new-tokens 64] [--layers 48]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import torch

RL = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(RL))

from allocbench_rl import rollout as rollout_module  # noqa: E402
from allocbench_rl.chat import ChatRenderer  # noqa: E402
from allocbench_rl.config import Config, EnvConfig, ModelConfig  # noqa: E402
from allocbench_rl.env import EnvClient, default_command  # noqa: E402
from allocbench_rl.model import Policy, load_tokenizer  # noqa: E402
from allocbench_rl.ppo import ppo_update, reference_logprobs  # noqa: E402
from allocbench_rl.sampling import Generated, generate  # noqa: E402

GGUF = RL.parent / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
PAPER_EPISODES, PAPER_STEPS, BATCH = 100, 20, 16


def qwen14b_shape(layers: int) -> "transformers.Qwen2Config":  # noqa: F821
    from transformers import Qwen2Config

    return Qwen2Config(
        hidden_size=5120,
        num_hidden_layers=layers,
        num_attention_heads=40,
        num_key_value_heads=8,
        intermediate_size=13824,
        vocab_size=152064,
        rope_theta=1_000_000.0,
        max_position_embeddings=32768,
        tie_word_embeddings=False,
        use_cache=False,
        attn_implementation="sdpa",
    )


def quantized_model(layers: int, device: torch.device) -> torch.nn.Module:
    """Random bf16 weights, then every decoder linear layer replaced by its NF4 quantization."""
    import bitsandbytes as bnb
    from transformers import Qwen2ForCausalLM

    torch.manual_seed(0)
    with torch.device(device):
        model = Qwen2ForCausalLM(qwen14b_shape(layers)).to(torch.bfloat16)
    for layer in model.model.layers:
        for parent in (layer.self_attn, layer.mlp):
            for name, linear in list(parent.named_children()):
                if not isinstance(linear, torch.nn.Linear):
                    continue
                quantized = bnb.nn.Linear4bit(
                    linear.in_features, linear.out_features, bias=linear.bias is not None,
                    compute_dtype=torch.bfloat16, compress_statistics=True, quant_type="nf4", device="meta",
                )
                quantized.weight = bnb.nn.Params4bit(linear.weight.data, requires_grad=False, compress_statistics=True, quant_type="nf4")
                if linear.bias is not None:
                    quantized.bias = torch.nn.Parameter(linear.bias.data, requires_grad=False)
                setattr(parent, name, quantized.to(device))
        if device.type == "cuda":
            torch.cuda.empty_cache()
    model.is_loaded_in_4bit = True  # as transformers' bitsandbytes loader marks it, for peft's dispatch
    return model


def policy_of(model: torch.nn.Module, device: torch.device) -> Policy:
    from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training

    model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=True)
    lora = LoraConfig(r=32, lora_alpha=64, lora_dropout=0.05, bias="none", task_type="CAUSAL_LM",
                      target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"])
    peft_model = get_peft_model(model, lora)
    tokenizer = load_tokenizer(ModelConfig(kind="gguf", path=str(GGUF)))
    return Policy(model=peft_model, tokenizer=tokenizer, renderer=ChatRenderer(tokenizer), device=device)


def scripted_generate(policy: Policy, coin: random.Random):
    """Replies of Qwen's usual length in place of sampling, so episodes have the paper's shape."""

    def reply(_: Policy, prompts: list[list[int]], temperature: float, max_new_tokens: int) -> list[Generated]:
        out = []
        for _ in prompts:
            word = "KEEP" if coin.random() < 0.3 else "PASS"
            text = ("This color has appeared before, and the budget allows waiting for stronger evidence "
                    f"about which colors are common.\nDECISION: {word}")
            out.append(Generated(policy.renderer.encode(text), True))
        return out

    return reply


def seconds(since: float, device: torch.device) -> float:
    torch.cuda.synchronize(device)
    return time.perf_counter() - since


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=16, help="episodes rolled out and updated on (the paper: 100 per step)")
    parser.add_argument("--new-tokens", type=int, default=64, help="tokens per generation in the generation timing")
    parser.add_argument("--layers", type=int, default=48, help="decoder layers (48 is the 14B; fewer for a quick look)")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("skipped: no GPU")
        return 0
    device = torch.device("cuda")
    name = torch.cuda.get_device_name(device)
    started = time.perf_counter()
    policy = policy_of(quantized_model(args.layers, device), device)
    trainable = sum(p.numel() for p in policy.trainable())
    print(f"{name}: Qwen2.5-14B shape ({args.layers} layers), NF4 + LoRA r32 ({trainable / 1e6:.1f} M trainable), "
          f"built in {seconds(started, device):.0f} s, {torch.cuda.memory_allocated(device) / 2**30:.1f} GiB allocated")

    config = Config(env=EnvConfig(), decision_mode="free")
    with EnvClient(default_command()) as env:
        rollout_module.generate = scripted_generate(policy, random.Random(0))
        torch.cuda.reset_peak_memory_stats(device)
        t0 = time.perf_counter()
        episodes = rollout_module.run_rollouts(
            policy, env, config.env, [(f"g{i}", 9000 + i // 4, i % 4) for i in range(args.episodes)],
            constrained=False, temperature=1.2, max_new_tokens=512, batch=BATCH, generator=None,
        )
        scoring = seconds(t0, device)
        rollout_module.generate = generate
    decisions = [len(e.decisions) for e in episodes]
    lengths = [len(e.ids) for e in episodes]
    rounds = max(decisions)
    print(f"episodes: {statistics.fmean(decisions):.1f} decisions (max {rounds}), {statistics.fmean(lengths):.0f} tokens "
          f"(max {max(lengths)}); rollout scoring forwards {scoring:.1f} s for {args.episodes} episodes")

    prompts = [e.ids[: e.decisions[len(e.decisions) // 2].span[0]] for e in episodes[:BATCH]]
    t0 = time.perf_counter()
    generate(policy, prompts, 1.2, args.new_tokens)
    generation = seconds(t0, device)
    rollout_peak = torch.cuda.max_memory_allocated(device) / 2**30
    print(f"one generation batch: {len(prompts)} prompts (mean {statistics.fmean(map(len, prompts)):.0f} tokens) × "
          f"{args.new_tokens} new tokens in {generation:.1f} s; rollout peak {rollout_peak:.1f} GiB")

    torch.cuda.reset_peak_memory_stats(device)
    t0 = time.perf_counter()
    reference = reference_logprobs(policy, episodes)
    referenced = seconds(t0, device)
    optimizer = torch.optim.AdamW(policy.trainable(), lr=6e-5, weight_decay=0.01)
    advantages = [[random.Random(i).gauss(0, 5) for _ in e.decisions] for i, e in enumerate(episodes)]
    t0 = time.perf_counter()
    ppo_update(policy, optimizer, episodes, advantages, reference, config)
    updated = seconds(t0, device)
    update_peak = torch.cuda.max_memory_allocated(device) / 2**30
    per_episode = (referenced + updated) / args.episodes
    print(f"update: reference {referenced:.1f} s + forward/backward {updated:.1f} s for {args.episodes} episodes "
          f"({per_episode:.2f} s per episode); update peak {update_peak:.1f} GiB")

    # One outer step: lockstep rounds, each with ceil(100 / 16) generation batches of scripted length,
    # the scoring forwards scaled from the measured episodes, and the update scaled per episode.
    scale = PAPER_EPISODES / args.episodes
    reply_tokens = 40
    batches = rounds * -(-PAPER_EPISODES // BATCH)
    step_generation = batches * generation * reply_tokens / args.new_tokens
    step_total = step_generation + scoring * scale + per_episode * PAPER_EPISODES
    print(f"projection, one step of 25 seeds × 4 rollouts: generation ≈ {step_generation / 60:.1f} min "
          f"({batches} batches of {reply_tokens}-token replies), scoring ≈ {scoring * scale / 60:.1f} min, "
          f"update ≈ {per_episode * PAPER_EPISODES / 60:.1f} min; ≈ {step_total / 60:.1f} min per step, "
          f"≈ {PAPER_STEPS * step_total / 3600:.1f} h for 20 steps; peak memory {max(rollout_peak, update_peak):.1f} GiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
