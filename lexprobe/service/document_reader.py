"""Read an uploaded document's text for the service, bounded in size, pages, memory and time.

The bytes are written only to a temporary folder (removed once the text is read, before the answer) and read by
`lexprobe.documents.extract`, with every limit of `lexprobe.documents.limits`, in one of a few warm worker
processes; a PDF's pages are shared out among the idle workers (page 1 to the first, page 2 to the second, ...)
and joined in order (`extract.join_pdf_shares`: the same text as one worker's read, or the same error). A read over
`ReadLimits.seconds` (a PDF built to make pypdf crawl, OCR of many scanned pages; all the shares of one read
together) or over `ReadLimits.memory_bytes` of address space (each worker) has its workers killed and replaced,
and fails with one clear line, while the server goes on. The name given with the bytes is used only for its suffix
(the format) and for display; no path from a request is ever opened.
"""

from __future__ import annotations

import logging
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path, PurePosixPath

from lexprobe.documents.errors import ExtractionError
from lexprobe.documents.extract import FORMATS, MAX_BYTES, extract, extract_pdf_share, join_pdf_shares
from lexprobe.documents.limits import PDF_MAX_PAGES
from lexprobe.documents.readers import Extracted, PdfShare
from lexprobe.errors import BadInputError
from lexprobe.terminal import safe_text

__all__ = ["DocumentReader", "ReadLimits", "serve_reads", "upload_name"]

#: Seconds one document's read may take (all its pages, OCR included) before its worker is killed.
READ_TIMEOUT_S = 120.0
#: Address space of a reading worker: `limits.py` keeps one read under about 1 GB; this stops what it misses.
READ_MAX_MEMORY_BYTES = 4 * 1024**3
#: Characters of an upload's name kept for display.
MAX_NAME_CHARS = 200


@dataclass(frozen=True)
class ReadLimits:
    """The bounds of one upload: bytes (`extract.MAX_BYTES`), pages (`limits.PDF_MAX_PAGES`), seconds of reading,
    bytes of the reading worker's address space."""

    max_bytes: int = MAX_BYTES
    max_pages: int = PDF_MAX_PAGES
    seconds: float = READ_TIMEOUT_S
    memory_bytes: int = READ_MAX_MEMORY_BYTES


def upload_name(name: str) -> str:
    """The name of an upload as shown: its last path part (a client's folders dropped), terminal-safe, at most
    `MAX_NAME_CHARS` characters; "document" when nothing is left."""
    base = PurePosixPath(str(name).replace("\\", "/")).name.strip()
    return safe_text(base[:MAX_NAME_CHARS]) or "document"


def serve_reads(memory_bytes: int) -> None:
    """A worker's loop (run as `python -c` by `_Worker`): read the documents named on stdin until told to stop
    (None); answer each on stdout with (text, pages) or an error, or a PDF's share of pages ("share", `PdfShare`)
    when asked for share `share` of `of`. Nothing else may write to the real stdout."""

    answers = Connection(os.dup(1))
    os.dup2(2, 1)  # a stray print of a reader goes to stderr, never into the answers
    requests = Connection(0)
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # a damaged file's warnings: its error is the answer
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    except (ImportError, ValueError, OSError):  # no such limit on this platform: the documents' own limits stand
        pass
    while True:
        try:
            request = requests.recv()
        except EOFError:
            return
        if request is None:
            return
        path, max_bytes, share, of = request
        try:
            if of > 1:
                answers.send(("share", extract_pdf_share(Path(path), share, of, max_bytes), None))
                continue
            extracted = extract(Path(path), max_bytes)
            answers.send(("ok", extracted.text, extracted.page_count))
        except ExtractionError as exc:
            answers.send(("error", exc.reason, None))
        except MemoryError:
            answers.send(("error", f"reading needs more than {memory_bytes:,} bytes of memory", None))


class _Worker:
    """One warm reading process (a fresh interpreter: never a fork of a threaded server) and its pipes."""

    def __init__(self, memory_bytes: int) -> None:

        root = str(Path(__file__).resolve().parents[2])  # the folder holding `lexprobe`
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
        code = f"from lexprobe.service.document_reader import serve_reads; serve_reads({int(memory_bytes)})"
        self.process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        env=env, close_fds=True)  # fmt: skip
        assert self.process.stdin is not None and self.process.stdout is not None
        self.requests = Connection(os.dup(self.process.stdin.fileno()), readable=False)
        self.answers = Connection(os.dup(self.process.stdout.fileno()), writable=False)
        self.process.stdin.close()
        self.process.stdout.close()

    def stop(self, kill: bool = False) -> None:
        """End the process: asked politely, or killed."""
        if not kill:
            try:
                self.requests.send(None)
            except OSError:
                kill = True
        if kill:
            self.process.kill()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.requests.close()
        self.answers.close()


class DocumentReader:
    """A few warm worker processes reading uploads (as many reads at once as workers; others wait their turn)."""

    def __init__(self, workers: int = 2, limits: ReadLimits | None = None) -> None:
        self.limits = limits or ReadLimits()
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._lock = threading.Lock()
        self._closed = False
        self._workers = max(1, workers)
        for _ in range(self._workers):
            self._idle.put(_Worker(self.limits.memory_bytes))

    def read(self, name: str, data: bytes) -> Extracted:
        """The text and page count of the document `data` named `name` (its suffix says the format); a
        `BadInputError` of one line for an unknown format, an empty file, one over a limit, or unreadable."""
        shown = upload_name(name)
        suffix = PurePosixPath(shown).suffix.lower()
        if suffix.lstrip(".") not in FORMATS:
            raise BadInputError(f"cannot read {shown}: unknown format {suffix or '(no suffix)'!r}; known: "
                                f"{', '.join(FORMATS)}")  # fmt: skip
        if not data:
            raise BadInputError(f"cannot read {shown}: empty file")
        if len(data) > self.limits.max_bytes:
            raise BadInputError(f"cannot read {shown}: file too large ({len(data):,} bytes; the limit is "
                                f"{self.limits.max_bytes:,})")  # fmt: skip
        with tempfile.TemporaryDirectory(prefix="lexprobe-upload-") as folder:
            path = Path(folder) / f"document{suffix}"
            path.write_bytes(data)
            extracted = self._in_workers(path, shown)
        if extracted.page_count is not None and extracted.page_count > self.limits.max_pages:
            raise BadInputError(f"cannot read {shown}: {extracted.page_count:,} pages, over the limit of "
                                f"{self.limits.max_pages:,}")  # fmt: skip
        return extracted

    def _in_workers(self, path: Path, shown: str) -> Extracted:
        """Read `path` in one worker, or a PDF in as many idle workers as there are (each a share of its pages,
        joined in order), all within one `limits.seconds`; when the shares cannot tell the result exactly (a share
        over the text budget, too many pages to OCR), the PDF is read again whole, in the time left."""
        if self._closed:
            raise BadInputError("the document reader is closed")
        deadline = time.monotonic() + self.limits.seconds
        workers = self._take(self._workers if path.suffix == ".pdf" else 1)
        if len(workers) > 1:
            of = len(workers)
            answers = self._ask(workers, [(str(path), self.limits.max_bytes, share, of) for share in range(of)],
                                deadline, shown)  # fmt: skip
            try:
                joined = join_pdf_shares(path, [self._share(answer, shown) for answer in answers])
            except ExtractionError as exc:
                raise BadInputError(safe_text(f"cannot read {shown}: {exc.reason}")) from None
            if joined is not None:
                return joined
            workers = self._take(1)
        status, text, pages = self._ask(workers, [(str(path), self.limits.max_bytes, 0, 1)], deadline, shown)[0]
        if status != "ok":
            raise BadInputError(safe_text(f"cannot read {shown}: {text}"))
        return Extracted(text, pages)

    @staticmethod
    def _share(answer: tuple, shown: str) -> PdfShare:
        """A worker's share of a PDF, or the error it answered instead (out of memory)."""
        if answer[0] != "share":
            raise BadInputError(safe_text(f"cannot read {shown}: {answer[1]}"))
        return answer[1]

    def _take(self, most: int) -> list[_Worker]:
        """One worker (waiting for it), and up to `most - 1` more that are idle now (never waiting while holding)."""
        workers = [self._idle.get()]
        while len(workers) < most:
            try:
                workers.append(self._idle.get_nowait())
            except queue.Empty:
                break
        return workers

    def _ask(self, workers: list[_Worker], requests: list[tuple], deadline: float, shown: str) -> list[tuple]:
        """Send each worker its request and wait for every answer until `deadline`; a worker past it, or one that
        stopped, is replaced; every worker is given back."""
        healthy = [False] * len(workers)
        try:
            for worker, request in zip(workers, requests, strict=True):
                worker.requests.send(request)
            answers = []
            for number, worker in enumerate(workers):
                if not worker.answers.poll(max(0.0, deadline - time.monotonic())):
                    raise BadInputError(f"cannot read {shown}: reading took over {self.limits.seconds:g} s (the "
                                        "service's time limit of one document)")  # fmt: skip
                answers.append(worker.answers.recv())
                healthy[number] = True
            return answers
        except (EOFError, OSError):
            raise BadInputError(f"cannot read {shown}: the reading process stopped (over its memory limit of "
                                f"{self.limits.memory_bytes:,} bytes?)") from None  # fmt: skip
        finally:
            for worker, ok in zip(workers, healthy, strict=True):
                self._give_back(worker, ok)

    def _give_back(self, worker: _Worker, healthy: bool) -> None:
        """Put a worker back, or kill it and put a fresh one in its place."""
        if not healthy:
            worker.stop(kill=True)
            with self._lock:
                if self._closed:
                    return
            worker = _Worker(self.limits.memory_bytes)
        if self._closed:
            worker.stop()
        else:
            self._idle.put(worker)

    def close(self) -> None:
        """Stop every idle worker (a busy one stops when its read returns)."""
        with self._lock:
            self._closed = True
        while True:
            try:
                self._idle.get_nowait().stop()
            except queue.Empty:
                return
