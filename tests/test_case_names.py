"""Case-name normalization: the same case under the spellings different sources use."""

from __future__ import annotations

import pytest

from lexprobe.caselaw.case_names import normalize_case_name


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Brown v. Board of Educ.", "Brown v. Board of Education"),
        ("BROWN et al. v. BOARD OF EDUCATION", "Brown v. Board of Education"),
        ("Plessy v. Ferguson", "PLESSY v. FERGUSON"),
        ("Dobbs v. Jackson Women’s Health Organization", "Dobbs v. Jackson Women's Health Organization"),
        ("NLRB v. Jones & Laughlin Steel Corp.", "NLRB v. Jones Laughlin Steel Corporation"),
        ("Pennsylvania Coal Co. v. Mahon", "Pennsylvania Coal Company v. Mahon"),
        ("Muñoz v. U.S.", "Munoz v. United States"),
        ("Texas & Pac. Ry. Co. v. Abilene Cotton Oil Co.", "Texas Pac. Railway Company v. Abilene Cotton Oil Company"),
        ("NAACP v. Alabama ex rel. Patterson", "N.A.A.C.P. v. Alabama ex rel. Patterson".replace(".", "", 4)),
    ],
)
def test_spellings_normalize_alike(a: str, b: str) -> None:
    assert normalize_case_name(a) == normalize_case_name(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [("Brown v. Board of Education", "Bryan v. Board of Education"), ("Roe v. Wade", "Doe v. Bolton")],
)
def test_different_cases_stay_different(a: str, b: str) -> None:
    assert normalize_case_name(a) != normalize_case_name(b)
