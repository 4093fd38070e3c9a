"""Issue 12, items 1 and 2: a tampered environment must never make lexprobe read host files.

The sample environment is built, extracted once, then tampered with the way an attacker shipping an environment
would: symbolic links in extracted/ and corpus/, manifest.json entries pointing out of the cache, hostile manifests,
linked folders. The agent's view (`CorpusView.open`, the `read` tool), the investigation run (its episode record,
run.sqlite, stderr) and `lexprobe investigation validate` are checked against each.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tool_requirements import require_read_only_mounts, run_with_read_only

from lexprobe.documents.corpus import MANIFEST, extract_corpus
from lexprobe.errors import BadInputError
from lexprobe.investigation.agent.corpus_view import CorpusView
from lexprobe.investigation.agent.tools import Toolbox
from lexprobe.investigation.environment.validate import validate_environment
from lexprobe.investigation.sample.build import build_sample_environment

SECRET = "HOST-SECRET-5f0c1e"
LEXPROBE = str(Path(sys.executable).with_name("lexprobe"))
CACHED_DOC = "DOC-0008.txt"  # a document of the sample environment ("merits" level) ...
OTHER_DOC = "DOC-0022.txt"
LINKED_DOC = "DOC-0024.txt"  # ... and one a test replaces by a link (.txt, so extracting the link target would work)


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A host file outside the environment that must never reach the agent, the cache or a run."""
    path = tmp_path / "host" / "shadow"
    path.parent.mkdir()
    path.write_text(f"root:{SECRET}:19000:0:99999:7:::\n")
    return path


@pytest.fixture
def env(tmp_path: Path) -> Path:
    """The sample environment with its extracted/ cache filled."""
    env_dir = build_sample_environment(tmp_path / "env", "merits")
    CorpusView.open(env_dir)
    return env_dir


def originals(env: Path) -> dict[str, str]:
    """The texts of an untampered copy of the environment."""
    return dict(CorpusView.open(env).texts)


def leaked(folder: Path) -> list[str]:
    """Regular files under `folder` (links are not followed) that hold the secret."""
    found = []
    for root, _, files in os.walk(folder):
        for name in files:
            path = Path(root) / name
            if not path.is_symlink() and SECRET.encode() in path.read_bytes():
                found.append(str(path))
    return found


def read_tool(view: CorpusView, path: str) -> str:
    box = Toolbox(view, shell=False)
    try:
        return box.call("read", {"path": path}).output
    finally:
        box.close()


def validate(env: Path) -> tuple[int, list[dict], str]:
    """Run `lexprobe investigation validate ENV --json`; return (exit status, problems, stderr)."""
    done = subprocess.run([LEXPROBE, "investigation", "validate", str(env), "--json"], capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    return done.returncode, json.loads(done.stdout or "[]"), done.stderr


def has_error(problems: list[dict], location: str, fragment: str) -> bool:
    return any(p["severity"] == "error" and p["location"] == location and fragment in p["message"] for p in problems)


def edit_manifest(env: Path, change) -> None:
    manifest_path = env / "extracted" / MANIFEST
    manifest = json.loads(manifest_path.read_text())
    change(manifest)
    manifest_path.write_text(json.dumps(manifest))


# --- item 1: the extracted-text cache is confined like the corpus ----------------------------------------------


def test_a_symlinked_cache_text_is_never_read(env: Path, secret: Path) -> None:
    expected = originals(env)
    cached = env / "extracted" / f"{CACHED_DOC}.txt"
    cached.unlink()
    cached.symlink_to(secret)
    view = CorpusView.open(env)
    assert view.texts == expected
    assert SECRET not in read_tool(view, CACHED_DOC)
    assert not cached.is_symlink() and cached.read_text() == expected[CACHED_DOC]  # re-extracted over the link
    assert any(f"extracted/{CACHED_DOC}.txt is a symbolic link" in line for line in view.warnings)


@pytest.mark.parametrize("kind", ["relative escape", "absolute path", "another document's text"])
def test_a_manifest_text_path_other_than_its_own_is_never_read(env: Path, secret: Path, kind: str) -> None:
    expected = originals(env)
    text = {
        "relative escape": os.path.relpath(secret, env / "extracted"),  # ../../host/shadow
        "absolute path": str(secret),
        "another document's text": f"{OTHER_DOC}.txt",
    }[kind]
    edit_manifest(env, lambda manifest: manifest["files"][CACHED_DOC].update(text=text))
    view = CorpusView.open(env)
    assert view.texts == expected and SECRET not in read_tool(view, CACHED_DOC)
    assert any("manifest.json: entry DOC-0008.txt: its text file" in line for line in view.warnings)


HOSTILE_MANIFESTS = {
    "not JSON": b"{not json",
    "a list": b"[]",
    "a string": b'"files"',
    "binary": b"\xff\xfe\x00\x01",
    "deeply nested": b"[" * 200_000,
    "files is a list": b'{"version": 2, "max_bytes": 52428800, "files": []}',
}


@pytest.mark.parametrize("name", [*HOSTILE_MANIFESTS, "wrong types", "entry is a string", "a link", "a folder"])
def test_a_hostile_manifest_neither_crashes_nor_escapes(env: Path, secret: Path, name: str) -> None:
    expected = originals(env)
    manifest_path = env / "extracted" / MANIFEST
    if name in HOSTILE_MANIFESTS:
        manifest_path.write_bytes(HOSTILE_MANIFESTS[name])
    elif name == "wrong types":
        edit_manifest(env, lambda m: m["files"][CACHED_DOC].update(text=5, sha256=[], page_count="x", error={}))
    elif name == "entry is a string":
        edit_manifest(env, lambda m: m["files"].update({CACHED_DOC: str(secret)}))
    elif name == "a link":
        manifest_path.unlink()
        manifest_path.symlink_to(secret)
    else:
        manifest_path.unlink()
        (manifest_path / "sub").mkdir(parents=True)
    view = CorpusView.open(env)
    assert view.texts == expected and SECRET not in read_tool(view, CACHED_DOC)
    assert json.loads(manifest_path.read_text())["files"][CACHED_DOC]["text"] == f"{CACHED_DOC}.txt"  # rewritten
    assert not manifest_path.is_symlink() and secret.read_text().startswith("root:")  # the link target untouched


def test_a_symlinked_cache_folder_is_refused_and_never_written_through(env: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (env / "extracted").rename(tmp_path / "old-extracted")
    (env / "extracted").symlink_to(outside)
    with pytest.raises(BadInputError, match="extracted is a symbolic link"):
        CorpusView.open(env)
    assert list(outside.iterdir()) == []


def test_a_symlinked_cache_subfolder_is_replaced_not_written_through(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    (corpus / "emails").mkdir(parents=True)
    (corpus / "emails" / "0001.txt").write_text("first version\n")
    extract_corpus(corpus)
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "extracted" / "emails").rename(tmp_path / "old-emails")
    (tmp_path / "extracted" / "emails").symlink_to(outside)
    (corpus / "emails" / "0001.txt").write_text("second version\n")
    result = extract_corpus(corpus)
    assert result.texts == {"emails/0001.txt": "second version\n"}
    assert list(outside.iterdir()) == []
    cached = tmp_path / "extracted" / "emails" / "0001.txt.txt"
    assert not (tmp_path / "extracted" / "emails").is_symlink() and cached.read_text() == "second version\n"


def test_a_cached_text_edited_after_extraction_is_ignored(env: Path) -> None:
    expected = originals(env)
    (env / "extracted" / f"{CACHED_DOC}.txt").write_text(f"{SECRET}\n")
    view = CorpusView.open(env)
    assert view.texts == expected
    assert any("does not match its recorded text_sha256" in line for line in view.warnings)


def tamper_cache(env: Path, secret: Path, tamper: str) -> None:
    if tamper == "cache link":
        (env / "extracted" / f"{CACHED_DOC}.txt").unlink()
        (env / "extracted" / f"{CACHED_DOC}.txt").symlink_to(secret)
    elif tamper == "manifest escape":
        edit_manifest(env, lambda m: m["files"][CACHED_DOC].update(text="../../../../../../../../etc/shadow"))
    elif tamper == "manifest absolute":
        edit_manifest(env, lambda m: m["files"][CACHED_DOC].update(text=str(secret)))
    elif tamper == "manifest key escape":
        edit_manifest(env, lambda m: m["files"].update({"../../host/shadow": m["files"][CACHED_DOC]}))
    else:
        (env / "extracted").rename(env.parent / "moved")
        (env / "extracted").symlink_to(secret.parent)


CACHE_TAMPERING = [
    ("cache link", f"extracted/{CACHED_DOC}.txt", "symbolic link (to "),
    ("manifest escape", f'extracted/manifest.json:files["{CACHED_DOC}"].text', "lies outside extracted/"),
    ("manifest absolute", f'extracted/manifest.json:files["{CACHED_DOC}"].text', "lies outside extracted/"),
    ("manifest key escape", 'extracted/manifest.json:files["../../host/shadow"]', "not a corpus path"),
    ("cache folder link", "extracted/", "is a symbolic link (to "),
]


def test_a_clean_cache_has_no_problems(env: Path) -> None:
    assert [p for p in validate_environment(env) if p.location.startswith("extracted/")] == []


@pytest.mark.parametrize(("tamper", "location", "fragment"), CACHE_TAMPERING)
def test_validate_reports_a_tampered_cache(env: Path, secret: Path, tamper: str, location: str, fragment: str) -> None:
    tamper_cache(env, secret, tamper)
    problems = [p.as_dict() for p in validate_environment(env, extract=False)]
    assert has_error(problems, location, fragment), problems


def test_the_validate_command_reports_a_tampered_cache_and_fails(env: Path, secret: Path) -> None:
    tamper_cache(env, secret, "cache link")
    tamper_cache(env, secret, "manifest escape")
    code, problems, stderr = validate(env)
    assert code == 1 and "2 error(s)" in stderr and SECRET not in stderr
    assert has_error(problems, *CACHE_TAMPERING[0][1:]) and has_error(problems, *CACHE_TAMPERING[1][1:])


# --- item 2: corpus files that resolve outside the corpus are never opened -------------------------------------


def test_a_corpus_symlink_is_refused_unread_and_never_cached(
    env: Path, secret: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (env / "corpus" / LINKED_DOC).unlink()
    (env / "corpus" / LINKED_DOC).symlink_to(secret)
    view = CorpusView.open(env)
    assert LINKED_DOC not in view.texts and "symbolic link" in view.errors[LINKED_DOC]
    assert SECRET not in read_tool(view, LINKED_DOC) and SECRET not in json.dumps(view.texts)
    assert leaked(env) == []  # nothing in extracted/ holds the host file
    assert not (env / "extracted" / f"{LINKED_DOC}.txt").exists()  # its old cached text is gone too
    assert any(f"corpus/{LINKED_DOC} is a symbolic link" in line for line in view.warnings)
    assert any(f"corpus/{LINKED_DOC}" in record.getMessage() and record.levelname == "WARNING"
               for record in caplog.records)  # fmt: skip


def test_links_and_odd_files_in_a_corpus_are_refused_without_blocking(tmp_path: Path, secret: Path) -> None:
    """A linked folder, a link inside the corpus and a named pipe: refused, and the pipe never blocks (the old code
    hung opening it, so this runs in a subprocess with a time limit)."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "real.txt").write_text("real text\n")
    (corpus / "linked").symlink_to(secret.parent, target_is_directory=True)
    (corpus / "alias.txt").symlink_to("real.txt")
    os.mkfifo(corpus / "pipe.txt")
    script = (
        "import json, sys; from lexprobe.documents.corpus import extract_corpus\n"
        "r = extract_corpus(sys.argv[1])\n"
        "print(json.dumps({'texts': r.texts, 'refused': r.refused, 'warnings': r.warnings}))\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(corpus)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["texts"] == {"real.txt": "real text\n"}
    assert sorted(result["refused"]) == ["alias.txt", "linked", "pipe.txt"]
    assert len(result["warnings"]) == 3 and SECRET not in done.stdout and leaked(tmp_path / "extracted") == []


def test_a_symlinked_corpus_folder_is_refused(env: Path, secret: Path) -> None:
    (env / "corpus").rename(env / "real-corpus")
    (env / "corpus").symlink_to(secret.parent, target_is_directory=True)
    with pytest.raises(BadInputError, match="corpus is a symbolic link"):
        CorpusView.open(env)
    problems = [p.as_dict() for p in validate_environment(env)]
    assert has_error(problems, "corpus/", "is a symbolic link"), problems


def link_corpus_file(env: Path, secret: Path, where: str) -> tuple[str, str]:
    """Put a corpus symlink in `env`; return the (location, message fragment) validate must report."""
    documents = json.loads((env / "environment.json").read_text())["documents"]
    index = next(i for i, doc in enumerate(documents) if doc["path"] == LINKED_DOC)
    if where == "unlisted":
        (env / "corpus" / "extra.txt").symlink_to(secret)
        return "corpus/extra.txt", "symbolic link (to "
    (env / "corpus" / LINKED_DOC).unlink()
    (env / "corpus" / LINKED_DOC).symlink_to(secret if where.endswith("out") else OTHER_DOC)
    return f"environment.json:documents[{index}].path", (
        "resolves outside corpus/" if where.endswith("out") else "is a symbolic link"
    )


@pytest.mark.parametrize("where", ["listed, pointing out", "listed, pointing inside", "unlisted"])
def test_validate_reports_corpus_symlinks(env: Path, secret: Path, where: str) -> None:
    location, fragment = link_corpus_file(env, secret, where)
    problems = [p.as_dict() for p in validate_environment(env)]
    assert has_error(problems, location, fragment), problems


def test_the_validate_command_reports_a_corpus_symlink_and_fails(env: Path, secret: Path) -> None:
    location, fragment = link_corpus_file(env, secret, "unlisted")
    code, problems, stderr = validate(env)
    assert code == 1 and has_error(problems, location, fragment) and SECRET not in stderr


# --- end to end: an agent's run on a tampered environment ------------------------------------------------------


def test_a_run_on_a_tampered_environment_leaks_nothing_and_warns(
    env: Path, secret: Path, tmp_path: Path, isolated_cache: Path
) -> None:
    cached = env / "extracted" / f"{CACHED_DOC}.txt"
    cached.unlink()
    cached.symlink_to(secret)
    (env / "corpus" / LINKED_DOC).unlink()
    (env / "corpus" / LINKED_DOC).symlink_to(secret)
    calls = [{"name": "read", "arguments": {"path": path}} for path in (CACHED_DOC, LINKED_DOC)]
    script = [
        {"tool_calls": calls},
        {"tool_calls": [{"name": "grep", "arguments": {"pattern": "HOST-SECRET"}}]},
        {"text": "Summary: nothing found."},
        {"when": "give your view on each hypothesis", "text": '[{"label": "H1", "verdict": "C"}]'},
    ]
    (tmp_path / "agent.jsonl").write_text("".join(json.dumps(line) + "\n" for line in script))
    run_dir = tmp_path / "run"
    done = subprocess.run(
        [LEXPROBE, "investigation", "run", str(env), "--model", f"scripted:{tmp_path / 'agent.jsonl'}", "--no-shell",
         "--run-dir", str(run_dir), "--json"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert SECRET not in done.stdout + done.stderr
    assert leaked(run_dir) == [] and leaked(env) == [] and leaked(isolated_cache) == []
    assert f"corpus/{LINKED_DOC}" in done.stderr and f"extracted/{CACHED_DOC}.txt" in done.stderr
    (record,) = (run_dir / "episodes").glob("*.json")
    warnings = json.loads(record.read_text())["warnings"]
    assert any(f"corpus/{LINKED_DOC}" in line for line in warnings)
    assert any(f"extracted/{CACHED_DOC}.txt" in line for line in warnings)


# --- a read-only environment (issue 12 item 11) -------------------------------------------------------------------


def test_a_run_on_a_read_only_environment_extracts_in_memory_and_warns(tmp_path: Path, isolated_cache: Path) -> None:
    require_read_only_mounts()
    env = build_sample_environment(tmp_path / "env", "merits")
    shutil.rmtree(env / "extracted", ignore_errors=True)  # nothing cached: the run must extract and cannot write
    script = [
        {"tool_calls": [{"name": "read", "arguments": {"path": CACHED_DOC}}]},
        {"text": "Summary: read one document."},
        {"when": "give your view on each hypothesis", "text": '[{"label": "H1", "verdict": "C"}]'},
    ]
    (tmp_path / "agent.jsonl").write_text("".join(json.dumps(line) + "\n" for line in script))
    run_dir = tmp_path / "run"
    done = run_with_read_only(
        [env],
        [
            LEXPROBE,
            "investigation",
            "run",
            str(env),
            "--model",
            f"scripted:{tmp_path / 'agent.jsonl'}",
            "--no-shell",
            "--run-dir",
            str(run_dir),
        ],
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "cannot write the extracted-text cache" in done.stderr
    assert not (env / "extracted").exists()
    (record,) = (run_dir / "episodes").glob("*.json")
    episode = json.loads(record.read_text())
    assert episode["status"] == "complete"
    assert any("cannot write the extracted-text cache" in line for line in episode["warnings"])
