"""The forms of the citation sentence `lexprobe.check.quotations` reads, each with an example and the citation its
quotation is tied to: the table docs/check.md prints ("Quotations", "Which citation") and
tests/test_check_attribution.py checks row by row. An example's quotation is the first passage in quotation marks
(or the block quote) of its text; `source` is how the citation it belongs to begins, and `case` the name of the full
citation that one stands for (itself, or the case an "Id.", short form or "supra" refers to); `source` None: the
quotation is tied to no citation (not listed)."""

from __future__ import annotations

from dataclasses import dataclass

from lexprobe.check.quotations import AFTER, BEFORE, BLOCK, NAMED, SEE_ALSO_NAMED


@dataclass(frozen=True)
class Form:
    """One form: its name, the production that reads it, an example text, and the expected citation and case."""

    name: str
    reads: str
    example: str
    source: str | None
    case: str | None = None


TERRY = "Terry v. Ohio, 392 U. S. 1"
CAMARA = "Camara v. Municipal Court, 387 U. S. 523, 536-537 (1967)"
MAPP = "Mapp v. Ohio, 367 U. S. 643, 655 (1961)"
KATZ = "Katz v. United States, 389 U. S. 347, 351 (1967)"
Q = "the police officer must be able to point to specific and articulable facts"
R = "the Fourth Amendment protects people, not places"

FORMS: tuple[Form, ...] = (
    Form("citation after", AFTER, f"“{Q}.” {TERRY}, 21 (1968).", "Terry v. Ohio", "Terry v. Ohio"),
    Form("signal before the citation", AFTER, f"“{Q}.” See {TERRY}, 21 (1968).", "Terry v. Ohio", "Terry v. Ohio"),
    Form("unspaced reporter", AFTER, f"“{Q}.” Terry v. Ohio, 392 U.S. 1, 21 (1968).", "Terry v. Ohio"),
    Form("footnote mark after the quotation", AFTER, f"“{Q}.”³ {TERRY}, 21 (1968).", "Terry v. Ohio"),
    Form("Id. at", AFTER, f"{TERRY} (1968). The Court went on. “{Q}.” Id. at 21.", "Id. at 21", "Terry v. Ohio"),
    Form("See id.", AFTER, f"{TERRY} (1968). The Court went on. “{Q}.” See id., at 21.", "id., at 21", "Terry v. Ohio"),
    Form("Ibid.", AFTER, f"“{R}.” {KATZ}. The Court added that “{R}.” Ibid.", "Katz v. United States"),
    Form(
        "short form",
        AFTER,
        f"{TERRY} (1968). The Court went on. “{Q}.” Terry, 392 U. S., at 21.",
        "Terry, 392 U. S., at 21",
        "Terry v. Ohio",
    ),
    Form(
        "short form without at (the Court's own style)",
        AFTER,
        f"{TERRY} (1968). The Court went on. “{Q}.” Terry, 392 U. S., 21.",
        "Terry, 392 U. S., 21",
        "Terry v. Ohio",
    ),
    Form(
        "supra",
        AFTER,
        f"{TERRY} (1968). The Court went on. “{Q}.” Terry, supra, at 21.",
        "Terry, supra, at 21",
        "Terry v. Ohio",
    ),
    Form(
        "(quoting ...) parenthetical: the main citation",
        AFTER,
        f"“{Q}.” {TERRY}, 21 (1968) (quoting {CAMARA}).",
        "Terry v. Ohio",
        "Terry v. Ohio",
    ),
    Form(
        "two-deep (quoting ...) chain: the main citation",
        AFTER,
        f"“{Q}.” {TERRY}, 21 (1968) (quoting {CAMARA} (quoting {MAPP})).",
        "Terry v. Ohio",
        "Terry v. Ohio",
    ),
    Form(
        "Id. after a (quoting ...) parenthetical: the main citation's case",
        AFTER,
        f"{TERRY}, 21 (1968) (quoting {CAMARA}). The Court went on. “{Q}.” Id. at 21.",
        "Id. at 21",
        "Terry v. Ohio",
    ),
    Form(
        "See id. after a two-deep chain: the main citation's case",
        AFTER,
        f"{TERRY}, 21 (1968) (quoting {CAMARA} (quoting {MAPP})). The Court went on. “{Q}.” See id., at 21-22.",
        "id., at 21-22",
        "Terry v. Ohio",
    ),
    Form(
        "short form of a case cited in full only in a (quoting ...) parenthetical",
        AFTER,
        f"{TERRY}, 21 (1968) (quoting {CAMARA}). The Court went on. “{Q}.” Camara, 387 U. S., at 537.",
        "Camara, 387 U. S., at 537",
        "Camara v. Municipal Court",
    ),
    Form(
        "citation before the quotation in its sentence",
        BEFORE,
        f"As the Court held in {TERRY}, 21 (1968), “{Q}.”",
        "Terry v. Ohio",
        "Terry v. Ohio",
    ),
    Form(
        "citation with a (quoting ...) parenthetical before the quotation",
        BEFORE,
        f"As the Court held in {TERRY}, 21 (1968) (quoting {CAMARA}), “{Q}.”",
        "Terry v. Ohio",
        "Terry v. Ohio",
    ),
    Form(
        "short form before the quotation",
        BEFORE,
        f"{TERRY} (1968). The Court went on. In Terry, 392 U. S., at 21, the Court said that “{Q}.”",
        "Terry, 392 U. S., at 21",
        "Terry v. Ohio",
    ),
    Form(
        "a case cited earlier, named before the quotation",
        NAMED,
        f"{TERRY} (1968). The rule is old. In Terry, the Court said that “{Q}.”",
        "Terry v. Ohio",
        "Terry v. Ohio",
    ),
    Form(
        "a case cited earlier, named after the verb",
        NAMED,
        f"{TERRY} (1968). The rule is old. As the Court put it in Terry, “{Q}.”",
        "Terry v. Ohio",
        "Terry v. Ohio",
    ),
    Form(
        "See also after a sentence that names its source",
        SEE_ALSO_NAMED,
        f"{TERRY} (1968). The rule is old. The Court in Terry held that “{Q}.” See also {KATZ}.",
        "Terry v. Ohio",
        "Terry v. Ohio",
    ),
    Form(
        "See also after a sentence citing its source",
        SEE_ALSO_NAMED,
        f"As the Court held in {TERRY}, 21 (1968), “{Q}.” See also {KATZ}.",
        "Terry v. Ohio",
        "Terry v. Ohio",
    ),
    Form(
        "See also after a sentence that names no source",
        AFTER,
        f"{TERRY} (1968). The rule is old. The Court has held that “{Q}.” See also {KATZ}.",
        "Katz v. United States",
        "Katz v. United States",
    ),
    Form(
        "block quotation followed by a citation paragraph",
        BLOCK,
        f"The Court explained:\n\n{Q}, and that is the standard by which the officer's conduct is judged.\n\n"
        f"{TERRY}, 21 (1968) (quoting {CAMARA}).\n",
        "Terry v. Ohio",
        "Terry v. Ohio",
    ),
    Form(
        "footnote: a quotation attributed within its footnote",
        AFTER,
        f"The stop was lawful.1 {KATZ}.\n\n1 As the Court explained, “{Q}.” {TERRY}, 21 (1968).\n",
        "Terry v. Ohio",
        "Terry v. Ohio",
    ),
    Form(
        "a citation in the next footnote does not take a quotation of the text",
        AFTER,
        f"The officer pointed to “{Q}”\n\n2 {TERRY}, 21 (1968).\n",
        None,
    ),
    Form("a reference lexprobe does not read", AFTER, f"{TERRY} (1968). The rule is that “{Q}.” Post, at 24.", None),
)
