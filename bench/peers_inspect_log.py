"""Read an inspect-ai eval log (run in the bench's inspect subprocess, never imported by lexprobe).

    python bench/peers_inspect_log.py LOG_DIR

Prints JSON: one entry per sample, in sample-id order, with the messages inspect sent to the server (from the model
event's recorded HTTP request, falling back to the sample input), the answer, and the token usage the server reported.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from inspect_ai.log import read_eval_log


def _content(message: object) -> str:
    content = getattr(message, "content", message)
    if isinstance(content, str):
        return content
    return "".join(getattr(part, "text", "") for part in content)


def main(log_dir: str) -> int:
    """Print the samples of the single log in `log_dir` as JSON."""
    logs = sorted(Path(log_dir).glob("*.eval")) + sorted(Path(log_dir).glob("*.json"))
    if len(logs) != 1:
        raise SystemExit(f"expected one inspect log in {log_dir}, found {len(logs)}")
    log = read_eval_log(str(logs[0]), resolve_attachments=True)
    if log.status != "success":
        raise SystemExit(f"inspect run ended with status {log.status}: {log.error}")
    out = []
    for sample in sorted(log.samples or [], key=lambda s: str(s.id)):
        sent = None
        for event in sample.events:
            call = getattr(event, "call", None)
            if getattr(event, "event", "") == "model" and call is not None and isinstance(call.request, dict):
                sent = [{"role": m.get("role"), "content": m.get("content")} for m in call.request.get("messages", [])]
                params = {
                    k: call.request.get(k) for k in ("max_tokens", "max_completion_tokens", "temperature", "seed")
                }
        if sent is None:
            sent = [{"role": m.role, "content": _content(m)} for m in sample.input]
            params = {}
        usage = sample.output.usage
        out.append(
            {
                "id": str(sample.id),
                "messages": sent,
                "params": params,
                "answer": sample.output.completion,
                "input_tokens": usage.input_tokens if usage else None,
                "output_tokens": usage.output_tokens if usage else None,
            }
        )
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
