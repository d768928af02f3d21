# Stage 1: fetch pinned upstream files (or copy them from a mirror) and prepare
# one tidy Parquet table per dataset.

from sumjudge.data.prepare import source_files

DATA_OUTPUTS = [dataset_table(d) for d in DATASETS]


rule fetch:
    """Fetch one pinned file from its upstream URL or the mirror; check its sha256."""
    output:
        f"{RESULTS}/raw/{{path}}",
    log:
        "logs/fetch/{path}.log",
    params:
        mirror=config["mirror"],
    wildcard_constraints:
        path=r"(summeval|newsroom|tldr|realsumm|qags)/.+",
    conda:
        "../../envs/data.yaml"
    script:
        "../../scripts/fetch.py"


rule prepare_dataset:
    """One row per unit the protocol judges, with its human labels."""
    input:
        lambda wc: [raw(p) for p in source_files(wc.dataset, config)],
    output:
        dataset_table("{dataset}"),
    log:
        "logs/prepare/{dataset}.log",
    params:
        sources=lambda wc: source_files(wc.dataset, config),
        # tldr.metric_ties only decides Table 3's scoring: leave it out, so changing it re-prepares nothing
        options=lambda wc: {k: config[k] for k in ("tldr", "realsumm", "subset")}
        | {"tldr": {k: v for k, v in config["tldr"].items() if k != "metric_ties"}},
    wildcard_constraints:
        dataset="|".join(SOURCE_DATASET),
    conda:
        "../../envs/data.yaml"
    script:
        "../../scripts/prepare_dataset.py"
