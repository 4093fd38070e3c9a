"""Stage `ingest`: read the record folder, extract each file's text, classify each filing, choose the corpus.

Every file under RECORD_DIR with a known suffix (pdf, txt, md, docx, xlsx, pptx) is extracted with
`lexprobe.documents.extract`; its text goes to OUT/text/<source_id>.txt for later stages. A file that cannot be
extracted (or has no text layer) is recorded with its error and left out. Each file is put in one category, by the
rules below first, then by the generator model for the files no rule decides (every decision keeps its rule, or
"model", and reason); only `exhibit` (merits evidence) goes into the investigation corpus, everything else is a
pipeline input at most:

- `opinion`: memorandum opinion, order granting or denying summary judgment (the answer: never in the corpus);
- `statement_of_facts`: statement of (undisputed, uncontroverted, material) facts (reveals the answer);
- `response_to_statement`: responses to it, statement of genuine disputes, counter-statement (reveals);
- `brief`: memorandum of law, motion, opposition, reply (reveals);
- `exhibit`: merits evidence: deposition, email, contract, business record (the only category in the corpus);
- `procedural`: notice, proposed order, sealing application or order, attorney declaration (a cover for exhibits),
  evidentiary objections, certificate of service, letters between counsel;
- `expert_report`: expert report, expert work product, expert testimony filed in an expert-exclusion (Daubert / in
  limine) dispute (reveals);
- `sealed_placeholder`: a one-page slip standing in for a sealed filing (empty).

The rules, first match wins (each decision records the rule's name and a reason):
1. `sealed_placeholder`: under 400 characters of text once ECF stamps are removed, and "filed/lodged under seal".
2. `daubert_exhibit`: the ECF stamp calls the file a "Daubert Motion Ex." -> expert_report.
3. title rules, for court filings only (a court caption or a "Case No." in the first pages), on the document's
   title (its pleading-paper footer, its first words and the words after each "Case No." / "Proceedings:" of
   the caption, cut before dates, judges and bracketed lists of concurrently filed papers):
   anywhere in the title: proposed order, sealing, evidentiary objections, certificate of service -> procedural;
   then, on the part of the title before "in support of" / "supporting" / "in opposition to": notice of motion,
   stipulation -> procedural; opinion or order deciding summary judgment -> opinion; responses to a statement of
   facts -> response_to_statement; statement of facts -> statement_of_facts; expert report -> expert_report;
   declaration of an attorney (the text says so) -> procedural (a declaration of anyone else is left undecided:
   it may be merits evidence); memorandum, brief, motion, opposition, reply -> brief; deposition -> exhibit.
4. body rules: a deposition transcript (DEPOSITION OF, or many Q/A lines) -> exhibit; a letter on a law firm's
   letterhead whose "Re:" line names the case -> procedural; an exhibit stamp on a document without a court
   caption -> exhibit.
5. filename rules (for hand-made records): opinion, response/rsouf, souf/statement_of_facts, brief/opposition/
   reply, exhibit/deposition, notice/proposed_order/certificate/seal/objection, expert.
6. family rule (`apply_family_rules`): an exhibit attached to an expert-exclusion filing (same RECAP docket entry
   as a Daubert motion, a motion in limine about experts, or the opposition to one) is expert_report.
Anything still undecided goes to the generator model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from lexprobe.documents.confined import sha256_file
from lexprobe.investigation.pipeline.context import Ask, StageContext, StageError, ask_json, render_prompt, unique_id
from lexprobe.investigation.pipeline.registry import stage


class DocCategory(StrEnum):
    """What a filing of the record is (see the module docstring)."""

    opinion = "opinion"
    statement_of_facts = "statement_of_facts"
    response_to_statement = "response_to_statement"
    brief = "brief"
    exhibit = "exhibit"
    procedural = "procedural"
    expert_report = "expert_report"
    sealed_placeholder = "sealed_placeholder"


#: Categories whose documents go into the investigation corpus.
CORPUS_CATEGORIES = frozenset({DocCategory.exhibit})


@dataclass(frozen=True)
class RuleDecision:
    """A category decided by a rule, with the rule's name and a human reason."""

    category: DocCategory
    doc_kind: str
    rule: str
    reason: str
    stands_for: str | None = None


_ECF_STAMP = re.compile(
    r"Case\s+\d+:\d+-\w+-\d+(?:-[A-Z]+)*\s+Document\s+[\d-]+\s+Filed\s+[\d/]+\s+Page\s+\d+\s+of\s+\d+"
    r"(?:\s+Page\s*ID\s*#:?\s*\d*)?",
    re.I,
)
_LINE_NUMBERS = re.compile(r"\b1 2 3 4 5 6 7 8 9 10(?: \d{1,2}){0,20}\b")
_SPACE = re.compile(r"\s+")
_PAGE_HEADING = re.compile(r"^## Page \d+$", re.M)  # lexprobe.documents.extract's page separator
_UNDER_SEAL = re.compile(r"(?:filed|lodged|proposed to be filed|conditionally filed)\s+under\s+seal|\bsealed\b", re.I)


def clean_filing_text(text: str) -> str:
    """Return `text` without page headings, ECF header stamps and pleading-paper line numbers, whitespace collapsed."""
    collapsed = _SPACE.sub(" ", _ECF_STAMP.sub(" ", _PAGE_HEADING.sub(" ", text)))
    return _SPACE.sub(" ", _LINE_NUMBERS.sub(" ", collapsed)).strip()


_TITLE_CUT = re.compile(
    r"Case\s+No|\[|\bDate:|\bHearing|\bJudge:|\bHon\.|\bHonorable|\bCourtroom|\bTime:|\bDept\.?:", re.I
)
_TITLE_ANCHOR = re.compile(
    r"Case\s+No\.?:?\s*(?:[\w:.-]+(?:\s+[A-Z]{2,3}(?=\s*\())?(?:\s*\([A-Za-z]+\))?)?|Proceedings:", re.I
)


def _cut_title(text: str) -> str:
    text = re.sub(r"^\s*[\[(]\s*in\s+chambers\s*[\])]\s*", "", text, flags=re.I)  # a minute order's title
    text = text.strip()
    cut = _TITLE_CUT.search(text, 1)
    return text[: cut.start() if cut else 300][:300].strip()


_LEADING_LINE_NUMBER = re.compile(r"^\s*\d{1,2}(?:\s{2,}|\s*$)", re.M)
_CAPTION_NOISE = re.compile(
    r"\b(?:Plaintiffs?|Defendants?|Petitioners?|Respondents?)\s*[,.]|\s\bv\.(?=\s)|\bet al\.?,?"
)
_FOOTER_CASE_NO = re.compile(r"^\s*Case\s+No\b", re.I)


def _footer_titles(text: str) -> list[str]:
    """Return pleading-paper footer titles: the line just above a line that starts with "Case No."."""
    lines = [_LEADING_LINE_NUMBER.sub("", line).strip() for line in text[:30000].split("\n")]
    titles = []
    for index, line in enumerate(lines):
        if index and _FOOTER_CASE_NO.match(line) and lines[index - 1] and not lines[index - 1][0].isdigit():
            titles.append(lines[index - 1][:200])
        elif not _FOOTER_CASE_NO.match(line) and (cut := re.search(r",?\s*Case\s+No\b", line)):
            before = line[: cut.start()].strip()
            if len(before) > 15 and not re.search(r"\bet al\b|\bv\.", before):
                titles.append(before[:200])
        if len(titles) >= 3:
            break
    return titles


def title_candidates(text: str) -> list[str]:
    """Return the candidate titles of a filing, most telling first: its pleading-paper footer titles, its first
    words, then the words after each caption anchor ("Case No.", "Proceedings:"), with caption noise (party
    labels, "v.", line numbers) removed. `text` is the extracted text.
    """
    clean = clean_filing_text(_LEADING_LINE_NUMBER.sub("", text[:30000]))
    head = _SPACE.sub(" ", _CAPTION_NOISE.sub(" ", clean[:4000]))
    candidates = [*_footer_titles(text), _cut_title(head[:300])]
    for anchor in list(_TITLE_ANCHOR.finditer(head))[:4]:
        candidates.append(_cut_title(head[anchor.end() : anchor.end() + 400]))
    return [c for c in candidates if c]


_ANYWHERE = [
    ("proposed_order", r"\[?\bPROPOSED\]?\s+(?:ORDER|JUDGMENT)", DocCategory.procedural, "proposed_order"),
    (
        "sealing",
        r"UNDER\s+SEAL|APPLICATIONS?\s+TO\s+SEAL|MOTIONS?\s+TO\s+SEAL|ORDER\s+(?:GRANTING|DENYING)[^.]{0,80}\bSEAL",
        DocCategory.procedural,
        "sealing",
    ),
    ("evidentiary_objections", r"EVIDENTIARY\s+OBJECTIONS?|OBJECTIONS?\s+TO\s+(?:THE\s+)?EVIDENCE",
     DocCategory.procedural, "evidentiary_objections"),
    ("certificate_of_service", r"CERTIFICATE\s+OF\s+SERVICE|PROOF\s+OF\s+SERVICE", DocCategory.procedural,
     "certificate_of_service"),
]  # fmt: skip
_LEADING = [
    ("notice", r"NOTICE\s+OF\s+(?:MOTION|LODGING|FILING|APPEARANCE|HEARING|ERRATA|SUBMISSION|(?:TAKING\s+)?DEPOSITION)",
     DocCategory.procedural, "notice"),
    ("stipulation", r"STIPULATION|JOINT\s+(?:REPORT|STATUS)", DocCategory.procedural, "stipulation"),
    ("opinion", r"MEMORANDUM\s+(?:OPINION|DECISION)|OPINION\s+AND\s+ORDER|ORDER\s+(?:GRANTING|DENYING|ON|RE:?)\b"
     r"[^.]{0,160}SUMMARY\s+JUDGMENT|(?:RULING|DECISION)\s+ON\b[^.]{0,120}SUMMARY\s+JUDGMENT|^OPINION\b",
     DocCategory.opinion, "opinion"),
    ("response_to_statement", r"(?:RESPONSES?|RESPONSIVE\s+STATEMENTS?|REPL(?:Y|IES))\s+TO\s+[^.]{0,120}"
     r"STATEMENTS?\s+OF\s+[^.]{0,40}FACTS?|STATEMENT\s+OF\s+GENUINE\s+(?:DISPUTES|ISSUES)|COUNTER[- ]?STATEMENT",
     DocCategory.response_to_statement, "response_to_statement"),
    ("statement_of_facts", r"STATEMENT\s+OF\s+(?:UNDISPUTED|UNCONTROVERTED|UNCONTESTED|MATERIAL)[^.]{0,40}FACTS?|"
     r"SEPARATE\s+STATEMENT|RULE\s+56\.1\s+STATEMENT", DocCategory.statement_of_facts, "statement_of_facts"),
    ("expert_report", r"EXPERT\s+REPORT|REPORT\s+OF\s+[^.]{0,60}EXPERT|EXPERT\s+(?:WITNESS\s+)?DECLARATION|"
     r"REBUTTAL\s+REPORT", DocCategory.expert_report, "expert_report"),
    ("declaration", r"(?:SUPPLEMENTAL\s+)?DECL(?:ARATION|\.)\s+OF\b", DocCategory.procedural, "declaration"),
    ("brief", r"MEMORANDUM|\bMEM\.|POINTS?\s+AND\s+AUTHORITIES|\bBRIEF\b|OPPOSITION|\bREPLY\b|\bMOTION\b",
     DocCategory.brief, "brief"),
    ("deposition", r"DEPOSITION\s+(?:OF|TRANSCRIPT)", DocCategory.exhibit, "deposition"),
]  # fmt: skip
_SUPPORTING = re.compile(r"\b(?:IN\s+SUPPORT\s+OF|SUPPORTING|IN\s+OPPOSITION\s+TO|IN\s+RESPONSE\s+TO)\b", re.I)
_ATTORNEY = re.compile(
    r"I\s+am\s+(?:an|one\s+of\s+the)\s+attorneys?|attorneys?\s+of\s+record|of\s+the\s+law\s+firm|with\s+the\s+law\s+firm"
    r"|I\s+am\s+(?:an\s+)?(?:associate|partner)\s+(?:at|with|of)\b|counsel\s+(?:of\s+record\s+)?for\s+(?:the\s+)?"
    r"(?:plaintiff|defendant)",
    re.I,
)
_QA_LINE = re.compile(r"(?:^|\s)(?:Q|A)[.:]?\s+(?=[A-Z])")
_COURT_CAPTION = re.compile(r"(?:UNITED\s+STATES|SUPERIOR|SUPREME|CIRCUIT)\s+(?:DISTRICT\s+)?COURT", re.I)
_STAMP_BEFORE_ECF = re.compile(r"\b(?:EXHIBIT|EX\.)\s*[A-Z]{0,2}\d*[A-Z]?\s+Case\s+\d+:\d+-", re.I)
_LEADING_STAMP = re.compile(r"\s*(?:EXHIBIT|EX\.)\s*[A-Z]{0,2}\d+\b", re.I)
_LETTERHEAD = re.compile(r"ATTORNEYS\s+AT\s+LAW|LAW\s+OFFICES?|\bLLP\b|\bP\.C\.", re.I)
_RE_CASE = re.compile(r"\bRe:\s*[^\n]{0,120}?\bv\.?\s[^\n]{0,120}?\bNo\.", re.I)


def _placeholder_stands_for(text: str) -> str:
    upper = text.upper()
    if re.search(r"RESPONS|REPL(?:Y|IES)\s+TO|GENUINE\s+DISPUTES", upper):
        return "response_to_statement"
    if "STATEMENT" in upper and "FACT" in upper:
        return "statement_of_facts"
    if re.search(r"EXHIBIT|\bEX\.", upper):
        return "exhibit"
    return "filing"


def _title_decision(titles: list[str], clean: str) -> RuleDecision | None:
    for title in titles:
        for name, pattern, category, kind in _ANYWHERE:
            if re.search(pattern, title, re.I):
                return RuleDecision(category, kind, f"title:{name}", f"title {title[:90]!r} matches {name}")
        leading = _SUPPORTING.split(title)[0]
        for name, pattern, category, kind in _LEADING:
            if not re.search(pattern, leading, re.I):
                continue
            if name == "declaration":
                if _ATTORNEY.search(clean[:6000]):
                    reason = f"title {title[:90]!r} is a declaration by counsel (a cover for exhibits)"
                    return RuleDecision(category, "declaration_cover", "title:attorney_declaration", reason)
                return None  # a witness declaration may be merits evidence: let the model decide
            return RuleDecision(category, kind, f"title:{name}", f"title {title[:90]!r} matches {name}")
    return None


def _body_decision(raw: str, clean: str) -> RuleDecision | None:
    head = clean[:4000]
    noticed = re.search(r"NOTICE\s+OF\s+(?:TAKING\s+)?DEPOSITION", head, re.I)
    if re.search(r"DEPOSITION\s+OF\b", head, re.I) and not noticed:
        return RuleDecision(DocCategory.exhibit, "deposition", "body:deposition", "text is a deposition transcript")
    if len(_QA_LINE.findall(clean[:20000])) >= 12:
        return RuleDecision(DocCategory.exhibit, "deposition", "body:qa_transcript", "text is mostly Q/A testimony")
    if _LETTERHEAD.search(head[:400]) and _RE_CASE.search(head[:2500]):
        reason = "letter on a law firm's letterhead whose Re: line names the lawsuit (correspondence between counsel)"
        return RuleDecision(DocCategory.procedural, "correspondence_between_counsel", "body:counsel_letter", reason)
    if not _COURT_CAPTION.search(head) and (_STAMP_BEFORE_ECF.search(raw) or _LEADING_STAMP.match(clean)):
        reason = "exhibit stamp on a document without a court caption"
        return RuleDecision(DocCategory.exhibit, "exhibit", "body:exhibit_stamp", reason)
    return None


_FILENAME_RULES = [
    ("opinion", r"opinion|ruling|order_on_(?:motion|msj|summary)", DocCategory.opinion, "opinion"),
    ("response_to_statement", r"response|rsouf|counter_?statement|genuine_disputes?", DocCategory.response_to_statement,
     "response_to_statement"),
    ("statement_of_facts", r"souf|statement_of_(?:undisputed_|material_)?facts|(?:^|_)sof(?:_|$)",
     DocCategory.statement_of_facts, "statement_of_facts"),
    ("expert", r"expert", DocCategory.expert_report, "expert_report"),
    ("procedural", r"notice|proposed_order|certificate|seal|stipulation|objection", DocCategory.procedural,
     "procedural"),
    ("brief", r"brief|memorandum_of_(?:law|points)|opposition|reply|(?:^|_)msj(?:_|$)", DocCategory.brief, "brief"),
    ("exhibit", r"exhibit|(?:^|_)ex_?\d|deposition|(?:^|_)depo(?:_|$)", DocCategory.exhibit, "exhibit"),
]  # fmt: skip


def _filename_decision(filename: str) -> RuleDecision | None:
    stem = re.sub(r"[^a-z0-9]+", "_", filename.lower().rsplit(".", 1)[0])
    for name, pattern, category, kind in _FILENAME_RULES:
        if re.search(pattern, stem):
            return RuleDecision(category, kind, f"filename:{name}", f"file name {filename!r} matches {name}")
    return None


def classify_by_rules(filename: str, text: str) -> RuleDecision | None:
    """Return the rule decision for one filing, or None when no rule is sure (the model decides).

    `text` is the extracted text of the whole file.
    """
    clean = clean_filing_text(text)
    if len(clean) < 400 and _UNDER_SEAL.search(clean):
        stands_for = _placeholder_stands_for(clean)
        reason = f"one-page slip standing in for a sealed {stands_for.replace('_', ' ')}: {clean[:120]!r}"
        kind = DocCategory.sealed_placeholder
        return RuleDecision(kind, kind.value, kind.value, reason, stands_for)
    if re.search(r"DAUBERT\s+MOTION\s+EX", clean[:300], re.I):
        reason = "the ECF stamp marks it an exhibit to a Daubert motion: expert testimony or work product"
        kind = "deposition" if re.search(r"DEPOSITION\s+OF", clean[:3000], re.I) else "exhibit"
        return RuleDecision(DocCategory.expert_report, kind, "daubert_exhibit", reason)
    filing = _COURT_CAPTION.search(clean[:6000]) or _TITLE_ANCHOR.search(clean[:6000])
    title = _title_decision(title_candidates(text), clean) if filing else None
    return title or _body_decision(text, clean) or _filename_decision(filename)


_RECAP_NAME = re.compile(
    r"^gov\.uscourts\.(?P<court>[a-z0-9]+)\.(?P<case>\d+)\.(?P<entry>\d+)\.(?P<att>\d+)(?:_\d+)?\."
)
_EXPERT_DISPUTE = re.compile(r"DAUBERT|MOTION\s+IN\s+LIMINE|EXCLUDE[^.]{0,80}EXPERT|DISQUALIFY[^.]{0,80}EXPERT", re.I)


def recap_entry(filename: str) -> tuple[str, int, int] | None:
    """Return (case key, docket entry, attachment) of a RECAP file name, or None for other names."""
    match = _RECAP_NAME.match(filename)
    if not match:
        return None
    return f"{match['court']}.{match['case']}", int(match["entry"]), int(match["att"])


def apply_family_rules(files: dict[str, tuple[str, RuleDecision | None]]) -> dict[str, RuleDecision]:
    """Return the decisions the family rule changes, by file name.

    `files` maps each file name to (its extracted text, its decision so far). An exhibit that shares a RECAP docket
    entry with a lead filing (a brief or procedural paper) about an expert-exclusion dispute becomes expert_report.
    """
    leads: dict[tuple[str, int], str] = {}
    for name, (text, decision) in files.items():
        entry = recap_entry(name)
        if entry and decision and decision.category in (DocCategory.brief, DocCategory.procedural):
            titles = [t for t in title_candidates(text) if _EXPERT_DISPUTE.search(t)]
            if titles and re.search(r"expert", text[:10000], re.I):
                leads.setdefault(entry[:2], titles[0][:90])
    changed = {}
    for name, (_, decision) in files.items():
        entry = recap_entry(name)
        if entry and decision and decision.category == DocCategory.exhibit and entry[:2] in leads:
            reason = (
                f"attached to docket entry {entry[1]} ({leads[entry[:2]]!r}), an expert-exclusion dispute: "
                f"expert testimony or work product ({decision.reason})"
            )
            expert = DocCategory.expert_report
            changed[name] = replace(decision, category=expert, rule="family:expert_dispute", reason=reason)
    return changed


_COUNSEL_FOR = re.compile(r"(?:Attorneys?|Counsel)\s+for\s+(?:All\s+|the\s+)?(Plaintiffs?|Defendants?)", re.I)


def filing_party(text: str) -> str:
    """Return 'plaintiff' or 'defendant' when the filing's caption names whose counsel filed it, else ''."""
    found = {m.group(1).lower().rstrip("s") for m in _COUNSEL_FOR.finditer(text[:4000])}
    return found.pop() if len(found) == 1 else ""


RECORD_SUFFIXES = (".pdf", ".txt", ".md", ".docx", ".xlsx", ".pptx")
CLASSIFY_EXCERPT_CHARS = 2500


class SourceDocument(BaseModel):
    """One file of the record and what the pipeline decided about it."""

    source_id: str = Field(description="Stable id from the file's path (lowercase, [a-z0-9_]).")
    filename: str = Field(description="Path relative to RECORD_DIR (POSIX separators).")
    sha256: str
    size: int
    chars: int = 0
    category: DocCategory | None = Field(default=None, description="None when the file could not be read.")
    doc_kind: str = ""
    party: str = Field(default="", description="plaintiff | defendant, when the caption says whose counsel filed it.")
    decided_by: Literal["rule", "model", "none"] = "none"
    rule: str = ""
    reason: str = ""
    stands_for: str | None = Field(default=None, description="For a sealed placeholder: what it stands in for.")
    corpus: bool = False
    error: str | None = None
    title: str = ""


class IngestResult(BaseModel):
    """The record as the pipeline sees it."""

    record_dir: str
    documents: list[SourceDocument] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)

    def of(self, *categories: DocCategory) -> list[SourceDocument]:
        """Return the readable documents of the given categories, in record order."""
        return [d for d in self.documents if d.category in categories and d.error is None]

    @property
    def corpus_documents(self) -> list[SourceDocument]:
        """The merits exhibits that go into the corpus."""
        return [d for d in self.documents if d.corpus]


class ClassificationDraft(BaseModel):
    """The generator's classification of one file no rule decided."""

    category: DocCategory
    doc_kind: str
    reason: str


def record_files(record_dir: Path) -> list[Path]:
    """Return the record's files with a known suffix, sorted by relative path (hidden files skipped)."""
    found = []
    for path in sorted(Path(record_dir).rglob("*")):
        relative = path.relative_to(record_dir)
        if (
            path.is_file()
            and path.suffix.lower() in RECORD_SUFFIXES
            and not any(part.startswith(".") for part in relative.parts)
        ):
            found.append(path)
    return found


def record_fingerprint(ctx: StageContext) -> list[tuple[str, int, str]]:
    """Return (relative path, size, SHA-256) of every record file: the ingest stage's external input."""
    return [
        (p.relative_to(ctx.record_dir).as_posix(), p.stat().st_size, sha256_file(p))
        for p in record_files(ctx.record_dir)
    ]


def source_id_for(relative: str, taken: set[str]) -> str:
    """Return a stable id for a record file: its path without suffix in [a-z0-9_], unique among `taken`."""
    return unique_id(re.sub(r"[^a-z0-9]+", "_", relative.lower().rsplit(".", 1)[0]).strip("_") or "file", taken)


def _extract(path: Path) -> tuple[str, str | None]:
    from lexprobe.documents.extract import ExtractionError, extract_text

    try:
        text = extract_text(path)
    except ExtractionError as exc:
        return "", str(exc)
    if not text.strip():
        return "", "no text could be extracted (a scan without a text layer?)"
    return text, None


def _apply(doc: SourceDocument, decision: RuleDecision, by: Literal["rule", "model"]) -> None:
    for name, value in vars(decision).items():  # category, doc_kind, rule, reason, stands_for
        setattr(doc, name, value)
    doc.decided_by = by


@stage("ingest", output=IngestResult, templates=("ingest_classify",), external=record_fingerprint)
def ingest(ctx: StageContext) -> IngestResult:
    """Extract and classify every record file. Raises StageError when the folder has no readable file."""
    files = record_files(ctx.record_dir)
    if not files:
        raise StageError("ingest", str(ctx.record_dir), f"no {'/'.join(RECORD_SUFFIXES)} files in the record folder")
    result = IngestResult(record_dir=str(ctx.record_dir))
    texts: dict[str, str] = {}
    rules: dict[str, RuleDecision | None] = {}
    taken: set[str] = set()
    for path in files:
        relative = path.relative_to(ctx.record_dir).as_posix()
        doc = SourceDocument(
            source_id=source_id_for(relative, taken),
            filename=relative,
            sha256=sha256_file(path),
            size=path.stat().st_size,
        )
        text, doc.error = _extract(path)
        result.documents.append(doc)
        if doc.error:
            doc.reason = f"not read: {doc.error}"
            ctx.log(f"  ingest: {relative}: {doc.error}")
            continue
        texts[doc.source_id] = text
        ctx.text_path(doc.source_id).parent.mkdir(parents=True, exist_ok=True)
        ctx.text_path(doc.source_id).write_text(text, encoding="utf-8")
        doc.chars, doc.party = len(text), filing_party(text)
        titles = title_candidates(text)
        doc.title = titles[0] if titles else ""
        rules[doc.source_id] = decision = classify_by_rules(Path(relative).name, text)
        if decision:
            _apply(doc, decision, "rule")
    readable = [d for d in result.documents if d.error is None]
    if not readable:
        raise StageError("ingest", str(ctx.record_dir), "no record file could be read")
    changed = apply_family_rules({Path(d.filename).name: (texts[d.source_id], rules[d.source_id]) for d in readable})
    for doc in readable:
        if Path(doc.filename).name in changed:
            _apply(doc, changed[Path(doc.filename).name], "rule")
    _classify_with_model(ctx, [d for d in readable if d.category is None], texts)
    for doc in readable:
        doc.corpus = doc.category in CORPUS_CATEGORIES
    result.warnings = record_warnings(result)
    for warning in result.warnings:
        ctx.log(f"  ingest: warning: {warning}")
    return result


def _classify_with_model(ctx: StageContext, undecided: list[SourceDocument], texts: dict[str, str]) -> None:
    asks = []
    for doc in undecided:
        text = texts[doc.source_id]
        prompt = render_prompt(
            "ingest_classify",
            filename=doc.filename,
            titles=title_candidates(text)[:4],
            excerpt=text[:CLASSIFY_EXCERPT_CHARS],
        )
        asks.append(Ask(doc.source_id, prompt))
    for doc, draft in zip(undecided, ask_json(ctx, asks, ClassificationDraft), strict=True):
        assert draft is not None
        decision = RuleDecision(
            draft.category, draft.doc_kind.strip().lower() or draft.category.value, "model", draft.reason.strip()
        )
        _apply(doc, decision, "model")


def record_warnings(result: IngestResult) -> list[str]:
    """Return what the record lacks for a full build (no opinion, sealed statements, no merits exhibits)."""
    warnings = []
    placeholders = result.of(DocCategory.sealed_placeholder)
    for category in (DocCategory.opinion, DocCategory.statement_of_facts, DocCategory.response_to_statement):
        if not result.of(category):
            sealed = [d.filename for d in placeholders if d.stands_for == category.value]
            note = f" (sealed placeholder: {', '.join(sealed)})" if sealed else ""
            warnings.append(f"the record has no readable {category.value.replace('_', ' ')}{note}")
    if not result.corpus_documents:
        warnings.append("no merits exhibit was found: the corpus would hold synthetic documents only")
    unreadable = [d.filename for d in result.documents if d.error]
    if unreadable:
        warnings.append(f"{len(unreadable)} file(s) could not be read: {', '.join(unreadable[:5])}")
    return warnings
