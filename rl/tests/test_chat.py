"""Chat rendering: the env's messages through a template with and without tool support, reply spans that
decode to exactly the reply, and a refusal for a template that rewrites earlier turns."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from allocbench_rl.chat import ChatError, ChatRenderer, EpisodeTokens, from_openai
from allocbench_rl.config import ModelConfig
from allocbench_rl.env import Reply
from allocbench_rl.model import load_tokenizer

# A small tool-aware ChatML template of our own (the shape of Qwen's: tools in the system turn, calls as
# <tool_call> blocks with the arguments as a JSON object).
TOOL_TEMPLATE = """{%- for m in messages -%}
<|im_start|>{{ m.role }}
{% if m.role == 'system' and tools %}Tools: {{ tools | map(attribute='function.name') | join(', ') }}
{% endif %}{{ m.content }}{% if m.tool_calls is defined %}{% for c in m.tool_calls %}
<tool_call>{{ {'name': c.function.name, 'arguments': c.function.arguments} | tojson }}</tool_call>{% endfor %}{% endif %}<|im_end|>
{% endfor -%}
{%- if add_generation_prompt %}<|im_start|>assistant
{% endif -%}"""

TOOLS = ({"name": "keep", "description": "Keep it.", "parameters": {"type": "object", "properties": {}}},)
KEEP = {"id": "call_0", "name": "keep", "arguments": "{}"}


@dataclass
class Turn:
    system: str
    tools: tuple[dict[str, Any], ...] = ()
    messages: list[dict[str, Any]] = field(default_factory=list)


@pytest.fixture
def tokenizer(gguf: Path) -> Any:
    return copy.deepcopy(load_tokenizer(ModelConfig(kind="gguf", path=str(gguf))))


def play_two_turns(renderer: ChatRenderer, reply: Reply, tools: tuple[dict[str, Any], ...]) -> tuple[EpisodeTokens, list[str]]:
    tokens = EpisodeTokens(renderer)
    first = Turn("Rules.", tools, [{"role": "user", "content": "Draw 1."}])
    tokens.prompt(first)
    tokens.accept_candidate(first, reply, tokens.candidate(first, reply))
    echoed = {"role": "assistant", "content": reply.text, "toolCalls": list(reply.tool_calls)}
    results = [{"role": "tool", "toolCallId": c["id"], "content": "Recorded."} for c in reply.tool_calls]
    second = Turn("Rules.", tools, [*first.messages, echoed, *results, {"role": "user", "content": "Draw 2."}])
    prompt = tokens.prompt(second)
    assert renderer.encode(renderer.render(second)) == prompt  # incremental ids = the whole rendering's
    return tokens, [renderer.tokenizer.decode(tokens.ids[s:e]) for s, e in tokens.spans]


def test_template_without_tool_support_gets_text_blocks(tokenizer: Any) -> None:
    renderer = ChatRenderer(tokenizer)
    assert not renderer.structured_tools
    _, spans = play_two_turns(renderer, Reply("", (KEEP,)), TOOLS)
    assert spans == ['<tool_call>\n{"name": "keep", "arguments": {}}\n</tool_call><|im_end|>\n']
    text = renderer.render(Turn("Rules.", TOOLS, [{"role": "user", "content": "Draw 1."}]))
    assert '"name": "keep"' in text.split("<|im_end|>")[0]  # the tools are listed in the system turn
    _, spans = play_two_turns(renderer, Reply("DECISION: PASS"), ())
    assert spans == ["DECISION: PASS<|im_end|>\n"]


def test_template_with_tool_support_gets_structured_calls(tokenizer: Any) -> None:
    tokenizer.chat_template = TOOL_TEMPLATE
    renderer = ChatRenderer(tokenizer)
    assert renderer.structured_tools
    tokens, spans = play_two_turns(renderer, Reply("Keeping.", (KEEP,)), TOOLS)
    assert spans == ['Keeping.<tool_call>{"name": "keep", "arguments": {}}</tool_call><|im_end|>\n']
    assert tokenizer.decode(tokens.ids).startswith("<|im_start|>system\nTools: keep\nRules.<|im_end|>")


def test_sampled_ids_are_kept_as_sampled(tokenizer: Any) -> None:
    renderer = ChatRenderer(tokenizer)
    turn = Turn("Rules.", (), [{"role": "user", "content": "Draw 1."}])
    tokens = EpisodeTokens(renderer)
    tokens.prompt(turn)
    odd = [tokenizer.convert_tokens_to_ids(t) for t in ("D", "E", "C")]  # a non-canonical split of "DEC"
    end = tokenizer.convert_tokens_to_ids("<|im_end|>")
    span = tokens.accept_sampled(turn, Reply("DEC"), [*odd, end], stopped=True)
    assert tokens.ids[span[0] : span[1]] == [*odd, end]
    # The template's closing after the sampled stop token opens the next prompt.
    second = Turn("Rules.", (), [*turn.messages, {"role": "assistant", "content": "DEC", "toolCalls": []}, {"role": "user", "content": "Draw 2."}])
    prompt = tokens.prompt(second)
    assert prompt[: span[1]] == tokens.ids[: span[1]]
    assert tokenizer.decode(prompt[span[1] :]) == "\n<|im_start|>user\nDraw 2.<|im_end|>\n<|im_start|>assistant\n"


def test_a_reply_cut_off_gets_the_whole_closing_next(tokenizer: Any) -> None:
    renderer = ChatRenderer(tokenizer)
    turn = Turn("Rules.", (), [{"role": "user", "content": "Draw 1."}])
    tokens = EpisodeTokens(renderer)
    tokens.prompt(turn)
    cut = renderer.encode("DECISION")
    tokens.accept_sampled(turn, Reply("DECISION"), cut, stopped=False)
    second = Turn("Rules.", (), [*turn.messages, {"role": "assistant", "content": "DECISION", "toolCalls": []}, {"role": "user", "content": "Draw 2."}])
    before = len(tokens.ids)
    assert tokenizer.decode(tokens.prompt(second)[before:]).startswith("<|im_end|>\n<|im_start|>user")


@pytest.mark.parametrize("template", ["own", "tool-aware"])
def test_a_call_recovered_from_free_text_is_read_back_as_written(tokenizer: Any, template: str) -> None:
    """The env echoes a call it recovered from free text as a structured call; the model reads back its own words."""
    if template == "tool-aware":
        tokenizer.chat_template = TOOL_TEMPLATE
    renderer = ChatRenderer(tokenizer)
    tokens = EpisodeTokens(renderer)
    first = Turn("Rules.", TOOLS, [{"role": "user", "content": "Draw 1."}])
    opened = len(tokens.prompt(first))
    text = 'I keep it.\n<tool_call>\n{"name": "keep", "arguments": {}}\n</tool_call>'
    sampled = [*renderer.encode(text), tokenizer.convert_tokens_to_ids("<|im_end|>")]
    tokens.accept_sampled(first, Reply(text), sampled, stopped=True)
    echoed = {"role": "assistant", "content": "I keep it.", "toolCalls": [KEEP]}
    second = Turn("Rules.", TOOLS, [*first.messages, echoed, {"role": "tool", "toolCallId": "call_0", "content": "Recorded."}, {"role": "user", "content": "Draw 2."}])
    prompt = tokens.prompt(second)
    assert tokenizer.decode(prompt[opened:]).count("<tool_call>") == 1  # as written, not rendered again as a structured call


def test_a_template_that_rewrites_history_is_refused(tokenizer: Any) -> None:
    tokenizer.chat_template = "{{ messages[-1].content }}{% if add_generation_prompt %}>{% endif %}"
    tokens = EpisodeTokens(ChatRenderer(tokenizer))
    tokens.prompt(Turn("", (), [{"role": "user", "content": "one"}]))
    with pytest.raises(ChatError, match="append-only"):
        tokens.prompt(Turn("", (), [{"role": "user", "content": "one"}, {"role": "assistant", "content": "x", "toolCalls": []}, {"role": "user", "content": "two"}]))


def test_openai_messages_become_the_harness_format() -> None:
    system, messages = from_openai(
        [
            {"role": "system", "content": "Rules."},
            {"role": "user", "content": [{"type": "text", "text": "Draw "}, {"type": "text", "text": "1."}]},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "keep", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c", "content": "Recorded."},
        ]
    )
    assert system == "Rules."
    assert messages == [
        {"role": "user", "content": "Draw 1."},
        {"role": "assistant", "content": "", "toolCalls": [{"id": "c", "name": "keep", "arguments": "{}"}]},
        {"role": "tool", "toolCallId": "c", "content": "Recorded."},
    ]
