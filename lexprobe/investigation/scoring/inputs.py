"""What scoring reads: the run directories' episodes, the environments they ran on, and the checks that an episode
is scored against the corpus it saw (its ablation level and its corpus hash).

The corpus hash (`corpus_hash`, defined in `lexprobe.investigation.environment.corpus_digest` and re-exported
here) is the SHA-256 of the environment's document list; `investigation score` recomputes it for each environment
it loads and compares it with the one each episode recorded.

Checks (`check_episodes`, run by `load_environments` on the complete episodes): an episode whose ablation level
differs from its environment's, or whose corpus hash differs from the environment's, is refused (`BadInputError`,
exit 2, one line naming the episode, the environment folder and what differs). Episodes that recorded no hash
(run before lexprobe recorded one) are scored, with one warning line counting them; so are episodes whose
environment has no `corpus/` folder to hash.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lexprobe.errors import BadInputError
from lexprobe.investigation.agent.episode import EPISODES_DIR, Episode, load_episodes
from lexprobe.investigation.environment.corpus_digest import corpus_hash  # re-exported: defined with the environment
from lexprobe.investigation.environment.format import ENVIRONMENT_FILE, Environment, load_environment
from lexprobe.investigation.environment.ladder import canonical_level, level_slug

Runs = list[tuple[Path, list[Episode]]]


# --- run directories -------------------------------------------------------------------------------------------


def read_runs(run_dirs: Sequence[Path]) -> Runs:
    """Return (run directory, its episodes) for each run directory. Raises BadInputError (exit 2) for one that is
    not a directory, holds a malformed episode file or no episode at all."""
    runs = []
    for run_dir in run_dirs:
        run_dir = Path(run_dir)
        if not run_dir.is_dir():
            raise BadInputError(f"{run_dir} is not a directory")
        try:
            episodes = load_episodes(run_dir)
        except ValueError as exc:
            raise BadInputError(str(exc)) from None
        if not episodes:
            raise BadInputError(f"{run_dir} holds no episodes ({run_dir / EPISODES_DIR}/*.json)")
        runs.append((run_dir, episodes))
    return runs


# --- environments ----------------------------------------------------------------------------------------------


def _level_folder(level: str) -> str | None:
    try:
        return level_slug(level)
    except ValueError:
        return None


def resolve_env_dir(episode: Episode, run_dir: Path, env_root: Path | None) -> Path | None:
    """Find an episode's environment folder (one holding environment.json): under --env-root first (ENV_ROOT/env_dir
    for a relative env_dir, ENV_ROOT/<folder name of env_dir>, ENV_ROOT/<case id>/<level folder>, ENV_ROOT/<case
    id>), then env_dir itself, then env_dir relative to the run directory. None when none of them holds an
    environment.json. The level folder is the one `investigation build --levels` writes (merits, noise, ...)."""
    recorded = Path(episode.env_dir) if episode.env_dir else None
    candidates: list[Path] = []
    if env_root is not None:
        if recorded is not None and not recorded.is_absolute():
            candidates.append(env_root / recorded)
        if recorded is not None and recorded.name:
            candidates.append(env_root / recorded.name)
        folder = _level_folder(episode.ablation) if episode.ablation else None
        if folder:
            candidates.append(env_root / episode.environment / folder)
        candidates.append(env_root / episode.environment)
    if recorded is not None:
        candidates.append(recorded)
        if not recorded.is_absolute():
            candidates.append(run_dir / recorded)
    return next((path for path in candidates if (path / ENVIRONMENT_FILE).is_file()), None)


@dataclass
class LoadedEnvironment:
    """One environment folder as scoring sees it: its environment.json and its corpus hash (None: no corpus/)."""

    folder: Path
    environment: Environment
    corpus_hash: str | None


def resolve_environments(runs: Runs, env_root: Path | None) -> tuple[dict[str, LoadedEnvironment | None], list[str]]:
    """Load each distinct environment once (and hash its corpus once); return env_dir -> LoadedEnvironment (None
    when missing or unreadable) and the notes to print."""
    cache: dict[Path, LoadedEnvironment | None] = {}
    loaded: dict[str, LoadedEnvironment | None] = {}
    notes: list[str] = []
    for run_dir, episodes in runs:
        for episode in episodes:
            if episode.env_dir in loaded:
                continue
            folder = resolve_env_dir(episode, run_dir, env_root)
            if folder is None:
                loaded[episode.env_dir] = None
                notes.append(
                    f"environment {episode.env_dir or episode.environment!r} not found: coverage and "
                    "recall are null for its episodes, and its level and corpus are not checked (pass --env-root)"
                )
                continue
            key = folder.resolve()
            if key not in cache:
                try:
                    environment = load_environment(folder)[0]
                    cache[key] = LoadedEnvironment(folder, environment, corpus_hash(folder, environment))
                except (OSError, ValueError) as exc:
                    cache[key] = None
                    notes.append(f"environment {folder} unreadable ({exc}): coverage and recall are null for it")
            loaded[episode.env_dir] = cache[key]
    return loaded, notes


def _same_level(a: str, b: str) -> bool:
    try:
        return canonical_level(a) == canonical_level(b)
    except ValueError:
        return a == b


def check_episodes(runs: Runs, loaded: dict[str, LoadedEnvironment | None]) -> list[str]:
    """Refuse a complete episode whose ablation level or corpus hash differs from its environment's (BadInputError,
    one line naming the episode, the environment folder and what differs); return the warnings for episodes that
    could not be checked (no hash recorded, no level recorded, no corpus/ folder)."""
    unhashed: list[str] = []
    unlevelled: list[str] = []
    no_corpus: set[str] = set()
    for _, episodes in runs:
        for episode in episodes:
            env = loaded.get(episode.env_dir)
            if env is None or episode.status != "complete":
                continue
            level = env.environment.ablation
            if not episode.ablation:
                unlevelled.append(episode.episode_id)
            elif not _same_level(episode.ablation, level):
                raise BadInputError(
                    f"episode {episode.episode_id!r} ran at ablation level {episode.ablation!r} but is scored against "
                    f"{env.folder} at level {level!r}; pass the folder of its own level (--env-root)"
                )
            if not episode.corpus_hash:
                unhashed.append(episode.episode_id)
            elif env.corpus_hash is None:
                no_corpus.add(str(env.folder))
            elif episode.corpus_hash != env.corpus_hash:
                raise BadInputError(
                    f"episode {episode.episode_id!r} ran on corpus {episode.corpus_hash[:12]} but {env.folder} "
                    f"now holds corpus {env.corpus_hash[:12]} (its documents changed since the run)"
                )
    return _warnings(unhashed, unlevelled, no_corpus)


def _warnings(unhashed: list[str], unlevelled: list[str], no_corpus: Iterable[str]) -> list[str]:
    notes = []
    if unhashed:
        notes.append(
            f"warning: {len(unhashed)} episode(s) (e.g. {unhashed[0]!r}) recorded no corpus hash (run before "
            "lexprobe recorded one): scored without checking that the corpus is the one they ran on"
        )
    if unlevelled:
        notes.append(
            f"warning: {len(unlevelled)} episode(s) (e.g. {unlevelled[0]!r}) recorded no ablation level: scored "
            "without checking their environment's level"
        )
    for folder in sorted(no_corpus):
        notes.append(f"warning: {folder} has no corpus/ folder: its episodes' corpus hashes were not checked")
    return notes


def load_environments(
    runs: Runs, env_root: Path | None, *, check: bool = True
) -> tuple[dict[str, Environment | None], list[str]]:
    """Load each distinct environment once; return env_dir -> Environment (None when missing or unreadable) and
    the notes to print. With `check` (the default) the complete episodes are checked against their environment
    first (`check_episodes`: BadInputError for a level or corpus that differs)."""
    loaded, notes = resolve_environments(runs, env_root)
    if check:
        notes.extend(check_episodes(runs, loaded))
    return {key: None if env is None else env.environment for key, env in loaded.items()}, notes
