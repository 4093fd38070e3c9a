"""Benchmark: build a paper-sized InvestigationWorlds environment from a whole record, one folder per ablation level.

The record is the real Marshall v. Northrop RECAP filings (`sj_records/marshall_v_northrop`, 28 PDFs, linked or
copied into a work folder, never into the repository) PLUS three WRITTEN-FOR-THE-TEST filings
(`bench/marshall_fiction.py`): the real record has no opinion, and its statement of uncontroverted facts and the
response to it are sealed placeholders, so the bench adds a fictional ~33-page opinion granting the defendants'
motion for partial summary judgment, a fictional statement of uncontroverted facts and a fictional statement of
genuine disputes. Every exhibit of the real record is an expert's, so the corpus has no merits exhibit: every
document of the environment is synthetic.

Every model request is answered by `bench/scripted_builder.py` (a deterministic scripted generator and judge: no
network, no model), so the figures are the pipeline's own cost: extraction, chunked reading, checks, planning,
rendering, assembly of every level and validation. With a real model, the generator's requests are the only
thing that grows with model speed; their number is reported per stage and role.

Measured: total wall time of the build (fresh process, cold: DIR must be new or empty) and the process's CPU
time (user + system, a fairer figure on a shared machine), seconds per stage (from the stage
files), the time spent inside the scripted generator (so the rest is pipeline overhead), "assembly and rendering"
(the generate stage less the generator's own time, plus the assemble stage; goal: 600 documents in under 5
minutes on 2 cores), peak memory (getrusage maxrss of this process and of its children), requests per stage and
role, documents per role per level, and `validate_environment` on every level folder (errors must be 0; timed
apart from the build).

Usage: python bench/build_scale.py --out DIR [--size paper|small] [--filings all|few] [--context-tokens N] [--keep]
                                  [--json]
  --keep             keep the assembled record folder (DIR/record); by default it lives in a temporary folder.
  --filings few      only 4 of the 28 real filings (the test's quick build); default: all of them.
  --context-tokens   the generator's context window, which sizes the reading chunks (default 128,000, an
                     API-class model; a smaller one means more, smaller requests).
Progress goes to stderr; the table (or the JSON with --json) to stdout. Exit 2 when DIR is not empty or the data
is missing, 1 when a stage fails or a level has validation errors.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import marshall_fiction
from scripted_builder import ScriptedBuilder

from lexprobe.caselaw.paths import data_root
from lexprobe.investigation.environment.format import load_environment
from lexprobe.investigation.environment.validate import errors_in, validate_environment
from lexprobe.investigation.pipeline.context import STAGES_DIR, BuildSettings
from lexprobe.investigation.pipeline.runner import run_build

RECORD = "sj_records/marshall_v_northrop"
PAPER_MINIMUM = 550  # documents the issue asks for at +chaff100
#: The few real filings of `--filings few` (the test's quick build): the defendants' brief and reply, and the sealed
#: placeholders of the statement of facts and of the response.
#: The generator's context window assumed by default (tokens): an API-class model, as the paper's generators.
DEFAULT_CONTEXT = 128_000
FEW_FILINGS = ("168.1_2", "198.1", "168.2_1", "198.2")


def marshall_dir() -> Path:
    """Return the real Marshall v. Northrop record folder (under LEXPROBE_DATA)."""
    return data_root() / RECORD


def assemble_record(folder: Path, filings: str = "all") -> Path:
    """Link (or copy) the real Marshall filings (all, or the `FEW_FILINGS`) into `folder` and write the
    written-for-the-test filings beside them."""
    folder.mkdir(parents=True, exist_ok=True)
    for source in sorted(marshall_dir().iterdir()):
        few = any(source.name.endswith(f".{name}.pdf") for name in FEW_FILINGS)
        if source.is_file() and (filings == "all" or few):
            target = folder / source.name
            try:
                os.link(source, target)
            except OSError:
                shutil.copy2(source, target)
    marshall_fiction.write_filings(folder)
    return folder


def all_levels() -> list[str]:
    """Return every ablation level, in ladder order."""
    try:
        from lexprobe.investigation.environment.ladder import LEVELS

        return list(LEVELS)
    except ImportError:  # before the one-ladder module existed
        from lexprobe.investigation.pipeline.ablation import ABLATION_LEVELS

        return list(ABLATION_LEVELS)


def settings_for(size: str, context: int | None = None) -> BuildSettings:
    """Return the build settings: `size` preset, the generator's `context` (tokens) and every level, where
    BuildSettings has those fields."""
    fields = BuildSettings.model_fields
    options: dict[str, Any] = {
        "generator": "bench-scripted",
        "judge": "bench-scripted-judge",
        "fictional": True,
        "case_id": "marshall-v-northrop-bench",
        "seed": 0,
    }
    if "size" in fields:
        options["size"] = size
    elif size == "paper":  # before size presets existed: the paper's counts by hand
        options |= {"docs_per_role": 20, "chaff_docs": 500, "shard_facts": 2}
    if "levels" in fields:
        options["levels"] = all_levels()
    if context and "context_tokens" in fields:
        options["context_tokens"] = context
    return BuildSettings(**options)


def level_folders(out: Path) -> dict[str, Path]:
    """Return {level: folder} of every environment written under `out` (the level read from environment.json)."""
    found = {}
    for env_file in sorted(out.rglob("environment.json")):
        if "record" in env_file.relative_to(out).parts[:1]:
            continue
        raw = json.loads(env_file.read_text(encoding="utf-8"))
        level = raw.get("level") or raw.get("ablation") or env_file.parent.name
        found[str(level)] = env_file.parent
    return found


def stage_seconds(out: Path) -> dict[str, float]:
    """Return {stage: seconds} from the stage files of a build."""
    seconds = {}
    for path in sorted((out / STAGES_DIR).glob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        seconds[raw["stage"]] = float(raw.get("seconds", 0.0))
    return seconds


def level_summary(folder: Path) -> dict[str, Any]:
    """Return the documents per role, the total and the validator's errors and warnings of one level folder."""
    env, _ = load_environment(folder)
    roles = Counter(d.role.value for d in env.documents)
    problems = validate_environment(folder)
    errors = errors_in(problems)
    return {
        "folder": str(folder),
        "documents": len(env.documents),
        "roles": dict(sorted(roles.items())),
        "errors": len(errors),
        "warnings": len(problems) - len(errors),
        "error_examples": [str(e) for e in errors[:5]],
    }


def peak_memory_mb() -> dict[str, float]:
    """Return the peak resident memory (MiB) of this process and of its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"self": round(own, 1), "children": round(children, 1)}


def run(
    out: Path, size: str, keep: bool = False, filings: str = "all", context: int | None = DEFAULT_CONTEXT
) -> dict[str, Any]:
    """Build from the assembled record into `out` and return every measurement."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="lexprobe-bench-record-") as scratch:
        record = assemble_record(out / "record" if keep else Path(scratch) / "marshall_v_northrop", filings)
        builder = ScriptedBuilder(
            marshall_fiction.quotable_sentences(),
            [(f.number, f.text, f.disputed, f.reason) for f in marshall_fiction.statement_facts()],
            marshall_fiction.ENTITY_NAMES,
            facts_per_chunk=20,
        )
        settings = settings_for(size, context)
        build_started = time.perf_counter()
        result = run_build(record, out, settings, llm=builder, log=lambda m: print(m, file=sys.stderr, flush=True))
        build_seconds = time.perf_counter() - build_started
        if "levels" not in BuildSettings.model_fields:  # before one build wrote every level
            for level in all_levels():
                again = settings.model_copy(update={"ablation": level})
                run_build(record, out, again, llm=builder, log=lambda m: None)
                target = out / level.lstrip("+")
                shutil.copytree(out, target, ignore=shutil.ignore_patterns("record", *(lv.lstrip("+") for lv in
                                                                                       all_levels())))  # fmt: skip
    total = time.perf_counter() - started
    stages = stage_seconds(out)
    generate_model = builder.stage_seconds.get("generate", 0.0)
    assembly = max(0.0, stages.get("generate", 0.0) - generate_model) + stages.get("assemble", 0.0)
    validating = time.perf_counter()
    levels = {level: level_summary(folder) for level, folder in level_folders(out).items()}
    validate_seconds = time.perf_counter() - validating
    usage = resource.getrusage(resource.RUSAGE_SELF)
    generated = result.outputs["generate"]
    top = max((s["documents"] for s in levels.values()), default=0)
    return {
        "size": size,
        "filings": filings,
        "context_tokens": context,
        "out": str(out),
        "seconds": {
            "total": round(total, 2),
            "build": round(build_seconds, 2),
            "stages": stages,
            "scripted_generator": round(builder.seconds, 2),
            "scripted_generator_by_stage": {k: round(v, 3) for k, v in sorted(builder.stage_seconds.items())},
            "assembly_and_rendering": round(assembly, 2),
            "validate_levels": round(validate_seconds, 2),
            "cpu": round(usage.ru_utime + usage.ru_stime, 2),
        },
        "peak_memory_mb": peak_memory_mb(),
        "requests": {f"{stage}/{role}": n for (stage, role), n in sorted(builder.counts.items())},
        "requests_total": sum(builder.counts.values()),
        "generated": {
            "accepted": len(generated.documents),
            "failed": len(generated.failed),
            "rejections": len(generated.rejections),
            "spec_ids": [d.spec_id for d in generated.documents],
        },
        "levels": levels,
        "documents_at_top_level": top,
        "paper_minimum_met": top >= PAPER_MINIMUM,
        "assembly_goal_met": assembly < 300,
        "validation_errors": sum(s["errors"] for s in levels.values()),
    }


def table(report: dict[str, Any]) -> str:
    """Return the human-readable summary of a report."""
    seconds = report["seconds"]
    lines = [
        f"size {report['size']} ({report['filings']} filings, context {report['context_tokens']} tokens): "
        f"{report['documents_at_top_level']} documents at the top level; "
        f"total {seconds['total']:.1f} s (build {seconds['build']:.1f} s; CPU {seconds['cpu']:.1f} s), "
        f"scripted generator {seconds['scripted_generator']:.1f} s, "
        f"assembly and rendering {seconds['assembly_and_rendering']:.1f} s "
        f"(goal < 300 s: {'met' if report['assembly_goal_met'] else 'NOT met'}); validating every level "
        f"{seconds['validate_levels']:.1f} s",
        f"peak memory: {report['peak_memory_mb']['self']:.0f} MiB (this process), "
        f"{report['peak_memory_mb']['children']:.0f} MiB (children)",
        "",
        "stage            seconds",
    ]
    lines += [f"{stage:<16} {value:8.2f}" for stage, value in seconds["stages"].items()]
    lines += ["", f"requests ({report['requests_total']} in all)"]
    lines += [f"  {key:<28} {count:6d}" for key, count in report["requests"].items()]
    lines += ["", "level              documents  errors  warnings  roles"]
    for level, summary in report["levels"].items():
        roles = ", ".join(f"{role} {n}" for role, n in summary["roles"].items())
        lines.append(
            f"{level:<18} {summary['documents']:9d}  {summary['errors']:6d}  {summary['warnings']:8d}  {roles}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; return the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="a new or empty folder for the build")
    parser.add_argument("--size", choices=("paper", "small"), default="paper")
    parser.add_argument("--keep", action="store_true", help="keep the assembled record in DIR/record")
    parser.add_argument("--filings", choices=("all", "few"), default="all", help="real filings to include")
    parser.add_argument("--context-tokens", type=int, default=DEFAULT_CONTEXT, help="the generator's context")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    if not marshall_dir().is_dir():
        print(f"error: {marshall_dir()} is missing (set LEXPROBE_DATA)", file=sys.stderr)
        return 2
    if args.out.exists() and any(args.out.iterdir()):
        print(f"error: {args.out} is not empty; the bench measures a cold build into a new folder", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    report = run(args.out, args.size, args.keep, args.filings, args.context_tokens)
    print(json.dumps(report, indent=2) if args.json else table(report))
    return 1 if report["validation_errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
