"""WRITTEN-FOR-THE-TEST filings that complete the Marshall v. Northrop record for `bench/build_scale.py`.

The real RECAP record (`sj_records/marshall_v_northrop`) has no opinion, and its statement of uncontroverted facts
and the response to it are sealed placeholders. This module writes, deterministically, the three missing filings:

- an opinion deciding the defendants' motion for partial summary judgment (GRANTED), about 35 pages of text with
  "## Page N" markers, consistent with the real filings' parties and issues (an ERISA 401(k) case: the Northrop
  Grumman Savings Plan's emerging-markets fund, the recordkeeping fees paid to Hewitt, the Financial Engines
  arrangement);
- the defendants' statement of uncontroverted facts (40 numbered facts);
- the plaintiffs' statement of genuine disputes (each fact admitted or disputed with a reason).

EVERYTHING HERE IS FICTIONAL: the judge, the dates of the meetings, the figures and the ruling are invented for
the benchmark. It is not the court's decision in the real case, and every file says so at its end.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

CASE_NO = "Case No. 2:16-cv-06794-AB (JCx)"
FICTION_NOTE = (
    "[Written for the lexprobe benchmark (bench/build_scale.py). This filing is FICTIONAL: it is not a document "
    "of the real case, and its facts, figures and ruling are invented.]"
)
CAPTION = f"""UNITED STATES DISTRICT COURT
CENTRAL DISTRICT OF CALIFORNIA

LORI MARSHALL, DEBRA HOFFMAN and KIMBERLY PETERSON,
individually and as representatives of a class of similarly situated persons, and on behalf of the
Northrop Grumman Savings Plan,
Plaintiffs,
v.
NORTHROP GRUMMAN CORPORATION, the NORTHROP GRUMMAN SAVINGS PLAN ADMINISTRATIVE COMMITTEE and the
NORTHROP GRUMMAN SAVINGS PLAN INVESTMENT COMMITTEE,
Defendants.

{CASE_NO}
"""
PAGE_CHARS = 1_700  # characters of text per "## Page N" page (about a double-spaced court page)
ENTITY_NAMES = (
    "Northrop Grumman Corporation",
    "Northrop Grumman Savings Plan",
    "Investment Committee",
    "Administrative Committee",
    "Hewitt Associates LLC",
    "Financial Engines",
    "Emerging Markets Equity Fund",
    "Lori Marshall",
    "Debra Hoffman",
    "Kimberly Peterson",
    "Callan Associates",
    "Denise Whitaker",
    "Gregory Lund",
)
FUNDS = (
    "Emerging Markets Equity Fund",
    "U.S. Large Cap Index Fund",
    "International Equity Fund",
    "Stable Value Fund",
    "High Yield Bond Fund",
    "Small Cap Growth Fund",
)
MONTHS = ("February", "May", "August", "November")


@dataclass(frozen=True)
class SoufFact:
    """One numbered fact of the written-for-the-test statement, with the response's answer."""

    number: int
    text: str
    disputed: bool
    reason: str = ""


def _meetings() -> list[tuple[str, str, str]]:
    """Return (date words, fund, paragraph) for the quarterly Investment Committee meetings of 2009-2016."""
    rng = random.Random(14)
    out = []
    for year in range(2009, 2017):
        for quarter, month in enumerate(MONTHS):
            day = rng.randint(3, 26)
            fund = FUNDS[(year + quarter) % len(FUNDS)]
            fund_return = round(rng.uniform(-4.0, 14.0), 1)
            bench_return = round(fund_return + rng.uniform(-2.5, 2.5), 1)
            attendees = rng.randint(5, 9)
            when = f"{month} {day}, {year}"
            paragraph = (
                f"On {when}, the Investment Committee met with {attendees} members present and a consultant from "
                f"Callan Associates in attendance. "
                f"The consultant's quarterly report for that meeting compared the {fund}'s trailing three-year "
                f"return of {fund_return} percent with its benchmark return of {bench_return} percent. "
                f"The minutes of the {when} meeting record that the members asked questions about the {fund} "
                f"and that the consultant answered them before the Committee moved to the next item. "
                f"The Committee kept the {fund} in the Plan's lineup after that discussion, and the minutes list "
                f"{rng.choice(('no dissent', 'one abstention', 'a unanimous vote'))} on the item."
            )
            out.append((when, fund, paragraph))
    return out


def _fee_years() -> list[str]:
    """Return one paragraph per plan year on the recordkeeping fee paid to Hewitt."""
    rng = random.Random(41)
    paragraphs = []
    for year in range(2008, 2017):
        fee = rng.randint(38, 64)
        participants = rng.randint(118_000, 131_000)
        paragraphs.append(
            f"For plan year {year}, the Plan paid Hewitt Associates LLC a recordkeeping fee of ${fee} per "
            f"participant, for about {participants:,} participants with account balances. "
            f"The Administrative Committee received a fee report from Hewitt for plan year {year} that broke the "
            f"fee into core recordkeeping, call-center service and participant website costs. "
            f"Gregory Lund, the Plan's benefits finance manager, compared the {year} fee with the figures of a "
            f"survey of large plans and circulated the comparison to the Administrative Committee."
        )
    return paragraphs


def _disclosures() -> list[str]:
    """Return one paragraph per quarterly participant fee disclosure of 2012-2016."""
    rng = random.Random(7)
    paragraphs = []
    for year in range(2012, 2017):
        for month in MONTHS:
            ratio = round(rng.uniform(0.55, 1.05), 2)
            paragraphs.append(
                f"The quarterly statement mailed to participants in {month} {year} listed the Emerging Markets "
                f"Equity Fund's expense ratio as {ratio} percent and showed each participant's share of the "
                f"recordkeeping fee as a separate line. "
                f"Denise Whitaker, who managed participant communications for the Plan, approved the text of the "
                f"{month} {year} statement before it was mailed."
            )
    return paragraphs


INTRODUCTION = "\n".join(
    (
        "I. INTRODUCTION",
        "Plaintiffs Lori Marshall, Debra Hoffman and Kimberly Peterson are participants in the Northrop "
        "Grumman Savings Plan, a defined-contribution 401(k) plan sponsored by Northrop Grumman Corporation.",
        "They allege that the Plan's fiduciaries kept an underperforming emerging markets fund in the Plan's "
        "lineup, let the Plan pay excessive recordkeeping fees to Hewitt Associates LLC and allowed Hewitt to"
        " profit from the Plan's investment-advice arrangement with Financial Engines.",
        "Defendants Northrop Grumman Corporation, the Northrop Grumman Savings Plan Administrative Committee "
        "and the Northrop Grumman Savings Plan Investment Committee move for partial summary judgment on "
        "those claims.",
        "Having considered the papers, the record and the arguments of counsel, the Court GRANTS the motion "
        "for the reasons that follow.",
    )
)

BACKGROUND_HEAD = "\n".join(
    (
        "II. BACKGROUND",
        "A. The Plan and its committees",
        "The Northrop Grumman Savings Plan held about ten billion dollars in assets for more than one hundred"
        " thousand participants during the period at issue.",
        "The Investment Committee selected and monitored the Plan's investment options under a written "
        "investment policy statement adopted in 2008.",
        "The Administrative Committee oversaw the Plan's administration, including its contract with its recordkeeper.",
        "Hewitt Associates LLC became the Plan's recordkeeper under a services agreement signed in 2004 and "
        "amended in 2009 and in 2013.",
        "The investment policy statement required the Investment Committee to review every fund at least once"
        " a year against a benchmark and a peer group.",
        "B. The Emerging Markets Equity Fund",
        "The Plan added the Emerging Markets Equity Fund to its lineup in 2008 as its only dedicated emerging"
        " markets option.",
        "The fund was managed by an outside investment manager under a separate account agreement with the Plan.",
        "Callan Associates served as the Investment Committee's investment consultant throughout the period "
        "at issue and prepared a written report for every quarterly meeting.",
        "The Committee placed the Emerging Markets Equity Fund on its watch list in November 2011 and removed"
        " it from the watch list in August 2013.",
        "The Committee replaced the fund's investment manager in February 2016 after a search that Callan "
        "Associates ran for the Committee.",
        "C. The quarterly meetings of the Investment Committee",
    )
)

FEES_HEAD = "\n".join(
    (
        "D. The recordkeeping fees paid to Hewitt",
        "The Administrative Committee issued a request for proposals for recordkeeping services in 2009, and "
        "four firms responded.",
        "The Administrative Committee chose to stay with Hewitt after the 2009 request for proposals and "
        "negotiated a lower per-participant fee in the 2009 amendment.",
        "The Administrative Committee negotiated a second fee reduction in the 2013 amendment without issuing"
        " a new request for proposals.",
    )
)

ENGINES_HEAD = "\n".join(
    (
        "E. Financial Engines",
        "In 2011 the Plan began offering participants a managed account and online advice service provided by"
        " Financial Engines.",
        "Financial Engines paid Hewitt a portion of the fees it collected from Plan participants for the data"
        " connection and administrative services that Hewitt provided.",
        "The Administrative Committee received a written description of the payments from Financial Engines "
        "to Hewitt before the service was launched in 2011.",
        "F. Participant communications",
    )
)

STANDARD = "\n".join(
    (
        "III. LEGAL STANDARD",
        "Summary judgment is appropriate when the movant shows that there is no genuine dispute as to any "
        "material fact and the movant is entitled to judgment as a matter of law.",
        "The moving party bears the initial burden of identifying the portions of the record that demonstrate"
        " the absence of a genuine issue of material fact.",
        "Once that burden is met, the nonmoving party must set out specific facts showing a genuine issue for"
        " trial; a scintilla of evidence or evidence that is merely colorable is not enough.",
        "The Court views the evidence in the light most favorable to the nonmoving party and draws all "
        "justifiable inferences in its favor.",
    )
)

DISCUSSION_A = "\n".join(
    (
        "IV. DISCUSSION",
        "A. The Emerging Markets Equity Fund",
        "Plaintiffs argue that the Investment Committee should have removed the Emerging Markets Equity Fund "
        "years before it replaced the fund's manager.",
        "ERISA's duty of prudence is judged by the process a fiduciary followed, not by the results the "
        "investment produced in hindsight.",
        "The undisputed record shows that the Committee reviewed the fund at each of its quarterly meetings, "
        "placed it on the watch list, questioned its consultant and ultimately replaced the manager.",
        "Plaintiffs identify no meeting at which the Committee failed to consider the fund and no information"
        " that the Committee lacked.",
        "The Court reviews the meetings on which Plaintiffs principally rely.",
    )
)

DISCUSSION_B = "\n".join(
    (
        "B. The recordkeeping fees",
        "Plaintiffs contend that the Administrative Committee should have issued requests for proposals more "
        "often and that the Plan paid Hewitt more than a prudent fiduciary would have paid.",
        "ERISA does not require a fiduciary to issue a request for proposals at any particular interval.",
        "The record shows that the Administrative Committee monitored the fee every year, benchmarked it "
        "against survey data and negotiated two reductions.",
        "Plaintiffs' expert's comparison of the fee with the fees of smaller plans does not create a genuine "
        "dispute about the Committee's process, because it compares plans that bought different services.",
        "The Court has considered each year of the fee history on which Plaintiffs rely.",
    )
)

DISCUSSION_C = "\n".join(
    (
        "C. The payments from Financial Engines to Hewitt",
        "Plaintiffs argue that the payments from Financial Engines to Hewitt made Hewitt's total compensation"
        " excessive.",
        "The Administrative Committee knew of the payments before the service began and considered them when "
        "it approved the arrangement.",
        "No evidence shows that the payments raised the fee any participant paid for recordkeeping, and "
        "participants who did not enroll in the service paid nothing to Financial Engines.",
        "D. The duty of loyalty",
        "Plaintiffs offer no evidence that any Defendant acted for a purpose other than providing benefits to"
        " participants.",
        "A fiduciary's decision that benefits a service provider is not disloyal without evidence that the "
        "fiduciary acted to benefit the provider.",
        "E. The failure-to-monitor claim",
        "Because the Court grants summary judgment on the underlying claims of imprudence, the derivative "
        "claim for failure to monitor fails with them.",
        "F. The prohibited transaction claims",
        "Plaintiffs' prohibited transaction claims rest on the Hewitt services agreement, which was signed in"
        " 2004, more than six years before this action was filed in 2016.",
        "The Court agrees with Defendants that these claims are time barred.",
    )
)

CONCLUSION = """V. CONCLUSION
For the foregoing reasons, Defendants' Motion for Partial Summary Judgment is GRANTED.
Judgment shall be entered for Defendants on the claims addressed in this Order.
IT IS SO ORDERED.

Dated: September 30, 2019
HON. MIRIAM T. CASTELLANO (a fictional judge)
UNITED STATES DISTRICT JUDGE"""


def _discussion_of_meetings(meetings: list[tuple[str, str, str]]) -> list[str]:
    out = []
    for when, fund, _ in meetings:
        out.append(
            f"The minutes of the {when} meeting show that the Committee discussed the {fund} with its consultant. "
            f"Plaintiffs point to nothing in the {when} minutes suggesting that any member lacked the consultant's "
            f"report or asked for information that was withheld. "
            f"That the Committee chose to keep the {fund} after the {when} review reflects a judgment made with the "
            f"relevant information in hand, which is what ERISA requires."
        )
    return out


def _discussion_of_fees() -> list[str]:
    out = []
    for year in range(2008, 2017):
        out.append(
            f"As to plan year {year}, Plaintiffs do not dispute that the Administrative Committee received Hewitt's "
            f"fee report and Mr. Lund's survey comparison. "
            f"Plaintiffs' disagreement with the Committee's conclusion about the {year} fee is a disagreement with "
            f"the result, not evidence of a flawed process."
        )
    return out


def opinion_paragraphs() -> list[str]:
    """Return the opinion's body as paragraphs (each one line per sentence group), caption and title first."""
    meetings = _meetings()
    return [
        CAPTION,
        "ORDER GRANTING DEFENDANTS' MOTION FOR PARTIAL SUMMARY JUDGMENT",
        INTRODUCTION,
        BACKGROUND_HEAD,
        *(paragraph for _, _, paragraph in meetings),
        FEES_HEAD,
        *_fee_years(),
        ENGINES_HEAD,
        *_disclosures(),
        STANDARD,
        DISCUSSION_A,
        *_discussion_of_meetings(meetings),
        DISCUSSION_B,
        *_discussion_of_fees(),
        DISCUSSION_C,
        CONCLUSION,
        FICTION_NOTE,
    ]


def paginate(paragraphs: list[str], page_chars: int = PAGE_CHARS) -> str:
    """Return the paragraphs joined into pages headed "## Page N" (as text extraction writes PDF pages)."""
    pages: list[list[str]] = [[]]
    size = 0
    for paragraph in paragraphs:
        if size > page_chars:
            pages.append([])
            size = 0
        pages[-1].append(paragraph)
        size += len(paragraph)
    return "\n".join(f"## Page {n}\n" + "\n\n".join(page) + "\n" for n, page in enumerate(pages, start=1))


def opinion_text() -> str:
    """Return the whole written-for-the-test opinion."""
    return paginate(opinion_paragraphs())


def quotable_sentences() -> list[str]:
    """Return the opinion's sentences a fact can quote: 10 to 30 words, none across a page break."""
    out = []
    for paragraph in opinion_paragraphs()[2:-1]:
        for line in paragraph.splitlines():
            for sentence in line.replace(". ", ".\n").splitlines():
                words = sentence.split()
                if 10 <= len(words) <= 30 and sentence.endswith("."):
                    out.append(sentence.strip())
    return out


def statement_facts() -> list[SoufFact]:
    """Return the 40 numbered facts of the written-for-the-test statement with the response's answers."""
    rng = random.Random(3)
    facts = [
        "Northrop Grumman Corporation sponsors the Northrop Grumman Savings Plan, a defined-contribution plan.",
        "The Investment Committee selected and monitored the Plan's investment options.",
        "The Administrative Committee oversaw the Plan's contract with its recordkeeper.",
        "Hewitt Associates LLC became the Plan's recordkeeper under a services agreement signed in 2004.",
        "The Investment Committee adopted a written investment policy statement in 2008.",
        "Callan Associates prepared a written report for every quarterly Investment Committee meeting.",
        "The Plan added the Emerging Markets Equity Fund to its lineup in 2008.",
        "The Investment Committee placed the Emerging Markets Equity Fund on its watch list in November 2011.",
        "The Investment Committee removed the Emerging Markets Equity Fund from its watch list in August 2013.",
        "The Investment Committee replaced the fund's investment manager in February 2016.",
        "The Administrative Committee issued a request for proposals for recordkeeping services in 2009.",
        "Four firms responded to the 2009 request for proposals.",
        "The 2009 amendment to the Hewitt agreement lowered the per-participant recordkeeping fee.",
        "The 2013 amendment to the Hewitt agreement lowered the per-participant recordkeeping fee again.",
        "Financial Engines began offering managed accounts to Plan participants in 2011.",
        "Financial Engines paid Hewitt a portion of the fees it collected from participants who enrolled.",
        "The Administrative Committee received a description of the Financial Engines payments before 2011.",
        "Participants who did not enroll with Financial Engines paid nothing to Financial Engines.",
    ]
    for year in range(2008, 2017):
        facts.append(f"Gregory Lund compared the plan year {year} recordkeeping fee with a survey of large plans.")
    for year in range(2009, 2017, 2):
        facts.append(f"Every Investment Committee meeting in {year} reviewed the Emerging Markets Equity Fund.")
    while len(facts) < 40:
        facts.append(
            f"Denise Whitaker approved the text of the participant statements mailed in {2008 + len(facts) - 29}."
        )
    reasons = (
        "The minutes do not show that the Committee considered removing the fund.",
        "The survey compared plans that bought different services.",
        "The cited exhibit does not support the stated date.",
        "The description omitted the amount of the payments.",
    )
    out = []
    for number, text in enumerate(facts, start=1):
        disputed = rng.random() < 0.3
        out.append(SoufFact(number, text, disputed, rng.choice(reasons) if disputed else ""))
    return out


def statement_text() -> str:
    """Return the written-for-the-test statement of uncontroverted facts."""
    lines = [
        CAPTION,
        "DEFENDANTS' STATEMENT OF UNCONTROVERTED FACTS IN SUPPORT OF THEIR MOTION FOR PARTIAL SUMMARY JUDGMENT",
        "",
    ]
    lines += [f"{f.number}. {f.text} (Ex. {100 + f.number}.)" for f in statement_facts()]
    return paginate(["\n".join(lines), FICTION_NOTE], page_chars=4_000)


def response_text() -> str:
    """Return the written-for-the-test statement of genuine disputes answering every numbered fact."""
    lines = [
        CAPTION,
        "PLAINTIFFS' STATEMENT OF GENUINE DISPUTES OF MATERIAL FACT IN OPPOSITION TO DEFENDANTS' MOTION",
        "",
    ]
    for fact in statement_facts():
        answer = f"Disputed. {fact.reason}" if fact.disputed else "Undisputed."
        lines.append(f"{fact.number}. {fact.text} Response: {answer}")
    return paginate(["\n".join(lines), FICTION_NOTE], page_chars=4_000)


def write_filings(folder: Path) -> list[Path]:
    """Write the three written-for-the-test filings into `folder`; return their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "fiction_opinion_order_granting_partial_summary_judgment.txt": opinion_text(),
        "fiction_statement_of_uncontroverted_facts.txt": statement_text(),
        "fiction_statement_of_genuine_disputes.txt": response_text(),
    }
    paths = []
    for name, text in files.items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths
