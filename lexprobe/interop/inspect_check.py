"""`lexprobe/citation_check`: lexprobe's citation checker as an Inspect scorer, for any Inspect log
(`inspect score LOG --scorer lexprobe/citation_check`) or task.

Each sample's output is checked as `lexprobe check` checks a document (`check.run_check.check_one_text`): every
case citation against the case database, every quotation against the cited opinion's text; offline, no judge. The
value is 1.0 when something is wrong (a citation mismatch or not found, a quotation altered, not found, from a
separate opinion or from another case: what makes `lexprobe check` exit 1), 0.0 when every citation and quotation
holds, NaN for an output that cites no case (Inspect leaves it out of the metrics); so `mean()` is the share of
citing outputs with a problem. The explanation lists each verdict; the metadata holds them as `lexprobe check
--json` writes them.
"""

from __future__ import annotations

import math

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from lexprobe.check.run_check import check_one_text, found_problems
from lexprobe.interop.inspect_hallucination import open_case_database

__all__ = ["citation_check"]


@scorer(metrics=[mean(), stderr()])
def citation_check(db: str | None = None) -> Scorer:
    """Check the citations and quotations of each output against the case database at `db` (default: lexprobe's);
    a missing database is one clear error."""
    database = open_case_database(db)

    async def score(state: TaskState, target: Target) -> Score:
        document = check_one_text(str(state.sample_id), state.output.completion, database)
        citations = [verdict.to_json() for verdict in document.verdicts]
        quotations = [quotation.to_json() for quotation in document.quotations]
        lines = [f"{v['verdict']}: {v['text']} ({v['reason']})" for v in citations]
        lines += [f"quotation {q['verdict']}: {q['text'][:80]!r} ({q['reason']})" for q in quotations]
        value = math.nan if not citations else float(found_problems([document]))
        return Score(value=value, answer=f"{len(citations)} citation(s), {len(quotations)} quotation(s)",
                     explanation="\n".join(lines) or "no case citation in the output",
                     metadata={"citations": citations, "quotations": quotations})  # fmt: skip

    return score
