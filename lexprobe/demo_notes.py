"""The demo's plain-language notes: how its cases were chosen, and why an investigation episode gave no verdicts.

Both are built from what the run recorded (the plan's sample, the episode's reply and flags), never typed in, so
they stay true for any `--n`, `--model` or database. They are printed with the demo's results and carried into
the HTML report (the model rows' `sample` key; `investigation_note`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lexprobe.hallucination.run.items import ItemPlan
    from lexprobe.investigation.agent.episode import Episode

#: The level names of the sample note (the demo asks the Supreme Court only; other levels are named as stored).
_LEVELS = {"scotus": "Supreme Court", "coa": "Courts of Appeals", "district": "district court"}
#: Model specs that run the embedded SmolLM2-135M-Instruct (`models/spec.py`).
EMBEDDED_SPECS = ("local", "local/smollm2")
#: What to run for readable verdicts (model specs of `models/spec.py`; any larger instruct model does).
LARGER_MODEL_HINT = (
    "for readable verdicts run the demo with a larger instruct model: `lexprobe demo --model openai/gpt-4o-mini` "
    "(OPENAI_API_KEY), or `--model local:PATH.gguf` / `--model openai-compatible/MODEL@URL` with a model of "
    "several billion parameters"
)


def _fact_names(require: list[str]) -> str:
    """Return the required facts in words ("case name, court, majority author"), from `CASE_FACTS`' reasons."""
    from lexprobe.caselaw.sampling import CASE_FACTS

    words = [CASE_FACTS[name].missing.removeprefix("no ") if name in CASE_FACTS else name for name in require]
    return ", ".join(words)


def _sample_years(plan: ItemPlan, level: str) -> str:
    """Return the decision years of the cases a level's sample drew ("1950-1981"), read from the items of the tasks
    asked about the sample ("" when no item names a year)."""
    from lexprobe.hallucination.tasks import TASKS

    years = sorted(
        int(item.covariates["year"])
        for item in plan.items
        if item.level == level
        and item.task in TASKS
        and not TASKS[item.task].population
        and item.covariates.get("year", "").isdigit()
    )
    if not years:
        return ""
    return f"{years[0]}" if years[0] == years[-1] else f"{years[0]}-{years[-1]}"


def sample_note(plan: ItemPlan, seed: int, task_n: dict[str, int | None]) -> str:
    """Return one sentence per level saying how the demo's cases were chosen: how many, decided when, drawn from
    which cases (date window, required facts, how many were eligible), and which tasks ask fewer of them or draw
    their own items."""
    from lexprobe.caselaw.sampling import PAPER_YEARS, window_text
    from lexprobe.hallucination.tasks import TASKS

    sentences = []
    for level, sample in plan.samples.items():
        drawn, eligible = sample.get("drawn", 0), sample.get("eligible", 0)
        years = _sample_years(plan, level)
        decided = f" decided {years}" if years else ""
        window = sample.get("years", "all years")
        studys = " (the study's window)" if level in PAPER_YEARS and window == window_text(PAPER_YEARS[level]) else ""
        source = f"the {eligible:,} cases decided {window}{studys}"
        require = sample.get("require") or []
        having = f" that have every fact the tasks need ({_fact_names(require)}), so every task has items"
        having = having if require else ""
        cases = "case" if drawn == 1 else "cases"
        sentences.append(f"{drawn} {_LEVELS.get(level, level)} {cases}{decided}, drawn by decision year (seed {seed}) "
                         f"from {source}{having}.")  # fmt: skip
    fewer = sorted({n for task, n in task_n.items() if n is not None and task in TASKS})
    for n in fewer:
        names = [task.replace("_", " ") for task, limit in task_n.items() if limit == n]
        sentences.append(f"{', '.join(names)} ask {n} of them (a stratified part of the sample).")
    asked = {item.task for item in plan.items}
    own = [task.id.replace("_", " ") for task in TASKS.values() if task.population and task.id in asked]
    if own:
        sentences.append(f"{', '.join(own)} draw their own items (not the sample).")
    return " ".join(sentences)


def _model_words(model: str) -> str:
    """Return how the note names the model: the embedded one by its size."""
    from lexprobe.terminal import safe_text

    return f"{model} (the embedded SmolLM2-135M-Instruct)" if model in EMBEDDED_SPECS else safe_text(model)


def investigation_note(episode: Episode) -> str | None:
    """Return one line saying why an episode has no verdict (or not on every hypothesis) and what to run instead;
    None when every hypothesis has a readable verdict. Reads only what the episode recorded."""
    from lexprobe.terminal import safe_text

    if episode.status != "complete":
        return f"no verdicts: the episode did not complete ({safe_text(episode.error or episode.status)})"
    missing = [v.label for v in episode.verdicts if v.verdict is None]
    if not missing:
        return None
    who = _model_words(episode.model)
    if episode.copied_example:
        what = (f"{who} gave no readable verdicts: its Turn-2 reply copies the verdict prompt's example "
                "(placeholders such as \"<A, B or C>\") instead of choosing A, B or C")  # fmt: skip
    elif len(missing) == len(episode.verdicts):
        reply = " ".join((episode.verdict_reply or "").split())
        shown = safe_text(reply[:80]) + ("..." if len(reply) > 80 else "")
        what = f'{who} gave no readable verdicts: its Turn-2 reply holds none (it reads: "{shown}")'
    else:
        what = f"{who} gave no readable verdict on {', '.join(missing)} of {len(episode.verdicts)} hypotheses"
    calls = [call for call in episode.tool_calls if not call.denied]
    failed = sum(call.error or call.refused for call in calls)
    summary = len((episode.summary or "").strip())
    turn_one = f"; in Turn 1, {failed} of its {len(calls)} tool calls failed and its summary is {summary} characters"
    why = (" (a 135M model is too small to follow the two-turn protocol)" if episode.model in EMBEDDED_SPECS
           else "")  # fmt: skip
    return f"{what}{turn_one}{why}; {LARGER_MODEL_HINT}"
