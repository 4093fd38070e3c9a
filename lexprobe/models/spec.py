"""Parse model spec strings ('local', 'openai/gpt-4o', 'scripted:turns.jsonl', ...) into `ModelSpec` values."""

from __future__ import annotations

from dataclasses import dataclass

from lexprobe.models.errors import ModelConfigError

#: Every accepted form, in the order `lexprobe models` and error messages list them.
SPEC_FORMS: tuple[tuple[str, str], ...] = (
    ("local", "embedded llama.cpp running SmolLM2-135M-Instruct (same as local/smollm2)"),
    ("local:PATH.gguf", "embedded llama.cpp on any GGUF file"),
    ("openai/MODEL", "OpenAI API (OPENAI_API_KEY, optional OPENAI_BASE_URL)"),
    ("openai-compatible/MODEL@BASE_URL", "any OpenAI-compatible server: vLLM, Ollama, llama.cpp server, ..."),
    (
        "openai-compatible/MODEL@URL1,URL2,...",
        "replicas of one model on several such servers: least-busy first, --concurrency per replica, failover",
    ),
    ("anthropic/MODEL", "Anthropic API (ANTHROPIC_API_KEY)"),
    ("scripted:FILE.jsonl", "deterministic replay of assistant turns, for tests and demos"),
)


@dataclass(frozen=True)
class ModelSpec:
    """A parsed model spec.

    `backend` picks the implementation; `name` is the provider's model name (or the GGUF file's stem);
    `path` is a file for `local:` and `scripted:` specs; `base_url` is set for OpenAI-compatible servers (the first
    one), and `replica_urls` holds every URL, in the order given, when the spec names several replicas of one model
    (`openai-compatible/MODEL@URL1,URL2,...`; empty for the single-URL form, whose parse is what it always was).
    """

    raw: str
    backend: str
    name: str
    path: str | None = None
    base_url: str | None = None
    replica_urls: tuple[str, ...] = ()

    @property
    def replicated(self) -> bool:
        """True when the spec names several replicas of one OpenAI-compatible model."""
        return len(self.replica_urls) > 1


def valid_forms_text() -> str:
    """Return the accepted spec forms as one human-readable line."""
    return ", ".join(form for form, _ in SPEC_FORMS)


def parse_model_spec(spec: str) -> ModelSpec:
    """Parse `spec` into a `ModelSpec`.

    Raises `ModelConfigError` naming the valid forms when the string matches none of them.
    """
    text = spec.strip()

    def fail(why: str) -> ModelConfigError:
        return ModelConfigError(f"unknown model spec {spec!r}: {why}. Valid forms: {valid_forms_text()}")

    if text in ("local", "local/smollm2"):
        return ModelSpec(raw=text, backend="local", name="smollm2")
    if text.startswith("local:"):
        path = text.removeprefix("local:")
        if not path.endswith(".gguf"):
            raise fail("a local model must be a .gguf file")
        stem = path.rsplit("/", 1)[-1].removesuffix(".gguf")
        return ModelSpec(raw=text, backend="local", name=stem, path=path)
    if text.startswith("scripted:"):
        path = text.removeprefix("scripted:")
        if not path:
            raise fail("scripted: needs a JSONL file")
        return ModelSpec(raw=text, backend="scripted", name=path.rsplit("/", 1)[-1], path=path)
    if text.startswith("openai-compatible/"):
        rest = text.removeprefix("openai-compatible/")
        name, sep, urls = rest.partition("@")
        replicas = tuple(url.strip().rstrip("/") for url in urls.split(","))
        if not (name and sep and all(url.startswith(("http://", "https://")) for url in replicas)):
            raise fail("expected openai-compatible/MODEL@http(s)://HOST[:PORT]/v1 (several replicas: URL1,URL2,...)")
        repeated = sorted({url for url in replicas if replicas.count(url) > 1})
        if repeated:
            raise fail(f"replica URL {repeated[0]} is given twice")
        several = replicas if len(replicas) > 1 else ()
        return ModelSpec(raw=text, backend="openai-compatible", name=name, base_url=replicas[0], replica_urls=several)
    for provider in ("openai", "anthropic"):
        if text.startswith(provider + "/"):
            name = text.removeprefix(provider + "/")
            if not name:
                raise fail(f"{provider}/ needs a model name")
            return ModelSpec(raw=text, backend=provider, name=name)
    raise fail("no backend matches")
