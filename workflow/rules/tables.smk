# Stage 4: tables beside the published values, the chart, the manifest and the
# report page. Every table is built from whatever metric and judge outputs the
# config asks for (METRIC_OUTPUTS, JUDGE_OUTPUTS): a metric or judge that is not
# configured simply has no row. Definitions: docs/tables.md, docs/statistics.md.

import os as _os
import shlex as _shlex
import sys as _sys
from types import SimpleNamespace as _SimpleNamespace

from sumjudge.leaderboard.families import rule_inputs as _lb_family_inputs
from sumjudge.leaderboard.settings import LeaderboardSettings
from sumjudge.leaderboard.summary import JudgePricing
from sumjudge.report.caveats import table_context
from sumjudge.tables.workflow import (
    ACCURACY_TABLES,
    CHART_TABLES,
    CORRELATION_TABLES,
    config_digest,
    custom_tables,
    judge_files,
    metric_files,
    numbered_tables,
    prompt_files,
    question_variants,
    table_datasets,
)


# The report's front page says what the results are from their own manifest (the list rule
# `manifest` writes to results/provenance/caveats.rst, which workflow.rst includes), never
# from the config of the `snakemake --report` call; before there is one it says so.
CAVEATS_RST = f"{RESULTS}/provenance/caveats.rst"


report: "../report/workflow.rst" if Path(CAVEATS_RST).is_file() else "../report/workflow_no_results.rst"


TABLE_SETTINGS = RUN.tables.to_params()
LEADERBOARD_SETTINGS = LeaderboardSettings.from_config(config)
# the near-constant gate, one definition: what the leaderboard greys, the tables flag (plain values)
NEAR_CONSTANT_GATE = LEADERBOARD_SETTINGS.gate(RUN.tables).to_params()
TABLE_CONTEXT = table_context(RUN)  # subset, judge descriptions, metrics run: the caveats beside the numbers
# The manifest records how it was made: the rule's param `invocation` (below), a
# SimpleNamespace, which Snakemake passes to the script but does not record among the
# params it compares (a param whose own type is not a builtin one is not recorded), so a
# different command line (-n, --report) does not make the manifest rule rerun. Nothing is
# written to os.environ. The one param that is not a plain value (docs/sharing.md).
_argv = list(_sys.argv)
if _argv and _argv[0].endswith(_os.path.join("snakemake", "__main__.py")):  # `python -m snakemake ...`
    _argv[:1] = [_sys.executable, "-m", "snakemake"]
MANIFEST_INVOCATION = _SimpleNamespace(command=_shlex.join(_argv),
                                       config_files=[_os.path.abspath(f) for f in workflow.configfiles],
                                       command_line=[_os.path.abspath(f) for f in workflow.overwrite_configfiles])
TABLES_DIR = f"{RESULTS}/tables"
# a user's dataset (custom_datasets) has its own table, results/tables/<name>.csv/.tex, of its protocol's kind
# and so does a built-in dataset beyond the paper named in `datasets` (docs/data.md)
CUSTOM_CORRELATION = custom_tables(DATASET_SPECS, "correlation", DATASETS)
CUSTOM_ACCURACY = custom_tables(DATASET_SPECS, "accuracy", DATASETS)
TABLE_CSVS = [f"{TABLES_DIR}/{t}.csv" for t in numbered_tables(DATASETS)]
CUSTOM_CSVS = [f"{TABLES_DIR}/{t}.csv" for t in CUSTOM_CORRELATION + CUSTOM_ACCURACY]
CHART_CSVS = [f"{TABLES_DIR}/{t}.csv" for t in numbered_tables(DATASETS) if t in CHART_TABLES]

TABLE_OUTPUTS = [
    f"{TABLES_DIR}/{t}.{ext}" for t in numbered_tables(DATASETS) + CUSTOM_CORRELATION + CUSTOM_ACCURACY
    for ext in ("csv", "tex")
] + [
    f"{TABLES_DIR}/usage.csv",
    f"{TABLES_DIR}/published_vs_reproduced.csv",
    f"{TABLES_DIR}/judge_vs_best.csv",
    f"{TABLES_DIR}/judge_vs_best.svg",
    f"{TABLES_DIR}/judge_vs_best.png",
    f"{TABLES_DIR}/judge_behaviour.csv",
    f"{TABLES_DIR}/judge_behaviour.svg",
    f"{TABLES_DIR}/replies.csv",
    f"{TABLES_DIR}/replies.html",
    f"{TABLES_DIR}/overview.html",
    f"{RESULTS}/manifest.json",
]


# a report entry of one table file: its own caption, one subcategory per table
_table_report = lambda path, table, fmt: report(  # noqa: E731 -- snakemake --lint wants no def here
    path, caption=f"../report/{table}.rst", category="Tables", subcategory=table,
    labels={"table": table, "format": fmt})
# ... of the table file {table}.<ext> of the rules over the {table} wildcard (one caption for them all)
_any_table_report = lambda fmt, ext: report(  # noqa: E731 -- snakemake --lint wants no def here
    f"{TABLES_DIR}/{{table}}.{ext}", caption="../report/table.rst", category="Tables", subcategory="{table}",
    labels={"table": "{table}", "format": fmt})
# what the two rules over the {table} wildcard write and are told
TABLE_FILES = dict(csv=_any_table_report("CSV", "csv"), tex=_any_table_report("LaTeX", "tex"))
TABLE_PARAMS = dict(settings=TABLE_SETTINGS, context=TABLE_CONTEXT, gate=NEAR_CONSTANT_GATE)
# the report entries of a figure or listing in several formats ({output name: extension}):
# results/tables/<stem>.<ext>, its caption file, category and what it shows
_view_reports = lambda stem, caption, category, what, formats: {  # noqa: E731 -- snakemake --lint wants no def here
    key: report(f"{TABLES_DIR}/{stem}.{ext}", caption=f"../report/{caption}.rst", category=category,
                labels={"what": what, "format": ext.upper()}) for key, ext in formats.items()}


rule correlation_table:
    """Tables 1 (SummEval) and 2 (Newsroom), and a user's Likert dataset's table: Spearman
    at sample, system, dataset level, every metric and every judge, with boot-both
    intervals and permutation tests."""
    input:
        data=lambda wc: dataset_table(table_datasets(wc.table, ALL_DATASETS)[0]),
        metrics=lambda wc: metric_files(METRIC_OUTPUTS, table_datasets(wc.table, ALL_DATASETS)),
        judges=lambda wc: judge_files(JUDGE_OUTPUTS, table_datasets(wc.table, ALL_DATASETS), ["base"]),
    output:
        **TABLE_FILES,
    log:
        "logs/tables/{table}.log",
    params:
        **TABLE_PARAMS,
    wildcard_constraints:
        table=_ds.alternation(list(CORRELATION_TABLES) + CUSTOM_CORRELATION),
    conda:
        "../../envs/tables.yaml"
    script:
        "../../scripts/correlation_table.py"


rule accuracy_table:
    """Tables 3 (TLDR), 4 (REALSumm), 5 (QAGS), and a user's pairwise, Pyramid or binary
    dataset's table: accuracy with cluster-bootstrap intervals and the exact paired
    permutation test."""
    input:
        data=lambda wc: [dataset_table(d) for d in table_datasets(wc.table, ALL_DATASETS)],
        metrics=lambda wc: metric_files(METRIC_OUTPUTS, table_datasets(wc.table, ALL_DATASETS)),
        judges=lambda wc: judge_files(JUDGE_OUTPUTS, table_datasets(wc.table, ALL_DATASETS),
                                      question_variants(table_datasets(wc.table, ALL_DATASETS), DATASET_SPECS)),
    output:
        **TABLE_FILES,
    log:
        "logs/tables/{table}.log",
    params:
        datasets=lambda wc: table_datasets(wc.table, ALL_DATASETS),
        **TABLE_PARAMS,
    wildcard_constraints:
        table=_ds.alternation(list(ACCURACY_TABLES) + CUSTOM_ACCURACY),
    conda:
        "../../envs/tables.yaml"
    script:
        "../../scripts/accuracy_table.py"


from sumjudge.catalog import VARIANTS_TABLE


rule variants_table:
    """Table 6: SummEval prompt variants of every judge, and each expert against the mean."""
    input:
        data=dataset_table(VARIANTS_TABLE.spec.name),
        judges=judge_files(JUDGE_OUTPUTS, VARIANTS_TABLE.datasets),
    output:
        csv=_table_report(f"{TABLES_DIR}/table6.csv", "table6", "CSV"),
        tex=_table_report(f"{TABLES_DIR}/table6.tex", "table6", "LaTeX"),
    log:
        "logs/tables/table6.log",
    params:
        **TABLE_PARAMS,
    conda:
        "../../envs/tables.yaml"
    script:
        "../../scripts/variants_table.py"


rule reply_tables:
    """Tables 7 (explanations), 8 (invalid replies), 9 (invalid rates, fluency vs
    coherence) and the usage/cost table, from every judge output."""
    input:
        data=[dataset_table(d) for d in ALL_DATASETS],
        judges=judge_files(JUDGE_OUTPUTS),
    output:
        t7=_table_report(f"{TABLES_DIR}/table7.csv", "table7", "CSV"),
        t7tex=_table_report(f"{TABLES_DIR}/table7.tex", "table7", "LaTeX"),
        t8=_table_report(f"{TABLES_DIR}/table8.csv", "table8", "CSV"),
        t8tex=_table_report(f"{TABLES_DIR}/table8.tex", "table8", "LaTeX"),
        t9=_table_report(f"{TABLES_DIR}/table9.csv", "table9", "CSV"),
        t9tex=_table_report(f"{TABLES_DIR}/table9.tex", "table9", "LaTeX"),
        usage=report(f"{TABLES_DIR}/usage.csv", caption="../report/usage.rst", category="Judges",
                     labels={"what": "requests, tokens, cost"}),
    log:
        "logs/tables/replies.log",
    params:
        datasets=ALL_DATASETS,
        settings=TABLE_SETTINGS,
        context=TABLE_CONTEXT,
    conda:
        "../../envs/tables.yaml"
    script:
        "../../scripts/reply_tables.py"


rule judge_behaviour:
    """The judge's own answers: score distribution per dimension, label balance
    against the human gold, modal share and the leaderboard's near-constant gate;
    plus every raw reply as CSV and as a browsable HTML page."""
    input:
        data=[dataset_table(d) for d in ALL_DATASETS],
        judges=judge_files(JUDGE_OUTPUTS),
    output:
        **_view_reports("judge_behaviour", "behaviour", "Judges", "answer distribution", {"csv": "csv", "svg": "svg"}),
        **_view_reports("replies", "replies", "Judges", "raw replies", {"replies": "csv", "replies_html": "html"}),
    log:
        "logs/tables/judge_behaviour.log",
    params:
        datasets=ALL_DATASETS,
        settings=TABLE_SETTINGS,
        gate=NEAR_CONSTANT_GATE,
    conda:
        "../../envs/tables.yaml"
    script:
        "../../scripts/judge_behaviour.py"


rule published_vs_reproduced:
    """Every published cell beside its reproduced value(s) and the difference."""
    input:
        TABLE_CSVS,
    output:
        report(f"{TABLES_DIR}/published_vs_reproduced.csv", caption="../report/published.rst",
               category="Tables", labels={"table": "published vs reproduced", "format": "CSV"}),
    log:
        "logs/tables/published_vs_reproduced.log",
    conda:
        "../../envs/tables.yaml"
    script:
        "../../scripts/published_vs_reproduced.py"


rule judge_chart:
    """The 28-column view: every judge minus the strongest other row per column."""
    input:
        CHART_CSVS,
    output:
        **_view_reports("judge_vs_best", "chart", "Chart", "28-column view", {"csv": "csv", "svg": "svg", "png": "png"}),
    log:
        "logs/tables/judge_chart.log",
    conda:
        "../../envs/tables.yaml"
    script:
        "../../scripts/judge_chart.py"


rule manifest:
    """results/manifest.json: config, code version, prompt hashes, judge and metric models."""
    input:
        data=[dataset_table(d) for d in ALL_DATASETS],
        metrics=METRIC_OUTPUTS,
        judges=judge_files(JUDGE_OUTPUTS),
        prompts=prompt_files(workflow.basedir),
    output:
        manifest=report(f"{RESULTS}/manifest.json", caption="../report/manifest.rst", category="Provenance",
                        labels={"what": "manifest"}),
        patch=report(f"{RESULTS}/provenance/worktree.patch", caption="../report/patch.rst",
                     category="Provenance", labels={"what": "uncommitted changes"}),
        prompts=report(f"{RESULTS}/provenance/prompts.txt", caption="../report/prompts.rst",
                       category="Provenance", labels={"what": "prompt texts"}),
        caveats=CAVEATS_RST,
    log:
        "logs/tables/manifest.log",
    params:
        config_sha256=config_digest(config),  # the script snapshots snakemake.config itself
        invocation=MANIFEST_INVOCATION,  # not compared for reruns (see MANIFEST_INVOCATION)
    conda:
        "../../envs/tables.yaml"
    script:
        "../../scripts/manifest.py"


# On a cluster the manifest runs on the head node: it records the head's command line, a param
# computed where the Snakefile is parsed (docs/cluster.md).
localrules:
    manifest,


rule overview:
    """One self-contained HTML page: chart, every table, invalid rates, cost, prompts, config."""
    input:
        tables=TABLE_CSVS + CUSTOM_CSVS,
        usage=f"{TABLES_DIR}/usage.csv",
        chart=f"{TABLES_DIR}/judge_vs_best.svg",
        chart_csv=f"{TABLES_DIR}/judge_vs_best.csv",
        behaviour=f"{TABLES_DIR}/judge_behaviour.csv",
        behaviour_svg=f"{TABLES_DIR}/judge_behaviour.svg",
        manifest=f"{RESULTS}/manifest.json",
        prompts=prompt_files(workflow.basedir),
    output:
        report(f"{TABLES_DIR}/overview.html", caption="../report/overview.rst", category="Overview",
               labels={"what": "all tables"}),
    log:
        "logs/tables/overview.log",
    params:
        context=TABLE_CONTEXT,
    conda:
        "../../envs/tables.yaml"
    script:
        "../../scripts/overview.py"


# The judge leaderboard (issue 17): built whenever judge.run names a judge.
LEADERBOARD_DIR = f"{RESULTS}/leaderboard"
LEADERBOARD_OUTPUTS = [f"{LEADERBOARD_DIR}/leaderboard.{ext}" for ext in ("csv", "tex", "html")] + [
    f"{LEADERBOARD_DIR}/frontier.svg", f"{LEADERBOARD_DIR}/frontier.png"] if JUDGE_RUN else []
TABLE_OUTPUTS += LEADERBOARD_OUTPUTS
_LB_DATASETS = ALL_DATASETS  # every dataset of the run brings its columns: the paper's, beyond it, a user's
# leaderboard.families: each family of judge.prompt_families (workflow/rules/robustness.smk) adds its median and
# 10th-percentile rows, read from the robustness stage's outputs; off (the default): no input, no family run
try:
    LEADERBOARD_FAMILIES = _lb_family_inputs(RESULTS, FAMILIES, ROBUSTNESS_JUDGES, LEADERBOARD_SETTINGS.families,
                                            ROBUSTNESS_CFG.get("estimand", "scored"))
except UserError as err:  # a family of the subset design: its templates did not answer every document
    config_stop(err)


rule leaderboard:
    """Judges and leave-one-out human annotators per column of every dataset of the run: gates,
    ranks, the alt-test, cost and time, the human labels each row saves (the savings stage) and a
    jury's effective votes and interval against its best member (docs/leaderboard.md)."""
    input:
        tables=CHART_CSVS + CUSTOM_CSVS,
        manifest=f"{RESULTS}/manifest.json",  # the run's caveats (a slice, which judges, which metrics)
        data=[dataset_table(d) for d in _LB_DATASETS],
        judges=judge_files(JUDGE_OUTPUTS, _LB_DATASETS, question_variants(_LB_DATASETS, DATASET_SPECS))
        + judge_files(SWAPPED_OUTPUTS),
        savings=SAVINGS_LEDGER,  # labels saved per row, and the savings section of the page
        juries=JURY_OUTPUTS,  # each jury's jury.csv: its row's effective votes and interval against its best member
        family_summaries=LEADERBOARD_FAMILIES["summaries"],  # leaderboard.families: results/robustness/<family>/
        family_prompts=LEADERBOARD_FAMILIES["prompts"],      # summary.csv, prompts.csv and the templates' tables
        family_tables=LEADERBOARD_FAMILIES["tables"],
    output:
        csv=report(f"{LEADERBOARD_DIR}/leaderboard.csv", caption="../report/leaderboard.rst", category="Leaderboard",
                   labels={"what": "leaderboard", "format": "CSV"}),
        tex=f"{LEADERBOARD_DIR}/leaderboard.tex",
        html=report(f"{LEADERBOARD_DIR}/leaderboard.html", caption="../report/leaderboard.rst", category="Leaderboard",
                    labels={"what": "leaderboard", "format": "HTML"}),
        svg=f"{LEADERBOARD_DIR}/frontier.svg",
        png=report(f"{LEADERBOARD_DIR}/frontier.png", caption="../report/leaderboard.rst", category="Leaderboard",
                   labels={"what": "frontier", "format": "PNG"}),
        summary=f"{LEADERBOARD_DIR}/summary.csv",
        pairs=f"{LEADERBOARD_DIR}/pairs.csv",
        alt=f"{LEADERBOARD_DIR}/alt_test.csv",
        verdict=f"{LEADERBOARD_DIR}/verdict.txt",  # the page's first sentence, for the run's closing summary
    log:
        "logs/tables/leaderboard.log",
    # plain values, whose repr Snakemake compares: a changed setting rebuilds the leaderboard (docs/sharing.md);
    # the script takes each dataset's spec from the registry (custom_datasets: snakemake.config)
    params:
        datasets=_LB_DATASETS,
        # local or not and the hourly price, never the base_url (a server's port must not rebuild the leaderboard)
        pricing=lambda wc: {j: JudgePricing.of(JUDGES[j]).to_params() for j in JUDGE_RUN},
        tables=TABLE_SETTINGS,
        board=LEADERBOARD_SETTINGS.to_params(),
        savings=SAVINGS_SETTINGS.to_params() if SAVINGS_LEDGER else {},
        families=LEADERBOARD_FAMILIES["params"],  # {} when leaderboard.families is off; else each family, the estimand
    conda:
        "../../envs/tables.yaml"
    script:
        "../../scripts/leaderboard.py"
