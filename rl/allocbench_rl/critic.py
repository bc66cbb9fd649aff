"""The asymmetric critic: a small MLP on the actor's state features plus, privileged, the class's true rate.

Targets are the returns normalised by a running (Welford) mean and sample std of every return seen,
updated once per step before fitting. The fit is full-batch Adam with early stopping, warm-started
across steps; the advantage is G − V in items (V un-normalised), in-sample as in the paper.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import torch

from .config import CriticConfig

PRIVILEGED = "rate"


@dataclass
class ReturnNormalizer:
    n: int = 0
    mean: float = 0.0
    m2: float = 0.0

    def update(self, values: list[float]) -> None:
        for x in values:
            self.n += 1
            delta = x - self.mean
            self.mean += delta / self.n
            self.m2 += delta * (x - self.mean)

    @property
    def std(self) -> float:
        """Sample std; 1 until it is meaningful (fewer than two values, or no spread)."""
        if self.n < 2:
            return 1.0
        variance = self.m2 / (self.n - 1)
        return math.sqrt(variance) if variance > 1e-9 else 1.0


@contextmanager
def _one_thread() -> Iterator[None]:
    """A 5-64-64-1 MLP is far faster on one thread (many threads spin on a busy machine), and the same
    thread count everywhere keeps its arithmetic, and so a resumed run, identical across machines."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


@dataclass(frozen=True)
class Fit:
    loss: float
    iterations: int


class Critic:
    def __init__(self, config: CriticConfig, feature_names: tuple[str, ...], seed: int):
        self.config = config
        self.inputs = tuple(n for n in feature_names if config.privileged or n != PRIVILEGED)
        generator_state = torch.random.get_rng_state()
        torch.manual_seed(seed)
        h = config.hidden
        self.net = torch.nn.Sequential(
            torch.nn.Linear(len(self.inputs), h), torch.nn.ReLU(), torch.nn.Linear(h, h), torch.nn.ReLU(), torch.nn.Linear(h, 1)
        )
        torch.random.set_rng_state(generator_state)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=config.learning_rate)
        self.normalizer = ReturnNormalizer()

    def _matrix(self, features: list[dict[str, float]]) -> torch.Tensor:
        return torch.tensor([[f[name] for name in self.inputs] for f in features], dtype=torch.float32)

    def fit(self, features: list[dict[str, float]], returns: list[float]) -> Fit:
        """Updates the normaliser with the batch, then regresses the normalised returns."""
        with _one_thread():
            return self._fit(features, returns)

    def _fit(self, features: list[dict[str, float]], returns: list[float]) -> Fit:
        self.normalizer.update(returns)
        x = self._matrix(features)
        y = (torch.tensor(returns, dtype=torch.float32) - self.normalizer.mean) / self.normalizer.std
        best, stale, iterations = math.inf, 0, 0
        for iterations in range(1, self.config.max_iterations + 1):
            self.optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(self.net(x).squeeze(-1), y)
            loss.backward()
            self.optimizer.step()
            if loss.item() < best - 1e-4:
                best, stale = loss.item(), 0
            else:
                stale += 1
                if stale >= self.config.patience:
                    break
        with torch.no_grad():
            final = torch.nn.functional.mse_loss(self.net(x).squeeze(-1), y).item()
        return Fit(final, iterations)

    @torch.no_grad()
    def values(self, features: list[dict[str, float]]) -> list[float]:
        """V(s) in items."""
        with _one_thread():
            normalised = self.net(self._matrix(features)).squeeze(-1)
        return (normalised * self.normalizer.std + self.normalizer.mean).tolist()

    def state_dict(self) -> dict[str, Any]:
        n = self.normalizer
        return {
            "net": self.net.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "normalizer": {"n": n.n, "mean": n.mean, "m2": n.m2},
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.net.load_state_dict(state["net"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.normalizer = ReturnNormalizer(**state["normalizer"])
