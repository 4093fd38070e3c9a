"""The case database's tables. One SQLite file, built whole by `build.py` and read by `query.py`."""

from __future__ import annotations

#: The version of the rules that turn the sources into truths. A database built under other rules is refused (its
#: answers would be scored against outdated truths) until it is rebuilt. 2: an overruling's year is the calendar year
#: of the overruling decision (SCDB date, else the Library of Congress table), never a term year. 3: a case joined
#: by an opinion's CourtListener cluster takes the cluster's parallel citations (S. Ct., L. Ed., Lexis). 4: a case's
#: official citation is chosen by exact reporter (a "U.S. App. LEXIS" or "U.S. App. D.C." citation is not "U.S."),
#: vendor citations (LEXIS, WL) never are one, and a CourtListener opinion joins its own cluster's case first.
#: 5: a combined opinion text is split into its opinions at the build (`opinion_parts`: the majority part, each
#: concurrence and dissent with its author and type), and every opinion text is in a word index (`opinion_text_fts`)
#: that `lexprobe check` searches for a quotation not in its cited case.
RULES_VERSION = 5

SCHEMA = """
CREATE TABLE cases (
    case_id TEXT PRIMARY KEY,          -- stable: '<court_id>:<volume>_<reporter>_<page>' or '<source>:<source id>'
    court_id TEXT,                     -- courts-db id: scotus, ca9, cadc, nysd ...
    level TEXT,                        -- scotus | coa | district
    name TEXT,
    citation TEXT,                     -- the official citation, as printed
    decision_date TEXT,
    year INTEGER,
    term INTEGER,
    docket TEXT,
    author TEXT,                       -- majority opinion author (full name where known)
    disposition TEXT,                  -- affirm | reverse | NULL (the study's coarsening)
    disposition_raw TEXT,
    party_winning INTEGER,
    precedent_alteration INTEGER,
    issue_area INTEGER,
    majority_votes INTEGER,
    minority_votes INTEGER,
    circuit TEXT,
    state TEXT,
    prominence REAL,                   -- percentile 0-100 within the court level
    authority_score REAL,
    hub_score REAL,
    overruled_year INTEGER,            -- earliest year the case was overruled (from the overruling decision)
    overruling_case_id TEXT,
    overruled_in_part INTEGER,
    majority_opinion_id TEXT,
    sources TEXT NOT NULL              -- comma-separated sources that describe the case
);
CREATE INDEX cases_level_year ON cases(level, year);
CREATE INDEX cases_name ON cases(name);
CREATE TABLE case_citations (
    citation_key TEXT NOT NULL,        -- normalized 'VOL REPORTER PAGE'
    case_id TEXT NOT NULL,
    citation TEXT NOT NULL,            -- as printed by the source
    source TEXT NOT NULL,
    PRIMARY KEY (citation_key, case_id)
);
CREATE INDEX case_citations_case ON case_citations(case_id);
CREATE TABLE facts (
    case_id TEXT NOT NULL,
    field TEXT NOT NULL,
    value TEXT NOT NULL,
    source TEXT NOT NULL
);
CREATE INDEX facts_case ON facts(case_id);
CREATE TABLE conflicts (
    case_id TEXT NOT NULL,
    field TEXT NOT NULL,
    value_a TEXT NOT NULL,
    source_a TEXT NOT NULL,
    value_b TEXT NOT NULL,
    source_b TEXT NOT NULL
);
CREATE TABLE overrulings (
    overruled_case_id TEXT,
    overruled_name TEXT NOT NULL,
    overruled_citation TEXT,
    overruled_year INTEGER,
    overruling_case_id TEXT,
    overruling_name TEXT NOT NULL,
    overruling_citation TEXT,
    overruling_docket TEXT,
    overruling_year INTEGER NOT NULL,
    in_part INTEGER NOT NULL,
    note TEXT,
    source TEXT NOT NULL,
    location TEXT NOT NULL
);
CREATE INDEX overrulings_overruled ON overrulings(overruled_case_id);
CREATE TABLE citation_edges (
    citing_case_id TEXT NOT NULL,
    cited_case_id TEXT NOT NULL,
    source TEXT NOT NULL
);
CREATE INDEX citation_edges_citing ON citation_edges(citing_case_id);
CREATE TABLE opinions (
    opinion_id TEXT PRIMARY KEY,
    case_id TEXT,
    cluster_id TEXT,
    opinion_type TEXT NOT NULL,
    is_majority INTEGER NOT NULL,
    author TEXT,
    text TEXT NOT NULL,
    source_file TEXT NOT NULL,
    source TEXT NOT NULL
);
CREATE INDEX opinions_case ON opinions(case_id);
CREATE TABLE opinion_parts (           -- an opinion text holding several opinions, split (caselaw/opinion_index.py)
    opinion_id TEXT PRIMARY KEY,       -- '<opinion id>#<part>'
    part_of TEXT NOT NULL,             -- opinions.opinion_id of the text the part is cut from (mostly combined ones)
    part INTEGER NOT NULL,             -- 0 the text's own opinion (a combined text's majority part), 1, 2, ...
    case_id TEXT,
    opinion_type TEXT NOT NULL,        -- part 0: majority (of a combined text) or the file's type; then dissent |
                                       -- concurrence | concurrence_in_part | statement | separate
    is_majority INTEGER NOT NULL,      -- 1 for a combined text's majority part (part 0 of a file: the file's)
    author TEXT,                       -- part 0: the text's author; else the surname its heading gives
    heading TEXT NOT NULL,             -- 'MR. JUSTICE STEWART, dissenting' ('' for a majority part)
    spans TEXT NOT NULL,               -- its character ranges in the opinion text: 'start-end[,start-end]'
    source TEXT NOT NULL               -- the opinion text's source
);
CREATE INDEX opinion_parts_case ON opinion_parts(case_id);
CREATE VIRTUAL TABLE opinion_text_fts USING fts5(text, content='opinions');
CREATE VIRTUAL TABLE opinion_text_vocab USING fts5vocab(opinion_text_fts, 'row');
CREATE TABLE opinion_text_words (term TEXT PRIMARY KEY, docs INTEGER NOT NULL) WITHOUT ROWID;  -- opinions per word
CREATE TABLE treatments (
    citing_case_id TEXT,
    cited_case_id TEXT,
    citing_name TEXT,
    cited_name TEXT,
    label TEXT NOT NULL,
    agreement TEXT,                    -- agree | disagree | NULL (excluded from the agreement task)
    expert_reviewed INTEGER NOT NULL,
    source TEXT NOT NULL,
    location TEXT NOT NULL
);
CREATE TABLE build_issues (source TEXT NOT NULL, location TEXT NOT NULL, message TEXT NOT NULL);
CREATE TABLE build_info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
