# Stage 5: how many human labels a judge replaces (issue 36; docs/statistics.md, "How many human
# labels a judge replaces"). Built whenever judge.run names a judge, from the prepared tables and
# the judge tables the leaderboard reads: every judge row and every held-out annotator, PPI++ with
# n human-labelled documents and the judge on the others. Included before tables.smk: rule
# `leaderboard` reads the ledger and the figures (SAVINGS_LEDGER) into its page and summary.

from sumjudge.savings.settings import SavingsSettings
from sumjudge.tables.workflow import judge_files, question_variants

SAVINGS_DIR = f"{RESULTS}/savings"
_SV_DATASETS = ALL_DATASETS
try:
    SAVINGS_SETTINGS = SavingsSettings.from_config(config)
except UserError as err:  # savings.summary_n not among savings.n_labelled
    config_stop(err)
SAVINGS_FIGURES = {ext: [f"{SAVINGS_DIR}/{d}.{ext}" for d in _SV_DATASETS] for ext in ("svg", "png")}
SAVINGS_OUTPUTS = [f"{SAVINGS_DIR}/{f}" for f in ("ledger.csv", "summary.csv", "savings.tex", "savings.html")] \
    + SAVINGS_FIGURES["svg"] + SAVINGS_FIGURES["png"] if JUDGE_RUN else []
# what the leaderboard reads of it (sumjudge.savings.summary_columns, html_fragment): the ledger first
SAVINGS_LEDGER = [f"{SAVINGS_DIR}/ledger.csv"] + SAVINGS_FIGURES["svg"] if SAVINGS_OUTPUTS else []


rule savings:
    """Per dataset, judge row and held-out annotator: PPI++ and classical interval widths, labels
    saved per 100, the tuned lambda and the coverage of both intervals over draws of the labelled
    documents (docs/statistics.md, "How many human labels a judge replaces")."""
    input:
        data=[dataset_table(d) for d in _SV_DATASETS],
        judges=judge_files(JUDGE_OUTPUTS, _SV_DATASETS, question_variants(_SV_DATASETS, DATASET_SPECS)),
    output:
        ledger=report(f"{SAVINGS_DIR}/ledger.csv", caption="../report/savings.rst", category="Savings",
                      labels={"what": "ledger", "format": "CSV"}),
        summary=f"{SAVINGS_DIR}/summary.csv",
        tex=f"{SAVINGS_DIR}/savings.tex",
        html=report(f"{SAVINGS_DIR}/savings.html", caption="../report/savings.rst", category="Savings",
                    labels={"what": "labels saved", "format": "HTML"}),
        svgs=SAVINGS_FIGURES["svg"],
        pngs=SAVINGS_FIGURES["png"],
    log:
        "logs/savings/savings.log",
    # plain values, whose repr Snakemake compares: a changed setting rebuilds the ledger (docs/sharing.md);
    # the script takes each dataset's spec from the registry (custom_datasets: snakemake.config)
    params:
        datasets=_SV_DATASETS,
        settings=SAVINGS_SETTINGS.to_params(),
        pairwise_labels=RUN.tables.pairwise_labels,  # how the tables score what the savings stage measures
        repeats=RUN.tables.repeats,
    conda:
        "../../envs/savings.yaml"
    script:
        "../../scripts/savings.py"
