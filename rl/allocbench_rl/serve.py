"""`python -m allocbench_rl.serve --run DIR`: a checkpoint behind an OpenAI-compatible endpoint, so that
`allocbench sweep` evaluates it with model id `openai-compatible/<name>@http://127.0.0.1:<port>/v1`.

POST /v1/chat/completions generates a reply (temperature 0 = greedy), or with --constrained scores
fixed candidates and answers the best: one `<tool_call>` block per zero-argument tool offered, or the
--text-candidates when no tools are. Tool calls are answered as text blocks, which the harness recovers
for local servers. GET /v1/models lists the one model. Requests that arrive together are answered in one
batch: one `generate` call, or one scoring forward (as many as the run's generationBatch). Sampling draws
from fresh random seeds (torch's generator).
"""

from __future__ import annotations

import itertools
import json
import sys
import time
from collections.abc import Hashable
from contextlib import nullcontext
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import torch

from .batching import Batcher
from .chat import EpisodeTokens, from_openai, tool_call_text, tools_from_openai
from .checkpoint import RunDir
from .command_line import CommandParser
from .config import ConfigError, from_dict
from .env import Reply
from .logprobs import Row, score
from .model import Policy, load_policy, pick_device
from .engine import generate
from .sampling import choose

DEFAULT_MAX_TOKENS = 512
BATCH_WAIT_S = 0.02
"""How long a batch waits for more requests after its first: small beside a generation."""


class BadRequest(ValueError):
    """The request is malformed: answered 400 with this message."""


@dataclass(frozen=True)
class Conversation:
    system: str
    tools: list[dict[str, Any]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Request:
    conversation: Conversation
    temperature: float
    max_tokens: int
    candidates: list[tuple[Reply, str]] | None
    """With --constrained: (reply to score, content to answer) per candidate."""


Answer = tuple[str, str, int, int]
"""(content, finish reason, prompt tokens, completion tokens)."""


@dataclass
class Server:
    """Requests that arrive together (within `batch_wait` seconds, at most `batch_size`) share one
    `generate` call (free text) or one scoring forward (--constrained); only the batcher's thread uses the model."""

    policy: Policy
    name: str
    base: bool
    constrained: bool
    text_candidates: list[str]
    batch_size: int = 16
    batch_wait: float = BATCH_WAIT_S
    ids: itertools.count = field(default_factory=itertools.count)

    def __post_init__(self) -> None:
        self.batcher: Batcher[Request, Answer] = Batcher(self._answer_batch, self.batch_size, self.batch_wait)

    def _candidates(self, tools: list[dict[str, Any]]) -> list[tuple[Reply, str]]:
        """(reply to score, content to answer) per candidate."""
        if tools:
            free = [t["name"] for t in tools if not (t.get("parameters") or {}).get("properties")]
            if not free:
                raise BadRequest("--constrained needs a tool without arguments to choose")
            call = lambda name: ({"id": "call_0", "name": name, "arguments": "{}"},)  # noqa: E731
            return [(Reply("", call(name)), tool_call_text(name, {})) for name in free]
        if not self.text_candidates:
            raise BadRequest("--constrained without tools needs the server started with --text-candidates")
        return [(Reply(text), text) for text in self.text_candidates]

    def _answer_batch(self, key: Hashable, requests: list[Request]) -> list[Answer]:
        """One group of a batch: free-text requests of one temperature and length, or scored candidates."""
        with self.policy.reference() if self.base else nullcontext():
            return self._generated(requests) if key[0] == "text" else self._chosen(requests)

    def _generated(self, requests: list[Request]) -> list[Answer]:
        first = requests[0]
        prompts = [EpisodeTokens(self.policy.renderer).prompt(r.conversation) for r in requests]
        answers = []
        seed = int(torch.randint(0, 2**62, ()))
        for prompt, generated in zip(prompts, generate(self.policy, prompts, first.temperature, first.max_tokens, seed)):
            content = self.policy.tokenizer.decode(generated.content_ids, skip_special_tokens=True)
            used = len(generated.content_ids) + int(generated.stopped)
            answers.append((content, "stop" if generated.stopped else "length", len(prompt), used))
        return answers

    def _chosen(self, requests: list[Request]) -> list[Answer]:
        rows, closed = [], []
        for r in requests:
            tokens = EpisodeTokens(self.policy.renderer)
            prompt = tokens.prompt(r.conversation)
            closed.append([tokens.candidate(r.conversation, reply) for reply, _ in r.candidates or []])
            rows.append(Row(base=prompt, branches=[(len(prompt), ids) for ids in closed[-1]]))
        self.policy.model.eval()
        with torch.no_grad():
            scored = score(self.policy, rows)
        answers = []
        for r, row, ids, s in zip(requests, rows, closed, scored):
            k = choose(torch.stack([b.sum() for b in s.branches]).double(), r.temperature, float(torch.rand(())))
            answers.append((r.candidates[k][1], "stop", len(row.base), len(ids[k])))  # type: ignore[index]
        return answers

    def complete(self, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise BadRequest("the body must be a JSON object")
        if body.get("stream"):
            raise BadRequest("streaming is not supported")
        if body.get("n", 1) != 1:
            raise BadRequest("n must be 1")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise BadRequest("messages must be a non-empty list")
        temperature = body.get("temperature", 1.0)
        if temperature is None:
            temperature = 1.0
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not 0 <= temperature <= 2:
            raise BadRequest("temperature must be a number in [0, 2]")
        max_tokens = body.get("max_completion_tokens")
        if max_tokens is None:
            max_tokens = body.get("max_tokens")
        if max_tokens is None:
            max_tokens = DEFAULT_MAX_TOKENS
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise BadRequest("max_tokens must be a positive integer")
        tools = body.get("tools") or []
        if not isinstance(tools, list):
            raise BadRequest("tools must be a list")
        try:
            system, chat = from_openai(messages)
            specs = tools_from_openai(tools)
        except (ValueError, KeyError, TypeError) as error:
            raise BadRequest(f"malformed messages or tools: {error}") from None
        conversation = Conversation(system, specs, chat)
        candidates = self._candidates(specs) if self.constrained else None
        request = Request(conversation, float(temperature), max_tokens, candidates)
        key = ("candidates",) if self.constrained else ("text", request.temperature, max_tokens)
        content, finish, prompt_tokens, completion_tokens = self.batcher.submit(key, request)
        return {
            "id": f"chatcmpl-{next(self.ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.name,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def models(self) -> dict[str, Any]:
        return {"object": "list", "data": [{"id": self.name, "object": "model", "created": 0, "owned_by": "allocbench"}]}


def _handler(server: Server) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _send(self, status: HTTPStatus, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _error(self, status: HTTPStatus, message: str) -> None:
            kind = "invalid_request_error" if status == HTTPStatus.BAD_REQUEST else "not_found_error"
            self._send(status, {"error": {"message": message, "type": kind}})

        def do_GET(self) -> None:  # noqa: N802
            if self.path.rstrip("/") == "/v1/models":
                self._send(HTTPStatus.OK, server.models())
            else:
                self._error(HTTPStatus.NOT_FOUND, f"no route {self.path}")

        def do_POST(self) -> None:  # noqa: N802
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._error(HTTPStatus.NOT_FOUND, f"no route {self.path}")
                return
            try:
                body = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError):
                self._error(HTTPStatus.BAD_REQUEST, "the body is not JSON")
                return
            try:
                self._send(HTTPStatus.OK, server.complete(body))
            except BadRequest as error:
                self._error(HTTPStatus.BAD_REQUEST, str(error))

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            """Quiet: the harness records every exchange itself."""

    return Handler


def load_server(
    run: Path, step: int | None, base: bool, constrained: bool, text_candidates: list[str], name: str, batch_wait: float = BATCH_WAIT_S
) -> tuple[Server, str]:
    """The served policy and a line describing what is served."""
    directory = RunDir(run)
    config = from_dict(directory.settings()["config"])
    policy = load_policy(config.model, pick_device(config.device, config.cpu_threads), config.run_seed)
    if not base:
        step, adapter = directory.adapter(step)
        policy.load_adapter(adapter)
    server = Server(policy, name, base, constrained, text_candidates, config.generation_batch, batch_wait)
    return server, f"{name}: the base model of {run} (adapter off)" if base else f"{name}: {run} after step {step}"


def make_http_server(server: Server, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """The HTTP server around a loaded model; port 0 picks a free port."""
    return ThreadingHTTPServer((host, port), _handler(server))


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser("serve", description="Serve a training run's checkpoint as an OpenAI-compatible endpoint.")
    parser.add_argument("--run", required=True, type=Path, help="the training run directory")
    parser.add_argument("--step", type=int, help="the step's adapter (default: the last finished step)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--name", default="allocbench-rl", help="the model id to answer with")
    parser.add_argument("--base", action="store_true", help="serve the base model (adapter off)")
    parser.add_argument("--constrained", action="store_true", help="score candidate replies instead of generating")
    parser.add_argument("--text-candidates", help="with --constrained: a JSON list of replies for requests without tools")
    args = parser.parse_args(argv)
    candidates: list[str] = []
    if args.text_candidates:
        try:
            candidates = json.loads(args.text_candidates)
        except json.JSONDecodeError:
            candidates = None  # type: ignore[assignment]
        if not isinstance(candidates, list) or not candidates or not all(isinstance(c, str) and c for c in candidates):
            parser.error("--text-candidates must be a JSON list of non-empty strings")
    try:
        server, description = load_server(args.run, args.step, args.base, args.constrained, candidates, args.name)
        http = make_http_server(server, args.host, args.port)
    except ConfigError as error:
        print(error, file=sys.stderr)
        return 2
    except OSError as error:
        print(f"serve: cannot listen on {args.host}:{args.port}: {error.strerror}", file=sys.stderr)
        return 2
    host, port = http.server_address[:2]
    print(f"serving {description} at http://{host}:{port}/v1", flush=True)
    try:
        http.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        http.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
