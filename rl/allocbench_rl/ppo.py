"""Per-decision PPO with a KL term toward the reference policy (Appendix F, with a KL that pulls).

A decision is scored by its units: the log-probs of its reply tokens (free text), or the log-prob of the
candidate chosen (constrained), all at the scoring temperature. Its log-prob for the ratio is their mean
(the paper's per-decision form); the ratio is taken against the update's own log-probs before its first
optimizer step, so it is exactly 1 for unchanged weights. The sampler's log-probs (recorded at rollout from
the logits each reply was drawn from: merged weights, a cached decoding, another kernel) differ from the
learner's; truncated importance sampling corrects for it, as verl does: each decision's surrogate is
weighted by min(π_learner / π_sampler, importanceCap) (detached). The surrogate is clipped. The KL term
(config.kl) is an estimator per unit of d = log π − log π_ref, averaged over the decision's units, in the
loss or, subtracted from the rewards, before the returns (train.py). An episode's loss is the mean over its
decisions, the batch's the mean over episodes; `updateBatch` episodes of similar length share a forward and
a backward, gradients accumulate, and each epoch ends in one clipped optimizer step.

Logged: the KL of the acting policy to the reference as k3 (exp(−d) − 1 + d ≥ 0 per unit, an unbiased
estimate of KL(π‖π_ref) on the policy's own samples) and the policy's entropy per unit, beside it.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .config import Config
from .logprobs import Row, score
from .model import Policy
from .rollout import DecisionRecord, EpisodeRollout


@dataclass(frozen=True)
class UpdateStats:
    loss: float
    entropy: float
    """Mean entropy per unit of the policy that acted (reply tokens, or the choice between candidates)."""
    clip_fraction: float
    sampler_deviation: float
    """max |π_update / π_sampler − 1| over the decisions, before the first optimizer step: how far the log-probs
    read at sampling are from the update's own (float error when both compute alike; dropout would show here)."""
    importance_weights: dict[str, float]
    """The truncated importance weights applied: mean, min, max and the share capped (all 1 when off)."""


def kl_estimate(log_ratio: torch.Tensor, estimator: str) -> torch.Tensor:
    """Per unit, with log_ratio = log π − log π_ref: k1 = d, k2 = d²/2, k3 = exp(−d) − 1 + d."""
    if estimator == "k1":
        return log_ratio
    if estimator == "k2":
        return 0.5 * log_ratio.square()
    return torch.expm1(-log_ratio) + log_ratio


def scoring_temperature(config: Config) -> float:
    return config.temperature if config.logprob_temperature == "sampling" else 1.0


def _units(policy: Policy, episodes: list[EpisodeRollout], temperature: float, entropies: bool) -> list[list[tuple[torch.Tensor, torch.Tensor | None]]]:
    """Per episode, per decision: (units, entropy of each unit or None), in one forward for the batch."""
    rows = []
    for e in episodes:
        branches = [
            (d.span[0], ids) for d in e.decisions if d.candidate_ids is not None for k, ids in enumerate(d.candidate_ids) if k != d.chosen
        ]
        rows.append(Row(base=e.ids, spans=[d.span for d in e.decisions], branches=branches))
    # Constrained candidates are likelihoods (temperature 1); the choice between them takes the temperature.
    constrained = any(d.candidate_ids is not None for e in episodes for d in e.decisions)
    scored = score(policy, rows, 1.0 if constrained else temperature, entropies and not constrained)
    result = []
    for e, s in zip(episodes, scored):
        others = iter(s.branches)
        per_decision = []
        for i, (d, span) in enumerate(zip(e.decisions, s.spans)):
            if d.candidate_ids is None:
                per_decision.append((span, s.span_entropies[i] if s.span_entropies is not None else None))
                continue
            sequences = torch.stack([span.sum() if k == d.chosen else next(others).sum() for k in range(len(d.candidate_ids))])
            choice = torch.log_softmax(sequences / temperature, 0)
            entropy = -(choice.exp() * choice).sum().detach()[None] if entropies else None
            per_decision.append((choice[d.chosen][None], entropy))
        result.append(per_decision)
    return result


def micro_batches(episodes: list[EpisodeRollout], size: int) -> list[list[int]]:
    """Episode indices in groups of `size` of similar length (sorted by their ids' and candidates' tokens), so
    that a forward pads little."""
    def length(e: EpisodeRollout) -> int:
        return len(e.ids) + sum(len(ids) for d in e.decisions for k, ids in enumerate(d.candidate_ids or []) if k != d.chosen)

    by_length = sorted(range(len(episodes)), key=lambda i: length(episodes[i]))
    return [by_length[first : first + size] for first in range(0, len(episodes), size)]


def decision_logprobs(policy: Policy, episode: EpisodeRollout, config: Config) -> torch.Tensor:
    """The log-prob of each of the episode's decisions under the current weights (grad if enabled)."""
    return torch.stack([units.mean() for units, _ in _units(policy, [episode], scoring_temperature(config), False)[0]])


@torch.no_grad()
def reference_units(policy: Policy, episodes: list[EpisodeRollout], config: Config) -> list[list[torch.Tensor]]:
    """Per episode, per decision, its units under the reference policy (the adapter off)."""
    policy.model.eval()
    out: list[list[torch.Tensor]] = [[] for _ in episodes]
    with policy.reference():
        for batch in micro_batches(episodes, config.update_batch):
            for i, e in zip(batch, _units(policy, [episodes[i] for i in batch], scoring_temperature(config), False)):
                out[i] = [units for units, _ in e]
    return out


def behaviour_units(d: DecisionRecord) -> torch.Tensor:
    """A decision's units as recorded at rollout."""
    return torch.tensor(d.token_logprobs if d.candidate_ids is None else [d.behaviour_logprob])


def decision_kl(episodes: list[EpisodeRollout], reference: list[list[torch.Tensor]], estimator: str) -> list[list[float]]:
    """Per decision, the estimator's mean over its units of the acting policy against the reference."""
    return [
        [float(kl_estimate(behaviour_units(d) - ref.cpu(), estimator).mean()) for d, ref in zip(e.decisions, refs)]
        for e, refs in zip(episodes, reference)
    ]


def rollout_kl(episodes: list[EpisodeRollout], reference: list[list[torch.Tensor]]) -> float:
    """KL(π‖π_ref) per unit on the step's rollouts, estimated by k3 (never negative)."""
    estimates = [kl_estimate(behaviour_units(d) - ref.cpu(), "k3") for e, refs in zip(episodes, reference) for d, ref in zip(e.decisions, refs)]
    return float(torch.cat(estimates).double().mean())


def importance_weights(old: torch.Tensor, behaviour: torch.Tensor, cap: float | None) -> torch.Tensor:
    """Truncated importance sampling: min(exp(learner − sampler log-prob), cap) per decision; ones when off."""
    if cap is None:
        return torch.ones_like(old)
    return torch.exp(old - behaviour).clamp(max=cap)


def _episode_terms(
    units: list[tuple[torch.Tensor, torch.Tensor | None]],
    old: torch.Tensor,
    advantages: list[float],
    reference: list[torch.Tensor],
    config: Config,
    weights: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """(loss, per-decision clipped flag) of one episode, its ratio taken against the decisions' `old` log-probs,
    each decision's surrogate weighted by its importance weight (`weights`, detached; none: 1)."""
    device = units[0][0].device
    new = torch.stack([u.mean() for u, _ in units])
    advantage = torch.tensor(advantages, device=device)
    ratio = torch.exp(new - old)
    if config.clip is None:  # no clip: the plain policy gradient, ratio-weighted
        surrogate, clipped = ratio * advantage, torch.zeros_like(ratio, dtype=torch.bool)
    else:
        surrogate = torch.minimum(ratio * advantage, torch.clamp(ratio, 1 - config.clip, 1 + config.clip) * advantage)
        clipped = ((ratio - 1).abs() > config.clip).detach()
    loss = -surrogate if weights is None else -surrogate * weights
    if config.kl.placement == "loss" and config.kl_weight > 0:
        kl = torch.stack([kl_estimate(u - ref.to(device), config.kl.estimator).mean() for (u, _), ref in zip(units, reference)])
        loss = loss + config.kl_weight * kl
    return loss.mean(), clipped


def _behaviour(episode: EpisodeRollout, device: torch.device) -> torch.Tensor:
    return torch.tensor([d.behaviour_logprob for d in episode.decisions], device=device)


def batch_loss(
    policy: Policy, episodes: list[EpisodeRollout], advantages: list[list[float]], reference: list[list[torch.Tensor]], config: Config
) -> float:
    """The batch's loss under the current weights against the behaviour log-probs, without updating (the update
    takes its own log-probs, which equal these to rounding where sampler and learner compute alike)."""
    with torch.no_grad():
        losses = []
        for batch in micro_batches(episodes, config.update_batch):
            units = _units(policy, [episodes[i] for i in batch], scoring_temperature(config), False)
            losses += [(i, _episode_terms(u, _behaviour(episodes[i], policy.device), advantages[i], reference[i], config)[0]) for i, u in zip(batch, units)]
    return float(torch.stack([loss for _, loss in sorted(losses, key=lambda x: x[0])]).mean())


def ppo_update(
    policy: Policy,
    optimizer: torch.optim.Optimizer,
    episodes: list[EpisodeRollout],
    advantages: list[list[float]],
    reference: list[list[torch.Tensor]],
    config: Config,
) -> UpdateStats:
    """`config.epochs` optimizer steps on the batch. The ratio's old log-probs are the update's own, from its
    first epoch's forward (before any step: the same weights that sampled), as verl recomputes them; the
    sampler's log-probs, read from the engine's decoding, differ from them by rounding (about 1e-2 a token in
    bf16), which the truncated importance weights correct."""
    parameters = policy.trainable()
    temperature = scoring_temperature(config)
    losses, clipped, entropies = [], [], []
    first: list[torch.Tensor | None] = [None] * len(episodes)
    weights: list[torch.Tensor | None] = [None] * len(episodes)
    for epoch in range(config.epochs):
        policy.model.train()
        optimizer.zero_grad(set_to_none=True)
        total = 0.0
        for batch in micro_batches(episodes, config.update_batch):
            units = _units(policy, [episodes[i] for i in batch], temperature, entropies=epoch == 0)
            terms = []
            for u, i in zip(units, batch):
                if first[i] is None:
                    first[i] = torch.stack([x.mean() for x, _ in u]).detach()
                    weights[i] = importance_weights(first[i], _behaviour(episodes[i], first[i].device), config.importance_cap)
                terms.append(_episode_terms(u, first[i], advantages[i], reference[i], config, weights[i]))
            loss = torch.stack([t[0] for t in terms]).sum() / len(episodes)
            loss.backward()
            total += loss.item()
            clipped += [t[1] for t in terms]
            if epoch == 0:
                entropies += [h for e in units for _, h in e if h is not None]
        torch.nn.utils.clip_grad_norm_(parameters, config.grad_clip)
        optimizer.step()
        losses.append(total)
    policy.model.eval()
    gaps = torch.cat([torch.exp(f - _behaviour(e, f.device)) - 1 for f, e in zip(first, episodes)])
    applied = torch.cat(weights).double()
    capped = applied >= config.importance_cap if config.importance_cap is not None else torch.zeros_like(applied, dtype=torch.bool)
    return UpdateStats(
        loss=sum(losses) / len(losses),
        entropy=float(torch.cat(entropies).double().mean()) if entropies else float("nan"),
        clip_fraction=float(torch.cat(clipped).float().mean()),
        sampler_deviation=float(gaps.abs().max()),
        importance_weights={"mean": float(applied.mean()), "min": float(applied.min()), "max": float(applied.max()), "capped": float(capped.double().mean())},
    )
