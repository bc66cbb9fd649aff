"""The rollout engine does only the work there is, and the same work a plain forward does: greedy replies are a
whole forward's argmax and every recorded log-prob a fresh forward's; the base weights come back bit for bit
after LoRA was merged for the rollouts; the KV cache is allocated once at the size the config fixes; uneven
episodes run no idle rows (slots per token 1, recorded in steps.jsonl); a row whose reply ends takes its next
turn while the others decode; reading the device every k steps samples the same replies; the decoding window
never waits on the device; attention reads the key-value heads as stored, in rollouts, reference and update."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import torch
import transformers
from torch.utils._python_dispatch import TorchDispatchMode

from allocbench_rl import decoder, engine as engine_module
from allocbench_rl.config import Config
from allocbench_rl.engine import TorchEngine, Turn
from allocbench_rl.env import EnvClient
from allocbench_rl.model import Policy, load_policy
from allocbench_rl.ppo import micro_batches, ppo_update, reference_units
from allocbench_rl.rollout import EpisodeRollout, RolloutStats, run_rollouts
from allocbench_rl.sampling import make_sampler

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from paper_workload import ScriptedSampler  # noqa: E402


def moved_away(policy: Policy, scale: float = 0.2) -> None:
    """An adapter away from zero, so that merging it changes the weights."""
    generator = torch.Generator().manual_seed(3)
    with torch.no_grad():
        for name, parameter in policy.model.named_parameters():
            if "lora_B" in name:
                parameter.copy_(torch.randn(parameter.shape, generator=generator) * scale)


def play(policy: Policy, env: EnvClient, config: Config, count: int = 4, **options: Any) -> list[EpisodeRollout]:
    settings: dict[str, Any] = {
        "constrained": config.decision_mode == "constrained", "temperature": 1.2, "max_new_tokens": config.max_new_tokens,
        "slots": count, "context": config.rollout_context, "seed": 5,
    }
    return run_rollouts(policy, env, config.env, [(f"e{i}", 9000 + i // 4, i % 4) for i in range(count)], **(settings | options))


@pytest.fixture
def plain() -> Callable[[Policy, list[int]], torch.Tensor]:
    """The plain engine: transformers' own forward over a whole episode (eager attention, no cache, the adapter
    unmerged): its logits at every position."""

    def logits(policy: Policy, ids: list[int]) -> torch.Tensor:
        lm = policy.model.get_base_model()
        implementation = lm.config._attn_implementation
        lm.set_attn_implementation("eager")
        try:
            with torch.no_grad():
                return policy.model(input_ids=torch.tensor([ids])).logits[0].double()
        finally:
            lm.set_attn_implementation(implementation)

    return logits


def test_greedy_replies_and_every_log_prob_are_the_plain_forwards(
    env: EnvClient, tiny: Callable[..., Config], plain: Callable[[Policy, list[int]], torch.Tensor]
) -> None:
    config = tiny(decisionMode="free", maxNewTokens=6, env={"length": 4})
    policy = load_policy(config.model, torch.device("cpu"), seed=0)
    moved_away(policy)
    for temperature in (0.0, 1.2):
        for e in play(policy, env, config, temperature=temperature):
            logits = plain(policy, e.ids)
            scored = torch.log_softmax(logits / (temperature or 1.0), dim=-1)
            for d in e.decisions:
                start, end = d.span
                predicted = scored[start - 1 : end - 1]
                tokens = torch.tensor(e.ids[start:end])
                if temperature == 0:
                    assert torch.equal(predicted.argmax(-1), tokens)  # greedy: the whole forward's argmax, token after token
                recorded = torch.tensor(d.token_logprobs, dtype=torch.float64)
                assert torch.allclose(recorded, predicted.gather(1, tokens[:, None]).squeeze(1), atol=1e-4)


@pytest.mark.parametrize("mode", ["free", "constrained"])
def test_rollouts_merge_the_adapter_and_restore_the_base_bit_for_bit(env: EnvClient, tiny: Callable[..., Config], mode: str) -> None:
    config = tiny(decisionMode=mode, maxNewTokens=4, env={"length": 4})
    policy = load_policy(config.model, torch.device("cpu"), seed=0)
    moved_away(policy)
    before = {n: p.detach().clone() for n, p in policy.model.named_parameters()}
    merged = []
    real = TorchEngine.step

    def step(self: TorchEngine) -> Any:
        weight = policy.model.get_base_model().model.layers[0].self_attn.q_proj.base_layer.weight
        merged.append(self.merged and not torch.equal(weight, before["base_model.model.model.layers.0.self_attn.q_proj.base_layer.weight"]))
        return real(self)

    TorchEngine.step = step  # type: ignore[method-assign]
    try:
        play(policy, env, config)
    finally:
        TorchEngine.step = real  # type: ignore[method-assign]
    assert merged and all(merged)  # the rollouts ran on merged weights
    for name, parameter in policy.model.named_parameters():
        assert torch.equal(parameter, before[name]), name


def test_the_kv_cache_is_allocated_once_at_the_size_the_config_fixes(tiny: Callable[..., Config]) -> None:
    config = tiny()
    policy = load_policy(config.model, torch.device("cpu"), seed=0)
    t = config.model.tiny
    with TorchEngine(policy, slots=3, capacity=96, sampler=make_sampler("neutral", 1.2, 1.2), seed=0) as engine:
        assert engine.kv_bytes == 2 * t.layers * 3 * t.kv_heads * 96 * (t.hidden // t.heads) * 4  # keys and values, fp32
        storage = engine.decoder.cache.keys.data_ptr(), engine.decoder.cache.values.data_ptr()
        done: dict[str, Any] = {}
        for i, length in enumerate((5, 17, 9)):
            engine.submit(Turn(f"r{i}", list(range(10, 10 + length)), 8))
        while len(done) < 3:
            done |= engine.step()
        engine.finish("r0")  # r2 moves into slot 0
        engine.finish("r2")  # r1 moves into slot 0
        engine.submit(Turn("r1", list(range(10, 27)) + done["r1"].ids + [40, 41], 8))
        while "r1" not in (finished := engine.step()):
            pass
        assert (engine.decoder.cache.keys.data_ptr(), engine.decoder.cache.values.data_ptr()) == storage
        assert engine.kv_bytes == 2 * t.layers * 3 * t.kv_heads * 96 * (t.hidden // t.heads) * 4


def test_uneven_episodes_run_no_idle_rows(env: EnvClient, tiny: Callable[..., Config]) -> None:
    """16 constrained episodes of one step, each ending at its third keep (steps.jsonl records the ratio as
    slotsPerToken: test_train_cli)."""
    config = tiny(env={"length": 30})
    policy = load_policy(config.model, torch.device("cpu"), seed=0)
    stats = RolloutStats()
    episodes = play(policy, env, config, count=16, stats=stats)
    decisions = [len(e.decisions) for e in episodes]
    assert max(decisions) >= 2 * min(decisions)  # uneven
    assert stats.slots_encoded <= 1.1 * stats.tokens_encoded  # lockstep cohorts ran finished episodes' rows and padding: 1.83 here


def forced(policy: Policy, lengths: dict[str, list[int]]) -> ScriptedSampler:
    """Replies of the given lengths (the stop token last) whatever the model says."""
    filler, stop = policy.tokenizer.convert_tokens_to_ids("a"), policy.tokenizer.eos_token_id
    return ScriptedSampler({id: [[filler] * (n - 1) + [stop] for n in turns] for id, turns in lengths.items()})


def test_a_reply_that_ends_takes_its_next_turn_while_the_others_decode(
    env: EnvClient, tiny: Callable[..., Config], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tiny(decisionMode="free", maxNewTokens=12, env={"length": 4})
    policy = load_policy(config.model, torch.device("cpu"), seed=0)
    lengths = {"e0": [9, 1, 1, 1], "e1": [1, 9, 1, 1], "e2": [1, 1, 9, 1], "e3": [1, 1, 1, 9]}
    rows: list[int] = []
    decode = decoder.Decoder.decode
    monkeypatch.setattr(decoder.Decoder, "decode", lambda self, tokens, *rest: rows.append(tokens.shape[0]) or decode(self, tokens, *rest))
    sampler = forced(policy, lengths)
    stats = RolloutStats()
    episodes = play(policy, env, config, engine=lambda p, **kw: TorchEngine(p, **(kw | {"sampler": sampler})), stats=stats)
    assert [[len(d.token_ids) for d in e.decisions] for e in episodes] == list(lengths.values())
    # Every episode's replies add up to 12 tokens: 12 decoding forwards of 4 rows. In lockstep each turn waits
    # for its longest reply: 36 forwards, most rows idle.
    assert rows == [4] * 12
    assert stats.slots_encoded == stats.tokens_encoded


def test_reading_the_device_every_k_steps_samples_the_same_replies(env: EnvClient, tiny: Callable[..., Config]) -> None:
    config = tiny(decisionMode="free", maxNewTokens=6, env={"length": 4})
    policy = load_policy(config.model, torch.device("cpu"), seed=0)
    runs = {}
    for every in (1, 4):
        stats = RolloutStats()
        episodes = play(policy, env, config, engine=lambda p, **kw: TorchEngine(p, sync_every=every, **kw), stats=stats)
        runs[every] = ([e.ids for e in episodes], [d.token_logprobs for e in episodes for d in e.decisions], stats)
    assert runs[4][0] == runs[1][0]
    assert torch.allclose(torch.tensor(sum(runs[4][1], [])), torch.tensor(sum(runs[1][1], [])), atol=1e-6)
    assert runs[1][2].slots_encoded == runs[1][2].tokens_encoded
    assert runs[4][2].slots_encoded > runs[4][2].tokens_encoded == runs[1][2].tokens_encoded  # rows idle to the window's end


class NoHostWait(TorchDispatchMode):
    """Fails on any op whose result the host must wait for: a value read back, a shape that depends on data
    (indexing by integer tensors has a fixed shape; by a boolean mask it does not)."""

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        waits = {torch.Tag.data_dependent_output, torch.Tag.dynamic_output_shape} & set(func.tags)
        if func is torch.ops.aten.index.Tensor and all(i is None or i.dtype != torch.bool for i in args[1]):
            waits = set()
        assert not waits and func is not torch.ops.aten._local_scalar_dense.default, f"{func} waits on the device"
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("sampler", ["neutral", "ollama-defaults"])
def test_the_decoding_window_never_waits_on_the_device(tiny: Callable[..., Config], monkeypatch: pytest.MonkeyPatch, sampler: str) -> None:
    """What a CUDA graph captures must run without the host: here, the window as it runs on the CPU."""
    policy = load_policy(tiny().model, torch.device("cpu"), seed=0)
    window = engine_module._Window.run_eagerly
    windows = []

    def checked(self: Any, rows: int, key_length: int) -> None:
        windows.append(rows)
        with NoHostWait():
            window(self, rows, key_length)

    monkeypatch.setattr(engine_module._Window, "run_eagerly", checked)
    with TorchEngine(policy, slots=3, capacity=64, sampler=make_sampler(sampler, 1.2, 1.0), seed=0, sync_every=3) as engine:
        for i in range(3):
            engine.submit(Turn(str(i), list(range(20, 25 + i)), 7))
        done: set[str] = set()
        while len(done) < 3:
            for id in engine.step():
                done.add(id)
                engine.finish(id)
    assert windows


def test_attention_reads_the_key_value_heads_as_stored(env: EnvClient, tiny: Callable[..., Config], monkeypatch: pytest.MonkeyPatch) -> None:
    """No copy of keys and values per query head anywhere: SDPA always sees the 2 key-value heads on both sides."""
    calls: list[tuple[int, int, bool]] = []
    sdpa = torch.nn.functional.scaled_dot_product_attention

    def recorded(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, **options: Any) -> torch.Tensor:
        calls.append((query.shape[1], key.shape[1], options.get("enable_gqa", False)))
        return sdpa(query, key, value, **options)

    def refused(*_: Any) -> None:
        raise AssertionError("repeat_kv copies the keys and values to the query heads")

    monkeypatch.setattr(torch.nn.functional, "scaled_dot_product_attention", recorded)
    monkeypatch.setattr(transformers.integrations.sdpa_attention, "repeat_kv", refused)
    monkeypatch.setattr(transformers.models.llama.modeling_llama, "repeat_kv", refused)
    for mode in ("free", "constrained"):
        config = tiny(decisionMode=mode, maxNewTokens=4, env={"length": 3})
        policy = load_policy(config.model, torch.device("cpu"), seed=0)
        episodes = play(policy, env, config, count=2)
        reference = reference_units(policy, episodes, config)
        optimizer = torch.optim.AdamW(policy.trainable(), lr=1e-3)
        ppo_update(policy, optimizer, episodes, [[1.0] * len(e.decisions) for e in episodes], reference, config)
    assert calls and set(calls) == {(2, 2, False)}


def test_the_update_groups_episodes_of_similar_length() -> None:
    episodes = [EpisodeRollout(str(i), 0, 0, [0] * n, []) for i, n in enumerate([50, 10, 40, 20, 30, 60])]
    assert micro_batches(episodes, 2) == [[1, 3], [4, 2], [0, 5]]
