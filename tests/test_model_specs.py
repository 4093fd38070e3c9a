"""Model spec parsing, usability checks, the price table and request cache keys."""

from __future__ import annotations

import pytest

from lexprobe.models.errors import ModelConfigError
from lexprobe.models.pricing import PRICES, Price, cost_usd, price_for
from lexprobe.models.registry import check_model, model_status
from lexprobe.models.spec import SPEC_FORMS, ModelSpec, parse_model_spec
from lexprobe.models.types import Message, Request, ToolSpec, Usage

# ------------------------------------------------------------------------------------------------ parsing


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("local", ModelSpec(raw="local", backend="local", name="smollm2")),
        ("local/smollm2", ModelSpec(raw="local/smollm2", backend="local", name="smollm2")),
        ("local:/x/y.gguf", ModelSpec(raw="local:/x/y.gguf", backend="local", name="y", path="/x/y.gguf")),
        (
            "local:model.gguf",
            ModelSpec(raw="local:model.gguf", backend="local", name="model", path="model.gguf"),
        ),
        ("openai/gpt-4o", ModelSpec(raw="openai/gpt-4o", backend="openai", name="gpt-4o")),
        (
            "openai-compatible/m@http://127.0.0.1:8000/v1",
            ModelSpec(
                raw="openai-compatible/m@http://127.0.0.1:8000/v1",
                backend="openai-compatible",
                name="m",
                base_url="http://127.0.0.1:8000/v1",
            ),
        ),
        (
            "openai-compatible/org/model@https://api.example.com/v1/",
            ModelSpec(
                raw="openai-compatible/org/model@https://api.example.com/v1/",
                backend="openai-compatible",
                name="org/model",
                base_url="https://api.example.com/v1",
            ),
        ),
        (
            "anthropic/claude-3-5-haiku-latest",
            ModelSpec(raw="anthropic/claude-3-5-haiku-latest", backend="anthropic", name="claude-3-5-haiku-latest"),
        ),
        (
            "scripted:a.jsonl",
            ModelSpec(raw="scripted:a.jsonl", backend="scripted", name="a.jsonl", path="a.jsonl"),
        ),
        (
            "scripted:/tmp/demo/turns.jsonl",
            ModelSpec(
                raw="scripted:/tmp/demo/turns.jsonl",
                backend="scripted",
                name="turns.jsonl",
                path="/tmp/demo/turns.jsonl",
            ),
        ),
        ("  openai/gpt-4o\n", ModelSpec(raw="openai/gpt-4o", backend="openai", name="gpt-4o")),
    ],
)
def test_parse_valid_specs(text, expected):
    """Every documented form parses into the expected `ModelSpec`."""
    assert parse_model_spec(text) == expected


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("gpt-4", "no backend matches"),
        ("", "no backend matches"),
        ("local:foo.bin", ".gguf"),
        ("local/llama3", "no backend matches"),
        ("openai/", "needs a model name"),
        ("anthropic/", "needs a model name"),
        ("scripted:", "needs a JSONL file"),
        ("openai-compatible/m", "expected openai-compatible/MODEL@"),
        ("openai-compatible/m@ftp://x", "expected openai-compatible/MODEL@"),
        ("openai-compatible/@http://127.0.0.1:8000/v1", "expected openai-compatible/MODEL@"),
    ],
)
def test_parse_invalid_specs_list_valid_forms(text, why):
    """A bad spec raises ModelConfigError quoting it, saying why, and listing every valid form."""
    with pytest.raises(ModelConfigError) as caught:
        parse_model_spec(text)

    message = str(caught.value)
    assert repr(text) in message
    assert why in message
    for form, _ in SPEC_FORMS:
        assert form in message


# ------------------------------------------------------------------------------------- usability checks


@pytest.mark.parametrize(
    ("spec", "variable"),
    [("openai/gpt-4o-mini", "OPENAI_API_KEY"), ("anthropic/claude-3-5-haiku-latest", "ANTHROPIC_API_KEY")],
)
def test_check_model_requires_api_key(monkeypatch, spec, variable):
    """A hosted spec without its key is refused, naming the variable; with it, the spec is returned."""
    monkeypatch.delenv(variable, raising=False)
    with pytest.raises(ModelConfigError, match=variable):
        check_model(spec)

    monkeypatch.setenv(variable, "sk-test")
    assert check_model(spec) == parse_model_spec(spec)


def test_check_model_empty_key_counts_as_missing(monkeypatch):
    """An empty variable is as good as none."""
    monkeypatch.setenv("OPENAI_API_KEY", "")
    with pytest.raises(ModelConfigError, match="OPENAI_API_KEY is not set"):
        check_model("openai/gpt-4o")


def test_check_model_openai_compatible_needs_no_key(monkeypatch):
    """Self-hosted OpenAI-compatible servers are usable without OPENAI_API_KEY."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert check_model("openai-compatible/m@http://127.0.0.1:8000/v1").backend == "openai-compatible"


def test_check_model_rejects_bad_spec():
    """check_model reports parse errors as ModelConfigError too."""
    with pytest.raises(ModelConfigError, match="Valid forms"):
        check_model("gpt-4")


def test_check_model_scripted_file_must_exist(tmp_path):
    """A scripted spec pointing nowhere is refused before anything runs."""
    missing = tmp_path / "nope.jsonl"
    with pytest.raises(ModelConfigError, match="script file not found"):
        check_model(f"scripted:{missing}")

    missing.write_text('{"text": "hi"}\n')
    assert check_model(f"scripted:{missing}").path == str(missing)


def test_model_status_without_keys(monkeypatch):
    """One row per form, in order; hosted rows say which key is missing."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    rows = {row.form: row for row in model_status()}

    assert list(rows) == [form for form, _ in SPEC_FORMS]
    assert [row.description for row in rows.values()] == [description for _, description in SPEC_FORMS]
    assert not rows["openai/MODEL"].usable
    assert "OPENAI_API_KEY" in rows["openai/MODEL"].reason
    assert not rows["anthropic/MODEL"].usable
    assert "ANTHROPIC_API_KEY" in rows["anthropic/MODEL"].reason
    assert rows["openai-compatible/MODEL@BASE_URL"].usable
    assert rows["scripted:FILE.jsonl"].usable
    for row in rows.values():  # whether `local` is ready depends on the machine; the row must be coherent
        assert row.usable == (row.reason == "ready")


def test_model_status_with_keys(monkeypatch):
    """With both keys set, the hosted rows are ready."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    rows = {row.form: row for row in model_status()}

    for form in ("openai/MODEL", "anthropic/MODEL"):
        assert rows[form].usable
        assert rows[form].reason == "ready"


# ----------------------------------------------------------------------------------------------- pricing


@pytest.mark.parametrize(
    ("backend", "model_name", "family"),
    [
        ("openai", "gpt-4o", "gpt-4o"),
        ("openai", "gpt-4o-2024-08-06", "gpt-4o"),
        ("openai", "gpt-4o-mini", "gpt-4o-mini"),
        ("openai", "gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
        ("openai", "gpt-4.1-nano-2025-04-14", "gpt-4.1-nano"),
        ("openai", "gpt-4-turbo-2024-04-09", "gpt-4-turbo"),
        ("openai", "gpt-4-0613", "gpt-4"),
        ("openai", "gpt-3.5-turbo-0125", "gpt-3.5-turbo"),
        ("openai", "o3-mini-2025-01-31", "o3-mini"),
        ("anthropic", "claude-3-5-sonnet-20241022", "claude-3-5-sonnet"),
        ("anthropic", "claude-3-5-haiku-latest", "claude-3-5-haiku"),
        ("anthropic", "claude-sonnet-4-20250514", "claude-sonnet-4"),
        ("anthropic", "claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("anthropic", "claude-opus-4-1-20250805", "claude-opus-4-1"),
    ],
)
def test_price_for_takes_longest_matching_family(backend, model_name, family):
    """A family name or a dated/latest snapshot of it gets that family's price, the longest family winning."""
    assert price_for(backend, model_name) == PRICES[(backend, family)]


@pytest.mark.parametrize(
    ("backend", "model_name"),
    [
        ("openai", "my-finetune"),
        ("openai", "gpt-4ox"),  # a family name must end at a dash
        ("openai", "o1-mini"),  # a different, cheaper model than o1: not priced as o1
        ("openai", "o3-pro"),  # a different, dearer model than o3: not priced as o3
        ("anthropic", "claude-opus-4-5"),  # not priced as claude-opus-4
        ("anthropic", "gpt-4o"),  # right name, wrong provider
        ("openai-compatible", "gpt-4o"),  # self-hosted servers have no list price
        ("openai", ""),
    ],
)
def test_price_for_unknown_model_is_none(backend, model_name):
    """A model missing from the table has no price, rather than a guessed one."""
    assert price_for(backend, model_name) is None


@pytest.mark.parametrize(("backend", "model_name"), [("local", "smollm2"), ("scripted", "turns.jsonl")])
def test_price_for_free_backends_is_zero(backend, model_name):
    """Local and scripted models cost nothing."""
    price = price_for(backend, model_name)
    assert price == Price(0.0, 0.0, 0.0, 0.0)
    assert cost_usd(price, Usage(input_tokens=10**6, output_tokens=10**6, cache_read_tokens=5)) == 0.0


@pytest.mark.parametrize(
    ("price", "usage", "expected"),
    [
        (Price(2.0, 10.0), Usage(input_tokens=1_000_000), 2.0),
        (Price(2.0, 10.0), Usage(output_tokens=500_000), 5.0),
        # cache reads and writes default to the input price
        (Price(2.0, 10.0), Usage(cache_read_tokens=1_000_000, cache_write_tokens=1_000_000), 4.0),
        (
            Price(2.0, 10.0, cache_read=1.0, cache_write=3.0),
            Usage(input_tokens=1000, output_tokens=500, cache_read_tokens=200, cache_write_tokens=100),
            (1000 * 2.0 + 500 * 10.0 + 200 * 1.0 + 100 * 3.0) / 1_000_000,
        ),
        (
            Price(0.15, 0.60, cache_read=0.075),
            Usage(input_tokens=600, output_tokens=200, cache_read_tokens=400),
            0.00024,
        ),
        (Price(2.0, 10.0), Usage(), 0.0),
    ],
)
def test_cost_usd_arithmetic(price, usage, expected):
    """Cost is tokens times USD-per-million for each kind of token."""
    assert cost_usd(price, usage) == pytest.approx(expected)


def test_cost_usd_unknown_price_is_none():
    """No price means no cost, not zero."""
    assert cost_usd(None, Usage(input_tokens=100)) is None


# ---------------------------------------------------------------------------------------------- cache key


def make_request(**changes) -> Request:
    """A baseline request, with `changes` applied."""
    fields = {
        "model": "openai/gpt-4o-mini",
        "messages": (
            Message(role="system", content="Be brief."),
            Message(role="user", content="Is it a tort?"),
        ),
        "temperature": 0.0,
        "seed": 1,
        "max_tokens": 100,
        "stop": ("END",),
        "tools": (ToolSpec(name="search"),),
        "schema": {"type": "object"},
        "sample_index": 0,
    }
    fields.update(changes)
    return Request(**fields)


def test_cache_key_is_stable_for_equal_content():
    """Two separately built, equal requests share a key, and it is a SHA-256 hex digest."""
    key = make_request().cache_key()
    assert key == make_request().cache_key()
    assert len(key) == 64
    assert int(key, 16) >= 0


def test_cache_key_ignores_bookkeeping():
    """`id` and `tags` name a request; they do not change its answer."""
    assert make_request(id="q-17", tags={"suite": "torts"}).cache_key() == make_request().cache_key()


def test_request_id_defaults_to_cache_key():
    """Without an explicit id, a request is named by its cache key."""
    assert make_request().request_id == make_request().cache_key()
    assert make_request(id="q-17").request_id == "q-17"


@pytest.mark.parametrize("change", [{"seed": 99}, {"seed": None}, {"sample_index": 3}])
def test_cache_key_at_temperature_zero_ignores_seed_and_sample(change):
    """A deterministic request gives one answer whatever its seed or sample index."""
    assert make_request(**change).cache_key() == make_request().cache_key()


@pytest.mark.parametrize("change", [{"seed": 99}, {"seed": None}, {"sample_index": 3}])
def test_cache_key_when_sampling_keeps_seed_and_sample(change):
    """Sampled requests with different seeds or sample indexes are distinct cache entries."""
    baseline = make_request(temperature=0.8)
    assert make_request(temperature=0.8, **change).cache_key() != baseline.cache_key()


@pytest.mark.parametrize(
    "change",
    [
        {"model": "openai/gpt-4o"},
        {"messages": (Message(role="user", content="Is it a crime?"),)},
        {
            "messages": (
                Message(role="system", content="Be verbose."),
                Message(role="user", content="Is it a tort?"),
            )
        },
        {"tools": ()},
        {"tools": (ToolSpec(name="search", description="Search the file."),)},
        {"schema": None},
        {"schema": {"type": "array"}},
        {"max_tokens": 101},
        {"stop": ()},
        {"temperature": 0.5},
    ],
)
def test_cache_key_changes_with_content(change):
    """Anything that can change the answer changes the key."""
    assert make_request(**change).cache_key() != make_request().cache_key()


def test_cache_key_of_a_changed_copy_is_recomputed():
    """The key is memoized per request, yet a copy with changed fields gets its own key."""
    original = make_request(temperature=0.8)
    key = original.cache_key()

    assert original.model_copy().cache_key() == key
    assert original.model_copy(update={"id": "q-1"}).cache_key() == key
    changed = original.model_copy(update={"seed": 2})
    assert changed.cache_key() != key
    assert changed.cache_key() == make_request(temperature=0.8, seed=2).cache_key()
    assert original == make_request(temperature=0.8)  # the memo does not leak into equality
