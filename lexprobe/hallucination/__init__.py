"""Hallucination profiling after Dahl et al., Large Legal Fictions: tasks, prompts, scorers, runs and reports."""
