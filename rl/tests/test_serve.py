"""7. The server answers Chat Completions requests in the OpenAI format (free and constrained, with and
without tools), lists its model, and answers a bad request with 400 and a JSON error."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from allocbench_rl import serve
from allocbench_rl.config import ConfigError
from allocbench_rl.env import EnvClient
from allocbench_rl.train import Trainer

DECISION = ["DECISION: KEEP", "DECISION: PASS"]
NO_ARGS = {"type": "object", "properties": {}}
TOOLS = [
    {"type": "function", "function": {"name": "claim_solver", "description": "claim", "parameters": {"type": "object", "properties": {"code": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "skip_solver", "description": "skip", "parameters": NO_ARGS}},
]
HISTORY = [
    {"role": "system", "content": "You are playing a collection game."},
    {"role": "user", "content": "Problem 1 of 12. Claims left: 3."},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "skip_solver", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "Recorded."},
    {"role": "user", "content": "Problem 2 of 12. Claims left: 3."},
]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, env_command: list[str], gguf: Path) -> Path:
    from conftest import REPO, TINY, merged
    from allocbench_rl.config import parse_config

    config = parse_config(merged(TINY, {"steps": 1, "seedsPerStep": 1, "gate": {"enabled": False}, "keepCheckpoints": "all"}), REPO)
    out = tmp_path_factory.mktemp("served")
    with EnvClient(env_command) as env:
        Trainer(config, out, env, log=lambda _: None).train()
    return out


@pytest.fixture
def served(run: Path) -> Iterator[Callable[..., str]]:
    """Starts a server per call of the yielded function; returns its base URL."""
    servers = []

    def start(constrained: bool = False, text_candidates: list[str] | None = None, base: bool = False, server: serve.Server | None = None) -> str:
        model = server or serve.load_server(run, None, base, constrained, text_candidates or [], "rl-test")[0]
        http = serve.make_http_server(model)
        threading.Thread(target=http.serve_forever, daemon=True).start()
        servers.append(http)
        return f"http://127.0.0.1:{http.server_address[1]}/v1"

    yield start
    for http in servers:
        http.shutdown()
        http.server_close()


def post(url: str, body: Any) -> tuple[int, dict[str, Any]]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(f"{url}/chat/completions", data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def reply_of(answer: dict[str, Any]) -> str:
    assert answer["object"] == "chat.completion" and answer["model"] == "rl-test"
    (choice,) = answer["choices"]
    assert choice["message"]["role"] == "assistant" and "tool_calls" not in choice["message"]
    usage = answer["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"] and usage["prompt_tokens"] > 0
    return choice["message"]["content"]


def test_free_text_with_and_without_tools(served: Callable[..., str]) -> None:
    url = served()
    status, answer = post(url, {"model": "rl-test", "messages": HISTORY[:2], "temperature": 0, "max_tokens": 5})
    assert status == 200 and isinstance(reply_of(answer), str)
    assert answer["choices"][0]["finish_reason"] in ("stop", "length") and answer["usage"]["completion_tokens"] <= 5
    again = post(url, {"model": "rl-test", "messages": HISTORY[:2], "temperature": 0, "max_tokens": 5})[1]
    assert reply_of(again) == reply_of(answer)  # temperature 0 is greedy
    status, answer = post(url, {"messages": HISTORY, "tools": TOOLS, "tool_choice": "required", "temperature": 0.7, "max_completion_tokens": 4})
    assert status == 200 and answer["usage"]["completion_tokens"] <= 4
    with urllib.request.urlopen(f"{url}/models", timeout=10) as response:
        assert json.loads(response.read())["data"][0]["id"] == "rl-test"


def test_constrained_answers_a_candidate(served: Callable[..., str]) -> None:
    url = served(constrained=True, text_candidates=DECISION)
    status, answer = post(url, {"messages": HISTORY, "tools": TOOLS, "temperature": 0})
    assert status == 200  # only the argument-free tool is a candidate
    assert reply_of(answer) == '<tool_call>\n{"name": "skip_solver", "arguments": {}}\n</tool_call>'
    assert answer["choices"][0]["finish_reason"] == "stop"
    status, answer = post(url, {"messages": HISTORY[:2], "temperature": 0})
    assert status == 200 and reply_of(answer) in DECISION
    assert post(served(base=True, constrained=True, text_candidates=DECISION), {"messages": HISTORY[:2]})[0] == 200


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{not json", "the body is not JSON"),
        ({"messages": []}, "messages must be a non-empty list"),
        ({"messages": HISTORY, "temperature": 3}, "temperature must be a number in [0, 2]"),
        ({"messages": HISTORY, "max_tokens": 0}, "max_tokens must be a positive integer"),
        ({"messages": HISTORY, "stream": True}, "streaming is not supported"),
        ({"messages": [{"role": "narrator", "content": "x"}]}, "malformed messages or tools: unknown message role 'narrator'"),
        ({"messages": HISTORY, "tools": [{"type": "function"}]}, "malformed messages or tools: each tool must be {type: function, function: {name, ...}}"),
    ],
)
def test_bad_requests_get_400(served: Callable[..., str], body: Any, message: str) -> None:
    status, answer = post(served(), body)
    assert status == 400 and answer == {"error": {"message": message, "type": "invalid_request_error"}}


def test_constrained_without_candidates_is_400(served: Callable[..., str]) -> None:
    status, answer = post(served(constrained=True), {"messages": HISTORY[:2]})
    assert status == 400 and "--text-candidates" in answer["error"]["message"]


def test_steps_and_startup_errors(run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, described = serve.load_server(run, 0, False, False, [], "m")
    assert described == f"m: {run} after step 0"
    with pytest.raises(ConfigError, match="no adapter of step 5"):
        serve.load_server(run, 5, False, False, [], "m")
    assert serve.main(["--run", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"run: no readable settings.json in {tmp_path}\n"


@pytest.mark.parametrize("constrained", [False, True], ids=["free", "constrained"])
def test_concurrent_requests_share_one_forward_batch(
    run: Path, served: Callable[..., str], monkeypatch: pytest.MonkeyPatch, constrained: bool
) -> None:
    """Two requests that arrive together are one `generate` call (or one scoring forward), and each gets
    the answer it gets alone at temperature 0."""
    batches: list[int] = []
    name = "score" if constrained else "generate"
    real = getattr(serve, name)
    monkeypatch.setattr(serve, name, lambda policy, items, *rest: batches.append(len(items)) or real(policy, items, *rest))
    policy = serve.load_server(run, None, False, constrained, DECISION, "rl-test")[0].policy
    server = lambda size, wait: serve.Server(policy, "rl-test", False, constrained, DECISION, size, wait)  # noqa: E731
    bodies = [
        {"messages": HISTORY[:2], "temperature": 0, "max_tokens": 6},
        {"messages": HISTORY, "tools": TOOLS, "temperature": 0, "max_tokens": 6},
    ]
    alone = served(server=server(1, 0.0))
    answers_alone = [reply_of(post(alone, body)[1]) for body in bodies]
    assert batches == [1, 1]
    # The batch closes when its second request arrives (the wait is only an upper bound).
    together = served(server=server(2, 60.0))
    answers: list[str | None] = [None, None]

    def ask(i: int) -> None:
        answers[i] = reply_of(post(together, bodies[i])[1])

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert batches == [1, 1, 2]
    assert answers == answers_alone
