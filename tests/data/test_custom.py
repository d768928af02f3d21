"""A user's own dataset (config `custom_datasets`): a small dataset of each
protocol in each file format judged by the fake OpenAI-compatible server and
tabled through the workflow's `rule all` (Parquet, judge table, result table
with intervals, the overview page; a second run has nothing to do), and every
input error stopping with one message that names the file, the row and the fix."""
import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml

from sumjudge.data.custom import check_header, file_columns, prepare
from sumjudge.data.readers import DataError
from support import harness
from support.fake_openai import FakeOpenAIServer
from support.harness import fake_judge

WORKFLOW = pytest.mark.system("rouge-perl")  # the tests that run Snakemake (tests/support/system.py NEEDS): slow tier

FORMATS = ("csv", "jsonl", "parquet")

RECORDS = {
    "likert": [
        {"doc_id": "d1", "system": "A", "article": "The cat sat on the mat.", "summary": "A cat sat.",
         "reference": "The cat sat.", "quality": 4, "clarity": 3.5},
        {"doc_id": "d1", "system": "B", "article": "The cat sat on the mat.", "summary": "A mat.",
         "reference": "The cat sat.", "quality": 2, "clarity": 5},
        {"doc_id": "d2", "system": "A", "article": "Rain fell all day.", "summary": "It rained.",
         "reference": "Rain all day.", "quality": 5, "clarity": 4},
        # more summaries, so that every document has several systems (correlation at three levels)
        *({"doc_id": d, "system": s, "article": a, "summary": f"{s} on {a}", "reference": a[:12],
           "quality": q, "clarity": c}
          for d, s, a, q, c in [("d1", "C", "The cat sat on the mat.", 1, 2), ("d2", "B", "Rain fell all day.", 3, 3),
                                ("d2", "C", "Rain fell all day.", 1, 1), ("d3", "A", "Sun shone at noon.", 4, 4),
                                ("d3", "B", "Sun shone at noon.", 2, 5), ("d3", "C", "Sun shone at noon.", 5, 2)]),
    ],
    "pairwise": [
        {"pair_id": "p1", "article": "A long post about dogs.", "summary_0": "Dogs.", "summary_1": "Post on dogs.",
         "label": 1, "doc_id": "post1", "reference": "About dogs."},
        {"pair_id": "p2", "article": "A long post about dogs.", "summary_0": "Cats.", "summary_1": "Dogs!",
         "label": 0, "doc_id": "post1", "reference": "About dogs."},
        {"pair_id": "p3", "article": "A short post on tea.", "summary_0": "Tea.", "summary_1": "Coffee.",
         "label": 0, "doc_id": "post2", "reference": "On tea."},
        {"pair_id": "p4", "article": "A short post on tea.", "summary_0": "Milk.", "summary_1": "Green tea.",
         "label": 1, "doc_id": "post2", "reference": "On tea."},
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
        ids = [f"{r['doc_id']}/{r['system']}" for r in recs]
    elif protocol == "pairwise":
        ids = [r["pair_id"] for r in recs]
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


def snakemake(workdir: Path, *args: str, timeout: float = 900, env=None) -> subprocess.CompletedProcess:
    return harness.snakemake(workdir, "--cores", "2", *args, configfiles=[harness.CONFIG, workdir / "custom.yaml"],
                             timeout=timeout, env=env, cwd=workdir)


KEY = "sk-custom-test"


@pytest.fixture(scope="module")
def workflow_run(tmp_path_factory):
    """`rule all` over 12 user datasets (4 protocols x 3 formats) and no built-in one,
    judged by the fake server; then `snakemake -n`."""
    wd = tmp_path_factory.mktemp("custom-wf")
    custom = {}
    for protocol in RECORDS:
        for fmt in FORMATS:
            name = f"{protocol}_{fmt}"
            write(wd / f"data/{name}.{fmt}", RECORDS[protocol])
            custom[name] = {"path": f"data/{name}.{fmt}", "protocol": protocol, "prompt": None,
                            "dimensions": DIMENSIONS.get(protocol, [])}
    with FakeOpenAIServer(models=("fake-model",), api_key=KEY) as server:
        cfg = {"custom_datasets": custom, "datasets": [], "metrics": {"run": []}, "rouge": {"datasets": []},
               "judges": {"fake": fake_judge(server, api_key_env="CUSTOM_TEST_KEY")},
               "judge": {"run": ["fake"], "datasets": []},
               "tables": {"bootstrap_resamples": 50, "permutation_resamples": 50}}
        (wd / "custom.yaml").write_text(yaml.safe_dump(cfg))
        env = harness.workflow_env(CUSTOM_TEST_KEY=KEY)
        first = snakemake(wd, timeout=1200, env=env)
        second = snakemake(wd, "-n", timeout=600, env=env)
    return wd, custom, first, second


@WORKFLOW
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


@WORKFLOW
def test_each_is_judged_and_tabled_with_intervals(workflow_run):
    """results/judge/fake/<name>/base.parquet, results/tables/<name>.csv/.tex: judge and
    ROUGE rows in the long form, Spearman at three levels (Likert) or accuracy, with
    intervals; the values are those computed here by hand from the two Parquets."""
    from scipy.stats import spearmanr

    wd, custom, first, _ = workflow_run
    assert first.returncode == 0, first.stderr[-4000:]
    for name, entry in custom.items():
        protocol = entry["protocol"]
        data = pd.read_parquet(wd / f"results/data/{name}.parquet")
        judged = pd.read_parquet(wd / f"results/judge/fake/{name}/base.parquet")
        assert sorted(judged["unit_id"]) == sorted(data["unit_id"]), name
        assert (judged["status"] == "ok").all(), (name, judged[["status", "invalid_reason", "reply"]])
        table = pd.read_csv(wd / f"results/tables/{name}.csv")
        assert {"table", "dataset", "dimension", "level", "row", "value", "ci_low", "ci_high", "p_value",
                "kind", "caveat"} <= set(table.columns), name
        assert set(table["dataset"]) == {name} and set(table["table"]) == {name}
        judge = table[table["kind"] == "judge"]
        assert set(judge["row"]) == {"fake"}, name
        assert judge["ci_low"].notna().all() and (judge["ci_low"] <= judge["ci_high"]).all(), (name, judge)
        merged = data.merge(judged, on="unit_id", suffixes=("_human", "_judge"))
        if protocol == "likert":
            assert set(zip(judge["dimension"], judge["level"])) == \
                {(d, lv) for d in ("quality", "clarity") for lv in ("sample", "system", "dataset")}
            for dim in ("quality", "clarity"):
                want = spearmanr(merged[f"{dim}_judge"], merged[f"{dim}_human"]).statistic
                got = judge.loc[(judge["dimension"] == dim) & (judge["level"] == "dataset"), "value"].item()
                assert got == pytest.approx(want, abs=1e-5), (name, dim)  # the CSV holds 6 digits
        else:
            assert set(judge["level"]) == {"accuracy"}
            if protocol == "pyramid":
                pairs = [(j, h) for js, hs in zip(merged["scu_labels"], merged["labels"]) for j, h in zip(js, hs)]
                want = sum(int(j) == int(h) for j, h in pairs) / len(pairs)
            else:
                judge_col = "choice" if protocol == "pairwise" else "label_judge"
                gold_col = "label" if protocol == "pairwise" else "label_human"
                want = (merged[judge_col].astype(int) == merged[gold_col].astype(int)).mean()
            assert judge["value"].item() == pytest.approx(want), name
        metrics = table[table["kind"] == "metric"]
        if protocol in ("likert", "pairwise"):  # ROUGE: the file has a `reference` column
            assert {"ROUGE-1", "ROUGE-L"} <= {r.replace("_f", "") for r in metrics["row"]}, name
            assert metrics["ci_low"].notna().any()
        else:
            assert metrics.empty
        tex = (wd / f"results/tables/{name}.tex").read_text()
        assert "\\begin{table" in tex and "fake" in tex and name.replace("_", "\\_") in tex
    overview = (wd / "results/tables/overview.html").read_text()
    for name in custom:
        assert f"id='{name}'" in overview
    assert "unknown dataset" not in first.stderr


@WORKFLOW
def test_the_workflow_only_gives_rouge_where_a_reference_exists(workflow_run, tmp_path):
    wd = workflow_run[0]
    assert file_columns(wd / "data/binary_csv.csv") == ["doc_id", "system", "article", "sentence", "label"]
    assert "reference" in file_columns(wd / "data/likert_parquet.parquet")
    assert "reference" in file_columns(wd / "data/pairwise_jsonl.jsonl")
    assert file_columns(tmp_path / "absent.csv") is None


@WORKFLOW
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


@WORKFLOW
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


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_dry_run_check_names_a_missing_column_as_the_rule_would(tmp_path, fmt):
    """common.smk calls check_header before any job (a dry run too): the rule's own line
    (file, where, column, fix) and the config key that names the file."""
    recs = [{k: v for k, v in r.items() if k != "summary_1"} for r in RECORDS["pairwise"]]
    path = write(tmp_path / f"x.{fmt}", recs)
    msg = check_header("mine", {"protocol": "pairwise", "dimensions": ()}, path)
    with pytest.raises(DataError) as err:
        prepare(path, "pairwise")
    if fmt != "jsonl":  # prepare reads a JSONL file line by line: its message names the column alone
        assert msg.startswith(str(err.value))
    assert "missing column(s) 'summary_1'" in msg and msg.endswith("(config key custom_datasets.mine.path)")
    assert "\n" not in msg
    complete = write(tmp_path / f"ok.{fmt}", RECORDS["pairwise"])
    assert check_header("mine", {"protocol": "pairwise"}, complete) is None


def test_the_dry_run_check_names_a_missing_file_unless_its_table_is_prepared(tmp_path):
    kwargs = {"protocol": "likert", "dimensions": ("quality",)}
    msg = check_header("mine", kwargs, tmp_path / "nothere.csv")
    assert msg.startswith(f"{tmp_path / 'nothere.csv'}: no such file (config key custom_datasets.mine.path")
    assert check_header("mine", kwargs, tmp_path / "nothere.csv", prepared=True) is None


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
    assert list(df["doc_id"]) == ["p1", "p2", "p3", "p4"] and "reference" not in df  # every pair its own cluster
    assert list(df["label"]) == [1, 0, 0, 1]


def test_annotator_columns_are_checked_and_may_be_empty(tmp_path):
    """custom_datasets.<name>.annotators: each annotator's column must exist; an empty cell is
    an annotator who did not label that unit (issue 25 point 11)."""
    from sumjudge.data.custom import prepare
    from sumjudge.data.readers import DataError
    p = tmp_path / "x.csv"
    p.write_text("doc_id,system,article,sentence,label,label_a,label_b\nd1,s,art,one,1,1,\nd1,s,art,two,0,0,1\n")
    df = prepare(p, "binary", (), ("label_a", "label_b"))
    assert list(df["label_a"]) == [1, 0] and pd.isna(df["label_b"][0]) and df["label_b"][1] == 1
    with pytest.raises(DataError, match=r"line 1 \(header\): missing column\(s\) 'label_c'"):
        prepare(p, "binary", (), ("label_a", "label_c"))
