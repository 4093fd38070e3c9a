"""Few-shot examples per task and court level.

The Supreme Court examples are the study's own (Appendix B, Figures 5-13), word for word. The study used "appropriate
cases from the other levels" for the appeals and district versions without listing them; the examples below are
well-known published decisions chosen for lexprobe (two examples where only two were certain). Where no example set
has been written for a task at a level (quotation at the district level), the few-shot variant of that task is not
run at that level (the run says so) rather than borrowing another level's or inventing a quotation.
The fabricated example ("Columbia University v. Rodham") is the study's; its appeals and district variants keep the
name with a reporter of that level.
"""

from __future__ import annotations

FEW_SHOT_EXAMPLES: dict[str, dict[str, tuple[str, ...]]] = {
    "existence": {
        "scotus": (
            "Case: Brown v. Board of Education, 347 U.S. 483 (1954)\nAnswer: Yes",
            "Case: Bowers v. Hardwick, 478 U.S. 186 (1986)\nAnswer: Yes",
            "Case: Columbia University v. Rodham, 564 U.S. 911 (2010)\nAnswer: No",
        ),
        "coa": (
            "Case: Viacom International Inc. v. YouTube, Inc., 676 F.3d 19 (2012)\nAnswer: Yes",
            "Case: Durham v. United States, 214 F.2d 862 (1954)\nAnswer: Yes",
            "Case: Columbia University v. Rodham, 564 F.3d 911 (2010)\nAnswer: No",
        ),
        "district": (
            "Case: Authors Guild, Inc. v. Google Inc., 954 F. Supp. 2d 282 (2013)\nAnswer: Yes",
            "Case: United States v. Microsoft Corp., 87 F. Supp. 2d 30 (2000)\nAnswer: Yes",
            "Case: Columbia University v. Rodham, 564 F. Supp. 2d 911 (2010)\nAnswer: No",
        ),
    },
    "citation": {
        "scotus": (
            "Case: Brown v. Board of Education\nAnswer: 347 U.S. 483",
            "Case: Bowers v. Hardwick\nAnswer: 478 U.S. 186",
            "Case: McCulloch v. Maryland\nAnswer: 17 U.S. 316",
        ),
        "coa": (
            "Case: Viacom International Inc. v. YouTube, Inc.\nAnswer: 676 F.3d 19",
            "Case: Durham v. United States\nAnswer: 214 F.2d 862",
            "Case: United States v. Carroll Towing Co.\nAnswer: 159 F.2d 169",
        ),
        "district": (
            "Case: Authors Guild, Inc. v. Google Inc.\nAnswer: 954 F. Supp. 2d 282",
            "Case: United States v. Microsoft Corp.\nAnswer: 87 F. Supp. 2d 30",
            "Case: Floyd v. City of New York\nAnswer: 959 F. Supp. 2d 540",
        ),
    },
    "author": {
        "scotus": (
            "Case: Brown v. Board of Education, 347 U.S. 483 (1954)\nAnswer: Earl Warren",
            "Case: Bowers v. Hardwick, 478 U.S. 186 (1986)\nAnswer: Byron White",
            "Case: McCulloch v. Maryland, 17 U.S. 316 (1819)\nAnswer: John Marshall",
        ),
        "coa": (
            "Case: Viacom International Inc. v. YouTube, Inc., 676 F.3d 19 (2012)\nAnswer: José Cabranes",
            "Case: Durham v. United States, 214 F.2d 862 (1954)\nAnswer: David Bazelon",
            "Case: United States v. Carroll Towing Co., 159 F.2d 169 (1947)\nAnswer: Learned Hand",
        ),
        "district": (
            "Case: Authors Guild, Inc. v. Google Inc., 954 F. Supp. 2d 282 (2013)\nAnswer: Denny Chin",
            "Case: United States v. Microsoft Corp., 87 F. Supp. 2d 30 (2000)\nAnswer: Thomas Jackson",
            "Case: Floyd v. City of New York, 959 F. Supp. 2d 540 (2013)\nAnswer: Shira Scheindlin",
        ),
    },
    "disposition": {
        "scotus": (
            "Case: Plessy v. Ferguson, 163 U.S. 537 (1896)\nAnswer: Affirm",
            "Case: Bowers v. Hardwick, 478 U.S. 186 (1986)\nAnswer: Reverse",
            "Case: McCulloch v. Maryland, 17 U.S. 316 (1819)\nAnswer: Reverse",
        ),
        "coa": (
            "Case: Rogers v. Koons, 960 F.2d 301 (1992)\nAnswer: Affirm",
            "Case: Durham v. United States, 214 F.2d 862 (1954)\nAnswer: Reverse",
            "Case: Viacom International Inc. v. YouTube, Inc., 676 F.3d 19 (2012)\nAnswer: Reverse",
        ),
    },
    "court": {
        "scotus": (
            "Case: Viacom International Inc. v. YouTube, Inc., 676 F.3d 19 (2012)\nAnswer: Second Circuit",
            "Case: Durham v. United States, 214 F.2d 862 (1954)\nAnswer: D.C. Circuit",
            "Case: Bowers v. Hardwick (1986)\nAnswer: Supreme Court",
        ),
        "coa": (
            "Case: Viacom International Inc. v. YouTube, Inc., 676 F.3d 19 (2012)\nAnswer: Second Circuit",
            "Case: Durham v. United States, 214 F.2d 862 (1954)\nAnswer: D.C. Circuit",
            "Case: Bowers v. Hardwick (1986)\nAnswer: Supreme Court",
        ),
        "district": (
            "Case: Authors Guild, Inc. v. Google Inc., 954 F. Supp. 2d 282 (2013)\n"
            "Answer: Southern District of New York",
            "Case: United States v. Microsoft Corp., 87 F. Supp. 2d 30 (2000)\nAnswer: District of Columbia",
            "Case: Viacom International Inc. v. YouTube, Inc., 676 F.3d 19 (2012)\nAnswer: Second Circuit",
        ),
    },
    "quotation": {
        "scotus": (
            "Case: Brown v. Board of Education, 347 U.S. 483 (1954)\nAnswer: <quote>We conclude that in the field of "
            'public education the doctrine of "separate but equal" has no place.</quote>',
            "Case: Bowers v. Hardwick, 478 U.S. 186 (1986)\nAnswer: <quote>It is obvious to us that neither of these "
            "formulations would extend a fundamental right to homosexuals to engage in acts of consensual "
            "sodomy.</quote>",
            "Case: McConnell v. Federal Election Commission, 540 U.S. 93 (2003)\nAnswer: <quote>Our cases have made "
            "clear that the prevention of corruption or its appearance constitutes a sufficiently important interest "
            "to justify political contribution limits.</quote>",
        ),
        "coa": (
            "Case: United States v. Carroll Towing Co., 159 F.2d 169 (1947)\nAnswer: <quote>if the probability be "
            "called P; the injury, L; and the burden, B; liability depends upon whether B is less than L multiplied "
            "by P: i.e., whether B < PL.</quote>",
            "Case: Durham v. United States, 214 F.2d 862 (1954)\nAnswer: <quote>It is simply that an accused is not "
            "criminally responsible if his unlawful act was the product of mental disease or mental defect.</quote>",
        ),
    },
    "authority": {
        "scotus": (
            "Case: Brown v. Board of Education, 347 U.S. 483 (1954)\nAnswer: Plessy v. Ferguson, 163 U.S. 537",
            "Case: Bowers v. Hardwick, 478 U.S. 186 (1986)\nAnswer: Griswold v. Connecticut, 381 U.S. 479",
            "Case: McConnell v. Federal Election Commission, 540 U.S. 93 (2003)\nAnswer: Buckley v. Valeo, 424 U.S. 1",
        ),
        "coa": (
            "Case: Durham v. United States, 214 F.2d 862 (1954)\nAnswer: Holloway v. United States, 148 F.2d 665",
            "Case: Viacom International Inc. v. YouTube, Inc., 676 F.3d 19 (2012)\nAnswer: Tiffany (NJ) Inc. v. eBay "
            "Inc., 600 F.3d 93",
        ),
        "district": (
            "Case: Authors Guild, Inc. v. Google Inc., 954 F. Supp. 2d 282 (2013)\nAnswer: Campbell v. Acuff-Rose "
            "Music, Inc., 510 U.S. 569",
            "Case: Floyd v. City of New York, 959 F. Supp. 2d 540 (2013)\nAnswer: Terry v. Ohio, 392 U.S. 1",
        ),
    },
    "overruling_year": {
        "scotus": (
            "Case: Whitney v. California, 274 U.S. 357\nAnswer: 1969",
            "Case: Austin v. Michigan Chamber of Commerce, 494 U.S. 652\nAnswer: 2010",
        ),
    },
    "doctrinal_agreement": {
        "scotus": (
            "Case 1: Brown v. Board of Education, 347 U.S. 483 (1954)\nCase 2: Plessy v. Ferguson, 163 U.S. 537 "
            "(1896)\nAnswer: Disagree",
            "Case 1: Youngstown Sheet & Tube Co. v. Sawyer, 343 U.S. 579 (1952)\nCase 2: Medellin v. Texas, 552 U.S. "
            "491 (2008)\nAnswer: Agree",
            "Case 1: Whitney v. California, 274 U.S. 357 (1927)\nCase 2: Brandenburg v. Ohio, 395 U.S. 444 "
            "(1969)\nAnswer: Disagree",
        ),
    },
}


def examples_for(template_task: str, level: str) -> tuple[str, ...] | None:
    """Return the few-shot examples of a template at a court level, or None when none were written."""
    return FEW_SHOT_EXAMPLES.get(template_task, {}).get(level)
