"""One hallucination run: sampled cases turned into rendered items and engine requests (`items`), what a resumed
run still has to send (`resume`) and the run itself: sample, send, score, report (`runner`).

May import: every other package of this domain; `lexprobe.caselaw`, `lexprobe.engine`, `lexprobe.models`.
"""
