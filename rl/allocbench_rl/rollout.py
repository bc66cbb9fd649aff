"""Lockstep rollouts: every episode of a step advances one decision at a time, generation batched.

All episodes are reset together; then, until none is pending, every pending decision gets a reply
(batches of `batch`), and one `step` request applies them all. The order is fixed (episodes as given,
decisions in that order), so with the caller's seeding a step replays identically after a resume.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch

from .chat import EpisodeTokens
from .config import EnvConfig
from .env import EnvClient, Finished, Pending, Reply, episode_request
from .logprobs import Row, score
from .model import Policy
from .sampling import choose, generate


@dataclass
class DecisionRecord:
    """One decision as the trainer, the critic and the run directory need it."""

    t: int
    class_id: int
    occurrence: int
    role: str
    features: dict[str, float]
    prompt: dict[str, Any]
    reply: Reply
    token_ids: list[int]
    """The reply's ids as trained on: content and the template's end of turn."""
    span: tuple[int, int]
    """Where `token_ids` lie in the episode's ids."""
    behaviour_logprob: float
    """The decision's log-prob at temperature 1 under the policy that acted (see ppo.py)."""
    token_logprobs: list[float] | None = None
    candidate_ids: list[list[int]] | None = None
    candidate_logprobs: list[float] | None = None
    chosen: int | None = None
    reading: dict[str, Any] = field(default_factory=dict)
    reward: int = 0
    done: bool = False

    @property
    def action(self) -> str:
        return self.reading.get("action", "pass")


@dataclass
class EpisodeRollout:
    id: str
    seed: int
    rollout: int
    ids: list[int]
    decisions: list[DecisionRecord]
    items: int = 0
    commitments: int = 0
    first_sight_commitments: int = 0


@dataclass
class _Open:
    episode: EpisodeRollout
    tokens: EpisodeTokens


def _prompt_record(d: Pending) -> dict[str, Any]:
    record: dict[str, Any] = {"system": d.system, "messages": list(d.messages)}
    if d.tools:
        record["tools"] = list(d.tools)
    return record


def _record(d: Pending, reply: Reply, ids: list[int], span: tuple[int, int], behaviour: float) -> DecisionRecord:
    return DecisionRecord(
        t=d.t,
        class_id=d.class_id,
        occurrence=d.occurrence,
        role=d.role,
        features=d.features,
        prompt=_prompt_record(d),
        reply=reply,
        token_ids=ids,
        span=span,
        behaviour_logprob=behaviour,
    )


@torch.no_grad()
def _free(policy: Policy, chunk: list[Pending], states: dict[str, _Open], temperature: float, max_new_tokens: int) -> dict[str, Reply]:
    prompts = [states[d.id].tokens.prompt(d) for d in chunk]
    generated = generate(policy, prompts, temperature, max_new_tokens)
    rows, closed = [], []
    for d, prompt, g in zip(chunk, prompts, generated):
        reply = Reply(policy.tokenizer.decode(g.content_ids, skip_special_tokens=True))
        ids, rendered = states[d.id].tokens.reply(d, reply, g.content_ids)
        rows.append(Row(base=prompt + ids, spans=[(len(prompt), len(prompt) + len(ids))]))
        closed.append((reply, ids, rendered))
    policy.model.eval()
    scored = score(policy, rows)
    replies = {}
    for d, (reply, ids, rendered), s in zip(chunk, closed, scored):
        state = states[d.id]
        span = state.tokens.accept(ids, rendered)
        token_logprobs = s.spans[0].tolist()
        record = _record(d, reply, ids, span, float(s.spans[0].mean()))
        record.token_logprobs = token_logprobs
        state.episode.decisions.append(record)
        replies[d.id] = reply
    return replies


@torch.no_grad()
def _constrained(
    policy: Policy, chunk: list[Pending], states: dict[str, _Open], temperature: float, generator: torch.Generator | None
) -> dict[str, Reply]:
    rows, options = [], []
    for d in chunk:
        tokens = states[d.id].tokens
        prompt = tokens.prompt(d)
        replies = [Reply(c.text, c.tool_calls) for c in d.candidates]
        closed = [tokens.reply(d, r) for r in replies]
        rows.append(Row(base=prompt, branches=[(len(prompt), ids) for ids, _ in closed]))
        options.append((replies, closed))
    policy.model.eval()
    scored = score(policy, rows)
    chosen_replies = {}
    for d, (replies, closed), s in zip(chunk, options, scored):
        sequence = torch.stack([b.sum() for b in s.branches])
        k = choose(sequence, temperature, generator)
        ids, rendered = closed[k]
        span = states[d.id].tokens.accept(ids, rendered)
        record = _record(d, replies[k], ids, span, float(torch.log_softmax(sequence, 0)[k]))
        record.candidate_ids = [c_ids for c_ids, _ in closed]
        record.candidate_logprobs = sequence.tolist()
        record.chosen = k
        states[d.id].episode.decisions.append(record)
        chosen_replies[d.id] = replies[k]
    return chosen_replies


def run_rollouts(
    policy: Policy,
    env: EnvClient,
    env_config: EnvConfig,
    episodes: list[tuple[str, int, int]],
    *,
    constrained: bool,
    temperature: float,
    max_new_tokens: int,
    batch: int,
    generator: torch.Generator | None,
) -> list[EpisodeRollout]:
    """Plays `episodes` ((id, seed, rollout index), in this order) to the end; returns them in that order."""
    decisions = env.reset([episode_request(id, seed, env_config) for id, seed, _ in episodes])
    states = {
        id: _Open(EpisodeRollout(id, seed, index, [], []), EpisodeTokens(policy.renderer)) for id, seed, index in episodes
    }
    order = {id: i for i, (id, _, _) in enumerate(episodes)}
    pending = [d for d in decisions if isinstance(d, Pending)]
    try:
        while pending:
            pending.sort(key=lambda d: order[d.id])
            replies: dict[str, Reply] = {}
            for first in range(0, len(pending), batch):
                chunk = pending[first : first + batch]
                if constrained:
                    replies |= _constrained(policy, chunk, states, temperature, generator)
                else:
                    replies |= _free(policy, chunk, states, temperature, max_new_tokens)
            pending = []
            for result in env.step(replies):
                record = states[result.id].episode.decisions[-1]
                record.reading, record.reward = result.reading, result.reward
                if isinstance(result.next, Finished):
                    record.done = True
                    done = states[result.id].episode
                    done.items, done.commitments = result.next.items, result.next.commitments
                    done.first_sight_commitments = result.next.first_sight_commitments
                else:
                    pending.append(result.next)
    finally:
        env.close([id for id, _, _ in episodes])
    finished = []
    for id, _, _ in episodes:
        episode, tokens = states[id].episode, states[id].tokens
        episode.ids = tokens.ids
        rewards = sum(d.reward for d in episode.decisions)
        if rewards != episode.items:
            raise RuntimeError(f"episode {id}: rewards sum to {rewards}, the session collected {episode.items}")
        finished.append(episode)
    return finished
