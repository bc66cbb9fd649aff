"""Qwen2.5-Instruct's own chat template (the paper's model family: tools in a <tools> block of the system turn,
calls as <tool_call> JSON) through every rung the environment plays, in free text and in the constrained mode:
every turn extends the last, and the behaviour log-probs are a fresh forward's over the episode."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from transformers import AutoTokenizer, Qwen2Config, Qwen2ForCausalLM

from allocbench_rl.config import Config
from allocbench_rl.env import EnvClient
from allocbench_rl.model import Policy, load_policy
from allocbench_rl.ppo import decision_logprobs
from allocbench_rl.rollout import run_rollouts


@pytest.fixture(scope="module")
def qwen_directory(kit: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny Qwen2 (random weights) saved with Qwen2.5's tokenizer and template."""
    tokenizer = AutoTokenizer.from_pretrained(str(kit / "qwen2.5-tokenizer"))
    shape = Qwen2Config(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, eos_token_id=tokenizer.convert_tokens_to_ids("<|im_end|>"), tie_word_embeddings=True,
    )
    directory = tmp_path_factory.mktemp("tiny-qwen2.5")
    torch.manual_seed(0)
    Qwen2ForCausalLM(shape).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


@pytest.fixture(scope="module")
def qwen(qwen_directory: Path) -> Policy:
    from allocbench_rl.config import ModelConfig

    return load_policy(ModelConfig(kind="hf", path=str(qwen_directory)), torch.device("cpu"), seed=0)


@pytest.mark.parametrize("mode", ["free", "constrained"])
@pytest.mark.parametrize("rung", ["R0", "probe", "R1", "R2"])
def test_qwen25_template_plays_every_rung(env: EnvClient, tiny: Callable[..., Config], qwen: Policy, rung: str, mode: str) -> None:
    config = tiny(decisionMode=mode, maxNewTokens=5, env={"rung": rung, "length": 3})
    assert qwen.renderer.structured_tools  # Qwen2.5's template renders tools and calls itself
    episodes = run_rollouts(
        qwen, env, config.env, [(f"q{i}", 9000 + i, 0) for i in range(2)], constrained=mode == "constrained", temperature=1.2,
        max_new_tokens=5, slots=2, context=2048, seed=0,
    )
    text = qwen.tokenizer.decode(episodes[0].ids)
    assert text.startswith("<|im_start|>system\n") and text.count("<|im_start|>assistant\n") == len(episodes[0].decisions)
    if rung != "R0":
        assert "<tools>" in text  # the tools offered, in Qwen's own block
        if mode == "constrained":
            assert "<tool_call>" in text  # a chosen call, rendered by the template
    with torch.no_grad():
        for e in episodes:
            old = torch.tensor([d.behaviour_logprob for d in e.decisions])
            assert torch.allclose(decision_logprobs(qwen, e, config), old, atol=1e-4)
