# Stage 4: tables beside the published values, the chart, the manifest and the
# report page. Every table is built from whatever metric and judge outputs the
# config asks for (METRIC_OUTPUTS, JUDGE_OUTPUTS): a metric or judge that is not
# configured simply has no row. Definitions: docs/tables.md, docs/statistics.md.

from sumjudge.tables.settings import TableSettings
from sumjudge.tables.workflow import (
    CHART_TABLES,
    CORRELATION_TABLES,
    config_digest,
    judge_files,
    metric_files,
    numbered_tables,
    prompt_files,
    table_datasets,
)


report: "../report/workflow.rst"


TABLE_SETTINGS = TableSettings.from_config(config).as_dict()
TABLES_DIR = f"{RESULTS}/tables"
TABLE_CSVS = [f"{TABLES_DIR}/{t}.csv" for t in numbered_tables(DATASETS)]
CHART_CSVS = [f"{TABLES_DIR}/{t}.csv" for t in numbered_tables(DATASETS) if t in CHART_TABLES]

TABLE_OUTPUTS = [
    f"{TABLES_DIR}/{t}.{ext}" for t in numbered_tables(DATASETS) for ext in ("csv", "tex")
] + [
    f"{TABLES_DIR}/usage.csv",
    f"{TABLES_DIR}/published_vs_reproduced.csv",
    f"{TABLES_DIR}/judge_vs_best.csv",
    f"{TABLES_DIR}/judge_vs_best.svg",
    f"{TABLES_DIR}/overview.html",
    f"{RESULTS}/manifest.json",
]


rule correlation_table:
    """Tables 1 (SummEval) and 2 (Newsroom): Spearman at sample, system, dataset level,
    every metric and every judge, with boot-both intervals and permutation tests."""
    input:
        data=lambda wc: dataset_table(CORRELATION_TABLES[wc.table]),
        metrics=lambda wc: metric_files(METRIC_OUTPUTS, [CORRELATION_TABLES[wc.table]]),
        judges=lambda wc: judge_files(JUDGE_OUTPUTS, [CORRELATION_TABLES[wc.table]], ["base"]),
    output:
        csv=report(f"{TABLES_DIR}/{{table}}.csv", caption="../report/table.rst", category="Tables",
                   labels={"table": "{table}", "format": "CSV"}),
        tex=report(f"{TABLES_DIR}/{{table}}.tex", caption="../report/table.rst", category="Tables",
                   labels={"table": "{table}", "format": "LaTeX"}),
    log:
        "logs/tables/{table}.log",
    params:
        settings=TABLE_SETTINGS,
    wildcard_constraints:
        table="table1|table2",
    conda:
        "../../envs/tables.yaml"
    script:
        "../../scripts/correlation_table.py"


rule accuracy_table:
    """Tables 3 (TLDR), 4 (REALSumm), 5 (QAGS): accuracy with cluster-bootstrap
    intervals and the exact paired permutation test."""
    input:
        data=lambda wc: [dataset_table(d) for d in table_datasets(wc.table, DATASETS)],
        metrics=lambda wc: metric_files(METRIC_OUTPUTS, table_datasets(wc.table, DATASETS)),
        judges=lambda wc: judge_files(JUDGE_OUTPUTS, table_datasets(wc.table, DATASETS), ["base"]),
    output:
        csv=report(f"{TABLES_DIR}/{{table}}.csv", caption="../report/table.rst", category="Tables",
                   labels={"table": "{table}", "format": "CSV"}),
        tex=report(f"{TABLES_DIR}/{{table}}.tex", caption="../report/table.rst", category="Tables",
                   labels={"table": "{table}", "format": "LaTeX"}),
    log:
        "logs/tables/{table}.log",
    params:
        datasets=lambda wc: table_datasets(wc.table, DATASETS),
        settings=TABLE_SETTINGS,
    wildcard_constraints:
        table="table3|table4|table5",
    conda:
        "../../envs/tables.yaml"
    script:
        "../../scripts/accuracy_table.py"


rule variants_table:
    """Table 6: SummEval prompt variants of every judge, and each expert against the mean."""
    input:
        data=dataset_table("summeval"),
        judges=judge_files(JUDGE_OUTPUTS, ["summeval"]),
    output:
        csv=report(f"{TABLES_DIR}/table6.csv", caption="../report/table.rst", category="Tables",
                   labels={"table": "table6", "format": "CSV"}),
        tex=report(f"{TABLES_DIR}/table6.tex", caption="../report/table.rst", category="Tables",
                   labels={"table": "table6", "format": "LaTeX"}),
    log:
        "logs/tables/table6.log",
    params:
        settings=TABLE_SETTINGS,
    conda:
        "../../envs/tables.yaml"
    script:
        "../../scripts/variants_table.py"


rule reply_tables:
    """Tables 7 (explanations), 8 (invalid replies), 9 (invalid rates, fluency vs
    coherence) and the usage/cost table, from every judge output."""
    input:
        data=[dataset_table(d) for d in DATASETS],
        judges=judge_files(JUDGE_OUTPUTS),
    output:
        t7=report(f"{TABLES_DIR}/table7.csv", caption="../report/table.rst", category="Tables",
                  labels={"table": "table7", "format": "CSV"}),
        t7tex=f"{TABLES_DIR}/table7.tex",
        t8=report(f"{TABLES_DIR}/table8.csv", caption="../report/table.rst", category="Tables",
                  labels={"table": "table8", "format": "CSV"}),
        t8tex=f"{TABLES_DIR}/table8.tex",
        t9=report(f"{TABLES_DIR}/table9.csv", caption="../report/table.rst", category="Tables",
                  labels={"table": "table9", "format": "CSV"}),
        t9tex=f"{TABLES_DIR}/table9.tex",
        usage=report(f"{TABLES_DIR}/usage.csv", caption="../report/usage.rst", category="Judges",
                     labels={"what": "requests, tokens, cost"}),
    log:
        "logs/tables/replies.log",
    params:
        datasets=DATASETS,
        settings=TABLE_SETTINGS,
    conda:
        "../../envs/tables.yaml"
    script:
        "../../scripts/reply_tables.py"


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
        csv=f"{TABLES_DIR}/judge_vs_best.csv",
        svg=report(f"{TABLES_DIR}/judge_vs_best.svg", caption="../report/chart.rst", category="Judges",
                   labels={"what": "judge minus strongest other row"}),
    log:
        "logs/tables/judge_chart.log",
    conda:
        "../../envs/tables.yaml"
    script:
        "../../scripts/judge_chart.py"


rule manifest:
    """results/manifest.json: config, code version, prompt hashes, judge and metric models."""
    input:
        data=[dataset_table(d) for d in DATASETS],
        metrics=METRIC_OUTPUTS,
        judges=judge_files(JUDGE_OUTPUTS),
        prompts=prompt_files(workflow.basedir),
    output:
        report(f"{RESULTS}/manifest.json", caption="../report/manifest.rst", category="Provenance",
               labels={"what": "manifest"}),
    log:
        "logs/tables/manifest.log",
    params:
        config_sha256=config_digest(config),  # the script snapshots snakemake.config itself
    conda:
        "../../envs/tables.yaml"
    script:
        "../../scripts/manifest.py"


rule overview:
    """One self-contained HTML page: chart, every table, invalid rates, cost, prompts, config."""
    input:
        tables=TABLE_CSVS,
        usage=f"{TABLES_DIR}/usage.csv",
        chart=f"{TABLES_DIR}/judge_vs_best.svg",
        chart_csv=f"{TABLES_DIR}/judge_vs_best.csv",
        manifest=f"{RESULTS}/manifest.json",
    output:
        report(f"{TABLES_DIR}/overview.html", caption="../report/overview.rst", category="Overview",
               labels={"what": "all tables"}),
    log:
        "logs/tables/overview.log",
    conda:
        "../../envs/tables.yaml"
    script:
        "../../scripts/overview.py"
