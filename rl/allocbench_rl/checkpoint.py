"""The run directory: settings, per-step records, and the state after the last finished step.

    train.lock                       held (flock) by the one trainer working on the directory
    settings.json                    the resolved config, versions, the env's feature names
    steps.jsonl                      one line per finished step; the line is the commit point
    steps/step-KKKK/rollouts.jsonl   every decision of step K
    checkpoint/                      adapter/, optimizer.pt, critic.pt, rng.pt, step.json {step}
    checkpoints/step-KKKK/           (keepCheckpoints: all) the adapter after step K

A step commits in this order: rollouts and the new state are written under temporary names and renamed
into place (the previous state kept as checkpoint.prev/), then the steps.jsonl line is appended and
fsynced, then checkpoint.prev/ goes. A kill anywhere leaves the state of the last line's step in
checkpoint/ or checkpoint.prev/; `recover` puts it back in checkpoint/ and the next step is redone.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from pathlib import Path
from typing import Any

from .config import RESUMABLE_CHANGES, ConfigError

LOCK = "train.lock"
SETTINGS = "settings.json"
STEPS = "steps.jsonl"
CURRENT, PREVIOUS, NEXT = "checkpoint", "checkpoint.prev", "checkpoint.next"


def write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _identity(config: dict[str, Any]) -> dict[str, Any]:
    """The config without the fields that may change on resume."""
    stripped = json.loads(json.dumps(config))
    for *sections, key in RESUMABLE_CHANGES:
        part = stripped
        for section in sections:
            part = part.get(section, {})
        part.pop(key, None)
    return stripped


def _first_difference(a: Any, b: Any, where: str = "") -> str | None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            found = _first_difference(a.get(key), b.get(key), f"{where}.{key}" if where else key)
            if found:
                return found
        return None
    return None if a == b else where


def step_name(step: int) -> str:
    return f"step-{step:04d}"


class RunDir:
    def __init__(self, path: Path):
        self.path = path
        self._lock_fd: int | None = None

    def claim(self) -> None:
        """Takes the directory for this process, refusing it while another trainer works on it.

        An flock, so the kernel lets go of it when its holder dies, even by SIGKILL: a killed run is
        resumed without a stale lock to clear. Two trainers at once would append each other's steps.
        """
        self.path.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise ConfigError(f"run: {self.path} is being trained by another process (pid {holder}); rerun once it has stopped") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock_fd = fd

    def release(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing the descriptor drops the flock
            self._lock_fd = None

    def prepare(self, settings: dict[str, Any]) -> None:
        """Writes settings.json, or checks that a resumed run has the same config (paths aside)."""
        self.path.mkdir(parents=True, exist_ok=True)
        stored_path = self.path / SETTINGS
        if not stored_path.exists():
            write_atomic(stored_path, (json.dumps(settings, indent=2) + "\n").encode())
            return
        try:
            stored = json.loads(stored_path.read_text())["config"]
        except (json.JSONDecodeError, KeyError):
            raise ConfigError(f"run: {stored_path} is unreadable") from None
        field = _first_difference(_identity(stored), _identity(settings["config"]))
        if field:
            raise ConfigError(f"run: {self.path} was started with a different config ({field} differs); use a new --out")

    def settings(self) -> dict[str, Any]:
        try:
            return json.loads((self.path / SETTINGS).read_text())
        except (OSError, json.JSONDecodeError):
            raise ConfigError(f"run: no readable {SETTINGS} in {self.path}") from None

    def finished_steps(self) -> list[dict[str, Any]]:
        """The committed step lines; a torn last line (a kill mid-append) is cut off."""
        path = self.path / STEPS
        if not path.exists():
            return []
        raw = path.read_bytes()
        lines, good = [], 0
        for line in raw.split(b"\n")[:-1]:  # what follows the last newline is torn (or empty)
            try:
                lines.append(json.loads(line))
            except json.JSONDecodeError:
                break
            good += len(line) + 1
        if good < len(raw):
            with open(path, "r+b") as f:
                f.truncate(good)
        return lines

    def adapter(self, step: int | None) -> tuple[int, Path]:
        """The adapter after `step` (default: the last finished step), and that step."""
        finished = [line["step"] for line in self.finished_steps()]
        if not finished:
            raise ConfigError(f"run: {self.path} has no finished step yet")
        if step is None or step == finished[-1]:
            step, adapter = finished[-1], self.path / CURRENT / "adapter"
        else:
            adapter = self.path / "checkpoints" / step_name(step)
        if not (adapter / "adapter_config.json").exists():
            raise ConfigError(f"run: no adapter of step {step} in {self.path} (keepCheckpoints: all keeps every step's)")
        return step, adapter

    def recover(self, last_step: int | None) -> Path | None:
        """The directory holding the state after `last_step` (None: start fresh), cleaning up a torn commit."""
        shutil.rmtree(self.path / NEXT, ignore_errors=True)
        current, previous = self.path / CURRENT, self.path / PREVIOUS
        if last_step is None:
            shutil.rmtree(current, ignore_errors=True)
            shutil.rmtree(previous, ignore_errors=True)
            return None
        if _step_of(current) != last_step:
            if _step_of(previous) != last_step:
                raise ConfigError(f"run: {self.path} has no checkpoint of its last finished step {last_step}")
            shutil.rmtree(current, ignore_errors=True)
            os.replace(previous, current)
        shutil.rmtree(previous, ignore_errors=True)
        return current

    def staging(self) -> Path:
        """An empty directory to write the next state into."""
        staging = self.path / NEXT
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        return staging

    def commit(self, step: int, rollouts: list[dict[str, Any]], line: dict[str, Any], keep_adapter: bool) -> None:
        """Publishes the staged state, the rollouts and, last, the steps.jsonl line."""
        staging = self.path / NEXT
        write_atomic(staging / "step.json", json.dumps({"step": step}).encode())
        step_dir = self.path / "steps" / step_name(step)
        step_dir.mkdir(parents=True, exist_ok=True)
        write_atomic(step_dir / "rollouts.jsonl", "".join(json.dumps(r) + "\n" for r in rollouts).encode())
        if keep_adapter:
            kept = self.path / "checkpoints" / step_name(step)
            kept_tmp = kept.with_name(kept.name + ".tmp")
            shutil.rmtree(kept_tmp, ignore_errors=True)
            shutil.copytree(staging / "adapter", kept_tmp)
            shutil.rmtree(kept, ignore_errors=True)
            os.replace(kept_tmp, kept)
        current, previous = self.path / CURRENT, self.path / PREVIOUS
        shutil.rmtree(previous, ignore_errors=True)
        if current.exists():
            os.replace(current, previous)
        os.replace(staging, current)
        self.append_step(line)
        shutil.rmtree(previous, ignore_errors=True)

    def append_step(self, line: dict[str, Any]) -> None:
        with open(self.path / STEPS, "ab") as f:
            f.write((json.dumps(line) + "\n").encode())
            f.flush()
            os.fsync(f.fileno())


def _step_of(directory: Path) -> int | None:
    try:
        return json.loads((directory / "step.json").read_text())["step"]
    except (OSError, json.JSONDecodeError, KeyError):
        return None
