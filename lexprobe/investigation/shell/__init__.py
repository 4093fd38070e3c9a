"""The read-only shell the agent's `shell` tool runs commands in: what it refuses before anything runs and how a
command runs confined to the corpus view (`sandbox`; the awk program policy in `awk_policy`), and which documents a
command that ran showed (`shell_reads`, read by the tools to record what an episode opened, which coverage counts).

May import: the standard library only (and `lexprobe.lazy` for the re-exports below); the agent's tools build on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lexprobe.lazy import lazy_exports

if TYPE_CHECKING:
    from lexprobe.investigation.shell.awk_policy import awk_refusal
    from lexprobe.investigation.shell.sandbox import (
        TIMEOUT_S,
        ShellResult,
        refusal,
        run_sandboxed,
        sandbox_available,
        sandbox_user,
    )
    from lexprobe.investigation.shell.shell_reads import shell_documents, split_command

__all__ = [
    "TIMEOUT_S",
    "ShellResult",
    "awk_refusal",
    "refusal",
    "run_sandboxed",
    "sandbox_available",
    "sandbox_user",
    "shell_documents",
    "split_command",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "ShellResult": "sandbox",
        "TIMEOUT_S": "sandbox",
        "awk_refusal": "awk_policy",
        "refusal": "sandbox",
        "run_sandboxed": "sandbox",
        "sandbox_available": "sandbox",
        "sandbox_user": "sandbox",
        "shell_documents": "shell_reads",
        "split_command": "shell_reads",
    },
)
