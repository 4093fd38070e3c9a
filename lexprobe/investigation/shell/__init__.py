"""The read-only shell the agent's `shell` tool runs commands in: what it refuses before anything runs and how a
command runs confined to the corpus view (`sandbox`; the awk program policy in `awk_policy`), and which documents a
command that ran showed (`shell_reads`, read by the tools to record what an episode opened, which coverage counts).

May import: the standard library only; the agent's tools build on it.
"""
