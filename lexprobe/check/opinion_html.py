"""The text of an opinion's HTML or XML as CourtListener's API gives it (`html*` and `xml_harvard` fields), for
`check --online` (`lexprobe.check.online_texts`): tags dropped, block elements as line breaks, entities decoded,
scripts and styles left out, star paging kept as " *691 " so pages and pin cites can be checked. Hostile markup is
only text: nothing of it is kept as markup."""

from __future__ import annotations

import re
from html.parser import HTMLParser

_BLOCK_TAGS = frozenset(
    [
        "p",
        "div",
        "br",
        "li",
        "tr",
        "td",
        "th",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "blockquote",
        "pre",
        "center",
        "section",
        "article",
        "table",
        "footnote",
        "opinion",
        "author",
        "parties",
        "docketnumber",
        "headmatter",
    ]
)
_DROPPED_TAGS = frozenset(("script", "style", "head", "title", "template", "noscript"))
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
        if tag in _DROPPED_TAGS:
            self.dropped += 1
            return
        if tag in _BLOCK_TAGS:
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
        if tag in _DROPPED_TAGS:
            self.dropped = max(0, self.dropped - 1)
            return
        if tag == self.page_tag:
            self.page_nesting -= 1
            if self.page_nesting == 0:
                self.page_tag = None
                self.parts.append(" ")
        if tag in _BLOCK_TAGS:
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
