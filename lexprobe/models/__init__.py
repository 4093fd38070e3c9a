"""Who answers: one async interface over the embedded model, OpenAI(-compatible), Anthropic and scripted replay."""

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
