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

# The preflight of a dry run (workflow/rules/common.smk, docs/metrics.md "Before any job"):
# Snakemake runs no hook on `snakemake -n`, so it runs here, once every rule that has a need
# is defined: the jobs the command line's targets, else `rule all`, still need. Before the
# tables stage (no need of its own; it imports scipy) and the code digests below, which take
# seconds, so a stop is quick.
if workflow.output_settings.dryrun:
    preflight(pending_jobs(*dry_run_targets(DATA_OUTPUTS + METRIC_OUTPUTS + JUDGE_OUTPUTS)))


include: "workflow/rules/savings.smk"  # before the tables stage: the leaderboard reads its ledger
include: "workflow/rules/tables.smk"

# Rerun by content, not by file time (docs/sharing.md): every script rule gets a param
# `code`, the sha256 of its script and of the sumjudge modules it imports; the default
# profile (profiles/default) leaves Snakemake's mtime-based `code` trigger out.
# A fresh clone with a copied results/ reruns nothing; an edit reruns the rules that run it.
from sumjudge.share.code import set_code_params

set_code_params(workflow.rules, workflow.basedir)

# On a cluster, downloads run on the head node (compute nodes often have no internet;
# docs/cluster.md), and so does the manifest (it records the head's command line, a param
# computed where the Snakefile is parsed); every other rule is a job of its own.
localrules:
    fetch,
    manifest,


rule all:
    default_target: True
    input:
        DATA_OUTPUTS,
        METRIC_OUTPUTS,
        JUDGE_OUTPUTS,
        JURY_OUTPUTS,
        TABLE_OUTPUTS,
        SAVINGS_OUTPUTS,
