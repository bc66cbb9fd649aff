"""Rollouts in cohorts: the episodes of a cohort advance one decision at a time, decoded as one batch.

A step's episodes are taken in order, `batch` at a time. Within a cohort every pending decision gets a
reply from the rollout engine, then one `step` request applies them all; each episode's context stays in
the engine from turn to turn, so a turn encodes only its new prompt tokens and its reply. The order is
fixed (episodes as given, cohorts in turn, decisions in that order) and sampling draws from the step's own
generator, so with the caller's seeding a step replays identically after a resume.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch

from .chat import EpisodeTokens
from .config import EnvConfig
from .engine import EngineFactory, RolloutEngine, TorchEngine
from .env import EnvClient, Finished, Pending, Reply, episode_request
from .model import Policy


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
    """The reply's ids as trained on: as sampled, the stop token included (free text), or the candidate
    as the template closes it (constrained)."""
    span: tuple[int, int]
    """Where `token_ids` lie in the episode's ids."""
    behaviour_logprob: float
    """The decision's log-prob under the policy that acted, at the scoring temperature (see ppo.py)."""
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


def _free(engine: RolloutEngine, policy: Policy, chunk: list[Pending], states: dict[str, _Open], max_new_tokens: int) -> dict[str, Reply]:
    prompts = {d.id: states[d.id].tokens.prompt(d) for d in chunk}
    sampled = engine.sample(prompts, max_new_tokens)
    replies = {}
    for d in chunk:
        s, state = sampled[d.id], states[d.id]
        content = s.ids[:-1] if s.stopped else s.ids
        reply = Reply(policy.tokenizer.decode(content, skip_special_tokens=True))
        span = state.tokens.accept_sampled(d, reply, s.ids, s.stopped)
        record = _record(d, reply, s.ids, span, sum(s.logprobs) / len(s.logprobs))
        record.token_logprobs = s.logprobs
        state.episode.decisions.append(record)
        replies[d.id] = reply
    return replies


def _constrained(engine: RolloutEngine, chunk: list[Pending], states: dict[str, _Open]) -> dict[str, Reply]:
    prompts, options = {}, {}
    for d in chunk:
        tokens = states[d.id].tokens
        prompts[d.id] = tokens.prompt(d)
        replies = [Reply(c.text, c.tool_calls) for c in d.candidates]
        options[d.id] = (replies, [tokens.candidate(d, r) for r in replies])
    choices = engine.choose(prompts, {id: ids for id, (_, ids) in options.items()})
    chosen_replies = {}
    for d in chunk:
        replies, candidates = options[d.id]
        c = choices[d.id]
        span = states[d.id].tokens.accept_candidate(d, replies[c.index], candidates[c.index])
        record = _record(d, replies[c.index], candidates[c.index], span, c.logprob)
        record.candidate_ids = candidates
        record.candidate_logprobs = c.sequence_logprobs
        record.chosen = c.index
        states[d.id].episode.decisions.append(record)
        chosen_replies[d.id] = replies[c.index]
    return chosen_replies


@dataclass
class RolloutStats:
    """What the engines did: tokens run through the model, positions run (padding included), decisions made."""

    tokens_encoded: int = 0
    slots_encoded: int = 0
    decisions: int = 0


def _cohort(
    policy: Policy,
    env: EnvClient,
    env_config: EnvConfig,
    episodes: list[tuple[str, int, int]],
    engine: RolloutEngine,
    constrained: bool,
    max_new_tokens: int,
) -> list[EpisodeRollout]:
    decisions = env.reset([episode_request(id, seed, env_config) for id, seed, _ in episodes])
    states = {id: _Open(EpisodeRollout(id, seed, index, [], []), EpisodeTokens(policy.renderer)) for id, seed, index in episodes}
    order = {id: i for i, (id, _, _) in enumerate(episodes)}
    pending = [d for d in decisions if isinstance(d, Pending)]
    try:
        while pending:
            pending.sort(key=lambda d: order[d.id])
            if constrained:
                replies = _constrained(engine, pending, states)
            else:
                replies = _free(engine, policy, pending, states, max_new_tokens)
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
    scoring_temperature: float | None = None,
    stats: RolloutStats | None = None,
    engine: EngineFactory = TorchEngine,
) -> list[EpisodeRollout]:
    """Plays `episodes` ((id, seed, rollout index), in this order) to the end; returns them in that order.

    Log-probs are scored at `scoring_temperature` (default: the sampling temperature; 1 when greedy)."""
    scoring = scoring_temperature or (temperature if temperature > 0 else 1.0)
    policy.model.eval()
    finished = []
    for first in range(0, len(episodes), batch):
        cohort = episodes[first : first + batch]
        replies = engine(policy, [id for id, _, _ in cohort], temperature, generator, scoring)
        finished += _cohort(policy, env, env_config, cohort, replies, constrained, max_new_tokens)
        if stats is not None:
            stats.tokens_encoded += replies.tokens_encoded
            stats.slots_encoded += replies.slots_encoded
            stats.decisions += sum(len(e.decisions) for e in finished[-len(cohort) :])
    return finished
