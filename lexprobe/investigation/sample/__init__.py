"""A small hand-written investigation environment, a FICTIONAL breach-of-contract case, for tests and demos:
"Harlow Freight Systems, Inc. v. Brightline Components LLC (fictional)". The case is JSON data in this package;
`build_sample_environment` renders it into an environment directory at one ablation level (see `build`).

May import: `lexprobe.investigation.environment`, `lexprobe.documents` (rendering)."""
