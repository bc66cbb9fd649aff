"""Per-decision PPO with a KL penalty to the reference policy (Appendix F).

A decision's log-prob is the mean over its reply tokens (free text) or the log-prob of the choice among
the candidates, each scored as a sequence (constrained). The ratio is taken against the behaviour
log-prob recorded at rollout; the surrogate is clipped; the KL term is the k1 estimate new − ref on the
same per-decision log-probs, weighted β. An episode's loss is the mean over its decisions, the batch's
the mean over episodes; each episode is one forward and one backward (the whole conversation, its
candidates packed beside it), gradients accumulate, and each epoch ends in one clipped optimizer step.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .config import Config
from .logprobs import Row, score
from .model import Policy
from .rollout import EpisodeRollout


@dataclass(frozen=True)
class UpdateStats:
    loss: float
    mean_kl: float
    clip_fraction: float


def decision_logprobs(policy: Policy, episode: EpisodeRollout) -> torch.Tensor:
    """The log-prob of each of the episode's decisions under the current weights (grad if enabled)."""
    branches = [
        (d.span[0], ids)
        for d in episode.decisions
        if d.candidate_ids is not None
        for k, ids in enumerate(d.candidate_ids)
        if k != d.chosen
    ]
    scored = score(policy, [Row(base=episode.ids, spans=[d.span for d in episode.decisions], branches=branches)])[0]
    others = iter(scored.branches)
    result = []
    for d, span in zip(episode.decisions, scored.spans):
        if d.candidate_ids is None:
            result.append(span.mean())
            continue
        sequences = [span.sum() if k == d.chosen else next(others).sum() for k in range(len(d.candidate_ids))]
        result.append(torch.log_softmax(torch.stack(sequences), 0)[d.chosen])
    return torch.stack(result)


@torch.no_grad()
def reference_logprobs(policy: Policy, episodes: list[EpisodeRollout]) -> list[torch.Tensor]:
    policy.model.eval()
    with policy.reference():
        return [decision_logprobs(policy, e) for e in episodes]


def _episode_terms(
    new: torch.Tensor, episode: EpisodeRollout, advantages: list[float], reference: torch.Tensor, config: Config
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(loss, per-decision KL, per-decision clipped flag) of one episode."""
    old = torch.tensor([d.behaviour_logprob for d in episode.decisions], device=new.device)
    advantage = torch.tensor(advantages, device=new.device)
    ratio = torch.exp(new - old)
    if config.clip is None:  # no clip: the plain policy gradient, ratio-weighted
        surrogate, clipped = ratio * advantage, torch.zeros_like(ratio, dtype=torch.bool)
    else:
        surrogate = torch.minimum(ratio * advantage, torch.clamp(ratio, 1 - config.clip, 1 + config.clip) * advantage)
        clipped = ((ratio - 1).abs() > config.clip).detach()
    kl = new - reference
    loss = (-surrogate + config.kl_weight * kl).mean()
    return loss, kl.detach(), clipped


def batch_loss(
    policy: Policy, episodes: list[EpisodeRollout], advantages: list[list[float]], reference: list[torch.Tensor], config: Config
) -> float:
    """The batch's PPO loss under the current weights, without updating (dropout off)."""
    policy.model.eval()
    with torch.no_grad():
        losses = [_episode_terms(decision_logprobs(policy, e), e, a, r, config)[0] for e, a, r in zip(episodes, advantages, reference)]
    return float(torch.stack(losses).mean())


def ppo_update(
    policy: Policy,
    optimizer: torch.optim.Optimizer,
    episodes: list[EpisodeRollout],
    advantages: list[list[float]],
    reference: list[torch.Tensor],
    config: Config,
) -> UpdateStats:
    parameters = policy.trainable()
    losses, kls, clipped = [], [], []
    for _ in range(config.epochs):
        policy.model.train()
        optimizer.zero_grad(set_to_none=True)
        total = 0.0
        for episode, advantage, ref in zip(episodes, advantages, reference):
            loss, kl, clip = _episode_terms(decision_logprobs(policy, episode), episode, advantage, ref, config)
            (loss / len(episodes)).backward()
            total += loss.item() / len(episodes)
            kls.append(kl)
            clipped.append(clip)
            if policy.device.type == "cuda":
                torch.cuda.empty_cache()
        torch.nn.utils.clip_grad_norm_(parameters, config.grad_clip)
        optimizer.step()
        losses.append(total)
    policy.model.eval()
    kl_all, clip_all = torch.cat(kls), torch.cat(clipped)
    return UpdateStats(
        loss=sum(losses) / len(losses), mean_kl=float(kl_all.mean()), clip_fraction=float(clip_all.float().mean())
    )
