"""Rollout engines: where replies are sampled and candidate replies scored, behind one interface.

An engine holds the episodes in flight. The caller submits an episode's turn (its whole conversation so far as
token ids, and a reply limit or the candidate replies) and calls `step`, which returns the turns it finished;
the caller answers them through the environment, submits the next turns and finishes the episodes that are
over. A conversation only grows at its end, so an engine that keeps each episode's context (a KV cache here,
prefix caching in vLLM, whose add_request/step loop this mirrors) encodes only what is new since the last turn.

`TorchEngine` batches continuously: every episode in flight has a slot of a preallocated KV cache (decoder.py)
and every decoding forward runs one token for each of them; a row whose reply ends goes to the environment
and comes back with its next turn while the others decode, and a finished episode leaves (the last slot's
episode moves into its place, so the rows stay 0..n-1). New turns are encoded together in one forward without
padding. LoRA is merged into the weights while the engine is open (policy.merged). Sampling and the stop test
run on the device, the host reading the results every `sync_every` decoding steps (1 on the CPU, where nothing
runs ahead; on a GPU the window is captured as a CUDA graph per shape and replayed).
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Protocol

import torch

from .decoder import Chunk, Decoder, causal_chunk
from .model import Policy
from .sampling import Sampler, choose, episode_seed, make_sampler, uniform, uniforms

SYNC_EVERY_ON_GPU = 8
"""Decoding steps between host reads on a GPU: a reply that ends mid-window costs the rest of it in idle rows."""
KEY_BUCKET = 512
"""Key lengths round up to a multiple of this on a GPU, so that a few captured graphs serve every length."""


@dataclass(frozen=True)
class Turn:
    """An episode's request: the conversation so far, and a reply limit (sample) or the candidates (choose)."""

    id: str
    ids: list[int]
    max_new_tokens: int = 0
    candidates: list[list[int]] | None = None


@dataclass(frozen=True)
class Sampled:
    ids: list[int]
    """The sampled ids, the stop token last when the reply stopped."""
    logprobs: list[float]
    """Each sampled id's log-prob under the distribution it was drawn from, at the scoring temperature."""
    stopped: bool
    """The model ended its turn; False when the token limit cut it off."""


@dataclass(frozen=True)
class Choice:
    index: int
    sequence_logprobs: list[float]
    """Each candidate's summed token log-prob at temperature 1: its likelihood as a reply."""
    logprob: float
    """The chosen index's log-prob in the choice distribution softmax(sequence_logprobs / T)."""


class RolloutEngine(Protocol):
    """Replies for the episodes in flight; a context manager (its resources live while it is open)."""

    tokens_encoded: int
    """Every token run through the model: the measure of context reuse."""
    slots_encoded: int
    """Every position run through the model, idle and padding rows included: what the batching costs beside it."""

    def __enter__(self) -> RolloutEngine: ...
    def __exit__(self, *_: object) -> None: ...
    def free_slots(self) -> int: ...
    def submit(self, turn: Turn) -> None: ...
    def step(self) -> dict[str, Sampled | Choice]: ...
    def finish(self, id: str) -> None: ...


class EngineFactory(Protocol):
    def __call__(self, policy: Policy, *, slots: int, capacity: int, sampler: Sampler, seed: int) -> RolloutEngine: ...


def stop_ids(policy: Policy) -> set[int]:
    """The ids that end a reply: the tokenizer's end of sequence and the model's configured ones."""
    stops = {policy.tokenizer.eos_token_id}
    configured = getattr(policy.model.generation_config, "eos_token_id", None)
    stops |= set(configured if isinstance(configured, list) else [configured])
    return {s for s in stops if s is not None}


@dataclass
class _Row:
    """An episode in flight. Its slot holds the keys and values of `known[:stored]`."""

    id: str
    seed: int
    known: list[int] = field(default_factory=list)
    """The conversation as the engine last saw it: the last turn's ids and its reply."""
    stored: int = 0
    draws: int = 0
    """Uniforms the episode has used: the counter of its next draw."""
    turn: Turn | None = None
    encoded: bool = False
    """The turn's new tokens are in the cache (all but the last, for a reply still to sample)."""
    reply: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)


class _Window:
    """The decoding loop on the device: `steps` forwards, each sampling one token for rows 0..n-1, with the state
    (fed token, its position, reply length, limit, seed, draws) and the outputs in buffers of fixed addresses,
    so that a window of one shape can be captured as a CUDA graph and replayed."""

    def __init__(self, decoder: Decoder, sampler: Sampler, stops: torch.Tensor, slots: int, steps: int):
        self.decoder, self.sampler, self.stops, self.steps = decoder, sampler, stops, steps
        device = decoder.device
        self.state = torch.zeros((6, slots), dtype=torch.long, device=device)
        self.done = torch.zeros(slots, dtype=torch.bool, device=device)
        self.tokens = torch.zeros((steps, slots), dtype=torch.long, device=device)
        self.logprobs = torch.zeros((steps, slots), dtype=torch.float32, device=device)
        self.emitted = torch.zeros((steps, slots), dtype=torch.bool, device=device)
        self.graphs: dict[tuple[int, int], torch.cuda.CUDAGraph] = {}
        self.seen: set[tuple[int, int]] = set()
        self.pool = None
        self.failure: str | None = None
        """Why graphs are off, if capturing failed: the engine then runs the window eagerly."""

    def run_eagerly(self, rows: int, key_length: int) -> None:
        feed, position, count, budget, seed, draws = self.state[:, :rows]
        done = self.done[:rows]
        for step in range(self.steps):
            logits = self.decoder.logits(self.decoder.decode(feed, position, key_length))
            token, logprob = self.sampler.draw(logits, uniforms(seed, draws + count), count)
            emitted = ~done
            done |= torch.isin(token, self.stops) | (count + 1 >= budget)
            count += emitted
            advance = emitted & ~done
            position += advance
            feed.copy_(torch.where(advance, token, feed))
            self.tokens[step, :rows], self.logprobs[step, :rows], self.emitted[step, :rows] = token, logprob, emitted

    def run(self, rows: int, key_length: int) -> None:
        """Eagerly on the CPU; on a GPU, a shape's first window eagerly (it warms the kernels up), then captured."""
        shape = (rows, key_length)
        if self.decoder.device.type != "cuda" or self.failure is not None or shape not in self.seen:
            self.seen.add(shape)
            self.run_eagerly(rows, key_length)
            return
        graph = self.graphs.get(shape)
        if graph is None:
            try:
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph, pool=self.pool):
                    self.run_eagerly(rows, key_length)
            except Exception as error:  # noqa: BLE001 - whatever stops a capture, decoding goes on eagerly
                self.failure = f"{type(error).__name__}: {(str(error).splitlines() or [''])[0]}"
                self.run_eagerly(rows, key_length)
                return
            self.pool = graph.pool()
            self.graphs[shape] = graph
        graph.replay()


class TorchEngine:
    """Pure PyTorch: continuous batching over a preallocated KV cache of `slots` × `capacity` tokens."""

    def __init__(self, policy: Policy, *, slots: int, capacity: int, sampler: Sampler, seed: int, sync_every: int | None = None):
        self.policy, self.slots, self.capacity, self.sampler, self.seed = policy, slots, capacity, sampler, seed
        self.device = policy.device
        self.gpu = self.device.type == "cuda"
        self.sync_every = sync_every or (SYNC_EVERY_ON_GPU if self.gpu else 1)
        self.stop_set = stop_ids(policy)
        self.stops = torch.tensor(sorted(self.stop_set), device=self.device)
        self.rows: list[_Row] = []
        self.tokens_encoded = 0
        self.slots_encoded = 0
        self.forwards: list[tuple[str, int, int]] = []
        """What ran, in order: ("prefill", slots, tokens) and ("decode", rows, key length) per window."""
        self.decoder: Decoder | None = None
        self.graph_failure: str | None = None
        """Why decoding ran without CUDA graphs on a GPU, if capturing one failed (set when the engine closes)."""
        self.graphs_captured = 0
        self._open = ExitStack()

    def __enter__(self) -> TorchEngine:
        self.policy.model.eval()
        self.merged = self._open.enter_context(self.policy.merged())
        self._open.enter_context(torch.no_grad())
        self.decoder = Decoder(self.policy.model.get_base_model(), self.slots, self.capacity)
        self.window = _Window(self.decoder, self.sampler, self.stops, self.slots, self.sync_every)
        return self

    def __exit__(self, *_: object) -> None:
        self.graph_failure, self.graphs_captured = self.window.failure, len(self.window.graphs)
        self.decoder = self.window = None  # the cache and the graphs go
        self._open.close()

    @property
    def kv_bytes(self) -> int:
        return self.decoder.cache.nbytes

    def free_slots(self) -> int:
        return self.slots - len(self.rows)

    def submit(self, turn: Turn) -> None:
        row = next((r for r in self.rows if r.id == turn.id), None)
        if row is None:
            if not self.free_slots():
                raise ValueError("engine: no free slot")
            row = _Row(turn.id, episode_seed(self.seed, turn.id))
            self.rows.append(row)
        if turn.ids[: len(row.known)] != row.known or len(turn.ids) <= len(row.known):
            raise ValueError(f"engine: the conversation of {turn.id} does not extend what it saw before")
        need = len(turn.ids) + (turn.max_new_tokens - 1 if turn.candidates is None else sum(map(len, turn.candidates)))
        if need > self.capacity:
            raise ValueError(f"engine: episode {turn.id} needs {need} tokens of KV cache, more than the {self.capacity} of a slot (rolloutContext)")
        row.turn, row.encoded, row.reply, row.logprobs = turn, False, [], []

    def finish(self, id: str) -> None:
        """The episode is over: its slot goes to the last row (moved, its cache with it)."""
        slot = next(s for s, r in enumerate(self.rows) if r.id == id)
        last = len(self.rows) - 1
        if slot != last:
            self.decoder.cache.move(last, slot, slice(0, self.rows[last].stored))
            self.rows[slot] = self.rows[last]
        self.rows.pop()

    def step(self) -> dict[str, Sampled | Choice]:
        """Encodes the new turns, then decodes one window if replies are being sampled; returns the finished turns."""
        fresh = [(slot, row) for slot, row in enumerate(self.rows) if row.turn is not None and not row.encoded]
        done = self._encode(fresh) if fresh else {}
        if any(row.turn is not None and row.turn.candidates is None for row in self.rows):
            done |= self._decode()
        return done

    def _encode(self, fresh: list[tuple[int, _Row]]) -> dict[str, Choice]:
        chunks, choices = [], []
        for slot, row in fresh:
            turn, row.encoded = row.turn, True
            new = turn.ids[row.stored :]
            if turn.candidates is None:
                if len(new) > 1:
                    chunks.append(causal_chunk(slot, new[:-1], row.stored))
                row.stored += len(new) - 1  # the last new token is fed by the first decoding step
            else:
                chunk, predictors = _candidates_chunk(slot, new, row.stored, turn.candidates)
                first = sum(len(c.ids) for c in chunks)
                choices.append((slot, row, len(new), [[first + p for p in ps] for ps in predictors]))
                chunks.append(chunk)
        if not chunks:
            return {}
        hidden = self.decoder.prefill(chunks)
        count = sum(len(c.ids) for c in chunks)
        self.forwards.append(("prefill", len(chunks), count))
        self.tokens_encoded += count
        self.slots_encoded += count
        return self._choose(hidden, choices) if choices else {}

    def _choose(self, hidden: torch.Tensor, choices: list[tuple[int, _Row, int, list[list[int]]]]) -> dict[str, Choice]:
        at = [p for _, _, _, predictors in choices for ps in predictors for p in ps]
        targets = [t for _, row, _, _ in choices for candidate in row.turn.candidates for t in candidate]
        logits = self.decoder.logits(hidden[torch.tensor(at, device=self.device)])
        picked = torch.tensor(targets, device=self.device)[:, None]
        token_logprobs = (logits.gather(1, picked).squeeze(1) - torch.logsumexp(logits, dim=-1)).tolist()
        results, first = {}, 0
        for slot, row, prompt, _ in choices:
            candidates = row.turn.candidates
            sequences = []
            for candidate in candidates:
                sequences.append(sum(token_logprobs[first : first + len(candidate)]))
                first += len(candidate)
            sequence = torch.tensor(sequences, dtype=torch.float64)
            k = choose(sequence, self.sampler.temperature, uniform(row.seed, row.draws))
            start = row.stored + prompt
            offset = sum(len(c) for c in candidates[:k])
            if offset:
                self.decoder.cache.move(slot, slot, slice(start + offset, start + offset + len(candidates[k])), slice(start, start + len(candidates[k])))
            row.known, row.stored, row.draws, row.turn = row.turn.ids + candidates[k], start + len(candidates[k]), row.draws + 1, None
            logprob = float(torch.log_softmax(sequence / self.sampler.scoring_temperature, 0)[k])
            results[row.id] = Choice(k, sequences, logprob)
        return results

    def _decode(self) -> dict[str, Sampled]:
        rows = len(self.rows)
        if any(row.turn is None or row.turn.candidates is not None for row in self.rows):
            raise ValueError("engine: while replies are sampled, every episode in flight must have a reply to sample (submit its turn or finish it)")
        padded = min(self.slots, 1 << (rows - 1).bit_length()) if self.gpu else rows
        state = torch.zeros((6, padded), dtype=torch.long)
        state[3] = 1  # padding rows: a limit of one token, and done
        for r, row in enumerate(self.rows):
            feed = row.reply[-1] if row.reply else row.turn.ids[-1]
            state[:, r] = torch.tensor([feed, row.stored, len(row.reply), row.turn.max_new_tokens, row.seed, row.draws])
        window = self.window
        window.state[:, :padded].copy_(state)
        window.done[:padded] = torch.arange(padded) >= rows
        self.sampler.prepare([(row.id, row.turn.ids, row.reply) for row in self.rows], self.device, self.slots)
        key_length = max(row.stored for row in self.rows) + self.sync_every
        if self.gpu:
            key_length = -(-key_length // KEY_BUCKET) * KEY_BUCKET
        key_length = min(self.capacity, key_length)
        window.run(padded, key_length)
        self.forwards.append(("decode", padded, key_length))
        tokens, logprobs, emitted = (t[:, :rows].T.tolist() for t in (window.tokens, window.logprobs, window.emitted))  # the host's one wait
        self.slots_encoded += padded * self.sync_every
        results = {}
        for row, row_tokens, row_logprobs, row_emitted in zip(self.rows, tokens, logprobs, emitted):
            for token, logprob, out in zip(row_tokens, row_logprobs, row_emitted):
                if out:
                    row.reply.append(token)
                    row.logprobs.append(logprob)
            self.tokens_encoded += sum(row_emitted)
            row.stored = len(row.turn.ids) - 1 + len(row.reply)
            stopped = bool(row.reply) and row.reply[-1] in self.stop_set
            if stopped or len(row.reply) >= row.turn.max_new_tokens:
                results[row.id] = Sampled(row.reply, row.logprobs, stopped)
                row.known, row.draws, row.turn = row.turn.ids + row.reply, row.draws + len(row.reply), None
        return results


def _candidates_chunk(slot: int, prompt: list[int], start: int, candidates: list[list[int]]) -> tuple[Chunk, list[list[int]]]:
    """The prompt's new tokens then every candidate, each candidate seeing the prompt and itself only; the
    candidates are stored side by side after the prompt (the chosen one is moved up behind it afterwards).
    Also, per candidate, the chunk indices whose logits predict its tokens."""
    n, total = len(prompt), sum(map(len, candidates))
    end = start + n + total
    sees = torch.zeros(n + total, end, dtype=torch.bool)
    sees[:n] = torch.ones(n, end, dtype=torch.bool).tril(start)
    ids, positions, storage, predictors, offset = list(prompt), list(range(start, start + n)), list(range(start, start + n)), [], n
    for candidate in candidates:
        k = len(candidate)
        ids += candidate
        positions += range(start + n, start + n + k)
        storage += range(start + offset, start + offset + k)
        sees[offset : offset + k, : start + n] = True
        sees[offset : offset + k, start + offset : start + offset + k] = torch.ones(k, k, dtype=torch.bool).tril()
        predictors.append([n - 1] + list(range(offset, offset + k - 1)))
        offset += k
    return Chunk(slot, ids, positions, storage, sees), predictors


@dataclass(frozen=True)
class Generated:
    content_ids: list[int]
    """The reply's ids before the end-of-turn token (which the template adds back)."""
    stopped: bool
    """The model ended its turn; False when max_new_tokens cut it off."""


def generate(policy: Policy, prompts: list[list[int]], temperature: float, max_new_tokens: int, seed: int) -> list[Generated]:
    """Independent replies to whole prompts, in one engine (a server's requests; rollouts keep theirs)."""
    ids = [str(i) for i in range(len(prompts))]
    sampler = make_sampler("neutral", temperature, temperature if temperature > 0 else 1.0)
    capacity = max(map(len, prompts)) + max_new_tokens
    replies: dict[str, Sampled] = {}
    with TorchEngine(policy, slots=len(prompts), capacity=capacity, sampler=sampler, seed=seed) as engine:
        for id, prompt in zip(ids, prompts):
            engine.submit(Turn(id, prompt, max_new_tokens))
        while len(replies) < len(ids):
            for id, sampled in engine.step().items():
                replies[id] = sampled
                engine.finish(id)
    return [Generated(s.ids[:-1] if s.stopped else s.ids, s.stopped) for s in (replies[id] for id in ids)]
