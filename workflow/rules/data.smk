# Stage 1: fetch pinned upstream files (or copy them from a mirror) and prepare
# one tidy Parquet table per dataset.

DATA_OUTPUTS = [dataset_table(d) for d in ALL_DATASETS]


rule fetch:
    """Fetch one pinned file from its upstream URL or the mirror; check its sha256."""
    output:
        f"{RESULTS}/raw/{{path}}",
    log:
        "logs/fetch/{path}.log",
    # no `mirror` param: where a pinned, sha256-checked file came from does not change it,
    # so a collaborator with no mirror does not refetch (docs/sharing.md); the script reads config
    wildcard_constraints:
        path=rf"({_ds.alternation(_ds.folders(DATASET_SPECS))})/.+",
    conda:
        "../../envs/data.yaml"
    script:
        "../../scripts/fetch.py"


# Its need before any job: a mirror's files, when config `mirror` is set (sumjudge/preflight.py).
PREFLIGHT["fetch"] = _pf.mirror_need


# On a cluster, downloads run on the head node (compute nodes often have no internet; docs/cluster.md).
localrules:
    fetch,


rule prepare_dataset:
    """One row per unit the protocol judges, with its human labels."""
    input:
        unpack(prepare_inputs),
    output:
        dataset_table("{dataset}"),
    log:
        "logs/prepare/{dataset}.log",
    params:
        sources=lambda wc: pinned_paths(source_files(wc.dataset, prepare_options(wc))),
        options=prepare_options,
    wildcard_constraints:
        dataset=dataset_constraint(),
    conda:
        "../../envs/data.yaml"
    script:
        "../../scripts/prepare_dataset.py"
