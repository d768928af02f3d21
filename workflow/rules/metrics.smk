# Stage 3: baseline metrics, one rule per metric family, each writing
# results/metrics/{metric}/{dataset}.parquet.

METRIC_OUTPUTS = [
    f"{RESULTS}/metrics/rouge/{d}.parquet" for d in config["rouge"]["datasets"] if d in DATASETS
]


rule rouge:
    """ROUGE-1/2/L F-measure per unit (SummEval: mean over its 11 references)."""
    input:
        dataset_table("{dataset}"),
    output:
        f"{RESULTS}/metrics/rouge/{{dataset}}.parquet",
    log:
        "logs/metrics/rouge/{dataset}.log",
    params:
        implementation=config["rouge"]["implementation"],
        stemming=config["rouge"]["stemming"],
    threads: 8
    wildcard_constraints:
        dataset="summeval|newsroom|tldr",
    conda:
        "../../envs/rouge.yaml"
    script:
        "../../scripts/rouge.py"
