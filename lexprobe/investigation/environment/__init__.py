"""An investigation environment (InvestigationWorlds, Section 1.1) and everything that reads, checks or imports one:
the format (`format`: the case, entities, facts, hypotheses, documents and questions, loaded from and saved to an
environment directory; document roles in `roles`), the ablation ladder (`ladder`: which roles each level keeps),
validation (`validate` runs the checks, `validate_files` the corpus-file checks, `validate_report` the problem
records), the corpus hash (`corpus_digest`), and the import of the published dataset from a local copy
(`hf_dataset`; its name in `hf_names`).

May import: `lexprobe.errors`, `lexprobe.documents` (corpus confinement and extraction); no other investigation
package (everything else in the domain builds on this one). The names below are exported lazily (`lexprobe.lazy`),
so importing the light modules (`roles`, `ladder`, `hf_names`) does not import pydantic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lexprobe.lazy import lazy_exports

if TYPE_CHECKING:
    from lexprobe.investigation.environment.corpus_digest import corpus_hash
    from lexprobe.investigation.environment.format import (
        CORPUS_DIR,
        ENVIRONMENT_FILE,
        EXTRACTED_DIR,
        QUESTIONS_FILE,
        SCHEMA_VERSION,
        CaseInfo,
        Document,
        Entity,
        Environment,
        Fact,
        Hypothesis,
        HypothesisKind,
        Question,
        QuestionSet,
        RubricItem,
        SubClaim,
        load_environment,
        save_environment,
    )
    from lexprobe.investigation.environment.hf_dataset import HFDatasetError, import_hf_cases, load_hf_cases
    from lexprobe.investigation.environment.hf_names import DATASET_NAME
    from lexprobe.investigation.environment.ladder import (
        DEFAULT_LEVEL,
        LEVELS,
        canonical_level,
        level_slug,
        parse_levels,
        select,
    )
    from lexprobe.investigation.environment.roles import Role
    from lexprobe.investigation.environment.validate import validate_environment
    from lexprobe.investigation.environment.validate_report import EnvironmentInvalid, Problem, errors_in

__all__ = [
    "CORPUS_DIR",
    "DATASET_NAME",
    "DEFAULT_LEVEL",
    "ENVIRONMENT_FILE",
    "EXTRACTED_DIR",
    "LEVELS",
    "QUESTIONS_FILE",
    "SCHEMA_VERSION",
    "CaseInfo",
    "Document",
    "Entity",
    "Environment",
    "EnvironmentInvalid",
    "Fact",
    "HFDatasetError",
    "Hypothesis",
    "HypothesisKind",
    "Problem",
    "Question",
    "QuestionSet",
    "Role",
    "RubricItem",
    "SubClaim",
    "canonical_level",
    "corpus_hash",
    "errors_in",
    "import_hf_cases",
    "level_slug",
    "load_environment",
    "load_hf_cases",
    "parse_levels",
    "save_environment",
    "select",
    "validate_environment",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    globals(),
    {
        "CORPUS_DIR": "format",
        "CaseInfo": "format",
        "DATASET_NAME": "hf_names",
        "DEFAULT_LEVEL": "ladder",
        "Document": "format",
        "ENVIRONMENT_FILE": "format",
        "EXTRACTED_DIR": "format",
        "Entity": "format",
        "Environment": "format",
        "EnvironmentInvalid": "validate_report",
        "Fact": "format",
        "HFDatasetError": "hf_dataset",
        "Hypothesis": "format",
        "HypothesisKind": "format",
        "LEVELS": "ladder",
        "Problem": "validate_report",
        "QUESTIONS_FILE": "format",
        "Question": "format",
        "QuestionSet": "format",
        "Role": "roles",
        "RubricItem": "format",
        "SCHEMA_VERSION": "format",
        "SubClaim": "format",
        "canonical_level": "ladder",
        "corpus_hash": "corpus_digest",
        "errors_in": "validate_report",
        "import_hf_cases": "hf_dataset",
        "level_slug": "ladder",
        "load_environment": "format",
        "load_hf_cases": "hf_dataset",
        "parse_levels": "ladder",
        "save_environment": "format",
        "select": "ladder",
        "validate_environment": "validate",
    },
)
