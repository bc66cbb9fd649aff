"""Rollouts at every rung the environment plays (R0, the keep/pass probe, R1, R2), in free text and in the
constrained mode: no conversation the env sends back breaks the episode's ids, the engine's behaviour
log-probs are those a whole forward over the episode gives, and each turn encodes only its new tokens."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import torch

from allocbench_rl.chat import tool_call_text
from allocbench_rl.config import Config
from allocbench_rl.engine import Sampled, TorchEngine, Turn
from allocbench_rl.env import EnvClient
from allocbench_rl.model import Policy, load_policy
from allocbench_rl.ppo import decision_logprobs
from allocbench_rl.rollout import RolloutStats, run_rollouts
from allocbench_rl.sampling import make_sampler

RUNGS = ["R0", "probe", "R1", "R2"]


def play(policy: Policy, env: EnvClient, config: Config, **options: object) -> tuple[list, RolloutStats]:
    stats = RolloutStats()
    episodes = run_rollouts(
        policy, env, config.env, [(f"e{i}", 9000 + i, 0) for i in range(3)],
        constrained=config.decision_mode == "constrained", temperature=1.2, max_new_tokens=config.max_new_tokens, slots=2,
        context=config.rollout_context, seed=0, stats=stats, **options,
    )
    return episodes, stats


@pytest.mark.parametrize("mode", ["free", "constrained"])
@pytest.mark.parametrize("rung", RUNGS)
def test_every_rung_plays_and_scores_as_it_sampled(env: EnvClient, tiny: Callable[..., Config], rung: str, mode: str) -> None:
    config = tiny(decisionMode=mode, maxNewTokens=6, env={"rung": rung, "length": 5})
    policy = load_policy(config.model, torch.device("cpu"), seed=0)
    episodes, stats = play(policy, env, config)
    assert all(e.decisions and sum(d.reward for d in e.decisions) == e.items for e in episodes)
    with torch.no_grad():
        for e in episodes:
            old = torch.tensor([d.behaviour_logprob for d in e.decisions])
            assert torch.allclose(decision_logprobs(policy, e, config), old, atol=1e-4)
    # Every id of an episode is run through the model once (a free reply's last sampled id never needs to
    # be), plus, in the constrained mode, the candidates not chosen: never the conversation again.
    unchosen = sum(len(ids) for e in episodes for d in e.decisions for k, ids in enumerate(d.candidate_ids or []) if k != d.chosen)
    whole = sum(len(e.ids) for e in episodes) + unchosen
    assert whole - len(episodes) <= stats.tokens_encoded <= whole


class CallingInText:
    """A rollout engine that answers every turn with a tool call written in its text, as a local model
    without tool support does: the env recovers the call and echoes it back as a structured one."""

    def __init__(self, policy: Policy, *, slots: int, **_: object):
        self.policy, self.slots, self.tokens_encoded, self.slots_encoded = policy, slots, 0, 0
        self.end = policy.tokenizer.convert_tokens_to_ids("<|im_end|>")
        self.open: set[str] = set()
        self.turns: list[Turn] = []

    def __enter__(self) -> CallingInText:
        return self

    def __exit__(self, *_: object) -> None:
        pass

    def free_slots(self) -> int:
        return self.slots - len(self.open)

    def submit(self, turn: Turn) -> None:
        self.open.add(turn.id)
        self.turns.append(turn)

    def finish(self, id: str) -> None:
        self.open.remove(id)

    def step(self) -> dict[str, Sampled]:
        ids = self.policy.renderer.encode("Keeping this one.\n" + tool_call_text(self.name, self.arguments)) + [self.end]
        done = {turn.id: Sampled(ids, [-1.0] * len(ids), True) for turn in self.turns}
        self.turns = []
        return done


@pytest.mark.parametrize(("rung", "name", "arguments"), [("probe", "keep", {}), ("R1", "claim_solver", {}), ("R2", "claim_solver", {"code": "def solve(inputs): return 0.0"})])
def test_a_call_written_in_free_text_is_recovered_and_the_episode_goes_on(
    env: EnvClient, tiny: Callable[..., Config], rung: str, name: str, arguments: dict
) -> None:
    config = tiny(decisionMode="free", env={"rung": rung, "length": 4})
    policy = load_policy(config.model, torch.device("cpu"), seed=0)
    tools = {t["name"] for t in _tools(env, config)}
    assert name in tools, tools
    engine = type("Engine", (CallingInText,), {"name": name, "arguments": arguments})
    episodes, _ = play(policy, env, config, engine=engine)
    for e in episodes:
        assert any(d.reading.get("action") == "commit" for d in e.decisions)  # the recovered call was read


def _tools(env: EnvClient, config: Config) -> list[dict]:
    from allocbench_rl.env import episode_request

    (decision,) = env.reset([episode_request("tools-probe", 9000, config.env)])
    env.close(["tools-probe"])
    return list(decision.tools)


def test_the_torch_engine_refuses_a_conversation_that_does_not_extend(tiny: Callable[..., Config]) -> None:
    policy = load_policy(tiny().model, torch.device("cpu"), seed=0)
    with TorchEngine(policy, slots=1, capacity=64, sampler=make_sampler("neutral", 1.0, 1.0), seed=0) as engine:
        engine.submit(Turn("a", [1, 2, 3], 2))
        while not engine.step():
            pass
        with pytest.raises(ValueError, match="does not extend"):
            engine.submit(Turn("a", [1, 9, 3, 4], 2))
        with pytest.raises(ValueError, match="more than the 64 of a slot"):
            engine.submit(Turn("a", engine.rows[0].known + [5], 64))
