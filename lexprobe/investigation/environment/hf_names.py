"""The name of the published InvestigationWorlds dataset, apart from the importer (`hf_dataset`), so that the CLI's
`--help` can name it without importing the environment model."""

from __future__ import annotations

__all__ = ["DATASET_NAME"]

DATASET_NAME = "investigation-worlds/investigation-worlds"
