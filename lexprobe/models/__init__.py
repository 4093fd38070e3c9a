"""Who answers: one async interface over the embedded model, OpenAI(-compatible), Anthropic and scripted replay.

Each name is imported from the module that defines it.
"""
