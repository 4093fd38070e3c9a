"""The `llama_cpp.Llama` subclass of the embedded backend (`local`): it reuses a chunk-aligned prompt prefix and
stops between two tokens or prompt chunks (see `local`'s docstring). Its own module because it imports
llama-cpp-python, which is optional: `local` imports it on first load of a model."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import Any

import llama_cpp
from llama_cpp import Llama

from lexprobe.models.errors import CallInterrupted
from lexprobe.models.local import PREFILL_CHUNK, reusable_prefix


class StoppableLlama(Llama):
    """`Llama` that keeps a chunk-aligned shared prompt prefix in its KV cache, and checks `stop_event` after
    each generated token and prompt chunk, raising `CallInterrupted` when it is set."""

    stop_event: threading.Event | None = None
    #: Leading tokens of `input_ids` that were evaluated in whole prompt chunks from position 0.
    trusted_tokens: int = 0
    #: Prompt tokens of the last call, and how many of them came from the cache.
    last_prompt_tokens: int = 0
    last_reused_tokens: int = 0
    _prompt_pending: bool = False

    def can_reuse_prefix(self) -> bool:
        """True when this model's memory can drop a suffix and keep the rest exactly (plain attention)."""
        return not (self._is_recurrent or self._is_hybrid or llama_cpp.llama_model_n_swa(self._model.model) > 0)

    def reset(self) -> None:
        """Forget the cached prompt: the next call evaluates its whole prompt."""
        super().reset()
        self.trusted_tokens = 0

    def generate(self, tokens: Sequence[int], *args: Any, **kwargs: Any) -> Iterator[int]:
        """Keep the reusable prefix of `tokens` (`Llama.generate` then evaluates only the rest), and yield
        `Llama.generate`'s tokens until `stop_event` is set."""
        tokens = list(tokens)
        keep = 0
        if self.can_reuse_prefix():
            keep = reusable_prefix(self.input_ids, min(self.trusted_tokens, self.n_tokens), tokens)
        # Llama.generate reuses the longest prefix of `input_ids[:n_tokens]`, which is now exactly `keep` tokens
        # (it removes the KV cells past it); with 0 it resets, and `eval` clears the whole cache.
        self.n_tokens = keep
        self.trusted_tokens = keep
        self.last_prompt_tokens, self.last_reused_tokens = len(tokens), 0
        self._prompt_pending = True
        try:
            for token in super().generate(tokens, *args, **kwargs):
                self._check_stop()
                yield token
        finally:
            self._prompt_pending = False

    def eval(self, tokens: Sequence[int]) -> None:
        """Evaluate `tokens` in chunks of `PREFILL_CHUNK` from the current position, checking `stop_event`
        between chunks (so that a long prompt can be abandoned too); after a call's prompt, record how much of it
        came from the cache and how much of it lies in whole chunks."""
        if self._prompt_pending:
            self.last_reused_tokens = self.n_tokens
        if not tokens:
            super().eval(tokens)
        for start in range(0, len(tokens), PREFILL_CHUNK):
            self._check_stop()
            super().eval(tokens[start : start + PREFILL_CHUNK])
        if self._prompt_pending:
            self._prompt_pending = False
            self.trusted_tokens = self.n_tokens // PREFILL_CHUNK * PREFILL_CHUNK

    def _check_stop(self) -> None:
        if self.stop_event is not None and self.stop_event.is_set():
            raise CallInterrupted("stopped before the answer was complete")
