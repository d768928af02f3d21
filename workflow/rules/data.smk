# Stage 1: fetch pinned upstream files (or copy them from a mirror) and prepare
# one tidy Parquet table per dataset.

from sumjudge.data.prepare import pinned_paths, source_files

DATA_OUTPUTS = [dataset_table(d) for d in ALL_DATASETS]


def prepare_options(wc):
    """What the dataset's reader is told: the built-ins' config sections, or the
    user's `custom_datasets` entry."""
    if wc.dataset in CUSTOM_DATASETS:
        return {"subset": config["subset"],
                "custom_datasets": {wc.dataset: config["custom_datasets"][wc.dataset]}}
    return {k: config[k] for k in ("tldr", "realsumm", "subset")}


def prepare_inputs(wc):
    """The dataset's files by reader role: fetched pinned files, or the user's file."""
    files = source_files(wc.dataset, prepare_options(wc))
    if wc.dataset in CUSTOM_DATASETS:
        return files
    return {role: [raw(p) for p in paths] for role, paths in files.items()}


rule fetch:
    """Fetch one pinned file from its upstream URL or the mirror; check its sha256."""
    output:
        f"{RESULTS}/raw/{{path}}",
    log:
        "logs/fetch/{path}.log",
    params:
        mirror=config["mirror"],
    wildcard_constraints:
        path=rf"({_ds.alternation(_ds.folders(DATASET_SPECS))})/.+",
    conda:
        "../../envs/data.yaml"
    script:
        "../../scripts/fetch.py"


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
