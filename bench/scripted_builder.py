"""A deterministic scripted generator and judge for the construction pipeline (no network, no model).

`ScriptedBuilder` is a TextSource (`complete(calls) -> answers`, see lexprobe.investigation.pipeline.context) that
answers every stage's calls with JSON that passes the stage's schema and code checks, so that a whole build can
run in seconds and its cost can be measured apart from any model.

How an answer is made:
1. Schema-driven: `fill(schema)` walks `call.schema` ($ref, anyOf/oneOf, const, enum, required properties,
   minItems/maxItems, types) and writes a valid value; `conform(schema, value)` coerces a proposed value to the
   schema (unknown keys dropped where the schema forbids them, arrays cut or padded to their size limits, enum
   values replaced by an allowed one). A schema field added tomorrow is filled without an edit here.
2. Stage-specific where code checks need meaning (dispatch on `call.stage` and `call.role`): opinion highlights
   are VERBATIM sentences of the opinion text found in the prompt; statement facts are the numbered facts found in
   the prompt; fact ids, sub-claim ids, entity ids and targets are taken from the ids listed in the prompt; the
   ruling adopts the defendant (the written-for-the-test opinion grants the defendants' motion); alternatives meet
   the contract of pipeline/hypotheses.py; doc plans hold exactly the schema's number of specs with targets
   from the prompt's list and ISO dates in order; documents are dated inside their window, free of exercise
   vocabulary and varied (title words, sentences, figures and names all drawn from a RNG seeded by the spec id).
3. The judge (role "judge", any stage) accepts: booleans true, verdict "accept", no reasons.

Every request is counted per (stage, role) in `counts`, and the time spent writing answers in `seconds` (per stage
in `stage_seconds`), so a benchmark can tell pipeline overhead from the generator's own cost.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import time
from collections import Counter
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

from rapidfuzz import fuzz, process

from lexprobe.investigation.pipeline.context import Answer, LLMCall

PREFERRED_ENUM = (
    "summary_judgment",
    "granted",
    "defendant",
    "accept",
    "factual_analysis",
    "procedural",
    "direct",
    "undisputed",
    "organization",
    "memo",
    "pdf",
)
ERA_START = date(2009, 1, 5)  # synthetic documents are dated in the record's period (2009-2016)
ERA_DAYS = 8 * 365 - 60
FORMAT_OF = {
    "spreadsheet": "xlsx",
    "presentation": "pptx",
    "email": "txt",
    "chat": "txt",
    "letter": "pdf",
    "contract": "docx",
    "policy": "docx",
    "invoice": "pdf",
    "purchase_order": "pdf",
    "memo": "docx",
    "report": "pdf",
    "minutes": "docx",
    "note": "txt",
    "calendar": "txt",
    "deposition": "pdf",
    "other": "pdf",
}
ROLE_TYPES = {
    "signal": ("memo", "email", "minutes", "report", "spreadsheet", "letter"),
    "pro_alternative": ("email", "memo", "invoice", "note", "chat", "letter"),
    "refuting": ("report", "email", "spreadsheet", "letter", "memo"),
    "noise": ("email", "calendar", "memo", "minutes", "presentation", "chat", "note", "report"),
    "chaff": ("invoice", "email", "purchase_order", "spreadsheet", "calendar", "policy", "note", "presentation",
              "chat", "memo", "contract"),
}  # fmt: skip
TOPICS = (
    "parking allocation", "badge renewal", "cafeteria menu", "laptop refresh", "travel reimbursement",
    "office relocation", "printer lease", "holiday schedule", "safety walkthrough", "vendor onboarding",
    "conference room booking", "software license", "fleet maintenance", "mail room hours", "ergonomic review",
    "fire drill", "payroll calendar", "training enrollment", "network outage", "supply order",
    "facilities survey", "visitor policy", "quarterly town hall", "recycling program", "shuttle service",
    "desk assignment", "audit logistics", "records retention", "benefits fair", "wellness challenge",
    "data center cooling", "catering invoice", "janitorial contract", "signage update", "copier service",
    "expense system upgrade", "mentoring program", "blood drive", "charity campaign", "telephone directory",
)  # fmt: skip
QUALIFIERS = ("Quarterly", "Annual", "Revised", "Draft", "Final", "Weekly", "Monthly", "Interim", "Updated",
              "Proposed", "Second", "Follow-up", "Summary", "Pending", "Approved")  # fmt: skip
PLACES = ("Falls Church", "Redondo Beach", "Linthicum", "Palmdale", "San Diego", "Melbourne", "Dulles",
          "Woodland Hills", "Baltimore", "Huntsville", "Colorado Springs", "Chandler")  # fmt: skip
PEOPLE = ("Alicia Moreno", "Brett Kaminski", "Chen Wei", "Dolores Hart", "Evan Pruitt", "Farah Qureshi",
          "Gordon Bell", "Hannah Ostrowski", "Ivan Petrov", "Janelle Brooks", "Kofi Mensah", "Laura Finch",
          "Martin Sosa", "Nadia Rahman", "Oscar Lindqvist", "Paula Greer", "Quentin Hale", "Rosa Delgado")  # fmt: skip
OBJECTS = ("the revised schedule", "the signed form", "the vendor quote", "the updated roster", "the invoice copy",
           "the draft agenda", "the floor plan", "the service ticket", "the renewal notice", "the cost estimate",
           "the sign-in sheet", "the spare keys", "the purchase request", "the meeting notes")  # fmt: skip
SENTENCES = (
    "{person} asked whether {object} could be ready before {weekday}.",
    "The {topic} item for {place} is still open and needs {count} more approvals.",
    "Please send {object} to {person} by {weekday} so the {topic} work can close.",
    "We counted {count} requests at {place} last week, up from {count2} the week before.",
    "{person} confirmed the {topic} budget of {amount} for the {place} site.",
    "The vendor quoted {amount} for the {topic} work and asked for a reply within {count} days.",
    "Nothing changes for staff in {place} until {person} signs off on {object}.",
    "{person} will cover the {topic} desk on {weekday} while {person2} is out.",
    "Attached is {object}; the totals reflect {count} line items at {amount}.",
    "Reminder: the {topic} deadline at {place} moves to {weekday}, and late forms go to {person}.",
    "{person2} flagged a mismatch of {amount} between {object} and the ledger.",
    "The {place} team finished {count} of the {count2} scheduled {topic} tasks.",
    "{person} suggested moving the {topic} review to the {place} conference room.",
    "If {object} is missing, call {person2} at extension {ext}.",
    "Thanks to {person} for sorting out the {topic} backlog in {place}.",
    "The next {topic} check is set for {weekday} at {hour}, with {person2} leading it.",
)  # fmt: skip
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
PERSON_NAMES = {"Lori Marshall", "Debra Hoffman", "Kimberly Peterson", "Denise Whitaker", "Gregory Lund"}
_FLAT_OBJECT = re.compile(r"\{[^{}]*\}")


# --- schema-driven values ---------------------------------------------------------------------------------------


def _resolve(schema: dict, root: dict) -> dict:
    while "$ref" in schema:
        name = schema["$ref"].split("/")[-1]
        schema = {**root.get("$defs", {}).get(name, {}), **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def _branches(schema: dict) -> list[dict]:
    return schema.get("anyOf") or schema.get("oneOf") or []


def _enum_pick(values: Sequence[Any]) -> Any:
    return next((v for v in PREFERRED_ENUM if v in values), values[0])


def fill(schema: dict, root: dict | None = None, name: str = "") -> Any:
    """Return a value valid under `schema` (a JSON schema as pydantic writes it)."""
    root = root if root is not None else schema
    schema = _resolve(schema, root)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return _enum_pick(schema["enum"])
    branches = _branches(schema)
    if branches:
        real = [b for b in branches if _resolve(b, root).get("type") != "null"]
        return fill(real[0], root, name) if real else None
    kind = schema.get("type")
    if kind == "object":
        return {key: fill(sub, root, key) for key, sub in schema.get("properties", {}).items()}
    if kind == "array":
        size = schema.get("minItems", 1 if schema.get("maxItems", 1) else 0)
        return [fill(schema.get("items", {}), root, name) for _ in range(size)]
    if kind == "boolean":
        return True
    if kind == "integer":
        return int(schema.get("minimum", 1))
    if kind == "number":
        return float(schema.get("minimum", 0.5))
    if kind == "null":
        return None
    return f"{name.replace('_', ' ') or 'text'} as recorded" if kind == "string" or kind is None else None


def _matches_kind(branch: dict, value: Any) -> bool:
    kind = branch.get("properties", {}).get("kind", {})
    return isinstance(value, dict) and "kind" in value and value["kind"] in (kind.get("const"), *kind.get("enum", []))


def conform(schema: dict, value: Any, root: dict | None = None, name: str = "") -> Any:
    """Return `value` coerced to `schema`: missing fields filled, forbidden keys dropped, arrays sized, enums fixed."""
    root = root if root is not None else schema
    schema = _resolve(schema, root)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return value if value in schema["enum"] else _enum_pick(schema["enum"])
    branches = [_resolve(b, root) for b in _branches(schema)]
    if branches:
        if value is None and any(b.get("type") == "null" for b in branches):
            return None
        real = [b for b in branches if b.get("type") != "null"]
        chosen = next((b for b in real if _matches_kind(b, value)), None)
        chosen = chosen or next((b for b in real if _type_fits(b, value)), real[0] if real else {})
        return conform(chosen, value, root, name)
    kind = schema.get("type")
    if kind == "object":
        value = value if isinstance(value, dict) else {}
        props = schema.get("properties", {})
        out = {key: conform(sub, value[key], root, key) if key in value else fill(sub, root, key) for key, sub in
               props.items() if key in value or key in schema.get("required", ()) or "default" not in sub}  # fmt: skip
        if schema.get("additionalProperties", True) is not False:
            out.update({k: v for k, v in value.items() if k not in props})
        return out
    if kind == "array":
        items = list(value) if isinstance(value, list) else []
        items = items[: schema.get("maxItems", len(items))]
        while len(items) < schema.get("minItems", 0):
            items.append(items[len(items) % len(items)] if items else fill(schema.get("items", {}), root, name))
        return [conform(schema.get("items", {}), item, root, name) for item in items]
    if not _type_fits(schema, value):
        return fill(schema, root, name)
    return value


def _type_fits(schema: dict, value: Any) -> bool:
    kind = schema.get("type")
    checks = {"string": str, "boolean": bool, "object": dict, "array": list, "null": type(None)}
    if kind in checks:
        return isinstance(value, checks[kind])
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return True


# --- reading prompts ------------------------------------------------------------------------------------------


def listed_objects(prompt: str) -> list[dict]:
    """Return every flat JSON object written into the prompt (the `tojson` lists of ids, facts, entities)."""
    found = []
    for match in _FLAT_OBJECT.finditer(prompt):
        try:
            value = json.loads(match.group(0))
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def listed_ids(prompt: str, prefix: str = "") -> list[str]:
    """Return the distinct "id" values of the prompt's JSON objects (those starting with `prefix`), in order."""
    ids = [str(o["id"]) for o in listed_objects(prompt) if "id" in o and str(o["id"]).startswith(prefix)]
    return list(dict.fromkeys(ids))


def _rng(*parts: object) -> random.Random:
    return random.Random(int(hashlib.sha1("/".join(map(str, parts)).encode()).hexdigest()[:12], 16))


def _key(text: str) -> str:
    words = [w for w in re.findall(r"[A-Za-z0-9]+", text) if len(w) > 3][:4]
    return "_".join(words).upper() + "_" + hashlib.sha1(text.encode()).hexdigest()[:5].upper()


def _base_item(item: str) -> str:
    return item.split("#")[0].split("@")[0]


# --- the builder ----------------------------------------------------------------------------------------------


class ScriptedBuilder:
    """Answers every construction stage deterministically. `quotes`: sentences of the record's opinion a fact may
    quote verbatim; `statement`: (number, text, disputed, reason) of the statement of facts; `names`: the names of
    people and organizations of the record."""

    def __init__(
        self,
        quotes: Sequence[str],
        statement: Sequence[tuple[int, str, bool, str]],
        names: Sequence[str],
        facts_per_chunk: int = 8,
    ) -> None:
        self.quotes = list(quotes)
        self.statement = list(statement)
        self.names = list(names)
        self.facts_per_chunk = facts_per_chunk
        self.counts: Counter[tuple[str, str]] = Counter()
        self.seconds = 0.0
        self.stage_seconds: Counter[str] = Counter()
        self.calls: list[LLMCall] = []
        self.title_keys: list[str] = []  # every planned title so far (letters only), kept apart from each other

    def complete(self, calls: list[LLMCall]) -> list[Answer]:
        """Answer every call (one answer each, in order)."""
        started = time.perf_counter()
        answers = []
        for call in calls:
            self.counts[(call.stage, call.role)] += 1
            self.calls.append(call)
            answers.append(Answer(json.dumps(self.answer(call))))
        spent = time.perf_counter() - started
        self.seconds += spent
        for call in calls[:1]:
            self.stage_seconds[call.stage] += spent
        return answers

    def answer(self, call: LLMCall) -> Any:
        """Return the answer to one call, conformed to its schema."""
        if call.role == "judge":
            proposed: Any = {"verdict": "accept", "reasons": []}
        else:
            handler = getattr(self, f"_{call.stage}", None)
            proposed = handler(call) if handler else {}
        return conform(call.schema, proposed)

    # stage handlers: each proposes a value; `conform` makes it fit the call's schema

    def _opinion(self, call: LLMCall) -> dict:
        found = [q for q in self.quotes if q in call.prompt]
        if not found:  # an unknown opinion: any sentence of 10-30 words in the prompt's second half
            tail = call.prompt[len(call.prompt) // 2 :]
            found = [s for s in re.split(r"(?<=\.)\s+", tail) if 10 <= len(s.split()) <= 30]
        step = max(1, len(found) // self.facts_per_chunk)
        chosen = found[::step][: self.facts_per_chunk]
        facts = [
            {"fact_id": f"op_{_key(q)}", "text": q, "cited_exhibit": None, "highlight_text": q, "opinion_page": None}
            for q in chosen
        ]
        stubs = [
            {"id": f"Q_{_key(q)}", "fact_ids": [f["fact_id"]], "question": f"What does the record show: {q[:80]}?",
             "answer_sketch": q}
            for q, f in zip(chosen[:3], facts, strict=False)
        ]  # fmt: skip
        source = {"id": f"src_{_key(call.item)}", "doc": "Ex. 1", "description": "Committee minutes",
                  "question_stubs": stubs}  # fmt: skip
        branch = {"id": "br_1", "label": "The committees' process", "sources": [source] if stubs else []}
        argument = {"id": "arg_1", "label": "Did the committees follow a prudent process?",
                    "argument_type": "factual_analysis", "branches": [branch], "note": ""}  # fmt: skip
        return {
            "case": "Marshall v. Northrop Grumman Corp.",
            "citation": "No. 2:16-cv-06794",
            "court": "C.D. Cal.",
            "story": "Participants in the Northrop Grumman Savings Plan, a 401(k) plan, sued the plan's committees "
            "over an emerging markets fund and the recordkeeping fees paid to Hewitt Associates between 2009 "
            "and 2016.",
            "facts": facts,
            "arguments": [argument],
        }

    def _souf(self, call: LLMCall) -> dict:
        facts = [
            {"number": str(n), "text": text, "status": "disputed" if disputed else "undisputed",
             "dispute_reason": reason, "cited_exhibit": f"Ex. {100 + n}"}
            for n, text, disputed, reason in self.statement
            if text in call.prompt
        ]  # fmt: skip
        if not facts:
            numbered = re.findall(r"^\s*(\d+)\.\s+(.{20,}?)$", call.prompt, re.M)
            facts = [{"number": n, "text": t, "status": "undisputed", "dispute_reason": "", "cited_exhibit": None}
                     for n, t in dict(numbered).items()]  # fmt: skip
        return {"movant": "defendant", "facts": facts}

    def _ground_facts(self, call: LLMCall) -> dict:
        sources = [o for o in listed_objects(call.prompt) if "id" in o and "text" in o]
        embeddings = ("direct", "pattern", "either")
        facts = [
            {"key": f"F_{_key(str(o['id']))}", "text": str(o["text"]), "sources": [str(o["id"])],
             "embedding": embeddings[n % 3]}
            for n, o in enumerate(sources)
        ]  # fmt: skip
        return {"facts": facts}

    def _party_dags(self, call: LLMCall) -> dict:
        ids = listed_ids(call.prompt, "gf_")
        party = _base_item(call.item)
        own = ids[0::2] if party == "plaintiff" else ids[1::2]
        own = own or ids
        groups = [own[k::3] for k in range(3) if own[k::3]]
        claim = {
            "plaintiff": "The committees kept a lagging fund and let the recordkeeper charge too much for years.",
            "defendant": "The committees reviewed every fund each quarter and cut the recordkeeping fee twice.",
        }.get(party, "The committees acted as the record shows.")
        sub_claims = [
            {"label": f"{party.title()} account, part {n}", "supporting_fact_ids": group[:30],
             "source_section": f"POINT {'I' * n}"}
            for n, group in enumerate(groups, start=1)
        ]  # fmt: skip
        return {"claim": claim, "sub_claims": sub_claims}

    def _ruling(self, call: LLMCall) -> dict:
        sub_ids = list(dict.fromkeys(re.findall(r'"sub_claim_id":\s*"([^"]+)"', call.prompt)))
        rulings = [
            {"sub_claim_id": s, "ruling": "accepted" if s.startswith("hd") else "rejected", "rationale_quote": ""}
            for s in sub_ids
        ]
        return {
            "movant": "defendant",
            "disposition": "granted",
            "dispositive_question": "Did the committees follow a prudent process in reviewing the fund and the fee?",
            "adopted_party": "defendant",
            "sub_claim_rulings": rulings,
            "summary": "The court granted the defendants' motion for partial summary judgment. It found that the "
            "committees' process was prudent.",
        }

    def _entities(self, call: LLMCall) -> dict:
        if _base_item(call.item) == "merge":
            names = [o for o in listed_objects(call.prompt) if "name" in o]
            entities = [
                {"key": _key(str(o["name"])), "name": str(o["name"]), "kind": o.get("kind", "other"), "aliases": [],
                 "description": f"{o['name']} as named in the record."}
                for o in names
            ]  # fmt: skip
            return {"entities": entities}
        found = [n for n in self.names if n in call.prompt] or [self.names[0]]
        mentions = [
            {"name": n, "kind": "person" if n in PERSON_NAMES else "organization", "context": "named in the record"}
            for n in found
        ]
        return {"mentions": mentions}

    def _exhibits(self, call: LLMCall) -> dict:
        return {"doc_type": "other", "title": "Exhibit of the record", "date": None, "author": None, "mentions": []}

    def _alternatives(self, call: LLMCall) -> dict:
        ids = listed_ids(call.prompt, "gf_")
        first, second = ids[0:3], (ids[3:6] if len(ids) >= 6 else ids[-3:])

        def injected(text: str, doc_type: str) -> dict:
            return {"text": text, "embedding": "direct", "doc_type_hint": doc_type, "entity_hint": ""}

        alternatives = [
            {
                "claim": "A payroll contractor held back participant contributions for weeks in 2012 before "
                "depositing them, which cost participants market gains.",
                "sub_claims": ["Deposits of contributions were late in 2012."],
                "ground_fact_ids": first,
                "injected_supporting": [
                    injected(
                        "A 2012 payroll contractor log lists contribution batches deposited 19 days after payday.",
                        "spreadsheet",
                    ),
                    injected(
                        "An email from the payroll contractor in June 2012 apologizes for a batch delay.", "email"
                    ),
                ],
                "injected_refuting": [
                    injected(
                        "The trustee's 2012 receipt ledger shows every contribution batch credited within "
                        "two business days of payday.",
                        "report",
                    ),
                ],
                "ground_refuting_fact_ids": [],
                "why_plausible": "A late-deposit log makes lost gains look likely.",
                "why_refuted": "The trustee's ledger shows timely credits for every batch.",
            },
            {
                "claim": "An outside asset manager paid for Investment Committee members' conference travel in "
                "2014 to keep its fund on the lineup.",
                "sub_claims": ["Conference travel was paid by an asset manager."],
                "ground_fact_ids": second,
                "injected_supporting": [
                    injected(
                        "A 2014 conference invoice is addressed to an asset manager for four committee "
                        "members' hotel rooms.",
                        "invoice",
                    ),
                ],
                "injected_refuting": [
                    injected(
                        "Northrop Grumman's 2014 expense reports show the company paid the same hotel "
                        "invoice and was never reimbursed.",
                        "spreadsheet",
                    ),
                ],
                "ground_refuting_fact_ids": [],
                "why_plausible": "An invoice in a manager's name suggests a gift.",
                "why_refuted": "The company's own expense reports show it paid.",
            },
        ]
        return {"alternatives": alternatives}

    def _doc_plans(self, call: LLMCall) -> dict:
        count = _array_size(call.schema, "specs")
        item = call.item
        role = item.split(":")[0].split("#")[0]
        untargeted = role in ("noise", "chaff")
        targets = [] if untargeted else [i for i in listed_ids(call.prompt) if not i.startswith("e_")]
        authors = listed_ids(call.prompt, "e_")
        rng = _rng("plan", item, call.attempt)
        types = ROLE_TYPES.get(role, ROLE_TYPES["chaff"])
        specs = []
        for n in range(count):
            doc_type = types[(rng.randrange(len(types)) + n) % len(types)]
            start = ERA_START + timedelta(days=rng.randrange(ERA_DAYS))
            topic = rng.choice(TOPICS)
            specs.append(
                {
                    "series": f"{topic} {start.year}",
                    "doc_type": doc_type,
                    "format": FORMAT_OF[doc_type],
                    "title": self._new_title(rng, topic, doc_type, start),
                    "author_entity": rng.choice(authors) if authors and rng.random() < 0.7 else "",
                    "date_from": start.isoformat(),
                    "date_to": (start + timedelta(days=rng.randint(0, 40))).isoformat(),
                    "target_fact": None if untargeted else (targets[n % len(targets)] if targets else None),
                    "brief": f"A routine {doc_type.replace('_', ' ')} about the {topic} in {rng.choice(PLACES)}.",
                }
            )
        return {"specs": specs}

    def _new_title(self, rng: random.Random, topic: str, doc_type: str, start: date) -> str:
        """Return a title unlike every title planned before (the pipeline refuses near-identical titles)."""
        title = ""
        for _ in range(50):
            title = (
                f"{rng.choice(QUALIFIERS)} {topic} {doc_type.replace('_', ' ')}, {rng.choice(PLACES)}, {start:%B %Y}"
            )
            key = " ".join(re.findall(r"[a-z]+", title.lower()))
            if process.extractOne(key, self.title_keys, scorer=fuzz.ratio, score_cutoff=85) is None:
                break
            topic = rng.choice(TOPICS)
        self.title_keys.append(" ".join(re.findall(r"[a-z]+", title.lower())))
        return title

    def _shard_plans(self, call: LLMCall) -> dict:
        rng = _rng("shards", call.item)
        start = ERA_START + timedelta(days=rng.randrange(ERA_DAYS))
        kinds = (("calendar", "txt"), ("email", "txt"), ("spreadsheet", "xlsx"), ("memo", "docx"))
        shards = []
        for n, (doc_type, fmt) in enumerate(kinds[: 3 + rng.randrange(2)]):
            day = start + timedelta(days=3 * n)
            shards.append(
                {
                    "shard_text": f"a {doc_type} dated {day.isoformat()} naming {rng.choice(PEOPLE)}",
                    "doc_type": doc_type,
                    "format": fmt,
                    "author_entity": "",
                    "date": day.isoformat(),
                    "instructions": f"A short {doc_type} of {day:%B %d, %Y} in the {rng.choice(PLACES)} office.",
                }
            )
        return {"synthesis_check": "Read together, the pieces place the event in time.", "shards": shards}

    def _generate(self, call: LLMCall) -> dict:
        return scripted_document(call.prompt, call.item)


def _array_size(schema: dict, field: str) -> int:
    prop = schema.get("properties", {}).get(field, {})
    return int(prop.get("minItems", 1))


def _window(prompt: str, rng: random.Random) -> str:
    found = re.search(r"dated between (\d{4}-\d{2}-\d{2}) and (\d{4}-\d{2}-\d{2})", prompt)
    if not found:
        return (ERA_START + timedelta(days=rng.randrange(ERA_DAYS))).isoformat()
    start, end = date.fromisoformat(found.group(1)), date.fromisoformat(found.group(2))
    return (start + timedelta(days=rng.randint(0, max(0, (end - start).days)))).isoformat()


def _line(prompt: str, label: str, default: str) -> str:
    found = re.search(rf"^- {label}: (.+)$", prompt, re.M)
    return found.group(1).strip() if found else default


def _sentence(rng: random.Random) -> str:
    people = rng.sample(PEOPLE, 2)
    return rng.choice(SENTENCES).format(
        person=people[0], person2=people[1], object=rng.choice(OBJECTS), topic=rng.choice(TOPICS),
        place=rng.choice(PLACES), weekday=rng.choice(WEEKDAYS), count=rng.randint(2, 60), count2=rng.randint(2, 60),
        amount=f"${rng.randint(120, 98_000):,}.{rng.randint(0, 99):02d}", ext=rng.randint(2000, 7999),
        hour=f"{rng.randint(8, 16)}:{rng.choice(('00', '15', '30', '45'))}",
    )  # fmt: skip


def _paragraph(rng: random.Random, sentences: int) -> str:
    return " ".join(_sentence(rng) for _ in range(sentences))


def scripted_document(prompt: str, item: str) -> dict:
    """Return a `DocumentContent` for the generate prompt of spec `item`: its doc_type and title, dated inside its
    window, carrying the proposition or evidence the prompt asks for, and varied by a RNG seeded by the spec id."""
    rng = _rng("document", item)
    doc_type = _line(prompt, "doc_type", "memo")
    title = _line(prompt, "title", f"{rng.choice(QUALIFIERS)} {rng.choice(TOPICS)} note")
    author = _line(prompt, "written by", rng.choice(PEOPLE))
    when = _window(prompt, rng)
    carried = re.search(r'(?:verify this proposition|Carry only this piece of evidence): "([^"]+)"', prompt)
    core = [carried.group(1)] if carried else []
    paragraphs = [_paragraph(rng, rng.randint(2, 5)) for _ in range(rng.randint(1, 3))]
    if core:
        paragraphs.insert(rng.randrange(len(paragraphs) + 1), core[0])
    body = _body(doc_type, paragraphs, when, rng)
    recipients = rng.sample(PEOPLE, rng.randint(1, 3))
    return {
        "doc_type": doc_type,
        "title": title,
        "date": when,
        "author": author,
        "recipients": recipients,
        "cc": [],
        "subject": title,
        "body": body,
        "metadata": {},
    }


def _body(doc_type: str, paragraphs: list[str], when: str, rng: random.Random) -> list[dict]:
    """Return body blocks in the conventions of `doc_type` (see the prompt's doc-type styles)."""
    if doc_type in ("invoice", "purchase_order", "spreadsheet"):
        rows = [[when, _sentence(rng)[:60], f"${rng.randint(50, 40_000):,}.00"] for _ in range(rng.randint(3, 12))]
        block = {"kind": "table", "header": ["Date", "Description", "Amount"], "rows": rows}
        if doc_type == "spreadsheet":
            block = {"kind": "sheet", "name": "Sheet1", "header": ["Date", "Description", "Amount"], "rows": rows}
        return [block, {"kind": "paragraph", "text": paragraphs[0]}]
    if doc_type == "presentation":
        return [{"kind": "slide", "title": p.split(".")[0][:60], "bullets": [s for s in p.split(". ") if s][:5]}
                for p in paragraphs]  # fmt: skip
    if doc_type == "chat":
        return [{"kind": "chat_message", "timestamp": f"{when}T{9 + n:02d}:{rng.randint(0, 59):02d}",
                 "sender": rng.choice(PEOPLE), "text": p} for n, p in enumerate(paragraphs)]  # fmt: skip
    if doc_type == "calendar":
        return [{"kind": "calendar_entry", "title": paragraphs[0].split(".")[0][:60], "start": f"{when}T10:00",
                 "end": f"{when}T11:00", "location": rng.choice(PLACES), "attendees": rng.sample(PEOPLE, 3),
                 "text": " ".join(paragraphs)}]  # fmt: skip
    if doc_type == "deposition":
        return [{"kind": "qa", "speaker": "QA"[n % 2], "text": p} for n, p in enumerate(paragraphs * 2)]
    if doc_type in ("contract", "policy"):
        return [{"kind": "numbered_section", "number": str(n), "heading": p.split(" ")[0], "text": p}
                for n, p in enumerate(paragraphs, start=1)]  # fmt: skip
    return [{"kind": "paragraph", "text": p} for p in paragraphs]
