"""InvestigationWorlds environments: the format (environment.py), validation, construction, review."""
