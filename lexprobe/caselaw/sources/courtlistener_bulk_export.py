"""The CourtListener bulk export's tables and quoting, as `scripts/make_bulk_data.sh` writes them.

Column lists are the script's (freelawproject/courtlistener, 2025–2026): `COPY <table> (<columns>) TO STDOUT WITH
(FORMAT csv, ENCODING utf8, HEADER, ESCAPE '\\', FORCE_QUOTE *)`. `write_row` renders one row the way PostgreSQL
does in each of the three quotings the export has used, so tests and the benchmark can write files in the real
dialect (the loader itself reads by header name and needs only `courtlistener_bulk.REQUIRED`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TextIO

COLUMNS: dict[str, tuple[str, ...]] = {
    "courts": (
        "id", "pacer_court_id", "pacer_has_rss_feed", "pacer_rss_entry_types", "date_last_pacer_contact",
        "fjc_court_id", "date_modified", "in_use", "has_opinion_scraper", "has_oral_argument_scraper", "position",
        "citation_string", "short_name", "full_name", "url", "start_date", "end_date", "jurisdiction", "notes",
        "parent_court_id",
    ),
    "dockets": (
        "id", "date_created", "date_modified", "source", "appeal_from_str", "assigned_to_str", "referred_to_str",
        "panel_str", "date_last_index", "date_cert_granted", "date_cert_denied", "date_argued", "date_reargued",
        "date_reargument_denied", "date_filed", "date_terminated", "date_last_filing", "case_name_short",
        "case_name", "case_name_full", "slug", "docket_number", "docket_number_core", "pacer_case_id", "cause",
        "nature_of_suit", "jury_demand", "jurisdiction_type", "appellate_fee_status",
        "appellate_case_type_information", "mdl_status", "filepath_local", "filepath_ia", "filepath_ia_json",
        "ia_upload_failure_count", "ia_needs_upload", "ia_date_first_change", "view_count", "date_blocked",
        "blocked", "appeal_from_id", "assigned_to_id", "court_id", "idb_data_id", "originating_court_information_id",
        "referred_to_id", "federal_dn_case_type", "federal_dn_office_code", "federal_dn_judge_initials_assigned",
        "federal_dn_judge_initials_referred", "federal_defendant_number", "parent_docket_id", "docket_number_raw",
        "docket_number_source",
    ),
    "opinion-clusters": (
        "id", "date_created", "date_modified", "judges", "date_filed", "date_filed_is_approximate", "slug",
        "case_name_short", "case_name", "case_name_full", "scdb_id", "scdb_decision_direction",
        "scdb_votes_majority", "scdb_votes_minority", "source", "procedural_history", "attorneys", "nature_of_suit",
        "posture", "syllabus", "headnotes", "summary", "disposition", "history", "other_dates", "cross_reference",
        "correction", "citation_count", "precedential_status", "date_blocked", "blocked", "filepath_json_harvard",
        "filepath_pdf_harvard", "docket_id", "arguments", "headmatter",
    ),
    "opinions": (
        "id", "date_created", "date_modified", "author_str", "per_curiam", "joined_by_str", "type", "sha1",
        "page_count", "download_url", "local_path", "plain_text", "html", "html_lawbox", "html_columbia",
        "html_anon_2020", "xml_harvard", "xml_scan", "html_with_citations", "extracted_by_ocr", "author_id",
        "cluster_id",
    ),
    "citations": ("id", "volume", "reporter", "page", "type", "cluster_id", "date_created", "date_modified"),
    "citation-map": ("id", "depth", "cited_opinion_id", "citing_opinion_id"),
}  # fmt: skip


def quote_value(value: object, dialect: str = "escape") -> str:
    """One value as PostgreSQL's COPY writes it with FORCE_QUOTE *: None is NULL (nothing), booleans `t`/`f`,
    everything else quoted — `\\"`/`\\\\` escapes ("escape", 2025 on), doubled backticks ("backtick", 2024-08-07
    to 2025-01-23) or doubled quotes ("doubled", before)."""
    if value is None:
        return ""
    text = ("t" if value else "f") if isinstance(value, bool) else str(value)
    if dialect == "escape":
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if dialect == "backtick":
        return "`" + text.replace("`", "``") + "`"
    return '"' + text.replace('"', '""') + '"'


def write_table(stream: TextIO, kind: str, rows: Iterable[Mapping[str, object]], dialect: str = "escape") -> int:
    """Write a header (unquoted, as COPY does) and one line per row with the export's columns; return the rows."""
    columns = COLUMNS[kind]
    stream.write(",".join(columns) + "\n")
    count = 0
    for row in rows:
        stream.write(",".join(quote_value(row.get(name), dialect) for name in columns) + "\n")
        count += 1
    return count
