"""Scoring investigation episodes: verdict parsing, per-episode and aggregate metrics against hand-computed values,
exact naive baselines checked by enumeration, the cluster and paired bootstraps, Spearman's rho, coverage and
recall over a small environment, the `score` command and the HTML report."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path

import pytest
import typer
from page_checks import render_page
from tool_requirements import needs_chromium
from typer.testing import CliRunner

from lexprobe.cli.handler import LexprobeGroup
from lexprobe.cli.investigation_score import register
from lexprobe.investigation.agent.episode import Episode, HypothesisVerdict, ToolCallRecord
from lexprobe.investigation.agent.verdicts import parse_verdicts, read_verdict
from lexprobe.investigation.environment.format import CaseInfo, Document, Environment, save_environment
from lexprobe.investigation.report.html import write_investigation_report
from lexprobe.investigation.scoring.aggregates import aggregate, cluster_bootstrap_ci, paired_bootstrap
from lexprobe.investigation.scoring.baselines import (
    always_reject_baseline,
    baselines,
    believe_one_baseline,
    uniform_random_baseline,
)
from lexprobe.investigation.scoring.coverage import (
    coverage,
    coverage_points,
    opened_documents,
    role_recall_table,
    touched_documents,
)
from lexprobe.investigation.scoring.metrics import class_accuracies, score_episode, score_verdicts
from lexprobe.investigation.scoring.schema import CoveragePoint, RoleRecall, ScoreSummary
from lexprobe.investigation.scoring.summary import summarize, usage
from lexprobe.stats import average_ranks, ranking_correlation, spearman

LABELS = ["H1", "H2", "H3", "H4"]
KINDS = ("court_adopted", "court_rejected", "alternative", "alternative")
B, R, C, N = "believe", "reject", "dont_know", None


def verdict_list(verdicts, kinds=KINDS) -> list[HypothesisVerdict]:
    return [
        HypothesisVerdict(label=f"H{i}", hypothesis_id=f"hyp{i}", kind=kind, verdict=v)
        for i, (kind, v) in enumerate(zip(kinds, verdicts, strict=True), start=1)
    ]


def make_episode(model: str, env: str, verdicts, *, ablation: str = "+chaff100", epoch: int = 0, **fields) -> Episode:
    values = {"env_dir": f"envs/{env}", "status": "complete", "cost_usd": 0.25, "input_tokens": 1000,
              "output_tokens": 100, "wall_s": 2.0} | fields  # fmt: skip
    return Episode(episode_id=f"{env}|{model}|e{epoch}", environment=env, ablation=ablation, model=model, epoch=epoch,
                   seed=0, tool_budget=30, turn_budget=25, verdicts=verdict_list(verdicts), **values)  # fmt: skip


# --- verdict parsing ---------------------------------------------------------------------------------------------

PARSE_TABLE = [
    # the format asked for
    ('[{"label": "H1", "verdict": "A", "reason": "x"}, {"label": "H2", "verdict": "B", "reason": "y"}, '
     '{"label": "H3", "verdict": "C", "reason": "z"}, {"label": "H4", "verdict": "B", "reason": "w"}]', [B, R, C, R]),
    # fenced, prose around, lower-case letters, a trailing comma
    ('Here are my verdicts:\n```json\n[{"label": "H1", "verdict": "a"}, {"label": "H2", "verdict": "b"},\n'
     '{"label": "H3", "verdict": "c"}, {"label": "H4", "verdict": "b"},]\n```\nLet me know.', [B, R, C, R]),
    # single quotes (Python-style), words instead of letters
    ("[{'label': 'H1', 'verdict': 'Believe'}, {'label': 'H2', 'verdict': \"Don't believe\"}, "
     "{'label': 'H3', 'verdict': 'Do not know'}, {'label': 'H4', 'verdict': 'do not believe'}]", [B, R, C, R]),
    # object keyed by label, mixed value shapes
    ('{"H1": "A", "H2": {"verdict": "B", "reason": "no"}, "H3": ["C", "unclear"], "H4": "reject"}', [B, R, C, R]),
    # one object only: the others stay None
    ('{"label": "H3", "verdict": "unknown", "reason": "thin record"}', [N, N, C, N]),
    # a wrapper object, other key names, labels written differently
    ('{"verdicts": [{"hypothesis": "Hypothesis 1", "answer": "A."}, {"id": "h2", "choice": "(B)"}, '
     '{"hypothesis": "H 3", "decision": "don\'t know"}, {"label": 4, "verdict": "[B]"}]}', [B, R, C, R]),
    # smart quotes and unquoted keys
    ("[{“label”: “H1”, “verdict”: “A”}, {label: \"H2\", verdict: \"B\"}]", [B, R, N, N]),
    # rows of [label, verdict, reason]
    ('[["H1", "A", "r"], ["H2", "B", "r"], ["H3", "C", "r"], ["H4", "A", "r"]]', [B, R, C, B]),
    # no labels, one item per hypothesis: read by position
    ('["A", "B", "C", "B"]', [B, R, C, R]),
    ('[{"verdict": "B"}, {"verdict": "A"}, {"verdict": "C"}, {"verdict": "C"}]', [R, B, C, C]),
    # no labels and the wrong count: not guessed
    ('["A", "B", "C"]', [N, N, N, N]),
    # cut off mid-array: the complete objects count
    ('[{"label": "H1", "verdict": "A"}, {"label": "H2", "verdict": "B"}, {"label": "H3", "verd', [B, R, N, N]),
    # lines, no JSON
    ("H1: A — the invoice shows the defect\nH2: B - refuted by the log\n- **H3** (C): unclear\nH4 - Don't know",
     [B, R, C, C]),
    ("1. H1: Believe\n2. H2: Do not believe\n3. H3: Unknown\n4. H4: Reject", [B, R, C, R]),
    ("**H1:** A\n**H2**: b\nHypothesis 3: (C)\nH4 = B", [B, R, C, R]),
    # a markdown table
    ("| Hypothesis | Verdict | Reason |\n|---|---|---|\n| H1 | A | yes |\n| H2 | Don't believe | no |\n"
     "| H3 | C | ? |\n| H4 | B | no |", [B, R, C, R]),
    # a label line, then Verdict / Reason lines
    ("### H1\nVerdict: B\nReason: the logs\n### H2: The supplier shipped late\n**Verdict:** A\n"
     "H3: the carrier damaged the goods. Verdict: C\nH4\nAnswer: B", [R, B, C, R]),
    # contradictions and unreadable values are None, never guessed
    ('[{"label": "H1", "verdict": "A (Don\'t believe)"}, {"label": "H2", "verdict": "maybe"}, '
     '{"label": "H3", "verdict": "A or B"}, {"label": "H4", "verdict": "Believe (B)"}]', [N, N, N, N]),
    ('[{"label": "H1", "verdict": "A"}, {"label": "H1", "verdict": "B"}, {"label": "H2", "verdict": "D"}]',
     [N, N, N, N]),
    ('[{"label": "H1", "verdict": true}, {"label": "H2", "verdict": 1}]', [N, N, N, N]),
    ("I cannot answer without the documents.", [N, N, N, N]),
    ("", [N, N, N, N]),
    ("H1: The buyer accepted the goods.\nH2: I think this is possible.\nH3: I believe this is unlikely.", [N, N, N, N]),
    # a JSON reading wins over prose lines; labels JSON saw stay as JSON read them
    ('H1: B\n[{"label": "H1", "verdict": "A"}, {"label": "H2", "verdict": "maybe"}]\nH2: A', [B, N, N, N]),
    # the draft and the final answer: the fuller reading wins
    ('Draft: [{"label": "H1", "verdict": "A"}]\nFinal: [{"label": "H1", "verdict": "A"}, '
     '{"label": "H2", "verdict": "B"}, {"label": "H3", "verdict": "B"}, {"label": "H4", "verdict": "C"}]',
     [B, R, R, C]),
]  # fmt: skip


@pytest.mark.parametrize(("reply", "expected"), PARSE_TABLE)
def test_parse_verdicts_table(reply: str, expected: list) -> None:
    parsed = parse_verdicts(reply, LABELS)
    assert [parsed.verdicts[label] for label in LABELS] == expected, parsed.source
    assert list(parsed.verdicts) == LABELS and set(parsed.reasons) == set(LABELS)
    assert parsed.unparsed == [label for label, v in zip(LABELS, expected, strict=True) if v is None]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("A", B), ("a", B), ("A.", B), ("(B)", R), ("[C]", C), ("Option A", B), ("A - Believe", B), ("A. Believe", B),
        ("Believe", B), ("believe", B), ("Believed", B), ("I believe", B), ("Don't believe", R), ("Don’t believe", R),
        ("dont believe", R), ("do not believe", R), ("Disbelieve", R), ("reject", R), ("Rejected", R),
        ("Do not know", C), ("don't know", C), ("unknown", C), ("Unsure", C), ("not sure", C), ("cannot determine", C),
        ("C) not enough evidence", C), ("B. A careful review of the log refutes it", R), ("Believe (A)", B),
        ("A/B", N), ("A or B", N), ("a bit unclear", N), ("Believe (B)", N), ("A (Don't believe)", N), ("D", N),
        ("Believing it is hard", N), ("yes", N), ("", N), ("maybe", N), ("I believe this is unlikely", N),
        ("I don't believe the carrier story", R), ("I do not know", C),
    ],
)  # fmt: skip
def test_read_verdict_values(value: str, expected) -> None:
    assert read_verdict(value)[0] == expected


def test_parse_verdicts_keeps_reasons_and_sources() -> None:
    parsed = parse_verdicts('```\n[{"label": "H1", "verdict": "A", "reason": "Invoice BC-5690 shows it."}]\n```\n'
                            "H2: B - the rollout record refutes it", ["H1", "H2", "H3"])  # fmt: skip
    assert parsed.verdicts == {"H1": B, "H2": R, "H3": None}
    assert parsed.reasons["H1"] == "Invoice BC-5690 shows it."
    assert parsed.reasons["H2"] == "the rollout record refutes it"
    assert parsed.source == {"H1": "json", "H2": "line", "H3": "missing"}
    assert not parsed.complete


# --- per-episode metrics -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("verdicts", "solved", "believe", "reject", "reject_strict", "committed", "correct"),
    [
        ([B, R, R, R], True, 1, 1, 1, 4, 4),
        ([B, C, C, R], True, 1, 1, Fraction(1, 3), 2, 2),
        ([B, B, R, R], False, 1, Fraction(2, 3), Fraction(2, 3), 4, 3),
        ([R, R, R, R], False, 0, 1, 1, 4, 3),
        ([C, C, C, C], False, 0, 1, 0, 0, 0),
        ([N, R, R, R], False, 0, 1, 1, 3, 3),
        ([B, N, R, R], False, 1, Fraction(2, 3), Fraction(2, 3), 3, 3),  # None on another: not correct, not solved
        ([N, N, N, N], False, 0, 0, 0, 0, 0),
        ([R, B, C, R], False, 0, Fraction(2, 3), Fraction(1, 3), 3, 1),
    ],
)
def test_episode_metrics_by_hand(verdicts, solved, believe, reject, reject_strict, committed, correct) -> None:
    lenient = score_verdicts(verdict_list(verdicts))
    strict = score_verdicts(verdict_list(verdicts), dont_know_as_reject=False)
    assert lenient["case_solved"] is solved and strict["case_solved"] is solved
    assert lenient["believe_acc"] == pytest.approx(float(believe))
    assert lenient["reject_acc"] == pytest.approx(float(reject))
    assert strict["reject_acc"] == pytest.approx(float(reject_strict))
    assert lenient["worst_class_acc"] == pytest.approx(float(min(believe, reject)))
    assert lenient["n_committed"] == committed and lenient["n_committed_correct"] == correct
    assert lenient["unparsed"] is all(v is None for v in verdicts)


def test_adopted_hypothesis_anywhere_in_the_shuffle() -> None:
    kinds = ("alternative", "court_rejected", "alternative", "court_adopted")
    assert score_verdicts(verdict_list([R, C, R, B], kinds))["case_solved"] is True
    assert class_accuracies(verdict_list([B, R, R, R], kinds)) == (0.0, pytest.approx(2 / 3))
    assert score_verdicts(verdict_list([R, R], ("alternative", "court_rejected")))["case_solved"] is False


def test_episode_without_verdicts_is_unparsed_and_not_solved() -> None:
    episode = make_episode("m", "c1", [B, R, R, R]).model_copy(update={"verdicts": [], "unparsed": True})
    score = score_episode(episode)
    assert score.unparsed and not score.case_solved and score.believe_acc is None and score.commit_rate is None


# --- aggregates and bootstrap ------------------------------------------------------------------------------------


def two_models() -> list[Episode]:
    """m1 alternates a solved episode and an unsolved one over ten cases; m2 believes h* and h-dagger everywhere."""
    episodes = [make_episode("m1", f"c{i}", [B, R, C, R] if i % 2 else [R, B, R, R]) for i in range(10)]
    episodes += [make_episode("m2", f"c{i}", [B, B, R, R]) for i in range(10)]
    return episodes


def test_aggregate_by_hand() -> None:
    scores = [score_episode(e) for e in two_models() if e.model == "m1"]
    stats = aggregate(scores, replicates=500)
    assert stats.n_episodes == 10 and stats.n_environments == 10 and stats.n_unparsed == 0
    assert stats.case_solved == pytest.approx(0.5)
    assert stats.believe_acc == pytest.approx(0.5)
    assert stats.reject_acc == pytest.approx((1 + 2 / 3) / 2)
    assert stats.worst_class_acc == pytest.approx(0.5)  # min of the class means, not the mean of the minima
    assert stats.commit_rate == pytest.approx(7 / 8)  # (3 + 4) committed of 8 verdicts per pair
    assert stats.committed_acc == pytest.approx(5 / 7)  # (3 + 2) correct of 7 committed
    low, high = stats.case_solved_ci
    assert low <= 0.5 <= high and low < high


def test_bootstrap_is_seeded_and_contains_the_estimate() -> None:
    patterns = list(itertools.product([B, R, C], repeat=4))
    scores = [score_episode(make_episode("m", f"c{i}", patterns[(7 * i) % len(patterns)])) for i in range(40)]
    first = cluster_bootstrap_ci(scores, "committed_acc", replicates=1000, seed=7)
    assert first == cluster_bootstrap_ci(scores, "committed_acc", replicates=1000, seed=7)
    assert first != cluster_bootstrap_ci(scores, "committed_acc", replicates=1000, seed=8)
    for metric in ("case_solved", "believe_acc", "reject_acc", "worst_class_acc", "commit_rate", "committed_acc"):
        low, high = cluster_bootstrap_ci(scores, metric, replicates=1000, seed=1)
        point = getattr(aggregate(scores, replicates=0), metric)
        assert low <= point <= high, metric
    assert cluster_bootstrap_ci(scores[:1], replicates=100) is None
    with pytest.raises(ValueError, match="unknown metric"):
        cluster_bootstrap_ci(scores, "accuracy")


def test_bootstrap_resamples_environments_with_their_epochs() -> None:
    once = [make_episode("m", f"c{i}", [B, R, R, R] if i % 3 else [R, R, R, R]) for i in range(9)]
    twice = once + [e.model_copy(update={"epoch": 1, "episode_id": e.episode_id + "b"}) for e in once]
    a = cluster_bootstrap_ci([score_episode(e) for e in once], replicates=800, seed=3)
    b = cluster_bootstrap_ci([score_episode(e) for e in twice], replicates=800, seed=3)
    assert a == pytest.approx(b)  # identical epochs add no information when environments are the clusters


def test_paired_bootstrap_identical_models_is_zero() -> None:
    m1 = [score_episode(e) for e in two_models() if e.model == "m1"]
    copy = [score_episode(e.model_copy(update={"model": "m1-copy"})) for e in two_models() if e.model == "m1"]
    shared, diffs = paired_bootstrap(m1, copy, replicates=500, seed=0)
    assert shared == 10
    for metric in ("case_solved", "worst_class_acc"):
        assert diffs[metric].difference == pytest.approx(0.0)
        low, high = diffs[metric].ci
        assert low <= 0.0 <= high and low == pytest.approx(0.0) and high == pytest.approx(0.0)
        assert diffs[metric].share_above_zero == 0.0


def test_paired_bootstrap_direction_and_pairing() -> None:
    worse = [score_episode(make_episode("a", f"c{i}", [R, R, R, R] if i < 8 else [B, R, R, R])) for i in range(10)]
    better = [score_episode(make_episode("b", f"c{i}", [B, R, R, R])) for i in range(12)]  # c10, c11 unpaired
    shared, diffs = paired_bootstrap(worse, better, replicates=1000, seed=0)
    assert shared == 10
    cs = diffs["case_solved"]
    assert (cs.a, cs.b, cs.difference) == (pytest.approx(0.2), pytest.approx(1.0), pytest.approx(0.8))
    assert cs.ci[0] > 0 and cs.ci[0] <= 0.8 <= cs.ci[1] and cs.share_above_zero == 1.0
    assert paired_bootstrap(worse[:1], better[:1], replicates=10)[1]["case_solved"].ci is None


def test_summary_comparisons_pair_shared_units_and_consecutive_levels() -> None:
    episodes = two_models()
    episodes += [make_episode("m2", f"c{i}", [B, R, R, R], ablation="merits") for i in range(10)]
    summary = summarize(episodes, replicates=300)
    models = {c.a + ">" + c.b: c for c in summary.comparisons}
    pair = models["m1>m2"]
    assert pair.kind == "models" and pair.n_episodes_b == 10  # m2's merits episodes have no m1 partner
    assert pair.case_solved.difference == pytest.approx(-0.5)
    ladder = models["merits>+chaff100"]
    assert ladder.kind == "ablation" and ladder.model == "m2"
    assert ladder.case_solved.difference == pytest.approx(-1.0)
    m2 = next(m for m in summary.models if m.model == "m2")
    assert list(m2.by_ablation) == ["merits", "+chaff100"]
    assert m2.by_ablation["merits"].case_solved == 1.0 and m2.case_solved == 0.5


# --- baselines ---------------------------------------------------------------------------------------------------


def enumerate_policy(outcomes: list[tuple[Fraction, list]], kinds) -> dict[str, Fraction]:
    """Expected metrics of a policy given every outcome with its probability (exact, in fractions)."""
    expected = {"case_solved": Fraction(0), "believe": Fraction(0), "reject": Fraction(0), "reject_strict": Fraction(0),
                "committed": Fraction(0), "correct": Fraction(0)}  # fmt: skip
    for p, verdicts in outcomes:
        assert len(verdicts) == len(kinds)
        items = verdict_list(verdicts, kinds)
        lenient, strict = score_verdicts(items), score_verdicts(items, dont_know_as_reject=False)
        n_other = len(kinds) - 1
        expected["case_solved"] += p * int(lenient["case_solved"])
        expected["believe"] += p * Fraction(round(lenient["believe_acc"]))
        expected["reject"] += p * Fraction(round(lenient["reject_acc"] * n_other), n_other)
        expected["reject_strict"] += p * Fraction(round(strict["reject_acc"] * n_other), n_other)
        expected["committed"] += p * lenient["n_committed"]
        expected["correct"] += p * lenient["n_committed_correct"]
    assert sum(p for p, _ in outcomes) == 1
    return expected


def check_baseline(policy, strict_policy, expected: dict[str, Fraction], n: int) -> None:
    assert policy.n_hypotheses == n
    assert policy.case_solved == pytest.approx(float(expected["case_solved"]), abs=1e-15)
    assert policy.believe_acc == pytest.approx(float(expected["believe"]), abs=1e-15)
    assert policy.reject_acc == pytest.approx(float(expected["reject"]), abs=1e-15)
    assert strict_policy.reject_acc == pytest.approx(float(expected["reject_strict"]), abs=1e-15)
    assert policy.worst_class_acc == pytest.approx(float(min(expected["believe"], expected["reject"])), abs=1e-15)
    assert policy.commit_rate == pytest.approx(float(expected["committed"] / n), abs=1e-15)
    committed_acc = expected["correct"] / expected["committed"] if expected["committed"] else Fraction(0)
    assert policy.committed_acc == pytest.approx(float(committed_acc), abs=1e-15)


@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("adopted_at", ["first", "last"])
def test_baselines_closed_forms_match_enumeration(n: int, adopted_at: str) -> None:
    others = ["court_rejected"] + ["alternative"] * (n - 2)
    kinds = ["court_adopted", *others] if adopted_at == "first" else [*others, "court_adopted"]
    uniform = [(Fraction(1, 3**n), list(v)) for v in itertools.product([B, R, C], repeat=n)]
    check_baseline(uniform_random_baseline(n), uniform_random_baseline(n, dont_know_as_reject=False),
                   enumerate_policy(uniform, kinds), n)  # fmt: skip
    one = [(Fraction(1, n), [B if i == chosen else R for i in range(n)]) for chosen in range(n)]
    check_baseline(believe_one_baseline(n), believe_one_baseline(n, dont_know_as_reject=False),
                   enumerate_policy(one, kinds), n)  # fmt: skip
    check_baseline(always_reject_baseline(n), always_reject_baseline(n, dont_know_as_reject=False),
                   enumerate_policy([(Fraction(1), [R] * n)], kinds), n)  # fmt: skip


def test_baselines_match_the_paper_for_four_hypotheses() -> None:
    policies = baselines(4)
    assert round(policies["uniform_random"].case_solved, 3) == 0.099  # 9.9% (Section 4.1)
    assert policies["believe_one"].case_solved == 0.25
    assert policies["always_reject"].reject_acc == 1.0 and policies["always_reject"].believe_acc == 0.0
    assert max(p.worst_class_acc for p in policies.values()) == pytest.approx(1 / 3)  # "33.3% among naive policies"
    with pytest.raises(ValueError):
        baselines(1)


# --- Spearman ----------------------------------------------------------------------------------------------------


def test_average_ranks_with_ties() -> None:
    assert average_ranks([10, 20, 20, 20, 5]).tolist() == [2.0, 4.0, 4.0, 4.0, 1.0]
    assert average_ranks([3, 1, 2]).tolist() == [3.0, 1.0, 2.0]


def test_spearman_hand_example_with_ties() -> None:
    # ranks x = 1, 2.5, 2.5, 4 and y = 1, 3, 2, 4: sum dx*dy = 4.5, sum dx^2 = 4.5, sum dy^2 = 5 -> 3 / sqrt(10)
    assert spearman([1, 2, 2, 3], [1, 3, 2, 4]) == pytest.approx(3 / 10**0.5)
    assert spearman([1, 2, 3, 4], [40, 30, 20, 10]) == pytest.approx(-1.0)
    assert spearman([1, 2, 3], [5, 5, 5]) is None and spearman([1], [2]) is None
    with pytest.raises(ValueError):
        spearman([1, 2], [1])
    a = {"haiku": 0.267, "deepseek": 0.267, "sonnet": 0.3, "mini": 0.1, "only-a": 0.9}
    b = {"haiku": 0.3, "deepseek": 0.1, "sonnet": 0.35, "mini": 0.067}
    assert ranking_correlation(a, b) == pytest.approx(spearman([0.267, 0.267, 0.3, 0.1], [0.3, 0.1, 0.35, 0.067]))


# --- coverage and recall -----------------------------------------------------------------------------------------

ROLE_OF = {"m1": "merits", "m2": "merits", "s1": "signal", "s2": "signal", "p1": "pro_alternative",
           "r1": "refuting", "n1": "noise", "n2": "noise", "c1": "chaff", "c2": "chaff"}  # fmt: skip


def small_environment() -> Environment:
    documents = [Document(doc_id=doc_id, path=f"DOC-{i:04d}.txt", format="txt", doc_type="memo", role=role)
                 for i, (doc_id, role) in enumerate(ROLE_OF.items(), start=1)]  # fmt: skip
    case = CaseInfo(case_id="case-x", name="X v. Y", dispositive_question="Was the warranty breached?", fictional=True)
    return Environment(case=case, documents=documents)


def path_of(doc_id: str) -> str:
    return f"DOC-{list(ROLE_OF).index(doc_id) + 1:04d}.txt"


def investigating_episode(model: str = "m", env: str = "case-x", **fields) -> Episode:
    seen = [path_of("n1"), path_of("n2")]
    m1, s1, p1, c1 = path_of("m1"), path_of("s1"), path_of("p1"), path_of("c1")
    calls = [
        ToolCallRecord(step=1, name="glob", arguments={"pattern": "**"}, opened=[], seen=seen, documents=seen),
        ToolCallRecord(step=1, name="read", opened=[m1], documents=[m1], doc_ids=["m1"], roles=["merits"]),
        ToolCallRecord(step=2, name="shell", opened=[s1, p1], documents=[s1, p1]),  # paths only: mapped by path
        ToolCallRecord(step=2, name="shell", opened=[c1], documents=[c1], doc_ids=["c1"]),
        ToolCallRecord(step=3, name="read", opened=[m1], documents=[m1], doc_ids=["m1"]),  # twice: counted once
        ToolCallRecord(step=3, name="read", arguments={"path": path_of("s2")}, denied=True),
        # a path not in the corpus: left out
        ToolCallRecord(step=3, name="read", opened=["DOC-9999.txt"], documents=["DOC-9999.txt"], doc_ids=[""]),
    ]
    return make_episode(model, env, [B, R, R, R], tool_calls=calls, **fields)


def test_coverage_and_recall_by_role() -> None:
    episode = investigating_episode()
    cov = coverage(episode, small_environment())
    assert opened_documents(episode, small_environment()) == {"m1", "s1", "p1", "c1"}
    assert touched_documents(episode, small_environment()) == {"m1", "s1", "p1", "c1", "n1", "n2"}
    assert (cov.n_documents, cov.n_opened, cov.coverage) == (10, 4, pytest.approx(0.4))
    assert (cov.n_seen, cov.seen_share) == (2, pytest.approx(0.2))  # listed by glob: seen, not opened
    assert cov.signal_recall == pytest.approx(2 / 4)  # m1 and s1 of m1, m2, s1, s2
    assert cov.recall_by_role == {"merits": 0.5, "signal": 0.5, "pro_alternative": 1.0, "refuting": 0.0,
                                  "noise": 0.0, "chaff": 0.5}  # fmt: skip
    reads = coverage(episode, small_environment(), reads_only=True)
    assert (reads.coverage, reads.signal_recall) == (pytest.approx(0.1), pytest.approx(0.25))
    by_id = coverage(episode, ROLE_OF)  # a doc_id -> role mapping: the grep call named paths only
    assert by_id.coverage == pytest.approx(0.2) and by_id.recall_by_role["signal"] == 0.0
    only_signal = coverage(episode, small_environment(), signal_roles=("signal",))
    assert only_signal.signal_recall == pytest.approx(0.5)
    merits_only = {k: v for k, v in ROLE_OF.items() if v == "merits"}
    assert coverage(episode, merits_only).recall_by_role["signal"] is None


def test_usage_means_and_totals() -> None:
    a = investigating_episode(cost_usd=0.5, input_tokens=100, output_tokens=10, wall_s=3.0)
    b = investigating_episode(cost_usd=None, input_tokens=300, output_tokens=30, wall_s=5.0)
    used = usage([a, b])
    assert (used.cost_usd_mean, used.cost_usd_total, used.cost_unknown) == (0.5, 0.5, 1)
    assert (used.input_tokens_mean, used.input_tokens_total, used.output_tokens_total) == (200, 400, 40)
    assert (used.tool_calls_mean, used.tool_calls_total, used.denied_total) == (6, 12, 2)
    assert (used.wall_s_mean, used.wall_s_total) == (4.0, 8.0)


def test_points_and_role_table() -> None:
    episodes = [investigating_episode("m1", env_dir="envs/case-x"), investigating_episode("m2", env_dir="gone")]
    environments = {"envs/case-x": small_environment(), "gone": None}
    points = coverage_points(episodes, environments)
    assert [p.model for p in points] == ["m1"] and points[0].coverage == pytest.approx(0.4)
    rows = {(r.model, r.role): r for r in role_recall_table(episodes, environments)}
    assert rows[("m1", "pro_alternative")].recall == 1.0 and rows[("m1", "merits")].documents_mean == 2
    assert not any(model == "m2" for model, _ in rows)


# --- the command -------------------------------------------------------------------------------------------------

MODEL_KEYS = {"model", "n_episodes", "case_solved", "case_solved_ci", "believe_acc", "reject_acc", "worst_class_acc",
              "commit_rate", "committed_acc", "coverage", "signal_recall", "cost_usd", "tokens", "tool_calls",
              "wall_s", "by_ablation"}  # fmt: skip


@pytest.fixture
def score_app() -> typer.Typer:
    app = typer.Typer(cls=LexprobeGroup)
    register(app)

    @app.command("noop")
    def noop() -> None:  # a second command, so `score` is a sub-command as under `lexprobe investigation`
        """Nothing."""

    return app


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Two run dirs (one model each, ten cases) and an env root holding case-x's environment."""
    env_root = tmp_path / "envs"
    save_environment(env_root / "case-x", small_environment())
    run_a, run_b = tmp_path / "run-a", tmp_path / "run-b"
    for episode in two_models():
        target = run_a if episode.model == "m1" else run_b
        episode.model_copy(update={"env_dir": "/nowhere/case-x" if episode.environment == "c0" else "missing/c"}
                           ).save(target)  # fmt: skip
    investigating_episode("m1", env="c10", env_dir="/nowhere/case-x").save(run_a)
    make_episode("m1", "c11", [B, R, R, R], status="failed").save(run_a)
    return run_a, run_b, env_root


def test_cli_json_shape(score_app: typer.Typer, runs) -> None:
    run_a, run_b, env_root = runs
    result = CliRunner().invoke(score_app, ["score", str(run_a), str(run_b), "--json", "--env-root", str(env_root),
                                            "--bootstrap", "200"])  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {"models", "baselines", "comparisons", "unparsed", "recall_by_role", "settings"} <= set(data)
    assert [m["model"] for m in data["models"]] == ["m1", "m2"]
    for model in data["models"]:
        assert set(model) >= MODEL_KEYS  # results added later (new fields) may follow
        assert MODEL_KEYS - {"model", "by_ablation"} <= set(model["by_ablation"]["+chaff100"])
    m1 = data["models"][0]
    assert m1["n_episodes"] == 11  # the failed episode is left out
    assert m1["case_solved"] == pytest.approx(6 / 11) and len(m1["case_solved_ci"]) == 2
    assert m1["coverage"] == pytest.approx((0.4 + 0.0) / 2)  # c0 (nothing touched) and c10 found under --env-root
    assert set(data["baselines"]) == {"uniform_random", "believe_one", "always_reject"}
    assert data["baselines"]["uniform_random"]["n_hypotheses"] == 4
    assert data["comparisons"][0]["kind"] == "models" and data["unparsed"] == 0
    assert "left out" in result.stderr and "not found" in result.stderr


def test_cli_terminal_output_and_strict_flag(score_app: typer.Typer, runs) -> None:
    run_a, run_b, _ = runs
    result = CliRunner().invoke(score_app, ["score", str(run_a), str(run_b), "--bootstrap", "50"])
    assert result.exit_code == 0, result.output
    assert "Investigation scores" in result.stdout and "baseline: believe_one" in result.stdout
    assert "case solved: believes the court-adopted hypothesis" in result.stdout
    assert "reject or don't know" in result.stdout
    strict = CliRunner().invoke(score_app, ["score", str(run_a), "--json", "--strict-reject", "--bootstrap", "0"])
    data = json.loads(strict.stdout)
    assert data["models"][0]["case_solved_ci"] is None
    assert data["baselines"]["uniform_random"]["reject_acc"] == pytest.approx(1 / 3, abs=1e-6)


def test_cli_exit_codes(score_app: typer.Typer, tmp_path: Path) -> None:
    runner = CliRunner()
    empty = tmp_path / "empty"
    empty.mkdir()
    result = runner.invoke(score_app, ["score", str(empty)])
    assert result.exit_code == 2 and "holds no episodes" in result.stderr
    assert runner.invoke(score_app, ["score", str(tmp_path / "absent")]).exit_code == 2
    failed = tmp_path / "failed"
    make_episode("m", "c1", [B, R, R, R], status="running").save(failed)
    result = runner.invoke(score_app, ["score", str(failed), "--json"])
    assert result.exit_code == 2 and "no complete episode" in result.stderr
    broken = tmp_path / "broken"
    (broken / "episodes").mkdir(parents=True)
    (broken / "episodes" / "x.json").write_text("{not json")
    assert runner.invoke(score_app, ["score", str(broken)]).exit_code == 2


def test_cli_writes_html(score_app: typer.Typer, runs, tmp_path: Path) -> None:
    run_a, run_b, env_root = runs
    page = tmp_path / "out" / "scores.html"
    result = CliRunner().invoke(score_app, ["score", str(run_a), str(run_b), "--env-root", str(env_root), "--html",
                                            str(page), "--json", "--bootstrap", "100"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert f"wrote {page}" in result.stderr
    html = page.read_text()
    assert "<script" not in html and html.count("data:image/svg+xml;base64,") == 3  # no ablation ladder here
    assert "Case solved per model" in html and "baseline: believe one at random" in html


# --- the HTML report ---------------------------------------------------------------------------------------------


def report_inputs() -> tuple[ScoreSummary, list[CoveragePoint], list[RoleRecall]]:
    episodes = two_models()
    episodes += [make_episode(m, f"c{i}", [B, R, R, R] if i % 3 else [B, C, B, R], ablation="merits")
                 for m in ("m1", "m2") for i in range(10)]  # fmt: skip
    episodes += [investigating_episode(m, env=f"c{i}", env_dir="envs/case-x") for m in ("m1", "m2") for i in range(3)]
    environments = {"envs/case-x": small_environment()}
    summary = summarize(episodes, environments, replicates=200)
    return summary, coverage_points(episodes, environments), role_recall_table(episodes, environments)


def test_report_has_every_figure(tmp_path: Path) -> None:
    summary, points, rows = report_inputs()
    page = tmp_path / "report.html"
    write_investigation_report(page, summary, runs=["runs/a"], points=points, role_rows=rows, notes=["a caveat"])
    html = page.read_text()
    assert html.count("data:image/svg+xml;base64,") == 4 and "not drawn" not in html
    for text in ("cf. Figure 4", "cf. Figure 5", "cf. Figure 7", "Paired comparisons", "Recall by document role",
                 "a caveat", "By ablation level", "merits"):  # fmt: skip
        assert text in html, text


@pytest.mark.slow
@needs_chromium
def test_report_renders_in_chromium(tmp_path: Path) -> None:
    summary, points, rows = report_inputs()
    page = tmp_path / "report.html"
    write_investigation_report(page, summary, runs=["runs/a", "runs/b"], points=points, role_rows=rows)
    result = render_page(page, screenshot=tmp_path / "report.png")
    assert result.ok, result.to_json()
    assert result.errors == [] and result.exceptions == [] and result.external_requests == []
    assert "m1" in result.title and result.text_length > 1500
    assert (tmp_path / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
