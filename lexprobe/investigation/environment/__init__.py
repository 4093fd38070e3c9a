"""An investigation environment (InvestigationWorlds, Section 1.1) and everything that reads, checks or imports one:
the format (`format`: the case, entities, facts, hypotheses, documents and questions, loaded from and saved to an
environment directory; document roles in `roles`), the ablation ladder (`ladder`: which roles each level keeps),
validation (`validate` runs the checks, `validate_files` the corpus-file checks, `validate_report` the problem
records), the corpus hash (`corpus_digest`), and the import of the published dataset from a local copy
(`hf_dataset`; its name in `hf_names`).

May import: `lexprobe.errors`, `lexprobe.documents` (corpus confinement and extraction); no other investigation
package (everything else in the domain builds on this one).
"""
