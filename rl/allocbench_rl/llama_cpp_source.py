"""llama.cpp's source as node-llama-cpp ships it (a git bundle of the release it builds): the GGUF converter
for `export`, and the Qwen2 vocabulary and chat template for the GPU check's kit. Offline, from npm ci."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from .config import ConfigError

LLAMA_CPP_BUNDLE = Path(__file__).resolve().parents[2] / "node_modules" / "node-llama-cpp" / "llama" / "gitRelease.bundle"


class CheckoutError(RuntimeError):
    """git could not unpack the bundle: the message is the one line the user sees."""


def checkout(paths: tuple[str, ...], into: Path, bundle: Path = LLAMA_CPP_BUNDLE) -> Path:
    """Checks `paths` of llama.cpp's source out into `into` (a new directory); returns `into`."""
    if not bundle.is_file():
        raise ConfigError(f"llama.cpp's source comes from node-llama-cpp's package, and {bundle} is missing: run npm ci")
    if shutil.which("git") is None:
        raise ConfigError(f"git is needed to unpack llama.cpp's source from {bundle}")
    for command in (
        ["git", "clone", "--quiet", "--no-checkout", str(bundle), str(into)],
        ["git", "-C", str(into), "checkout", "--quiet", "HEAD", "--", *paths],
    ):
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            lines = [line for line in done.stderr.splitlines() if line.strip()]
            raise CheckoutError(f"cannot unpack {', '.join(paths)} from {bundle}: {lines[-1] if lines else 'git failed'}")
    return into
