"""lexprobe's check served where people work: the warm check core, the MCP server and the HTTP API (layer 3, beside
`interop/`; docs/service.md)."""
