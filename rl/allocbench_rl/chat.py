"""Conversations as token ids, through the tokenizer's own chat template.

The env speaks the harness's ChatMessage format ({role:user,content} | {role:assistant,content,toolCalls}
| {role:tool,toolCallId,content}); the model reads its template's rendering. A template with tool support
gets HF-style `tool_calls` (arguments parsed); one without gets the calls as `<tool_call>` text blocks
(Qwen's and Hermes' format, which the harness recovers from text) and the tools listed in the system
message, since otherwise the model would never learn what it may call.

An episode's ids are grown decision by decision from text differences of successive renderings, so
the training forward sees exactly the ids the policy saw at rollout (its sampled ids kept as sampled),
and each reply's span is known.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .env import Reply


class ChatError(RuntimeError):
    """The template cannot express a conversation append-only (each turn must extend the last)."""


def tool_call_text(name: str, arguments: Any) -> str:
    """A tool call as text, in the `<tool_call>` block format the harness recovers calls from."""
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call>"


def parse_arguments(text: str) -> Any:
    """A call's JSON arguments as an object, or the raw text when the model's JSON is malformed."""
    try:
        return json.loads(text or "{}")
    except json.JSONDecodeError:
        return text


def from_openai(body_messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """An OpenAI Chat Completions message list as (system, ChatMessage list); raises ValueError when malformed."""

    def text_of(content: Any) -> str:
        if content is None:
            return ""
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "".join(part.get("text", "") for part in content if isinstance(part, dict))
        raise ValueError("message content must be a string or a list of parts")

    system: list[str] = []
    messages: list[dict[str, Any]] = []
    for message in body_messages:
        if not isinstance(message, dict):
            raise ValueError("each message must be an object")
        role = message.get("role")
        if role in ("system", "developer"):
            system.append(text_of(message.get("content")))
        elif role == "user":
            messages.append({"role": "user", "content": text_of(message.get("content"))})
        elif role == "assistant":
            calls = [
                {"id": c.get("id", f"call_{i}"), "name": c["function"]["name"], "arguments": c["function"].get("arguments", "{}")}
                for i, c in enumerate(message.get("tool_calls") or [])
            ]
            messages.append({"role": "assistant", "content": text_of(message.get("content")), "toolCalls": calls})
        elif role == "tool":
            messages.append({"role": "tool", "toolCallId": message.get("tool_call_id", ""), "content": text_of(message.get("content"))})
        else:
            raise ValueError(f"unknown message role {role!r}")
    return "\n\n".join(system), messages


def tools_from_openai(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI `tools` as the harness's ToolSpec list."""
    specs = []
    for tool in tools:
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise ValueError("each tool must be {type: function, function: {name, ...}}")
        specs.append(
            {"name": function["name"], "description": function.get("description", ""), "parameters": function.get("parameters", {})}
        )
    return specs


class Conversation(Protocol):
    """A prompt in the harness's terms: an env decision, or a request to the server."""

    @property
    def system(self) -> str: ...
    @property
    def tools(self) -> Sequence[dict[str, Any]]: ...
    @property
    def messages(self) -> Sequence[dict[str, Any]]: ...


class ChatRenderer:
    """Renders the harness's conversations with one tokenizer's chat template."""

    def __init__(self, tokenizer: Any):
        self.tokenizer = tokenizer
        self.structured_tools = "tool_calls" in str(tokenizer.chat_template or "")

    def encode(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def _assistant(self, content: str, calls: Sequence[dict[str, str]]) -> dict[str, Any]:
        if not calls:
            return {"role": "assistant", "content": content}
        if self.structured_tools:
            tool_calls = [
                {"type": "function", "id": c["id"], "function": {"name": c["name"], "arguments": parse_arguments(c["arguments"])}}
                for c in calls
            ]
            return {"role": "assistant", "content": content, "tool_calls": tool_calls}
        blocks = "\n".join(tool_call_text(c["name"], parse_arguments(c["arguments"])) for c in calls)
        return {"role": "assistant", "content": f"{content}\n{blocks}" if content else blocks}

    def _system(self, system: str, tools: Sequence[dict[str, Any]]) -> str:
        if not tools or self.structured_tools:
            return system
        listed = "\n".join(json.dumps(t) for t in tools)
        how = tool_call_text("<tool name>", "<arguments object>")
        offer = f"You may call these tools:\n{listed}\nTo call one, reply with:\n{how}"
        return f"{system}\n\n{offer}" if system else offer

    def render(self, conversation: Conversation, reply: Reply | None = None) -> str:
        """The template's text: up to the generation prompt, or through `reply` when one is given."""
        system, tools, messages = conversation.system, conversation.tools, conversation.messages
        rendered: list[dict[str, Any]] = []
        system = self._system(system, tools)
        if system:
            rendered.append({"role": "system", "content": system})
        for m in messages:
            if m["role"] == "assistant":
                rendered.append(self._assistant(m["content"], m["toolCalls"]))
            elif m["role"] == "tool":
                rendered.append({"role": "tool", "tool_call_id": m["toolCallId"], "content": m["content"]})
            else:
                rendered.append({"role": "user", "content": m["content"]})
        if reply is not None:
            rendered.append(self._assistant(reply.text, reply.tool_calls))
        template_tools = [{"type": "function", "function": t} for t in tools] if tools and self.structured_tools else None
        return self.tokenizer.apply_chat_template(
            rendered, tools=template_tools, tokenize=False, add_generation_prompt=reply is None
        )


class EpisodeTokens:
    """One episode's ids, grown exactly as the policy saw them, and the span of each reply it gave.

    The env echoes each reply back in the conversation as it read it (a call recovered from free text
    becomes a structured call), which the template would render differently from what the model wrote.
    So the assistant turns are rendered from the replies given here, in order: the model reads its own
    words back, and every rendering extends the last. A sampled reply keeps its sampled ids (the stop
    token included); the template's text after it (the end of turn) opens the next prompt.
    """

    def __init__(self, renderer: ChatRenderer):
        self.renderer = renderer
        self.ids: list[int] = []
        self.spans: list[tuple[int, int]] = []
        self.replies: list[Reply] = []
        self._text = ""
        """The template's text that `ids` stand for."""

    def _own(self, conversation: Conversation) -> Conversation:
        """The conversation with its last assistant turns (one per reply given here) rendered from those
        replies; turns before them (a conversation that arrives whole, as a server's request) as given."""
        turns = [i for i, m in enumerate(conversation.messages) if m["role"] == "assistant"]
        if len(turns) < len(self.replies):
            raise ChatError(f"the conversation has {len(turns)} assistant turns where the episode gave {len(self.replies)} replies")
        messages = list(conversation.messages)
        for i, reply in zip(turns[len(turns) - len(self.replies) :], self.replies):
            messages[i] = {"role": "assistant", "content": reply.text, "toolCalls": list(reply.tool_calls)}
        return _Rendered(conversation.system, conversation.tools, messages)

    def _extend(self, text: str) -> str:
        if not text.startswith(self._text):
            raise ChatError("the chat template rewrites earlier turns; the trainer needs an append-only template")
        return text[len(self._text) :]

    def prompt(self, conversation: Conversation) -> list[int]:
        """The ids up to this turn's generation prompt."""
        text = self.renderer.render(self._own(conversation))
        self.ids += self.renderer.encode(self._extend(text))
        self._text = text
        return list(self.ids)

    def candidate(self, conversation: Conversation, reply: Reply) -> list[int]:
        """The ids a fixed reply adds, as the template closes it (the constrained mode's candidates)."""
        return self.renderer.encode(self._extend(self.renderer.render(self._own(conversation), reply)))

    def accept_candidate(self, conversation: Conversation, reply: Reply, ids: list[int]) -> tuple[int, int]:
        rendered = self.renderer.render(self._own(conversation), reply)
        span = self._append(ids, reply)
        self._text = rendered
        return span

    def accept_sampled(self, conversation: Conversation, reply: Reply, ids: list[int], stopped: bool) -> tuple[int, int]:
        """A sampled reply (`reply.text` decoded from `ids`): its ids stand for its text and, when the stop
        token is the template's end of turn, for that too; the rest of the template's closing comes next."""
        rendered = self.renderer.render(self._own(conversation), reply)
        content = self._text + reply.text
        if not rendered.startswith(content):
            raise ChatError("the chat template changes a reply's text; the trainer needs it rendered verbatim")
        stop = self.renderer.tokenizer.decode(ids[-1:]) if stopped else ""
        closing = rendered[len(content) :]
        span = self._append(ids, reply)
        self._text = content + (stop if stop and closing.startswith(stop) else "")
        return span

    def _append(self, ids: list[int], reply: Reply) -> tuple[int, int]:
        span = (len(self.ids), len(self.ids) + len(ids))
        self.spans.append(span)
        self.ids += ids
        self.replies.append(reply)
        return span


@dataclass(frozen=True)
class _Rendered:
    system: str
    tools: Sequence[dict[str, Any]]
    messages: Sequence[dict[str, Any]]
