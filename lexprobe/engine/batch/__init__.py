"""Provider batch APIs (`--batch`): pending single-turn requests go to OpenAI's Batch API, Anthropic's Message
Batches or an OpenAI-compatible server's batch endpoints instead of one call each, at the batch price.

`runner.run_batches` is what the engine calls; `ledger.BatchLedger` keeps every batch and the custom id of every
request in it in the run store (tables `batches`, `batch_items`), written before the provider is asked to create
the batch, so a rerun after a crash resumes polling and never submits a request twice; `providers` speaks each
provider's batch endpoints through its official SDK; `status` reads the ledger for `lexprobe batch status` and the
reports (`engine.estimate.batch_estimate` prices a dry run at the batch price).
"""
