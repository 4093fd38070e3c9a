"""What the agent's shell refuses in an awk program (issue 29): awk is a text tool the investigation keeps (`awk
'{print $2}' FILE`, `awk -F'|' ...`), but its language can run commands, which the docs promise the shell refuses
like any script interpreter.

Refused, with a message for the model (`awk_refusal`):

- `system(...)`: runs a command;
- pipes: `print ... | "cmd"` (output to a command), `"cmd" | getline` (a command's output), `|&` (gawk's
  co-process): in awk's code (strings and regular expressions aside) a single `|` is never anything but a pipe,
  `||` is the logical or and stays allowed;
- `@` (gawk's `@load` / `@include` and indirect calls such as `f = "system"; @f("id")`);
- program files and extensions (`-f FILE`, `-E FILE`, `-i FILE`, `-l LIB`, mawk's `-W ...` and their long forms):
  a program the policy cannot read is not run; any option outside the known harmless ones is refused too;
- a program whose strings or regular expressions do not end (the policy cannot tell what is code).

Output redirection into files (`print > "f"`) is refused for every command by `sandbox.refusal` already. The
policy is a courtesy message, like the interpreter refusal: the boundary is still the bubblewrap sandbox
(`sandbox.py`), in which a command that slipped past would stay.

An awk program is found in the command by splitting it into words as /bin/sh does (quotes removed, a quoted `|`
part of its word, an unquoted `|`, `;`, `&`, `(` an operator): every word naming awk (`awk`, `gawk`, `mawk`, `nawk`,
`original-awk`, with any folder, wherever it stands: after `xargs`, `env`, `timeout` too) is followed by its options
and its program, up to the end of that simple command. A command whose quotes do not end is judged as one text. In
a command that names awk, the words after a command word computed at run time (`a=awk; $a '...'`, `$(echo awk)
'...'`) are judged as programs too.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

AWKS = frozenset({"awk", "gawk", "mawk", "nawk", "original-awk", "bwk-awk", "onetrue-awk"})
# options that take a value (separate or attached) and are harmless: field separator, variable assignment
_VALUE_OPTIONS = {"-F": "--field-separator", "-v": "--assign"}
# options carrying program text: checked like the program itself (gawk `-e` / `--source`)
_SOURCE_OPTIONS = ("-e", "--source")
# flags without a value that change nothing dangerous (gawk's --sandbox even disables system() and redirection)
_FLAGS = frozenset({
    "-b", "-c", "-C", "-g", "-n", "-N", "-O", "-P", "-r", "-s", "-S", "-t", "-V", "-h", "-M",
    "--characters-as-bytes", "--traditional", "--copyright", "--gen-pot", "--use-lc-numeric", "--non-decimal-data",
    "--bignum", "--optimize", "--posix", "--re-interval", "--no-optimize", "--sandbox", "--lint-old", "--version",
    "--help", "--usage",
})  # fmt: skip
_SYSTEM = re.compile(r"\bsystem\s*\(")
# After these (the last character of code that is not a space) a `/` opens a regular expression; anywhere else it
# is read as division. Where awk itself might read a regular expression (`a + /re/`), reading division only shows
# more of the program to the checks, never less: a division read as a regular expression could hide a pipe.
_OPERAND_BEFORE = set("(,{};!~&|?:=\n[") | {""}
_KEYWORDS_BEFORE_REGEX = {"print", "printf", "return", "case"}
_OPERATOR_CHARS = "|&;()<>\n"  # the shell's operators (outside quotes)


def is_awk(word: str) -> bool:
    """Whether a command word names awk (any folder, any of its implementations)."""
    return PurePosixPath(word).name in AWKS


def _tokens(command: str) -> list[tuple[str, bool]] | None:
    """The command split into words as /bin/sh reads them: (text, False) for a word with its quotes removed,
    (operator, True) for `|`, `;`, `&&`, `(`, newline ...; None when a quote does not end."""
    tokens: list[tuple[str, bool]] = []
    word: list[str] = []
    in_word = False
    index, size = 0, len(command)

    def finish() -> None:
        nonlocal in_word
        if in_word:
            tokens.append(("".join(word), False))
            word.clear()
            in_word = False

    while index < size:
        char = command[index]
        if char == "'":
            end = command.find("'", index + 1)
            if end < 0:
                return None
            word.append(command[index + 1 : end])
            in_word, index = True, end + 1
        elif char == '"':
            index += 1
            while index < size and command[index] != '"':
                if command[index] == "\\" and index + 1 < size and command[index + 1] in '"\\$`\n':
                    index += 1
                word.append(command[index])
                index += 1
            if index >= size:
                return None
            in_word, index = True, index + 1
        elif char == "\\" and index + 1 < size:
            word.append(command[index + 1])
            in_word, index = True, index + 2
        elif char in _OPERATOR_CHARS:
            finish()
            tokens.append((char, True))
            index += 1
        elif char.isspace():
            finish()
            index += 1
        else:
            word.append(char)
            in_word, index = True, index + 1
    finish()
    return tokens


def _invocations(tokens: list[tuple[str, bool]]) -> list[list[str]]:
    """The arguments of every word naming awk, each up to the end of its simple command (`<` and `>` with their
    file stay in it)."""
    found = []
    for index, (token, operator) in enumerate(tokens):
        if operator or not is_awk(token):
            continue
        arguments = []
        for word, is_operator in tokens[index + 1 :]:
            if is_operator and word not in "<>":
                break
            if not is_operator:
                arguments.append(word)
        found.append(arguments)
    return found


def _option_refusal(option: str) -> str | None:
    """Why an awk option is refused, or None for a harmless one."""
    name = option.split("=", 1)[0]
    if name in _FLAGS:
        return None
    if name in ("-f", "--file", "-E", "--exec", "-i", "--include", "-l", "--load") or name.startswith("-W"):
        return (f"refused: awk {name} loads a program or extension the shell cannot check; give the program inline "
                "(awk '{print $1}' FILE)")  # fmt: skip
    return f"refused: awk option {name!r} is not available here (allowed: -F, -v, -e and plain flags)"


def _programs(arguments: list[str]) -> tuple[list[str], str | None]:
    """The program texts of one awk invocation (its first operand and any -e/--source), or a refusal."""
    programs: list[str] = []
    index = 0
    while index < len(arguments):
        word = arguments[index]
        if word == "--":
            index += 1
            break
        if not word.startswith("-") or word == "-":
            break
        value_option = next((short for short, long in _VALUE_OPTIONS.items()
                             if word in (short, long) or word.startswith((short, long + "="))), None)  # fmt: skip
        source_option = next((o for o in _SOURCE_OPTIONS if word == o or word.startswith(o + "=")), None)
        if value_option is not None:
            index += 2 if word in (value_option, _VALUE_OPTIONS[value_option]) else 1
            continue
        if source_option is not None:
            attached = word.partition("=")[2] if "=" in word else word[len(source_option) :]
            if attached:
                programs.append(attached)
                index += 1
            else:
                programs.extend(arguments[index + 1 : index + 2])
                index += 2
            continue
        reason = _option_refusal(word)
        if reason:
            return programs, reason
        index += 1
    if not programs and index < len(arguments):
        programs.append(arguments[index])  # the program operand (with -e, every operand is a file)
    return programs, None


def _code(program: str) -> str | None:
    """The program with the insides of its strings, regular expressions and comments blanked (`""`, `//`), so
    what remains is awk code; None when a string or regular expression does not end."""
    out: list[str] = []
    previous = ""  # the last character of code that is not a space
    last_word = ""  # the last identifier of code
    index, size = 0, len(program)
    while index < size:
        char = program[index]
        if char == "#":
            end = program.find("\n", index)
            index = size if end < 0 else end
            continue
        if char == '"' or (char == "/" and (previous in _OPERAND_BEFORE or last_word in _KEYWORDS_BEFORE_REGEX)):
            end = _literal_end(program, index, char)
            if end is None:
                return None
            out.append(char * 2)
            previous, last_word, index = char, "", end + 1
            continue
        out.append(char)
        if char.isalnum() or char == "_":  # `last_word`: the last identifier, kept over spaces (`print /re/`)
            joined = index > 0 and (program[index - 1].isalnum() or program[index - 1] == "_")
            last_word = last_word + char if joined else char
        elif not char.isspace():
            last_word = ""
        if not char.isspace():
            previous = char
        index += 1
    return "".join(out)


def _literal_end(program: str, start: int, quote: str) -> int | None:
    """The index of the character closing the string or regular expression opened at `start`, or None."""
    index, bracket = start + 1, False
    while index < len(program):
        char = program[index]
        if char == "\\":
            index += 2
            continue
        if char == "\n":
            return None
        if quote == "/" and char == "[" and not bracket:
            bracket = True
        elif bracket and char == "]":
            bracket = False
        elif char == quote and not bracket:
            return index
        index += 1
    return None


def program_refusal(program: str) -> str | None:
    """Why one awk program is refused (see the module docstring), or None when it only reads and prints."""
    if _SYSTEM.search(program):
        return "refused: awk's system() runs commands; the investigation shell only reads the documents"
    code = _code(program)
    if code is None:
        return "refused: the awk program has a string or regular expression that does not end"
    if _SYSTEM.search(code):
        return "refused: awk's system() runs commands; the investigation shell only reads the documents"
    if re.search(r"(?<!\|)\|(?!\|)", code.replace("||", "  ")):
        return ("refused: awk pipes (print | \"cmd\", \"cmd\" | getline, |&) run commands; use awk to read and print "
                "only")  # fmt: skip
    if "@" in code:
        return "refused: gawk's @load, @include and indirect calls (@f()) are not available here"
    return None


def awk_refusal(command: str) -> str | None:
    """Why a shell command's awk programs are refused (a message for the model), or None when it runs none or only
    programs that read and print."""
    if not any(name in command for name in AWKS):
        return None
    if _SYSTEM.search(command) and any(is_awk(word.strip("'\"();|&")) for word in command.split()):
        return "refused: awk's system() runs commands; the investigation shell only reads the documents"
    tokens = _tokens(command)
    if tokens is None:  # unbalanced quotes: judge the whole text (the shell would not run it anyway)
        return program_refusal(command) if any(is_awk(word.strip("'\"();|&")) for word in command.split()) else None
    for arguments in _invocations(tokens):
        programs, reason = _programs(arguments)
        if reason:
            return reason
        for program in programs:
            reason = program_refusal(program)
            if reason:
                return reason
    for word in _after_dynamic_commands(tokens):  # `a=awk; $a '...'`, `$(echo awk) '...'`: the program is unknown
        reason = program_refusal(word)
        if reason:
            return reason
    return None


def _after_dynamic_commands(tokens: list[tuple[str, bool]]) -> list[str]:
    """The words that follow a command word computed at run time (`$a`, `$(...)`, backticks) in its simple command,
    options aside: in a command that names awk, such a word may be awk's program."""
    words: list[str] = []
    start = True  # at the start of a simple command
    depth = 0  # inside the parentheses of a `$(...)` command word
    dynamic = False
    for token, operator in tokens:
        if operator and token == "(" and depth == 0 and not start and dynamic:
            depth = 1
            continue
        if depth:
            depth += {"(": 1, ")": -1}.get(token, 0) if operator else 0
            continue
        if operator:
            start, dynamic = token not in "<>", dynamic and token in "<>"
            continue
        if start:
            dynamic = token.startswith("$") or "`" in token
            start = False
        elif dynamic and not token.startswith("-"):
            words.append(token)
    return words


__all__ = ["AWKS", "awk_refusal", "is_awk", "program_refusal"]
