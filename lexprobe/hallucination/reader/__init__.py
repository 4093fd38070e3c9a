"""The answer reader: which value an answer gives as its answer to the question, among all the values it states.

One concept in three small steps, with the task's phrases as data:

- `candidates`: every value of the task's kind in the answer (years, courts, citations, judges, dispositions,
  agree/disagree), with its span;
- `roles`: what the answer says about each (`predicates.toml`: the phrases that give a value as the answer, and those
  that assert it of something else: the court below, the case's own year, a dissenter, a cited case);
- `choice`: the value given as the answer, or competing values (unscored, both named), or none;
- `stance`: the phrase tables of an answer's stance (`stance.toml`: refusals, hedges, referrals, premise
  rejections, existence affirmations and denials, yes/no words, dissent and overruling phrasings), compiled for the
  rules of `labels.abstention` and `labels.answers` that read refusals, yes/no and premises.

`read.read_answer(task, text)` runs the three on the text the rules read (`tasks.base.reading_of` passes the answer's
normalized text, `labels.answers.answer_text`).

May import: `lexprobe.caselaw`; nothing else of `lexprobe.hallucination` (the labels read with it).
"""
