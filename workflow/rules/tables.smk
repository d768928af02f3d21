# Stage 4: tables beside the published values.

CORRELATION_TABLES = {"table1": "summeval", "table2": "newsroom"}

TABLE_OUTPUTS = [
    f"{RESULTS}/tables/{table}.{ext}"
    for table, dataset in CORRELATION_TABLES.items()
    if dataset in DATASETS and dataset in config["rouge"]["datasets"]
    for ext in ("csv", "tex")
]


rule correlation_table:
    """Tables 1 (SummEval) and 2 (Newsroom): Spearman at sample, system, dataset level."""
    input:
        data=lambda wc: dataset_table(CORRELATION_TABLES[wc.table]),
        rouge=lambda wc: f"{RESULTS}/metrics/rouge/{CORRELATION_TABLES[wc.table]}.parquet",
    output:
        csv=f"{RESULTS}/tables/{{table}}.csv",
        tex=f"{RESULTS}/tables/{{table}}.tex",
    log:
        "logs/tables/{table}.log",
    params:
        dataset=lambda wc: CORRELATION_TABLES[wc.table],
        method=config["stats"]["correlation"],
        undefined=config["stats"]["undefined"],
    wildcard_constraints:
        table="table1|table2",
    conda:
        "../../envs/tables.yaml"
    script:
        "../../scripts/correlation_table.py"
