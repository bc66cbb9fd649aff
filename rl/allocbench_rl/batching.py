"""A batching queue: items submitted from many threads are answered together on one worker thread.

A batch closes `wait` seconds after its first item arrives, or as soon as it holds `size` items; its
items are grouped by key and each group is one call of `run`. The submitting thread blocks until its
item's answer (or the group's exception) is back.
"""

from __future__ import annotations

import queue
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from typing import Generic, TypeVar

Item = TypeVar("Item")
Answer = TypeVar("Answer")


class Batcher(Generic[Item, Answer]):
    def __init__(self, run: Callable[[Hashable, list[Item]], list[Answer]], size: int, wait: float):
        self._run, self._size, self._wait = run, size, wait
        self._queue: queue.Queue[tuple[Hashable, Item, Future[Answer]]] = queue.Queue()
        threading.Thread(target=self._work, name="batcher", daemon=True).start()

    def submit(self, key: Hashable, item: Item) -> Answer:
        future: Future[Answer] = Future()
        self._queue.put((key, item, future))
        return future.result()

    def _collect(self) -> list[tuple[Hashable, Item, Future[Answer]]]:
        batch = [self._queue.get()]
        closes = time.monotonic() + self._wait
        while len(batch) < self._size:
            left = closes - time.monotonic()
            try:
                batch.append(self._queue.get(timeout=left) if left > 0 else self._queue.get_nowait())
            except queue.Empty:
                break
        return batch

    def _work(self) -> None:
        while True:
            groups: dict[Hashable, list[tuple[Item, Future[Answer]]]] = defaultdict(list)
            for key, item, future in self._collect():
                groups[key].append((item, future))
            for key, entries in groups.items():
                try:
                    answers = self._run(key, [item for item, _ in entries])
                except Exception as error:  # noqa: BLE001 - handed to each waiting thread
                    for _, future in entries:
                        future.set_exception(error)
                    continue
                for (_, future), answer in zip(entries, answers, strict=True):
                    future.set_result(answer)
