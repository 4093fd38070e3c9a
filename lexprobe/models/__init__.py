"""Who answers: one async interface over the embedded model, OpenAI(-compatible), Anthropic and scripted replay.

The names below are exported lazily (`lexprobe.lazy`): importing `lexprobe.models.types` or `lexprobe.models.spec`
does not import the registry, the clients or their SDKs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lexprobe.lazy import lazy_exports

if TYPE_CHECKING:
    from lexprobe.models.base import Model
    from lexprobe.models.errors import ModelConfigError, ModelError, TransientModelError
    from lexprobe.models.registry import check_model, model_status, open_model
    from lexprobe.models.spec import ModelSpec, parse_model_spec
    from lexprobe.models.types import Message, Request, Response, ToolCall, ToolSpec, Usage

__all__ = [
    "Message",
    "Model",
    "ModelConfigError",
    "ModelError",
    "ModelSpec",
    "Request",
    "Response",
    "ToolCall",
    "ToolSpec",
    "TransientModelError",
    "Usage",
    "check_model",
    "model_status",
    "open_model",
    "parse_model_spec",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "Message": "types",
        "Model": "base",
        "ModelConfigError": "errors",
        "ModelError": "errors",
        "ModelSpec": "spec",
        "Request": "types",
        "Response": "types",
        "ToolCall": "types",
        "ToolSpec": "types",
        "TransientModelError": "errors",
        "Usage": "types",
        "check_model": "registry",
        "model_status": "registry",
        "open_model": "registry",
        "parse_model_spec": "spec",
    },
)
