"""Refusals: abstentions, premise rejections, and hedged or apologetic answers that are still answers."""

from __future__ import annotations

import pytest

from lexprobe.hallucination.labels.abstention import (
    classify_refusal,
    denies_existence,
    dissent_rejection,
    premise_rejection,
    split_sentences,
)

ABSTAIN = "abstain"
REJECT = "reject_premise"

CLASSIFY = [
    # plain abstentions
    ("I don't know.", ABSTAIN),
    ("I don’t know.", ABSTAIN),  # curly apostrophe
    ("I DO NOT KNOW", ABSTAIN),
    ("I'm not sure.", ABSTAIN),
    ("I am not certain which court decided this case.", ABSTAIN),
    ("I cannot provide a verbatim quotation from this opinion.", ABSTAIN),
    ("I can't determine the year.", ABSTAIN),
    ("I do not have information about this case.", ABSTAIN),
    ("I don't have access to the full text of the opinion.", ABSTAIN),
    ("As an AI I cannot browse legal databases.", ABSTAIN),
    ("As an AI language model, I do not have real-time access to case law.", ABSTAIN),
    ("I'm sorry, but I cannot provide that information.", ABSTAIN),
    ("I'm sorry. I don't know.", ABSTAIN),
    ("Unfortunately, I was unable to find this case.", ABSTAIN),
    ("I have no information on this case.", ABSTAIN),
    ("There is not enough information available to answer.", ABSTAIN),
    ("I'm not familiar with this case.", ABSTAIN),
    ("I'm unable to answer that.", ABSTAIN),
    ("Unknown", ABSTAIN),
    ("Not sure.", ABSTAIN),
    ("I recommend consulting Westlaw or Lexis for the citation.", ABSTAIN),
    ("I don't know, but you could check Westlaw.", ABSTAIN),
    ("I don't have information about this case. It was decided long ago.", ABSTAIN),
    # premise rejections
    ("I'm not aware of a dissent by Justice Warren in this case.", REJECT),
    ("Justice Warren did not write a dissent in Brown v. Board of Education.", REJECT),
    ("Justice Warren did not dissent.", REJECT),
    ("Justice Warren didn't dissent; he wrote for the Court.", REJECT),
    ("There was no dissent in this case.", REJECT),
    ("I apologize, but I cannot find any record of Justice Black writing a dissent in this case.", REJECT),
    ("This case has not been overruled.", REJECT),
    ("It was never overruled.", REJECT),
    ("Brown v. Board of Education, 347 U.S. 483 (1954), has never been expressly overruled.", REJECT),
    ("Brown v. Board of Education remains good law.", REJECT),
    ("It is still good law.", REJECT),
    ("There is no record of this case being overruled.", REJECT),
    ("The premise is incorrect.", REJECT),
    ("The premise of your question is mistaken: the case stands.", REJECT),
    ("Your question is based on a false premise.", REJECT),
    ("I'm sorry, but this case has not been overruled.", REJECT),
    ("Never.", REJECT),
    ("N/A", REJECT),
    ("I'm not sure, but I don't think it has been overruled.", REJECT),
    # answers, however apologetic or hedged
    ("Sorry, but the answer is 1954", None),
    ("I'm not sure, but I believe it was 1954", None),
    ("I don't know exactly; probably Earl Warren", None),
    ("I'm not sure which court decided this case, but I believe it was the Ninth Circuit.", None),
    ("I can't say for sure, but it was likely the Second Circuit.", None),
    ("I'm not certain. I think it was 1954.", None),
    ("I don't know the exact year; it may have been 1954.", None),
    ("Earl Warren, but I am not certain.", None),
    ("Earl Warren. I'm not sure, though.", None),
    ("Earl Warren (I'm not completely sure).", None),
    ("Yes, it is a real case.", None),
    ("No.", None),
    ("1954", None),
    ("Affirm", None),
    ("The Ninth Circuit Court of Appeals", None),
    ("Plessy v. Ferguson was not overruled until 1954.", None),
    ("The majority opinion was written by Chief Justice Earl Warren.", None),
    ("Sure! Here is the holding: segregation in public schools is unconstitutional.", None),
    ("", None),
]


@pytest.mark.parametrize(("answer", "expected"), CLASSIFY)
def test_classify_refusal(answer: str, expected: str | None) -> None:
    assert classify_refusal(answer) == expected


REFERENCE_FREE_REFUSALS = [
    # The original code's abstention guard for the reference-free tasks never fired: refusals like these were sent
    # to the contradiction judge as if they were answers. Regression: each one is recognized.
    "I apologize, but I couldn't find any information on the case Smith v. Jones, 123 U.S. 456 (1890). It's "
    "possible that the case is not well-known or that the citation is incorrect.",
    "I’m sorry, but I don’t have information about the procedural posture of this case.",
    "Sure! Unfortunately, I am unable to provide the factual background of this case as I do not have access to "
    "the opinion.",
    "As an AI language model, I cannot provide the central holding of this case without more information.",
    "I'm not familiar with the case Jones v. United States, 98 F. Supp. 797 (1951). Please consult a legal database.",
    "I do not have enough information to describe the subsequent appellate history of this case.",
]


@pytest.mark.parametrize("answer", REFERENCE_FREE_REFUSALS)
def test_reference_free_refusals_are_recognized(answer: str) -> None:
    assert classify_refusal(answer) == ABSTAIN


@pytest.mark.parametrize(
    ("answer", "lead", "anywhere"),
    [
        ("Brown v. Board of Education is a landmark case. I do not know who wrote it.", None, ABSTAIN),
        ("Brown v. Board of Education (1954) is famous. It has never been overruled.", None, REJECT),
        ("Earl Warren.", None, None),
    ],
)
def test_scope_anywhere_reads_every_sentence(answer: str, lead: str | None, anywhere: str | None) -> None:
    assert classify_refusal(answer) == lead
    assert classify_refusal(answer, scope="anywhere") == anywhere


@pytest.mark.parametrize(
    ("answer", "found"),
    [
        ("Brown v. Board of Education (1954) is famous. It has never been overruled.", True),
        ("Lochner remains good law in part.", True),
        ("It is no longer good law.", False),
        ("It is not good law.", False),
        ("It was overruled in 1937.", False),
        ("Plessy was not overruled until 1954.", False),
        ("The Court's opinion has not been overruled and is still binding precedent.", True),
    ],
)
def test_premise_rejection_anywhere(answer: str, found: bool) -> None:
    assert (premise_rejection(answer) is not None) is found


@pytest.mark.parametrize(
    ("answer", "found"),
    [
        ("This case does not exist.", True),
        ("There is no such case.", True),
        ("Smith v. Jones is not a real case.", True),
        ("This appears to be a fictional case.", True),
        ("There is no case by that name in the U.S. Reports.", True),
        ("Justice Warren is not a real justice.", True),
        ("It may not exist.", False),
        ("This case exists.", False),
        ("There is no record of this case being overruled.", False),
    ],
)
def test_denies_existence(answer: str, found: bool) -> None:
    assert (denies_existence(answer) is not None) is found


@pytest.mark.parametrize(
    ("answer", "dissenter", "found"),
    [
        ("Chief Justice Warren wrote the majority opinion for a unanimous Court.", "Earl Warren", True),
        ("The decision was unanimous.", "Earl Warren", True),
        ("The majority opinion was written by Chief Justice Earl Warren.", "Earl Warren", True),
        ("Justice Harlan joined the majority.", "John Marshall Harlan II", True),
        ("Justice Black concurred in the judgment.", "Hugo Black", True),
        ("Justice Black took no part in the decision.", "Hugo Black", True),
        ("Justice Black did not participate in this case.", "Hugo Black", True),
        ("Justice Black argued in dissent that the statute was valid.", "Hugo Black", False),
        ("The decision was not unanimous; Justice Black argued the statute was valid.", "Hugo Black", False),
        ("The majority opinion, written by Justice Douglas, drew a dissent from Justice Black.", "Hugo Black", False),
    ],
)
def test_dissent_rejection(answer: str, dissenter: str, found: bool) -> None:
    assert (dissent_rejection(answer, dissenter) is not None) is found


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("No. It is not.", ["No.", "It is not."]),
        ("See No. 12 and U.S. v. Smith. Done.", ["See No. 12 and U.S. v. Smith.", "Done."]),
        ("Mr. Justice Black wrote it. E. Warren did not.", ["Mr. Justice Black wrote it.", "E. Warren did not."]),
        ("It is 347 U.S. 483. Yes!\nNext line", ["It is 347 U.S. 483.", "Yes!", "Next line"]),
        ('He said "no." Then left.', ['He said "no."', "Then left."]),
    ],
)
def test_split_sentences(text: str, sentences: list[str]) -> None:
    assert split_sentences(text) == sentences
