"""Check (issue #49): a PDF read in shares by several processes reads exactly as one whole read.

`lexprobe serve` shares a PDF's pages out among its warm reading processes (`service/document_reader.py`) and joins
them (`documents.extract.join_pdf_shares`). For every PDF named (files or folders; default: every PDF under
`$LEXPROBE_DATA/sj_records`), this compares, page by page, the text (or the error) of:

- `extract` of another lexprobe tree (`--old PATH`, e.g. a checkout of main, run in a subprocess), or of this tree;
- the shares of 2 and 3 processes joined, in this process;
- `DocumentReader(2).read` of the file's bytes (the service's path: temporary file, workers, limits).

Prints one line per PDF and the totals; exits 1 on any difference.

Usage: python bench/pdf_shares.py [--old /work/main] [PDF or folder ...]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lexprobe.caselaw.paths import data_root  # noqa: E402
from lexprobe.documents.errors import ExtractionError  # noqa: E402
from lexprobe.documents.extract import extract, extract_pdf_share, join_pdf_shares  # noqa: E402
from lexprobe.errors import BadInputError  # noqa: E402
from lexprobe.service.document_reader import DocumentReader  # noqa: E402

#: Run in a subprocess with PYTHONPATH set to the old tree: each PDF's extract() as JSON.
OLD = """
import json, logging, sys
from pathlib import Path
logging.disable(logging.WARNING)
from lexprobe.documents.errors import ExtractionError
from lexprobe.documents.extract import extract
out = {}
for name in sys.argv[1:]:
    try:
        found = extract(Path(name))
        out[name] = ["ok", found.text, found.page_count]
    except ExtractionError as exc:
        out[name] = ["error", exc.reason, None]
json.dump(out, sys.stdout)
"""


def outcome(job) -> list:
    """["ok", text, pages], ["error", reason, None], or ["read whole", None, None] when the shares cannot tell."""
    try:
        found = job()
    except ExtractionError as exc:
        return ["error", exc.reason, None]
    return ["ok", found.text, found.page_count] if found is not None else ["read whole", None, None]


def reference(paths: list[Path], old: Path | None) -> dict[str, list]:
    """Each PDF's whole read: by the tree at `old` (a subprocess) or by this one."""
    if old is None:
        return {str(path): outcome(lambda path=path: extract(path)) for path in paths}
    env = dict(os.environ, PYTHONPATH=str(old))
    done = subprocess.run([sys.executable, "-c", OLD, *map(str, paths)], env=env, capture_output=True, text=True,
                          check=True)  # fmt: skip
    return json.loads(done.stdout)


def compared(path: Path, want: list, reader: DocumentReader) -> list[str]:
    """The ways of reading `path` that differ from `want`."""
    got = {"this tree's extract": outcome(lambda: extract(path))}
    for of in (2, 3):
        got[f"{of} shares"] = outcome(lambda of=of: join_pdf_shares(path, [extract_pdf_share(path, share, of)
                                                                            for share in range(of)]))  # fmt: skip
    try:
        found = reader.read(path.name, path.read_bytes())
        got["DocumentReader"] = ["ok", found.text, found.page_count]
    except BadInputError as exc:
        got["DocumentReader"] = ["error", str(exc).split(": ", 1)[1], None]
    return [way for way, result in got.items() if result != want]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", type=Path, help="a lexprobe tree whose extract() is the reference (e.g. main)")
    parser.add_argument("pdfs", nargs="*", type=Path, help="PDFs or folders (default: sj_records)")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    named = args.pdfs or [data_root() / "sj_records"]
    paths = sorted({pdf for item in named for pdf in ([item] if item.is_file() else item.rglob("*.pdf"))})
    wanted = reference(paths, args.old)
    reader = DocumentReader(2)
    differ = pages = 0
    try:
        for path in paths:
            want = wanted[str(path)]
            ways = compared(path, want, reader)
            differ += bool(ways)
            pages += want[2] or 0
            print("DIFFERS" if ways else "same", want[0], f"{want[2] or 0} pages", path, *ways, sep="\t")
    finally:
        reader.close()
    print(f"{len(paths)} PDFs, {pages} pages: {differ} read differently")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
