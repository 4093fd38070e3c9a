"""lexprobe check served where people work: the warm `CheckService` (check_service.py) that `lexprobe mcp` and
`lexprobe serve` share (docs/service.md)."""
