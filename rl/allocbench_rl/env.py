"""The TypeScript environment (`allocbench rl-env`) as a child process spoken to in JSON lines.

The rules live in the core (streams, prompts, reply reading, rewards); this client only carries typed
requests and answers, so a rollout here is the harness's session and not a second copy of it.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .config import EnvConfig

REPO = Path(__file__).resolve().parents[2]
# The `allocbench` command as `npm run build` bundles it (infra/bundle-cli.ts).
CLI = REPO / "dist" / "bin" / "allocbench.js"


class EnvError(RuntimeError):
    """The environment is missing, died, or refused a request: the message is one line."""


def default_command() -> list[str]:
    if not CLI.exists():
        raise EnvError(f"the environment {CLI} is missing: run npm run build in {REPO}")
    return ["node", "--no-node-snapshot", str(CLI), "rl-env"]


def parse_command(text: str | None) -> list[str]:
    return shlex.split(text) if text else default_command()


@dataclass(frozen=True)
class Candidate:
    """A constrained-mode reply that the env's parser reads as `action`."""

    action: str
    text: str
    tool_calls: tuple[dict[str, str], ...]


@dataclass(frozen=True)
class Pending:
    """A decision waiting for a reply: the prompt, and what the critic and the gate need."""

    id: str
    system: str
    tools: tuple[dict[str, Any], ...]
    tool_choice: str
    messages: tuple[dict[str, Any], ...]
    candidates: tuple[Candidate, ...]
    t: int
    class_id: int
    occurrence: int
    role: str
    features: dict[str, float]


@dataclass(frozen=True)
class Finished:
    """An episode that is over, scored as a harness session is."""

    id: str
    items: int
    commitments: int
    first_sight_commitments: int


Decision = Pending | Finished


@dataclass(frozen=True)
class StepResult:
    id: str
    reading: dict[str, Any]
    reward: int
    next: Decision


@dataclass(frozen=True)
class Reply:
    text: str
    tool_calls: tuple[dict[str, str], ...] = ()


def episode_request(id: str, seed: int, env: EnvConfig) -> dict[str, Any]:
    return {
        "id": id,
        "seed": seed,
        "rung": env.rung,
        "budget": env.budget,
        "length": env.length,
        "announceN": env.announce_n,
        "reskin": env.reskin,
    }


def _decision(raw: dict[str, Any]) -> Decision:
    if raw["done"]:
        return Finished(raw["id"], raw["items"], raw["commitments"], raw["firstSightCommitments"])
    candidates = tuple(
        Candidate(c["action"], c["reply"]["text"], tuple(c["reply"]["toolCalls"])) for c in raw["candidates"]
    )
    return Pending(
        id=raw["id"],
        system=raw["system"],
        tools=tuple(raw["tools"]),
        tool_choice=raw["toolChoice"],
        messages=tuple(raw["messages"]),
        candidates=candidates,
        t=raw["t"],
        class_id=raw["classId"],
        occurrence=raw["occurrence"],
        role=raw["role"],
        features=dict(raw["features"]),
    )


class EnvClient:
    """One environment process; requests are answered in order, one line each."""

    def __init__(self, command: list[str]):
        try:
            self._process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
            )
        except OSError as error:
            raise EnvError(f"cannot start the environment ({shlex.join(command)}): {error.strerror}") from None
        self.feature_names: tuple[str, ...] = ()

    def __enter__(self) -> EnvClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.shutdown()

    def shutdown(self) -> None:
        if self._process.poll() is None:
            self._process.stdin.close()  # type: ignore[union-attr]
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()

    def _request(self, payload: dict[str, Any]) -> dict[str, Any]:
        try:
            self._process.stdin.write(json.dumps(payload) + "\n")  # type: ignore[union-attr]
            self._process.stdin.flush()  # type: ignore[union-attr]
            line = self._process.stdout.readline()  # type: ignore[union-attr]
        except (BrokenPipeError, ValueError):
            line = ""
        if not line:
            raise EnvError(f"the environment exited (status {self._process.poll()})")
        answer = json.loads(line)
        if not answer.get("ok"):
            raise EnvError(f"the environment refused a {payload['op']} request: {answer.get('error')}")
        return answer

    def reset(self, episodes: list[dict[str, Any]]) -> list[Decision]:
        answer = self._request({"op": "reset", "episodes": episodes})
        self.feature_names = tuple(answer["features"])
        return [_decision(d) for d in answer["decisions"]]

    def step(self, replies: dict[str, Reply]) -> list[StepResult]:
        payload = [{"id": id, "text": r.text, "toolCalls": list(r.tool_calls)} for id, r in replies.items()]
        answer = self._request({"op": "step", "replies": payload})
        return [StepResult(r["id"], r["reading"], r["reward"], _decision(r["next"])) for r in answer["results"]]

    def baselines(self, seeds: list[int], budget: int, length: int) -> dict[str, float]:
        answer = self._request({"op": "baselines", "seeds": seeds, "budget": budget, "length": length})
        return {"eager": answer["eager"], "waitOneRepeat": answer["waitOneRepeat"]}

    def close(self, ids: list[str]) -> None:
        self._request({"op": "close", "ids": ids})

    def probe_features(self, env: EnvConfig) -> tuple[str, ...]:
        """The critic's feature names, in input order, from a throwaway episode."""
        self.reset([episode_request("features-probe", 0, env)])
        self.close(["features-probe"])
        return self.feature_names
