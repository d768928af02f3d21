"""A user's own dataset (config `custom_datasets`): a small dataset of each
protocol in each file format prepared through the workflow, and every input
error stopping with one message that names the file, the row and the fix."""
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from sumjudge.data.custom import file_columns, prepare
from sumjudge.data.readers import DataError

REPO = Path(__file__).resolve().parents[1]
FORMATS = ("csv", "jsonl", "parquet")

RECORDS = {
    "likert": [
        {"doc_id": "d1", "system": "A", "article": "The cat sat on the mat.", "summary": "A cat sat.",
         "reference": "The cat sat.", "quality": 4, "clarity": 3.5},
        {"doc_id": "d1", "system": "B", "article": "The cat sat on the mat.", "summary": "A mat.",
         "reference": "The cat sat.", "quality": 2, "clarity": 5},
        {"doc_id": "d2", "system": "A", "article": "Rain fell all day.", "summary": "It rained.",
         "reference": "Rain all day.", "quality": 5, "clarity": 4},
    ],
    "pairwise": [
        {"pair_id": "p1", "article": "A long post about dogs.", "summary_0": "Dogs.", "summary_1": "Post on dogs.",
         "label": 1, "doc_id": "post1", "reference": "About dogs."},
        {"pair_id": "p2", "article": "A long post about dogs.", "summary_0": "Cats.", "summary_1": "Dogs!",
         "label": 0, "doc_id": "post1", "reference": "About dogs."},
    ],
    "pyramid": [
        {"doc_id": 7, "system": "A", "summary": "The cat sat. It was red.", "scus": ["A cat sat", "The cat was red"],
         "labels": [1, 0]},
        {"doc_id": 8, "system": "A", "summary": "Rain fell.", "scus": ["It rained"], "labels": [1]},
    ],
    "binary": [
        {"doc_id": "d1", "system": "A", "article": "The cat sat on the mat.", "sentence": "A cat sat.", "label": 1},
        {"doc_id": "d1", "system": "A", "article": "The cat sat on the mat.", "sentence": "It was blue.", "label": 0},
        {"doc_id": "d1", "system": "B", "article": "The cat sat on the mat.", "sentence": "A mat.", "label": 1},
    ],
}
DIMENSIONS = {"likert": ["quality", "clarity"]}


def write(path: Path, records: list[dict]) -> Path:
    """Write records as CSV (lists as JSON cells), JSONL or Parquet, by the extension."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
    elif path.suffix == ".csv":
        pd.DataFrame([{k: json.dumps(v) if isinstance(v, list) else v for k, v in r.items()} for r in records]) \
            .to_csv(path, index=False)
    else:
        pd.DataFrame(records).to_parquet(path)
    return path


def expected(protocol: str) -> pd.DataFrame:
    """The prepared table written out by hand from RECORDS."""
    recs = RECORDS[protocol]
    if protocol == "likert":
        ids = ["d1/A", "d1/B", "d2/A"]
    elif protocol == "pairwise":
        ids = ["p1", "p2"]
    elif protocol == "pyramid":
        ids = ["7/A", "8/A"]
    else:
        ids = ["d1/A/0", "d1/A/1", "d1/B/0"]
    df = pd.DataFrame(recs)
    df.insert(0, "unit_id", ids)
    if "doc_id" in df:
        df["doc_id"] = df["doc_id"].astype(str)
    if protocol == "pyramid":
        df["labels"] = [[True, False], [True]]
    if protocol == "binary":
        df["summary_id"] = ["d1/A", "d1/A", "d1/B"]
        df["sentence_idx"] = [0, 1, 0]
    if protocol == "likert":
        df[["quality", "clarity"]] = df[["quality", "clarity"]].astype(float)
    return df


def snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
           "--configfile", str(REPO / "config.yaml"), str(workdir / "custom.yaml"), "--cores", "2", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=workdir)


@pytest.fixture(scope="module")
def workflow_run(tmp_path_factory):
    wd = tmp_path_factory.mktemp("custom-wf")
    custom = {}
    for protocol in RECORDS:
        for fmt in FORMATS:
            name = f"{protocol}_{fmt}"
            write(wd / f"data/{name}.{fmt}", RECORDS[protocol])
            custom[name] = {"path": f"data/{name}.{fmt}", "protocol": protocol, "prompt": None,
                            "dimensions": DIMENSIONS.get(protocol, [])}
    cfg = {"custom_datasets": custom, "datasets": [], "judge": {"run": [], "datasets": []},
           "metrics": {"run": []}, "rouge": {"datasets": []}}
    (wd / "custom.yaml").write_text(yaml.safe_dump(cfg))
    targets = [f"results/data/{n}.parquet" for n in custom] + \
              [f"results/metrics/rouge/{p}_{f}.parquet" for p in ("likert", "pairwise") for f in FORMATS]
    first = snakemake(wd, *targets)
    second = snakemake(wd, "-n", *targets)
    return wd, custom, first, second


def test_each_protocol_and_format_is_prepared_through_the_workflow(workflow_run):
    wd, custom, first, second = workflow_run
    assert first.returncode == 0, first.stderr[-3000:]
    for name, entry in custom.items():
        got = pd.read_parquet(wd / f"results/data/{name}.parquet")
        want = expected(entry["protocol"])
        got = got.assign(**{c: got[c].map(list) for c in ("scus", "labels") if c in got})
        pd.testing.assert_frame_equal(got, want, check_dtype=False, obj=name)
        if entry["protocol"] in ("likert", "pairwise"):
            rouge = pd.read_parquet(wd / f"results/metrics/rouge/{name}.parquet")
            assert list(rouge["unit_id"]) == list(want["unit_id"])
            assert rouge.filter(like="rouge1").notna().all().all()
    # a pairwise dataset's ROUGE also picks a summary, as for TLDR
    rouge = pd.read_parquet(wd / "results/metrics/rouge/pairwise_csv.parquet")
    assert set(rouge["rouge1_choice"]) <= {0, 1, -1}
    assert "Nothing to be done" in second.stdout + second.stderr


def test_the_workflow_only_gives_rouge_where_a_reference_exists(workflow_run, tmp_path):
    wd = workflow_run[0]
    assert file_columns(wd / "data/binary_csv.csv") == ["doc_id", "system", "article", "sentence", "label"]
    assert "reference" in file_columns(wd / "data/likert_parquet.parquet")
    assert "reference" in file_columns(wd / "data/pairwise_jsonl.jsonl")
    assert file_columns(tmp_path / "absent.csv") is None


def test_a_bad_file_stops_its_rule_and_leaves_nothing(tmp_path):
    bad = [dict(r) for r in RECORDS["pairwise"]]
    bad[1]["label"] = 2
    write(tmp_path / "data/bad.jsonl", bad)
    cfg = {"custom_datasets": {"bad": {"path": "data/bad.jsonl", "protocol": "pairwise"}},
           "datasets": [], "judge": {"run": [], "datasets": []}, "metrics": {"run": []}, "rouge": {"datasets": []}}
    (tmp_path / "custom.yaml").write_text(yaml.safe_dump(cfg))
    out = snakemake(tmp_path, "results/data/bad.parquet")
    assert out.returncode != 0
    log = (tmp_path / "logs/prepare/bad.log").read_text()
    assert "data/bad.jsonl, line 2: column 'label' is 2, out of range; write 0 or 1" in log
    assert not (tmp_path / "results/data/bad.parquet").exists()
    assert not list((tmp_path / "results").rglob("*.part"))


def test_a_bad_config_entry_stops_before_any_rule(tmp_path):
    cfg = {"custom_datasets": {"mine": {"path": "d.csv", "protocol": "likert", "dimensions": []}}}
    (tmp_path / "custom.yaml").write_text(yaml.safe_dump(cfg))
    out = snakemake(tmp_path, "-n")
    assert out.returncode != 0
    assert "config key 'custom_datasets.mine.dimensions': a likert dataset needs its human-score columns" \
        in out.stdout + out.stderr


# ------------------------------------------------------------------------- errors

def _error(tmp_path, protocol, records, fmt, dims=None) -> str:
    path = write(tmp_path / f"x.{fmt}", records)
    with pytest.raises(DataError) as err:
        prepare(path, protocol, dims if dims is not None else DIMENSIONS.get(protocol, []))
    msg = str(err.value)
    assert msg.startswith(str(path)) and "\n" not in msg
    return msg


@pytest.mark.parametrize("fmt", FORMATS)
def test_missing_column(tmp_path, fmt):
    recs = [{k: v for k, v in r.items() if k != "summary_1"} for r in RECORDS["pairwise"]]
    msg = _error(tmp_path, "pairwise", recs, fmt)
    where = {"csv": "line 1 (header)", "jsonl": "line 1", "parquet": "schema"}[fmt]
    assert f", {where}: missing column" in msg and "'summary_1'" in msg
    assert "a pairwise dataset needs the columns pair_id, article, summary_0, summary_1, label" in msg


def test_missing_dimension_column_names_the_config(tmp_path):
    recs = [{k: v for k, v in r.items() if k != "clarity"} for r in RECORDS["likert"]]
    msg = _error(tmp_path, "likert", recs, "csv")
    assert "missing column(s) 'clarity'" in msg and "(the last ones from `dimensions`)" in msg


@pytest.mark.parametrize("fmt", FORMATS)
def test_wrong_type(tmp_path, fmt):
    recs = [dict(r) for r in RECORDS["likert"]]
    recs[2]["quality"] = "good"
    if fmt == "parquet":  # a Parquet column has one type: here strings
        for r in recs:
            r["quality"] = str(r["quality"])
    msg = _error(tmp_path, "likert", recs, fmt)
    where, value = {"csv": ("line 4", "good"), "jsonl": ("line 3", "good"), "parquet": ("row 1", "4")}[fmt]
    assert f", {where}: column 'quality' is '{value}', not a number; write the score as a number" in msg


def test_wrong_type_of_a_list(tmp_path):
    recs = [dict(r) for r in RECORDS["pyramid"]]
    recs[0]["scus"] = "A cat sat"
    msg = _error(tmp_path, "pyramid", recs, "jsonl")
    assert "line 1: column 'scus' is 'A cat sat', not a list of strings; write a list" in msg


@pytest.mark.parametrize("fmt", FORMATS)
def test_empty_file(tmp_path, fmt):
    if fmt == "jsonl":
        path = tmp_path / "x.jsonl"
        path.write_text("\n")
    elif fmt == "csv":
        path = tmp_path / "x.csv"
        path.write_text("pair_id,article,summary_0,summary_1,label\n")
    else:
        path = tmp_path / "x.parquet"
        pd.DataFrame({c: pd.Series(dtype=str) for c in ("pair_id", "article", "summary_0", "summary_1")}) \
            .assign(label=pd.Series(dtype=int)).to_parquet(path)
    with pytest.raises(DataError, match=r"x\.%s: the file has no rows; a pairwise dataset needs" % fmt):
        prepare(path, "pairwise")


@pytest.mark.parametrize("protocol", ["pairwise", "binary"])
def test_label_out_of_range(tmp_path, protocol):
    recs = [dict(r) for r in RECORDS[protocol]]
    recs[1]["label"] = 2
    msg = _error(tmp_path, protocol, recs, "csv")
    assert "line 3: column 'label' is '2', out of range; write 0 or 1" in msg


def test_pyramid_labels_out_of_range_or_misaligned(tmp_path):
    recs = [dict(r) for r in RECORDS["pyramid"]]
    recs[1]["labels"] = [3]
    assert "row 2: column 'labels' holds 3, out of range; every item must be 0 or 1" in \
        _error(tmp_path, "pyramid", recs, "parquet")
    recs[1]["labels"] = [1, 0]
    assert "line 2: 1 SCUs but 2 labels; give one label (0/1) per SCU" in _error(tmp_path, "pyramid", recs, "jsonl")


@pytest.mark.parametrize("protocol,key", [("likert", "doc_id / system"), ("pairwise", "pair_id"),
                                          ("pyramid", "doc_id / system"), ("binary", "doc_id / system / sentence")])
def test_duplicate_id(tmp_path, protocol, key):
    recs = [dict(r) for r in RECORDS[protocol]] + [dict(RECORDS[protocol][0])]
    msg = _error(tmp_path, protocol, recs, "jsonl")
    n = len(recs)
    assert f"line {n}: {key} " in msg and "repeats line 1; every unit must appear once" in msg


def test_empty_required_cell(tmp_path):
    recs = [dict(r) for r in RECORDS["binary"]]
    recs[0]["doc_id"] = ""
    assert "line 2: column 'doc_id' is empty; give it a string or an integer" in _error(tmp_path, "binary", recs, "csv")


def test_optional_columns_may_be_absent(tmp_path):
    recs = [{k: v for k, v in r.items() if k not in ("doc_id", "reference")} for r in RECORDS["pairwise"]]
    df = prepare(write(tmp_path / "x.csv", recs), "pairwise")
    assert list(df["doc_id"]) == ["p1", "p2"] and "reference" not in df  # every pair its own cluster
    assert list(df["label"]) == [1, 0]
