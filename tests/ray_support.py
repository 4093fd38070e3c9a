"""What the Ray tests share: whether `ray` is missing (they skip then, except under CI=true, where `make setup`
installs it and they must run), and one local Ray instance per test module (`ray_address`, a pytest plugin listed
in conftest)."""

from __future__ import annotations

import importlib.util
import logging
import os
from collections.abc import Iterator

import pytest

#: Why a Ray test skips where `ray` is not installed.
RAY_MISSING = "ray is not installed: pip install 'lexprobe[ray]'"


def ray_missing() -> bool:
    """Whether the optional `ray` package is absent here and the run is not CI's."""
    return importlib.util.find_spec("ray") is None and os.environ.get("CI") != "true"


def skip_without_ray() -> None:
    """Skip the calling test where `ray_missing()`."""
    if ray_missing():
        pytest.skip(RAY_MISSING)


@pytest.fixture(scope="module")
def ray_address() -> Iterator[str]:
    """One local Ray instance for the module; yields its address (the GCS `HOST:PORT`)."""
    skip_without_ray()
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()
