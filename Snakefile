# Reproduce "Human-like Summarization Evaluation with ChatGPT" (Gao et al. 2023).
#
#   snakemake --cores 8                      # everything
#   snakemake --cores 2 --config mirror=../shared/data   # from a local mirror
#
# The logic lives in the importable package `sumjudge`; rules only wire files.

from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/metrics.smk"
include: "workflow/rules/judge.smk"
include: "workflow/rules/jury.smk"
include: "workflow/rules/savings.smk"  # before the tables stage: the leaderboard reads its ledger
# robustness: not part of `all` (`snakemake robustness`); before the tables stage: the leaderboard reads its families
include: "workflow/rules/robustness.smk"
include: "workflow/rules/tables.smk"
include: "workflow/rules/closing.smk"  # the pages to open and the verdict, when the run ends well
# after every stage, as they read every rule: each rule's need before any job, and its code digest
include: "workflow/rules/preflight.smk"
include: "workflow/rules/code.smk"


rule all:
    default_target: True
    input:
        DATA_OUTPUTS,
        METRIC_OUTPUTS,
        JUDGE_OUTPUTS,
        JURY_OUTPUTS,
        TABLE_OUTPUTS,
        SAVINGS_OUTPUTS,
