"""1. The environment agrees with the core: scripted replies read as written, rewards that sum to the
session's items, the heuristics' items from the core's own policies, and an append-only conversation."""

from __future__ import annotations

import dataclasses
import re

from allocbench_rl.config import EnvConfig
from allocbench_rl.env import EnvClient, Pending, Reply
from conftest import eager, play, wait_one_repeat

SEEDS = list(range(9000, 9012))


def test_scripted_episodes_agree_with_the_core(env: EnvClient) -> None:
    config = EnvConfig(length=40)
    for name, policy in (("eager", eager), ("waitOneRepeat", wait_one_repeat)):
        items = []
        for seed in SEEDS:
            steps, outcome = play(env, seed, policy, config)
            for decision, result in steps:
                reply = policy(decision)
                keep = reply.text.endswith("KEEP")
                assert result.reading == {"resolved": True, "action": "commit" if keep else "pass", "how": "tag"}
                assert result.reward >= (1 if keep else 0) and (keep or result.reward == 0)
                if isinstance(result.next, Pending):
                    grown = list(decision.messages) + [{"role": "assistant", "content": reply.text, "toolCalls": []}]
                    assert list(result.next.messages[:-1]) == grown
                    assert result.next.messages[-1]["role"] == "user"
                    assert re.search(rf"Draw {result.next.t} of 40: an? ", result.next.messages[-1]["content"])
            assert sum(r.reward for _, r in steps) == outcome.items
            assert outcome.commitments == sum(r.reading["action"] == "commit" for _, r in steps)
            items.append(outcome.items)
        assert sum(items) / len(items) == env.baselines(SEEDS, 3, 40)[name]


def test_first_message_and_features(env: EnvClient) -> None:
    steps, _ = play(env, 9000, eager, EnvConfig(length=12))
    first, _ = steps[0]
    assert first.messages == ({"role": "user", "content": first.messages[0]["content"]},)
    assert "12 balls will be drawn" in first.system and "exactly 8 distinct colors" in first.system
    assert first.t == 1 and first.occurrence == 1
    assert env.feature_names == ("elapsed", "budgetLeft", "occurrence", "otherUnkept", "rate")
    assert first.features["elapsed"] == 0 and first.features["budgetLeft"] == 1
    assert {c.text for c in first.candidates} == {"DECISION: KEEP", "DECISION: PASS"}
    hidden = dataclasses.replace(EnvConfig(length=12), announce_n=False)
    silent, _ = play(env, 9000, eager, hidden)
    assert "exactly 8 distinct" not in silent[0][0].system


def test_tool_rung_conversation_grows_by_call_and_result(env: EnvClient) -> None:
    keep = {"id": "c1", "name": "keep", "arguments": "{}"}
    steps, outcome = play(env, 9001, lambda d: Reply("", (keep,)), EnvConfig(rung="probe", length=12))
    decision, result = steps[0]
    assert result.reading["action"] == "commit" and result.reading["resolved"]
    added = list(result.next.messages[len(decision.messages) :])
    assert [m["role"] for m in added] == ["assistant", "tool", "user"]
    assert added[0]["toolCalls"] == [keep] and added[1]["toolCallId"] == "c1"
    assert sum(r.reward for _, r in steps) == outcome.items
