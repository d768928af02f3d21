# Stage 3: baseline metrics, one rule per metric family, each writing
# results/metrics/{metric}/{dataset}.parquet.

METRIC_OUTPUTS = [
    f"{RESULTS}/metrics/rouge/{d}.parquet" for d in config["rouge"]["datasets"] if d in DATASETS
]
# a user's dataset gets ROUGE when its file has a `reference` column; a built-in dataset beyond
# the paper named in `datasets` (docs/data.md) gets ROUGE when it has references, whatever rouge.datasets says
OWN_REFERENCE = [d for d in CUSTOM_DATASETS + [d for d in DATASETS if _ds.own_table(DATASET_SPECS[d])]
                 if "reference" in DATASET_SPECS[d].metric_families]
METRIC_OUTPUTS += [f"{RESULTS}/metrics/rouge/{d}.parquet" for d in OWN_REFERENCE
                   if f"{RESULTS}/metrics/rouge/{d}.parquet" not in METRIC_OUTPUTS]


rule rouge:
    """ROUGE-1/2/L F-measure per unit (SummEval: mean over its 11 references); settings
    `rouge.*` (docs/metrics.md, "ROUGE")."""
    input:
        dataset_table("{dataset}"),
    output:
        f"{RESULTS}/metrics/rouge/{{dataset}}.parquet",
    log:
        "logs/metrics/rouge/{dataset}.log",
    params:
        settings={k: v for k, v in config["rouge"].items() if k != "datasets"},
    threads: config["threads"]["rouge"]
    wildcard_constraints:
        dataset=dataset_constraint("reference"),
    conda:
        "../../envs/rouge.yaml"
    script:
        "../../scripts/rouge.py"


# --- Learned metrics (issue 4): BERTScore, MoverScore, BARTScore, FactCC, DAE -----------
# Models come from config `metrics` (hub ids or local directories); a rule whose model
# cannot be found stops within seconds, naming the config key (docs/metrics.md).
# Jobs on a GPU claim the resource `gpu` (run with `--resources gpu=1` to take turns).

METRICS = config["metrics"]
LEARNED_METRICS = ("bertscore", "moverscore", "bartscore", "factcc", "dae")
METRIC_GPU = 0 if METRICS["device"] == "cpu" else 1

METRIC_OUTPUTS += [
    f"{RESULTS}/metrics/{metric}/{d}.parquet"
    for metric in LEARNED_METRICS
    if metric in METRICS["run"]
    for d in METRICS[metric]["datasets"]
    if d in DATASETS
]
# ... and BERTScore beside ROUGE (when bertscore is in metrics.run): the rows its own table has;
# the other learned metrics when listed in metrics.<metric>.datasets
OWN_BERTSCORE = [d for d in OWN_REFERENCE if d in DATASETS and "bertscore" in METRICS["run"]]
METRIC_OUTPUTS += [f"{RESULTS}/metrics/bertscore/{d}.parquet" for d in OWN_BERTSCORE
                   if f"{RESULTS}/metrics/bertscore/{d}.parquet" not in METRIC_OUTPUTS]

# Every model and parser of the jobs about to run is checked before the first job (the
# preflight: sumjudge/preflight.py, wired in workflow/rules/common.smk).


rule metric_bertscore:
    """BERTScore F1 per summary (SummEval: mean over its 11 references)."""
    input:
        dataset_table("{dataset}"),
    output:
        f"{RESULTS}/metrics/bertscore/{{dataset}}.parquet",
    log:
        "logs/metrics/bertscore/{dataset}.log",
    params:
        settings=METRICS["bertscore"],
        device=METRICS["device"],
    threads: config["threads"]["metrics"]
    resources:
        gpu=METRIC_GPU,
    wildcard_constraints:
        dataset=dataset_constraint("reference"),
    conda:
        "../../envs/metrics.yaml"
    script:
        "../../scripts/metric_bertscore.py"


rule metric_moverscore:
    """MoverScore (v2 settings, implemented here) per summary."""
    input:
        dataset_table("{dataset}"),
    output:
        f"{RESULTS}/metrics/moverscore/{{dataset}}.parquet",
    log:
        "logs/metrics/moverscore/{dataset}.log",
    params:
        settings=METRICS["moverscore"],
        device=METRICS["device"],
    threads: config["threads"]["metrics"]
    resources:
        gpu=METRIC_GPU,
    wildcard_constraints:
        dataset=dataset_constraint("reference"),
    conda:
        "../../envs/metrics.yaml"
    script:
        "../../scripts/metric_moverscore.py"


rule metric_bartscore_checkpoint:
    """BARTScore s_h, h_r, r_h with one checkpoint (bart or bart_cnn)."""
    input:
        dataset_table("{dataset}"),
    output:
        f"{RESULTS}/metrics/bartscore/{{checkpoint}}/{{dataset}}.parquet",
    log:
        "logs/metrics/bartscore/{checkpoint}/{dataset}.log",
    params:
        settings=METRICS["bartscore"],
        device=METRICS["device"],
    threads: config["threads"]["metrics"]
    resources:
        gpu=METRIC_GPU,
    wildcard_constraints:
        checkpoint="bart|bart_cnn",
        dataset=dataset_constraint("reference"),
    conda:
        "../../envs/metrics.yaml"
    script:
        "../../scripts/metric_bartscore.py"


rule metric_bartscore:
    """The six BARTScore variants of both checkpoints in one table."""
    input:
        data=dataset_table("{dataset}"),
        bart=f"{RESULTS}/metrics/bartscore/bart/{{dataset}}.parquet",
        bart_cnn=f"{RESULTS}/metrics/bartscore/bart_cnn/{{dataset}}.parquet",
    output:
        f"{RESULTS}/metrics/bartscore/{{dataset}}.parquet",
    log:
        "logs/metrics/bartscore/{dataset}.log",
    threads: 1
    wildcard_constraints:
        dataset=dataset_constraint("reference"),
    conda:
        "../../envs/metrics.yaml"
    script:
        "../../scripts/metric_bartscore_merge.py"


rule metric_factcc:
    """FactCC: REALSumm SCU presence and QAGS sentence support."""
    input:
        dataset_table("{dataset}"),
    output:
        f"{RESULTS}/metrics/factcc/{{dataset}}.parquet",
    log:
        "logs/metrics/factcc/{dataset}.log",
    params:
        settings=METRICS["factcc"],
        device=METRICS["device"],
    threads: config["threads"]["metrics"]
    resources:
        gpu=METRIC_GPU,
    wildcard_constraints:
        dataset=dataset_constraint("factuality"),
    conda:
        "../../envs/metrics.yaml"
    script:
        "../../scripts/metric_factcc.py"


rule metric_dae:
    """DAE (implemented here; spaCy parse, see docs/metrics.md): REALSumm SCUs, QAGS sentences."""
    input:
        dataset_table("{dataset}"),
    output:
        f"{RESULTS}/metrics/dae/{{dataset}}.parquet",
    log:
        "logs/metrics/dae/{dataset}.log",
    params:
        settings=METRICS["dae"],
        device=METRICS["device"],
    threads: config["threads"]["metrics"]
    resources:
        gpu=METRIC_GPU,
    wildcard_constraints:
        dataset=dataset_constraint("factuality"),
    conda:
        "../../envs/metrics.yaml"
    script:
        "../../scripts/metric_dae.py"
