"""Markup to text, one home for the loaders: CourtListener HTML and Harvard CAP XML, whether as opinion files
(`lexprobe.caselaw.sources.opinions`) or as strings inside JSON records (`lexprobe.caselaw.sources.cap`,
`lexprobe.caselaw.sources.courtlistener_api`).

- Opinion files (`convert_markup`, `cap_xml_to_text`): CAP XML (a document whose root is
  `<opinion>`, with or without an XML declaration) is read with the XML parser, everything else with the HTML
  parser; tags are dropped, entities unescaped (and once more for entities escaped twice in the source), block
  elements become paragraph breaks ("\\n\\n"), `<br>` a line break, and whitespace inside a paragraph collapses
  to one space. Page markers (`<page-number>`, `<span class="star-pagination">`) and Public.Resource.org paragraph
  numbers (`<span class="num">`) are removed, keeping the text around them joined; CAP footnotes keep their label.
  C1 control characters (Windows-1252 bytes read as Latin-1 upstream) are mapped to what they stand for.
- Markup in JSON string fields (`parse_markup`, `element_text`, `markup_text`): parsed with lxml's HTML parser
  after any XML declaration; the text keeps a line break after each block element, with runs of blank lines
  reduced to one.
- An opinion's HTML or XML as CourtListener's API gives it to `check --online` (`html_to_text`, the standard
  library's `HTMLParser`, so no nesting depth loses text): tags dropped, block elements as line breaks, entities
  decoded, scripts and styles left out, star paging kept as " *691 " (a star-pagination span or `<page-number>`,
  its page read from its `label` or its text; another reporter's, `citation-index` other than 1, dropped) so pages
  and pin cites can be checked. Hostile markup is only text: nothing of it is kept as markup.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from typing import Any

import lxml.html
from lxml import etree

# --- opinion files -----------------------------------------------------------------------------------------------

_PARA = "\ue000"  # sentinels (private-use characters; the sources contain none)
_LINE = "\ue001"
_BLOCK_TAG_WORDS = (
    "p div blockquote center h1 h2 h3 h4 h5 h6 pre li ul ol table tr dl dt dd hr section article header footer "
    "opinion author footnote footnote_body judges attorneys headnotes otherdate decisiondate docketnumber parties "
    "syllabus summary disposition court casebody"
)
_BLOCK_TAGS = frozenset(_BLOCK_TAG_WORDS.split())
_CELL_TAGS = frozenset({"td", "th"})
_DROP_TAGS = frozenset({"page-number", "script", "style", "img"})
_DROP_SPAN_CLASSES = frozenset({"star-pagination", "num"})
_LEFTOVER_ENTITY = re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_C1 = re.compile("[\x80-\x9f]")
# Seen in this data: UTF-8 "—" read as Thai cp874 plus C1 bytes, and 0x9E standing for "§" (not cp1252 "ž").
_C1_FIXES = {"\u0e42\x80\x94": "—", "\x9e": "§"}
_XML_START = re.compile(rb"^(?:\xef\xbb\xbf)?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--.*?-->\s*)*<opinion[\s>]", re.DOTALL)

_XML_PARSER = etree.XMLParser(
    huge_tree=True, resolve_entities=False, no_network=True, remove_comments=True, remove_pis=True
)
_HTML_PARSER = etree.HTMLParser(encoding="utf-8", huge_tree=True, remove_comments=True, remove_pis=True)


def is_cap_xml(data: bytes) -> bool:
    """Return True for Harvard CAP XML (root element `<opinion>`), False for CourtListener-style HTML."""
    return _XML_START.match(data[:4096]) is not None


def convert_markup(data: bytes) -> tuple[str, str | None]:
    """Return (clean text, note): the note says when CAP XML was not well-formed and was read as HTML instead."""
    note = None
    if is_cap_xml(data):
        try:
            root = etree.fromstring(data, _XML_PARSER)
        except etree.XMLSyntaxError as exc:
            note = f"CAP XML not well-formed ({exc}); read with the HTML parser instead, text kept"
            root = etree.fromstring(data, _HTML_PARSER)
    else:
        root = etree.fromstring(data, _HTML_PARSER)
    return ("" if root is None else _element_text(root)), note


def cap_xml_to_text(data: bytes) -> str:
    """Convert Harvard CAP XML bytes to clean text (raises `lxml.etree.XMLSyntaxError` if not well-formed)."""
    return _element_text(etree.fromstring(data, _XML_PARSER))


def _element_text(root: etree._Element) -> str:
    """Flatten a parsed tree: drop page markers, mark block boundaries, join the text, tidy whitespace."""
    _label_footnotes(root)
    doomed = []
    for element in root.iter():
        tag = element.tag
        if not isinstance(tag, str):  # comments or processing instructions the parser kept
            doomed.append(element)
            continue
        tag = tag.lower()
        if tag in _DROP_TAGS or (
            tag == "span" and _DROP_SPAN_CLASSES.intersection((element.get("class") or "").split())
        ):
            doomed.append(element)
        elif tag in _BLOCK_TAGS:
            element.text = _PARA + (element.text or "")
            element.tail = _PARA + (element.tail or "")
        elif tag == "br":
            element.tail = _LINE + (element.tail or "")
        elif tag in _CELL_TAGS:
            element.tail = " " + (element.tail or "")
    for element in doomed:
        _remove_keeping_tail(element)
    return tidy_text("".join(root.itertext()))


def _label_footnotes(root: etree._Element) -> None:
    """Put a CAP footnote's label ("1", "*") in front of its text, inside its first paragraph."""
    for footnote in root.iter("footnote"):
        label = (footnote.get("label") or "").strip()
        if not label:
            continue
        first = footnote[0] if len(footnote) and not (footnote.text or "").strip() else None
        if first is not None and isinstance(first.tag, str):
            first.text = f"{label} " + (first.text or "")
        else:
            footnote.text = f"{label} " + (footnote.text or "")


def _remove_keeping_tail(element: etree._Element) -> None:
    """Remove `element` and its content from the tree, keeping the text that follows it in place."""
    parent = element.getparent()
    if parent is None:
        return
    tail = element.tail or ""
    previous = element.getprevious()
    if tail:
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(element)


def tidy_text(raw: str) -> str:
    """Collapse whitespace within paragraphs, keep paragraph and line breaks, unescape leftover entities."""
    paragraphs = []
    for part in " ".join(raw.split()).split(_PARA):
        paragraph = "\n".join(line.strip() for line in part.split(_LINE) if line and not line.isspace())
        if paragraph:
            paragraphs.append(paragraph)
    text = "\n\n".join(paragraphs)
    if "&" in text:  # entities escaped twice in the source ("&amp;amp;") survive one parse
        text = _LEFTOVER_ENTITY.sub(lambda match: html.unescape(match.group(0)), text)
    return fix_c1_controls(text)


def plain_text(raw: str) -> str:
    """Return a plain-text opinion as published, with whitespace runs collapsed and line breaks kept."""
    lines = (" ".join(line.split()) for line in raw.splitlines())
    return fix_c1_controls("\n".join(line for line in lines if line))


def fix_c1_controls(text: str) -> str:
    """Map C1 control characters (Windows-1252 bytes read as Latin-1 upstream: "\\x97") to what they stand for."""
    if _C1.search(text) is None:
        return text
    for wrong, right in _C1_FIXES.items():
        text = text.replace(wrong, right)
    return _C1.sub(_cp1252, text)


def _cp1252(match: re.Match[str]) -> str:
    try:
        return bytes([ord(match.group(0))]).decode("cp1252")
    except UnicodeDecodeError:  # 0x81, 0x8D, 0x8F, 0x90, 0x9D are unassigned: keep them
        return match.group(0)


# --- markup in JSON string fields --------------------------------------------------------------------------------

_LINE_BLOCK_TAGS = frozenset(
    "p div br section article header footer h1 h2 h3 h4 h5 h6 li tr blockquote pre center opinion author"  # noqa: SIM905
    " parties docketnumber court decisiondate otherdate attorneys judges headnotes summary syllabus footnote".split()
)
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
_BLANK_LINES = re.compile(r"\n\s*\n(\s*\n)+")


def parse_markup(markup: str) -> Any | None:
    """Parse HTML or XML markup held in a string (an XML declaration is dropped first) with lxml's HTML parser;
    None when it is blank or cannot be parsed."""
    markup = _XML_DECLARATION.sub("", markup)
    if not markup.strip():
        return None
    try:
        return lxml.html.document_fromstring(markup)
    except (etree.ParserError, ValueError):
        return None


def markup_text(markup: str) -> str:
    """Strip HTML or XML markup to text with paragraph breaks (lxml); empty if it cannot be parsed."""
    root = parse_markup(markup)
    if root is None:
        return ""
    body = root.find("body")
    return element_text(body if body is not None else root)


def element_text(element: Any) -> str:
    """Return the text of an lxml element, with a line break after each block element; scripts dropped."""
    parts: list[str] = []
    _collect_text(element, parts, top=True)
    text = "".join(parts).replace("\r\n", "\n").replace("\r", "\n").replace("\xa0", " ")
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return _BLANK_LINES.sub("\n\n", text).strip()


def _collect_text(element: Any, parts: list[str], top: bool = False) -> None:
    tag = local_name(element)
    if tag is not None and tag not in ("script", "style"):
        if element.text:
            parts.append(element.text)
        for child in element:
            _collect_text(child, parts)
        if tag in _LINE_BLOCK_TAGS:
            parts.append("\n")
    if not top and element.tail:
        parts.append(element.tail)


def local_name(element: Any) -> str | None:
    """Lower-case tag without namespace; None for comments and processing instructions."""
    if not isinstance(element.tag, str):
        return None
    return element.tag.rsplit("}", 1)[-1].rsplit(":", 1)[-1].lower()


# --- CourtListener API opinion markup, star paging kept ----------------------------------------------------------

_API_BLOCK_TAGS = frozenset(
    "p div br li tr td th h1 h2 h3 h4 h5 h6 blockquote pre center section article table footnote opinion author"  # noqa: SIM905
    " parties docketnumber headmatter".split()
)
_API_DROPPED_TAGS = frozenset(("script", "style", "head", "title", "template", "noscript"))
_PAGE_NUMBER = re.compile(r"\d{1,5}")


class _TextParser(HTMLParser):
    """Collect the text of HTML or XML; star-pagination spans and <page-number> elements become " *691 "."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.dropped = 0  # depth inside script/style
        self.page_tag: str | None = None  # the page element we are inside
        self.page_nesting = 0  # open elements of its name inside it, itself included
        self.page_wanted = False  # its page is still to be read from its text ("*691", "*Page 154")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _API_DROPPED_TAGS:
            self.dropped += 1
            return
        if tag in _API_BLOCK_TAGS:
            self.parts.append("\n")
        if self.page_tag is not None:
            self.page_nesting += tag == self.page_tag
            return
        values = {name: value or "" for name, value in attrs}
        if tag == "page-number" or "star-pagination" in values.get("class", "").split():
            self.page_tag, self.page_nesting = tag, 1
            label = _PAGE_NUMBER.fullmatch(values.get("label", "").strip())
            ours = values.get("citation-index", "1") in ("", "1")  # else another reporter's page
            self.page_wanted = ours and label is None
            self.parts.append(f" *{label.group()} " if ours and label is not None else " ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _API_DROPPED_TAGS:
            self.dropped = max(0, self.dropped - 1)
            return
        if tag == self.page_tag:
            self.page_nesting -= 1
            if self.page_nesting == 0:
                self.page_tag = None
                self.parts.append(" ")
        if tag in _API_BLOCK_TAGS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.dropped:
            return
        if self.page_tag is None:
            self.parts.append(data)
        elif self.page_wanted and (page := _PAGE_NUMBER.search(data)) is not None:
            self.parts.append(f" *{page.group()} ")
            self.page_wanted = False


def html_to_text(markup: str) -> str:
    """The text of an opinion's HTML or XML (CourtListener's `html*` and `xml_harvard` fields): tags dropped,
    block elements as line breaks, entities decoded, scripts and styles left out, star paging kept as " *691 "."""
    parser = _TextParser()
    parser.feed(markup)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).split("\n"))
    return "\n".join(line for line in lines if line)
