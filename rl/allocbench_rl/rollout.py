"""Rollouts: a step's episodes played to the end through the environment, continuously batched.

Episodes join the rollout engine as it has room (all of them at once when its slots allow) and each keeps its
context there from turn to turn, so a turn encodes only its new prompt tokens and its reply. Whenever the
engine finishes turns, their replies go to the environment in one `step` request and the next turns go back
to the engine while the other episodes go on decoding; an episode that is over leaves. Sampling depends on
each episode's own seed and draws only (sampling.py), so a step replays identically after a resume, whatever
the batching.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from .chat import EpisodeTokens
from .config import EnvConfig
from .engine import Choice, EngineFactory, Sampled, TorchEngine, Turn
from .env import EnvClient, Finished, Pending, Reply, episode_request
from .model import Policy
from .sampling import make_sampler


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


def _sampled(policy: Policy, d: Pending, state: _Open, s: Sampled) -> Reply:
    content = s.ids[:-1] if s.stopped else s.ids
    reply = Reply(policy.tokenizer.decode(content, skip_special_tokens=True))
    span = state.tokens.accept_sampled(d, reply, s.ids, s.stopped)
    record = _record(d, reply, s.ids, span, sum(s.logprobs) / len(s.logprobs))
    record.token_logprobs = s.logprobs
    state.episode.decisions.append(record)
    return reply


def _chosen(d: Pending, state: _Open, candidates: list[list[int]], c: Choice) -> Reply:
    replies = [Reply(candidate.text, candidate.tool_calls) for candidate in d.candidates]
    span = state.tokens.accept_candidate(d, replies[c.index], candidates[c.index])
    record = _record(d, replies[c.index], candidates[c.index], span, c.logprob)
    record.candidate_ids = candidates
    record.candidate_logprobs = c.sequence_logprobs
    record.chosen = c.index
    state.episode.decisions.append(record)
    return replies[c.index]


@dataclass
class RolloutStats:
    """What the engine did: tokens run through the model, positions run (idle and padding rows included),
    decisions made."""

    tokens_encoded: int = 0
    slots_encoded: int = 0
    decisions: int = 0


def run_rollouts(
    policy: Policy,
    env: EnvClient,
    env_config: EnvConfig,
    episodes: list[tuple[str, int, int]],
    *,
    constrained: bool,
    temperature: float,
    max_new_tokens: int,
    slots: int,
    context: int,
    seed: int,
    sampler: str = "neutral",
    scoring_temperature: float | None = None,
    stats: RolloutStats | None = None,
    engine: EngineFactory = TorchEngine,
) -> list[EpisodeRollout]:
    """Plays `episodes` ((id, seed, rollout index)) to the end, at most `slots` at once with `context` tokens
    of KV cache each; returns them in the order given. Log-probs are scored at `scoring_temperature` (default:
    the sampling temperature; 1 when greedy)."""
    scoring = scoring_temperature or (temperature if temperature > 0 else 1.0)
    order = {id: i for i, (id, _, _) in enumerate(episodes)}
    waiting = deque(episodes)
    states: dict[str, _Open] = {}
    asked: dict[str, tuple[Pending, list[list[int]] | None]] = {}
    opened: list[str] = []
    with engine(policy, slots=slots, capacity=context, sampler=make_sampler(sampler, temperature, scoring), seed=seed) as replies:

        def ask(decisions: list[Pending]) -> None:
            for d in sorted(decisions, key=lambda d: order[d.id]):
                tokens = states[d.id].tokens
                prompt = tokens.prompt(d)
                if constrained:
                    candidates = [tokens.candidate(d, Reply(c.text, c.tool_calls)) for c in d.candidates]
                    replies.submit(Turn(d.id, prompt, candidates=candidates))
                else:
                    candidates = None
                    replies.submit(Turn(d.id, prompt, max_new_tokens))
                asked[d.id] = (d, candidates)

        def admit() -> None:
            joining = [waiting.popleft() for _ in range(min(replies.free_slots(), len(waiting)))]
            if not joining:
                return
            opened.extend(id for id, _, _ in joining)
            for id, episode_seed, index in joining:
                states[id] = _Open(EpisodeRollout(id, episode_seed, index, [], []), EpisodeTokens(policy.renderer))
            ask([d for d in env.reset([episode_request(id, s, env_config) for id, s, _ in joining]) if isinstance(d, Pending)])

        try:
            admit()
            while asked:
                done = replies.step()
                answers = {}
                for id in sorted(done, key=order.__getitem__):
                    d, candidates = asked.pop(id)
                    result = done[id]
                    answers[id] = _chosen(d, states[id], candidates, result) if isinstance(result, Choice) else _sampled(policy, d, states[id], result)
                if not answers:
                    continue
                following = []
                for result in env.step(answers):
                    record = states[result.id].episode.decisions[-1]
                    record.reading, record.reward = result.reading, result.reward
                    if isinstance(result.next, Finished):
                        record.done = True
                        episode = states[result.id].episode
                        episode.items, episode.commitments = result.next.items, result.next.commitments
                        episode.first_sight_commitments = result.next.first_sight_commitments
                        replies.finish(result.id)
                    else:
                        following.append(result.next)
                ask(following)
                admit()
        finally:
            if opened:
                env.close(opened)
        if stats is not None:
            stats.tokens_encoded += replies.tokens_encoded
            stats.slots_encoded += replies.slots_encoded
    finished = []
    for id, _, _ in episodes:
        episode, tokens = states[id].episode, states[id].tokens
        episode.ids = tokens.ids
        rewards = sum(d.reward for d in episode.decisions)
        if rewards != episode.items:
            raise RuntimeError(f"episode {id}: rewards sum to {rewards}, the session collected {episode.items}")
        finished.append(episode)
    if stats is not None:
        stats.decisions += sum(len(e.decisions) for e in finished)
    return finished
