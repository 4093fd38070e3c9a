"""How the engine runs requests: one typed config with a docstring per field."""

from __future__ import annotations

from pydantic import BaseModel, Field


class EngineConfig(BaseModel):
    """Settings of one engine run. Defaults suit hosted APIs and the embedded model alike."""

    concurrency: int | None = Field(
        default=None,
        ge=1,
        description="Requests in flight per model (per replica of a replicated model). None uses the backend's default "
        "(1 for the embedded model, 4 for OpenAI-compatible servers, 8-16 for hosted APIs).",
    )
    max_retries: int = Field(
        default=6, ge=0, description="Retries after the first attempt on rate limits, 5xx, timeouts, resets."
    )
    backoff_initial_s: float = Field(default=1.0, ge=0, description="First backoff delay before jitter.")
    backoff_max_s: float = Field(default=60.0, ge=0, description="Longest single backoff delay.")
    jitter_s: float = Field(default=1.0, ge=0, description="Random extra delay added to each backoff.")
    timeout_s: float | None = Field(
        default=None,
        gt=0,
        description="Per-request time limit. None uses the backend's default (120 s for APIs; none for the "
        "embedded model, whose calls cannot be interrupted).",
    )
    use_cache: bool = Field(default=True, description="Read and write the shared response cache.")
    progress: bool = Field(default=True, description="Show a progress bar on stderr.")
    batch: bool = Field(
        default=False,
        description="Send pending single-turn requests of openai/, anthropic/ and openai-compatible/ models through "
        "the provider's batch API (`lexprobe.engine.batch`); other models and multi-turn agent calls stay synchronous.",
    )
    batch_poll_s: float | None = Field(
        default=None,
        gt=0,
        description="First wait between batch polls, in seconds (doubling up to 20 times that while nothing changes). "
        "None: LEXPROBE_BATCH_POLL_S, else 30.",
    )
    ray: str | None = Field(
        default=None,
        description="Send the model calls to Ray workers: `local` (a private instance), `auto`, `ray://HOST:PORT` "
        "or `HOST:PORT`; None runs them in this process. The store is written by this process either way.",
    )
    ray_workers: int | None = Field(
        default=None,
        ge=1,
        description="Ray workers (actors) per model. None: one per free CPU for the embedded model, one per node "
        "for endpoints. `concurrency` then counts calls in flight per worker.",
    )
