"""The service's own expected failure: what was asked for is not in the case database (an HTTP 404, an MCP tool
error); bad input is lexprobe's `BadInputError` (an HTTP 400)."""

from __future__ import annotations

from lexprobe.errors import LexprobeError

__all__ = ["NotInDatabase"]


class NotInDatabase(LexprobeError):
    """No case, opinion or page in the case database matches what was asked (exit 1, like `lexprobe data case`)."""

    exit_code = 1
