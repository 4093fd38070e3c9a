"""Which documents one `shell` command OPENED (printed their content) and which it only named (SEEN in search).

Coverage and signal recall count opened documents (InvestigationWorlds, Section 4.3: the "fraction of corpus the
agent opens"); a path that a command or its output merely names is "seen in search", a separate measure.

The command is split with `shlex` into sequences (`;`, `&&`, `||`, `&`, newlines) of pipelines (`|`) of simple
commands, as the sandbox's `/bin/sh` sees them: the working directory starts at the corpus root (`/corpus`), `cd`
moves it, paths may be relative, `./`-prefixed or absolute under `/corpus`, and unquoted globs (`*`, `?`, `[...]`)
expand over the corpus view like the shell's (no match across `/`, no hidden names). `for VAR in WORDS; do ...;
done` is unrolled (`$VAR` and `${VAR}` take each word). Per simple command and file argument:

- opened: the file arguments (and `< FILE`) of a command that prints file content: cat, tac, nl, head, tail, sed,
  awk, cut, sort, uniq, strings, fold, fmt, pr, column, expand, unexpand, rev, paste, join, comm, diff, od, xxd,
  hexdump, less, more, iconv. sed and awk count whatever their program prints. grep (grep, egrep, fgrep, rgrep)
  opens a file when it prints lines of that one named file (`grep x FILE`, with or without context), and, with
  context (`-A`, `-B`, `-C`, `--context`, `-NUM`) over several files or `-r`, each file its output names.
- not opened: wc (prints counts, never content), checksums, cmp, file, stat, ls, find, tree, du, echo, grep with
  `-l`, `-L`, `-c`, `-q` or `-o`, grep match lines over several files or `-r` without context, and every other
  program. Content piped into one of the counting commands (wc, a checksum, grep -c/-l/-L/-q/-o) never reaches the
  agent, so `cat a | wc -l` opens nothing, while `cat a | grep x` opens a.
- an opened document counts only when the command printed something (`grep x a` with no match shows nothing of
  a); when the output was cut (`truncated`), only the documents whose path or one of whose lines reached the
  agent count.
- seen: every document whose path (from the root, `./`-prefixed, absolute, or relative to a folder the command
  `cd`-ed into) appears in the output, and every document an `ls`/`tree` lists by its bare name; opened documents
  are not also seen.

Not resolved (nothing counted as opened): file names that reach a command only at run time, through `xargs`,
`find -exec`, `while read`, variables other than a `for` loop's, or command substitution.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

ROOT = "/corpus"  # the corpus folder inside the sandbox (its working directory)
GREPS = {"grep", "egrep", "fgrep", "rgrep"}
# Programs that print the content of their file arguments, with the short options that take a value.
CONTENT_PROGRAMS: dict[str, str] = {
    "cat": "", "tac": "s", "nl": "bdfhilnsvw", "head": "nc", "tail": "ncs", "sed": "efl", "awk": "Ffv",
    "gawk": "Ffv", "mawk": "Ffv", "cut": "bcdf", "sort": "ktoST", "uniq": "fsw", "strings": "nte", "fold": "w",
    "fmt": "wpg", "pr": "hlow", "column": "cstoN", "expand": "t", "unexpand": "t", "rev": "", "paste": "d",
    "join": "12jteo", "comm": "", "diff": "UCWI", "od": "AjNtSw", "xxd": "cglosn", "hexdump": "enfs", "less": "",
    "more": "", "iconv": "ft",
}  # fmt: skip
COUNTING_PROGRAMS = {"wc", "cksum", "sum", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum",
                     "b2sum", "cmp", "true", "false", "test", "[", ":"}  # fmt: skip
LISTING_PROGRAMS = {"ls", "tree", "dir", "vdir"}
_GREP_VALUES = "efmABCdD"
_GREP_LONG_VALUES = {"--regexp", "--file", "--max-count", "--after-context", "--before-context", "--context",
                     "--include", "--exclude", "--exclude-dir", "--label", "--directories", "--devices"}  # fmt: skip
_GREP_CONTEXT = {"-A", "-B", "-C", "-NUM", "--context", "--after-context", "--before-context"}
_GREP_NO_CONTENT = {"-l", "-L", "-c", "-q", "-o", "--files-with-matches", "--files-without-match", "--count",
                    "--quiet", "--silent", "--only-matching"}  # fmt: skip
_GREP_RECURSIVE = {"-r", "-R", "--recursive", "--dereference-recursive"}
_WRAPPERS = {"env": "uCS", "command": "", "builtin": "", "exec": "a", "time": "fo", "nice": "n", "stdbuf": "ioe",
             "timeout": "sk", "nohup": "", "xargs": "adEILnPs"}  # fmt: skip
_KEYWORDS = {"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "(", ")"}
_ENDS = {"done", "fi", "esac"}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PLACEHOLDERS = {"*": "\ue000", "?": "\ue001", "[": "\ue002"}
_RESTORE = {value: key for key, value in _PLACEHOLDERS.items()}
_PATH_TOKEN = re.compile(r"[\w.+@%~/-]+")
_GREP_CONTEXT_LINE = re.compile(r"-\d+-")  # grep's context lines: path-LINE-text
MIN_LINE_CHARS = 12  # a line this long found in cut output shows that its document reached the agent


@dataclass(frozen=True)
class Word:
    """One shell word: its text after quote removal, and its glob pattern when it has unquoted glob characters."""

    text: str
    pattern: str | None = None


@dataclass
class Command:
    """One simple command of a pipeline: its words and the files it reads with `<`."""

    words: list[Word] = field(default_factory=list)
    stdin_files: list[Word] = field(default_factory=list)


@dataclass(frozen=True)
class ShellDocuments:
    """The documents one shell command opened and those it only showed by name, as corpus paths."""

    opened: list[str]
    seen: list[str]


class CorpusPaths:
    """The corpus as the sandbox's shell sees it: documents and the folders that hold them."""

    def __init__(self, paths: Sequence[str]) -> None:
        self.documents = sorted(paths)
        self.doc_set = set(self.documents)
        folders = {str(parent) for path in self.documents for parent in PurePosixPath(path).parents}
        self.folders = {folder for folder in folders if folder != "."}

    def under(self, folder: str) -> list[str]:
        """Every document below a folder ("" = the root)."""
        return [doc for doc in self.documents if not folder or doc.startswith(folder + "/")]

    def children(self, folder: str) -> list[str]:
        """The documents directly in a folder."""
        return [doc for doc in self.under(folder) if str(PurePosixPath(doc).parent).removeprefix(".") == folder]

    def arguments(self, word: Word, cwd: str) -> list[str | None]:
        """The corpus paths the shell passes for one word: the word itself, or what its glob expands to (a glob
        that matches nothing is passed as it is); None for a path outside the corpus."""
        if word.pattern is None:
            return [resolve(cwd, word.text)]
        return self._glob(word.pattern, cwd) or [None]

    def expand(self, word: Word, cwd: str, *, recursive: bool = False) -> list[str]:
        """The documents a file argument names: itself, what its glob expands to, or (with `recursive`) everything
        under a named folder. Names outside the corpus name nothing."""
        targets = self.arguments(word, cwd)
        found: list[str] = []
        for target in targets:
            if target is None:
                continue
            if target in self.doc_set:
                found.append(target)
            elif recursive and (target == "" or target in self.folders):
                found.extend(self.under(target))
        return list(dict.fromkeys(found))

    def _glob(self, pattern: str, cwd: str) -> list[str | None]:
        resolved = resolve(cwd, pattern)
        if resolved is None or not resolved:
            return []
        parts = resolved.split("/")
        matches = []
        for candidate in sorted(self.doc_set | self.folders):
            names = candidate.split("/")
            if len(names) == len(parts) and all(_part_matches(n, p) for n, p in zip(names, parts, strict=True)):
                matches.append(candidate)
        return list(matches)


def _part_matches(name: str, pattern: str) -> bool:
    if name.startswith(".") and not pattern.startswith("."):
        return False  # the shell's globs skip hidden names
    return fnmatch.fnmatchcase(name, pattern)


def resolve(cwd: str, text: str) -> str | None:
    """A path as the sandbox's shell resolves it, as a corpus path ("" = the root); None outside the corpus."""
    if text.startswith("~"):
        return None
    if text.startswith("/"):
        if text != ROOT and not text.startswith(ROOT + "/"):
            return None
        text, cwd = text[len(ROOT) :], ""
    parts: list[str] = [part for part in cwd.split("/") if part]
    for part in text.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(part)
    return "/".join(parts)


# --- parsing ---------------------------------------------------------------------------------------------------


def _protect(command: str) -> str:
    """Replace glob characters that are quoted or escaped by placeholders (so they stay literal), and unquoted
    newlines by `;` (a new command)."""
    out: list[str] = []
    quote = ""
    index = 0
    while index < len(command):
        char = command[index]
        if quote == "'":
            quote = "" if char == "'" else quote
            out.append(_PLACEHOLDERS.get(char, char))
        elif char == "\\" and index + 1 < len(command):
            following = command[index + 1]
            out.append(char + _PLACEHOLDERS.get(following, following))
            index += 1
        elif quote == '"':
            quote = "" if char == '"' else quote
            out.append(_PLACEHOLDERS.get(char, char))
        elif char in "'\"":
            quote = char
            out.append(char)
        else:
            out.append(";" if char == "\n" else char)
        index += 1
    return "".join(out)


def _word(token: str) -> Word:
    text = "".join(_RESTORE.get(ch, ch) for ch in token)
    if not any(ch in token for ch in "*?["):
        return Word(text)
    pattern = "".join(f"[{_RESTORE[ch]}]" if ch in _RESTORE else ch for ch in token)
    return Word(text, pattern)


def split_command(command: str) -> list[list[Command]]:
    """The command's pipelines (in order), each a list of simple commands. Unbalanced quotes: split on spaces."""
    protected = _protect(command)
    try:
        lexer = shlex.shlex(protected, posix=True, punctuation_chars=True)
        lexer.whitespace_split, lexer.commenters = True, ""
        tokens = list(lexer)
    except ValueError:
        tokens = re.findall(r"\|\||&&|[|;&<>()]|[^\s|;&<>()]+", protected)
    pipelines: list[list[Command]] = [[Command()]]
    reading_stdin = False
    for token in tokens:
        if token and set(token) <= set("|&;()<>"):
            reading_stdin = set(token) == {"<"}
            if token in ("|", "|&") or (token.endswith("|") and not token.endswith("||")):
                pipelines[-1].append(Command())
            elif not reading_stdin and ">" not in token:
                pipelines.append([Command()])
            continue
        target = pipelines[-1][-1]
        (target.stdin_files if reading_stdin else target.words).append(_word(token))
        reading_stdin = False
    return [[c for c in pipeline if c.words or c.stdin_files] for pipeline in pipelines if any(
        c.words or c.stdin_files for c in pipeline)]  # fmt: skip


@dataclass
class Options:
    """A command's options as parsed: flags seen, option values, and operands in order."""

    flags: set[str] = field(default_factory=set)
    values: dict[str, str] = field(default_factory=dict)
    operands: list[Word] = field(default_factory=list)


def parse_options(args: Sequence[Word], short_values: str, long_values: set[str] | None = None) -> Options:
    """Parse GNU-style options (clusters `-nA2`, `-20`, `--name=value`, operands anywhere, `--` ends options)."""
    parsed = Options()
    index, only_operands = 0, False
    while index < len(args):
        text = args[index].text
        if only_operands or text == "-" or not text.startswith("-"):
            parsed.operands.append(args[index])
        elif text == "--":
            only_operands = True
        elif text.startswith("--"):
            name, equals, value = text.partition("=")
            parsed.flags.add(name)
            if equals:
                parsed.values[name] = value
            elif name in (long_values or set()) and index + 1 < len(args):
                index += 1
                parsed.values[name] = args[index].text
        elif text[1:2].isdigit():
            parsed.flags.add("-NUM")
        else:
            index = _short_cluster(text[1:], args, index, short_values, parsed)
        index += 1
    return parsed


def _short_cluster(body: str, args: Sequence[Word], index: int, short_values: str, parsed: Options) -> int:
    for position, char in enumerate(body):
        parsed.flags.add("-" + char)
        if char in short_values:
            rest = body[position + 1 :]
            if rest:
                parsed.values["-" + char] = rest
            elif index + 1 < len(args):
                index += 1
                parsed.values["-" + char] = args[index].text
            break
    return index


# --- classifying ---------------------------------------------------------------------------------------------


@dataclass
class Found:
    """What one simple command did to documents: opened them, listed them by bare name, or only counted input."""

    opened: list[str] = field(default_factory=list)
    listed: list[str] = field(default_factory=list)
    counts_input: bool = False


def _program_words(words: list[Word]) -> list[Word]:
    """The words from the program on: leading keywords and assignments and wrappers (`env`, `timeout 5`, ...)
    skipped."""
    index = 0
    while index < len(words):
        text = words[index].text
        if text in _KEYWORDS or _ASSIGNMENT.match(text):
            index += 1
            continue
        name = PurePosixPath(text).name
        if name not in _WRAPPERS:
            return words[index:]
        rest = parse_options(words[index + 1 :], _WRAPPERS[name])
        skip = 1 if name == "timeout" else 0
        inner = [w for w in rest.operands if not _ASSIGNMENT.match(w.text)] if name == "env" else rest.operands
        return _program_words(inner[skip:])
    return []


def classify(command: Command, cwd: str, corpus: CorpusPaths, named: set[str]) -> Found:
    """What one simple command did (see the module docstring); `named` are the documents the output names."""
    words = _program_words(command.words)
    if not words:
        return Found()
    program, args = PurePosixPath(words[0].text).name, words[1:]
    stdin_docs = [doc for word in command.stdin_files for doc in corpus.expand(word, cwd)]  # read without operands
    if program in GREPS:
        return _classify_grep(program, args, cwd, corpus, named, stdin_docs)
    if program in COUNTING_PROGRAMS:
        return Found(counts_input=True)
    if program in LISTING_PROGRAMS:
        options = parse_options(args, "IwT")
        recursive = program == "tree" or "-R" in options.flags or "--recursive" in options.flags
        folders = [resolve(cwd, w.text) for w in options.operands] or [cwd]
        listed = [doc for folder in folders if folder is not None
                  for doc in (corpus.under(folder) if recursive else corpus.children(folder))]  # fmt: skip
        return Found(listed=listed)
    if program not in CONTENT_PROGRAMS:
        return Found()
    options = parse_options(args, CONTENT_PROGRAMS[program])
    operands = options.operands
    if program == "sed" and not ({"-e", "-f", "--expression", "--file"} & options.flags):
        operands = operands[1:]  # the script
    if program.endswith("awk"):
        operands = [w for w in (operands if {"-f", "--file"} & options.flags else operands[1:])
                    if not _ASSIGNMENT.match(w.text)]  # fmt: skip
    return Found(opened=[doc for word in operands for doc in corpus.expand(word, cwd)] if operands else stdin_docs)


def _classify_grep(program: str, args: Sequence[Word], cwd: str, corpus: CorpusPaths, named: set[str],
                   stdin_docs: list[str]) -> Found:  # fmt: skip
    options = parse_options(args, _GREP_VALUES, _GREP_LONG_VALUES)
    operands = options.operands if {"-e", "-f", "--regexp", "--file"} & options.flags else options.operands[1:]
    if options.flags & _GREP_NO_CONTENT:
        return Found(counts_input=True)
    recursive = program == "rgrep" or bool(options.flags & _GREP_RECURSIVE)
    if recursive and not operands:
        operands = [Word(".")]
    files = [doc for word in operands for doc in corpus.expand(word, cwd, recursive=recursive)] or stdin_docs
    passed = [path for word in operands for path in corpus.arguments(word, cwd)]
    if len(files) == 1 and (not operands or passed == files):  # one file named: its lines, without its name
        return Found(opened=files)
    if options.flags & _GREP_CONTEXT and not {"-h", "--no-filename"} & options.flags:
        return Found(opened=[doc for doc in files if doc in named])
    return Found()


# --- the whole command -----------------------------------------------------------------------------------------


def _named_in(output: str, corpus: CorpusPaths, cwds: set[str]) -> tuple[set[str], set[str]]:
    """The documents the output names (by any path form, from any folder the command was in) and every bare token."""
    tokens = set(_PATH_TOKEN.findall(output))
    tokens |= {token.rstrip(".") for token in tokens} | {_GREP_CONTEXT_LINE.split(token)[0] for token in tokens}
    named = set()
    for token in tokens:
        for cwd in cwds:
            path = resolve(cwd, token)
            if path in corpus.doc_set:
                named.add(path)
    for doc in corpus.documents:  # names the token pattern cannot hold (spaces, other punctuation)
        if not _PATH_TOKEN.fullmatch(doc) and doc in output:
            named.add(doc)
    return named, tokens


def _walk(pipelines: list[list[Command]], corpus: CorpusPaths) -> list[tuple[list[Command], str]]:
    """Each pipeline with the working directory it runs in; `cd` moves it (None: outside the corpus, unknown);
    `for` loops are unrolled over their words."""
    walked: list[tuple[list[Command], str]] = []
    cwd: str | None = ""
    loop: tuple[str, list[str]] | None = None
    for pipeline in pipelines:
        words = [w.text for w in pipeline[0].words]
        if words[:1] == ["for"] and len(words) >= 3 and words[2] == "in":
            values = [f"{ROOT}/{path}" if w.pattern and path is not None else w.text
                      for w in pipeline[0].words[3:] for path in corpus.arguments(w, cwd or "")]  # fmt: skip
            loop = (words[1], values)
            continue
        if words and words[0] in _ENDS:
            loop = None
            continue
        if len(pipeline) == 1 and words[:1] == ["cd"]:
            cwd = resolve(cwd, words[1]) if cwd is not None and len(words) > 1 else ("" if len(words) == 1 else None)
            continue
        if cwd is None:
            continue
        if loop is None:
            walked.append((pipeline, cwd))
        else:
            walked.extend((_substitute(pipeline, loop[0], value), cwd) for value in loop[1])
    return walked


def _substitute(pipeline: list[Command], name: str, value: str) -> list[Command]:
    variable = re.compile(r"\$(?:\{" + re.escape(name) + r"\}|" + re.escape(name) + r"(?![A-Za-z0-9_]))")
    return [Command([Word(variable.sub(value, w.text), w.pattern) if "$" in w.text else w for w in command.words],
                    command.stdin_files) for command in pipeline]  # fmt: skip


def shell_documents(
    command: str,
    output: str,
    paths: Sequence[str],
    *,
    printed: bool | None = None,
    truncated: bool = False,
    lines_of: Callable[[str], Sequence[str]] | None = None,
) -> ShellDocuments:
    """Classify one shell command over the corpus `paths` (see the module docstring). `output` is what the agent
    received; `printed` whether the command wrote anything (default: whether `output` is not blank); with
    `truncated`, `lines_of(path)` gives a document's lines to check which opened documents reached the agent
    before the cut."""
    corpus = CorpusPaths(paths)
    walked = _walk(split_command(command), corpus)
    named, tokens = _named_in(output, corpus, {cwd for _, cwd in walked} | {""})
    opened: list[str] = []
    listed: list[str] = []
    for pipeline, cwd in walked:
        found = [classify(c, cwd, corpus, named) for c in pipeline]
        for position, result in enumerate(found):
            listed.extend(result.listed)
            if not any(later.counts_input for later in found[position + 1 :]):
                opened.extend(result.opened)
    printed = bool(output.strip()) if printed is None else printed
    opened = list(dict.fromkeys(opened)) if printed else []
    if truncated and lines_of is not None:
        opened = [doc for doc in opened if doc in named or _reached(lines_of(doc), output)]
    seen = [doc for doc in corpus.documents if doc not in opened and (
        doc in named or (doc in listed and PurePosixPath(doc).name in tokens))]  # fmt: skip
    return ShellDocuments(opened, seen)


def _reached(lines: Sequence[str], output: str) -> bool:
    """Whether one of a document's lines (long enough to be telling) appears in the output."""
    return any(len(line.strip()) >= MIN_LINE_CHARS and line.strip() in output for line in lines)
