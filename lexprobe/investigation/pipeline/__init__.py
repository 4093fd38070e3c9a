"""The InvestigationWorlds construction pipeline: from a summary-judgment record to an environment.

    result = run_build(record_dir, out_dir, BuildSettings(generator="openai/gpt-4o-mini"))

Stages (one module per group, registered by name in `registry.py`, run in order by `runner.py`, each output
saved as OUT/stages/<nn>_<name>.json and reused while its inputs are unchanged): ingest; opinion, souf,
ground_facts, party_dags, ruling; entities, exhibits; alternatives, doc_plans, shard_plans, generate; assemble.

May import: `lexprobe.investigation.environment` (the format it writes, the ladder, the validator),
`lexprobe.engine`, `lexprobe.models`, `lexprobe.documents`.
"""
