"""The corpus hash of an environment folder: the SHA-256 of its document list, one line `<path>\\t<sha256>` per
document, sorted by path, over every file under `corpus/` (hidden names skipped, folders that are links not entered)
and every document `environment.json` lists. A listed document that is not there hashes as `missing`, a file
lexprobe refuses to open (a symbolic link, not a regular file) as `refused`, one that cannot be read as
`unreadable`. It depends only on the paths and the files' bytes (not on the extracted text, the manifest, dates or
the environment's annotations), so it is deterministic and cheap (one read of each file). `investigation run`
records it in every episode; `investigation score` recomputes it for each environment it loads
(`lexprobe.investigation.scoring.inputs`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from lexprobe.documents.confined import UnsafePathError, sha256_confined
from lexprobe.documents.corpus import corpus_files
from lexprobe.investigation.environment.format import CORPUS_DIR, Environment, load_environment

__all__ = ["corpus_hash"]


def _file_digest(corpus: Path, rel: str) -> str:
    try:
        return sha256_confined(corpus, rel)
    except UnsafePathError:
        return "refused"
    except FileNotFoundError:
        return "missing"
    except OSError:
        return "unreadable"


def corpus_hash(env_dir: Path, environment: Environment | None = None) -> str | None:
    """Return the hex corpus hash of an environment folder (see the module docstring), or None when it has no
    `corpus/` folder. `environment` (its environment.json) is read from the folder when not given."""
    env_dir = Path(env_dir)
    corpus = env_dir / CORPUS_DIR
    if not corpus.is_dir() or corpus.is_symlink():
        return None
    if environment is None:
        environment = load_environment(env_dir)[0]
    paths = sorted(set(corpus_files(corpus)) | {document.path for document in environment.documents})
    digest = hashlib.sha256()
    for path in paths:
        digest.update(f"{path}\t{_file_digest(corpus, path)}\n".encode())
    return digest.hexdigest()
