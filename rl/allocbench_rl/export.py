"""`python -m allocbench_rl.export --run DIR`: a training run's checkpoint as one GGUF file, the adapter
merged into the base, for the harness's `gguf/` provider or any llama.cpp server (the paper evaluated
its checkpoints, and the base, at q8_0).

The base is loaded unquantized (a QLoRA run's NF4 is for training only) in the trainer's compute dtype
(bf16 on a GPU, fp32 on the CPU), the adapter is merged, and the merged model is written as an HF
directory that llama.cpp's own converter (convert_hf_to_gguf.py, with its gguf-py) turns into GGUF. The
converter is the one of the llama.cpp release that the gguf/ provider runs: node-llama-cpp ships that
release's source as a git bundle, from which the three paths the converter needs are checked out.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import tempfile
from pathlib import Path

from .checkpoint import RunDir, step_name
from .command_line import CommandParser
from .config import Config, ConfigError, from_dict
from .llama_cpp_source import LLAMA_CPP_BUNDLE, CheckoutError, checkout
from .model import load_policy, pick_device

TYPES = ("q8_0", "f16", "bf16", "f32")
"""The converter's output types (its ternary ones aside); other quantizations need llama.cpp's llama-quantize."""

CONVERTER_PATHS = ("convert_hf_to_gguf.py", "conversion", "gguf-py")


class ExportError(RuntimeError):
    """The converter failed: the message is the one line the user sees."""


def write_merged(config: Config, adapter: tuple[int, Path] | None, into: Path) -> str:
    """The base (no adapter) or the checkpoint merged, as an HF directory; returns which it is."""
    model_config = dataclasses.replace(config.model, quantize4bit=False, gradient_checkpointing=False)
    policy = load_policy(model_config, pick_device("auto", config.cpu_threads), config.run_seed)
    if adapter is None:
        merged, what = policy.model.unload(), "base"
    else:
        policy.load_adapter(adapter[1])
        merged, what = policy.model.merge_and_unload(), step_name(adapter[0])
    if getattr(merged, "hf_quantizer", None) is not None:
        # A model read from GGUF is dequantized as it loads, but transformers' marker of its origin refuses to save it.
        merged.hf_quantizer = None
        merged.config.__dict__.pop("quantization_config", None)
    merged.save_pretrained(str(into))
    policy.tokenizer.save_pretrained(str(into))
    return what


def export(run: Path, step: int | None, kind: str, out: Path | None, base: bool, bundle: Path = LLAMA_CPP_BUNDLE) -> Path:
    """Writes the GGUF file (default: <run>/gguf/<step-KKKK or base>.<type>.gguf) and returns its path."""
    if kind not in TYPES:
        raise ConfigError(f"export: unknown type {kind!r} (one of {', '.join(TYPES)})")
    directory = RunDir(run)
    config = from_dict(directory.settings()["config"])
    adapter = None if base else directory.adapter(step)
    with tempfile.TemporaryDirectory(prefix="allocbench-export-") as scratch:
        converter = checkout(CONVERTER_PATHS, Path(scratch) / "llama.cpp", bundle) / CONVERTER_PATHS[0]
        merged = Path(scratch) / "merged"
        what = write_merged(config, adapter, merged)
        target = out or run / "gguf" / f"{what}.{kind}.gguf"
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".partial")
        command = [sys.executable, str(converter), str(merged), "--outfile", str(partial), "--outtype", kind]
        done = subprocess.run([*command, "--model-name", f"{run.name} {what}"], capture_output=True, text=True)
        if done.returncode != 0:
            partial.unlink(missing_ok=True)
            raise ExportError(f"export: llama.cpp's converter failed: {_last_line(done.stderr)}")
        partial.replace(target)
    return target


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "no output"


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser("export", description="Write a training run's checkpoint as a GGUF file.")
    parser.add_argument("--run", required=True, type=Path, help="the training run directory")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--step", type=int, help="the step's adapter (default: the last finished step)")
    which.add_argument("--base", action="store_true", help="the base model alone, through the same path")
    parser.add_argument("--type", default="q8_0", help=f"the GGUF type: {', '.join(TYPES)} (default q8_0)")
    parser.add_argument("--out", type=Path, help="the GGUF file to write (default: <run>/gguf/<step-KKKK|base>.<type>.gguf)")
    args = parser.parse_args(argv)
    try:
        path = export(args.run, args.step, args.type, args.out, args.base)
    except ConfigError as error:
        print(error, file=sys.stderr)
        return 2
    except (ExportError, CheckoutError) as error:
        print(error, file=sys.stderr)
        return 1
    print(f"wrote {path} ({path.stat().st_size / 2**20:.1f} MiB, {args.type})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
