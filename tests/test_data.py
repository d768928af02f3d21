"""Prepared datasets: the counts PROVENANCE.md verified, labels that reproduce
published scores, and clear errors for damaged files."""
import json
import shutil

import numpy as np
import pytest

from sumjudge.data import newsroom, qags, realsumm, summeval, tldr
from sumjudge.data.readers import DataError, read_pickle

SE_PKL = "summeval/neulab+BARTScore/SUM/SummEval/data.pkl"
RS_PKL = "realsumm/neulab+BARTScore/SUM/REALSumm/data.pkl"


def test_summeval(prepared):
    df = prepared("summeval")
    assert len(df) == 1600 and df["unit_id"].is_unique
    assert df["doc_id"].nunique() == 100 and df["system"].nunique() == 16
    assert df["references"].map(len).eq(11).all()
    have = df["consistency_expert0"].notna()
    assert have.sum() == 1200
    assert sorted(df.loc[~have, "system"].unique()) == ["M0", "M1", "M2", "M5"]
    # the mean columns are the expert means where experts exist
    for dim in summeval.DIMENSIONS:
        mean = df.loc[have, [f"{dim}_expert{k}" for k in range(3)]].mean(axis=1)
        np.testing.assert_allclose(mean, df.loc[have, dim])


def test_newsroom(prepared):
    df = prepared("newsroom")
    assert len(df) == 420 and df["doc_id"].nunique() == 60 and df["system"].nunique() == 7
    for dim in newsroom.DIMENSIONS:
        np.testing.assert_allclose(df[[f"{dim}_r{k}" for k in range(3)]].mean(axis=1), df[dim])
    # 5,040 individual ratings with the value counts PROVENANCE.md reports
    values = np.concatenate([df[f"{d}_r{k}"] for d in newsroom.DIMENSIONS for k in range(3)])
    assert dict(zip(*np.unique(values, return_counts=True))) == {1: 529, 2: 556, 3: 1179, 4: 1731, 5: 1045}


def test_tldr_default_subset(prepared):
    df = prepared("tldr")
    # batch18 comparisons without the human reference in the pair
    assert len(df) == 335 and df["unit_id"].is_unique
    assert set(df["batch"]) == {"batch18"}
    assert not ({"ref"} & (set(df["policy_0"]) | set(df["policy_1"])))
    assert df["reference"].notna().all() and df["choice"].isin([0, 1]).all()


def test_tldr_all_comparisons(mirror):
    files = [mirror / f"tldr/redwoodresearch+mlab/comparisons/{b}.json" for b in ("batch13", "batch18")]
    df = tldr.prepare(files, splits=None, drop_reference_pairs=False, require_reference=False)
    assert len(df) == 1097 + 674
    assert df.groupby("batch")["choice"].value_counts().to_dict() == {
        ("batch13", 0): 624, ("batch13", 1): 473, ("batch18", 0): 350, ("batch18", 1): 324}


def test_realsumm_reproduces_litepyramid_recall(prepared, mirror):
    df = prepared("realsumm")
    assert len(df) == 2400 and df["system"].nunique() == 24 and df["doc_id"].nunique() == 100
    per_doc = df.groupby("doc_id")["scus"].first().map(len)
    assert per_doc.sum() == 1056 and per_doc.max() == 16 and per_doc.min() == 5
    published = read_pickle(mirror / RS_PKL)
    expected = [published[d]["sys_summs"][s + ".txt"]["scores"]["litepyramid_recall"]
                for d, s in zip(df["doc_id"], df["system"])]
    np.testing.assert_allclose(df["litepyramid_recall"], expected, atol=1e-12)
    assert (df["scu_labels"].map(len) == df["scus"].map(len)).all()


def test_realsumm_tie_option_changes_only_ties(prepared):
    present = prepared("realsumm", {"realsumm": {"tie": "present"}, "subset": {}})
    absent = prepared("realsumm")
    ties = sum(2 * p == n for ps, ns in zip(absent["scu_votes_present"], absent["scu_n_votes"])
               for p, n in zip(ps, ns))
    flipped = sum(a != b for la, lb in zip(absent["scu_labels"], present["scu_labels"])
                  for a, b in zip(la, lb))
    assert ties > 0 and flipped == ties


@pytest.mark.parametrize("name,sentences,summaries", [("qags_cnn", 714, 235), ("qags_xsum", 239, 239)])
def test_qags(prepared, mirror, name, sentences, summaries):
    df = prepared(name)
    assert len(df) == sentences and df["doc_id"].nunique() == summaries
    assert df["votes"].map(len).eq(3).all()
    # the majority label reproduces BARTScore's summary-level `fact` score
    pkl = read_pickle(mirror / f"qags/neulab+BARTScore/SUM/{name.upper()}/data.pkl")
    fact = df.groupby("doc_id")["label"].mean()
    np.testing.assert_allclose(fact, [pkl[d]["sys_summs"][0]["scores"]["fact"] for d in fact.index])


def test_subset(prepared):
    df = prepared("summeval", {"subset": {"summeval": {"docs": 3}}})
    assert len(df) == 48 and df["doc_id"].nunique() == 3


# --- damaged files --------------------------------------------------------------

def test_mangled_jsonl_row_names_file_and_line(mirror, tmp_path):
    src = mirror / "qags/W4ngatang+qags/data/mturk_xsum.jsonl"
    lines = src.read_text().splitlines(keepends=True)
    lines[6] = lines[6][: len(lines[6]) // 2] + "\n"  # cut line 7 in half
    bad = tmp_path / "mturk_xsum.jsonl"
    bad.write_text("".join(lines))
    with pytest.raises(DataError, match=rf"{bad}, line 7: invalid JSON .*fetch it again"):
        qags.prepare(bad)


def test_mangled_csv_row_names_file_and_row(mirror, tmp_path):
    folder = "realsumm/neulab+REALSumm/human_annotations/SCUs_and_annotations"
    csv_src = mirror / folder / "SCU_rating_results_ext_systems/bart_out.csv"
    text = csv_src.read_text().splitlines(keepends=True)
    text[5] = ",".join(text[5].split(",")[:10]) + "\n"  # data row 5 loses most fields
    bad = tmp_path / "bart_out.csv"
    bad.write_text("".join(text))
    with pytest.raises(DataError, match=rf"{bad}, row 5: .*different number of values"):
        realsumm.prepare(mirror / RS_PKL, mirror / folder / "SCUs_list.csv", [bad])


def test_wrong_field_value_is_reported(mirror, tmp_path):
    src = mirror / "qags/W4ngatang+qags/data/mturk_xsum.jsonl"
    lines = src.read_text().splitlines()
    rec = json.loads(lines[2])
    rec["summary_sentences"][0]["responses"][1]["response"] = "maybe"
    lines[2] = json.dumps(rec)
    bad = tmp_path / "x.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"line 3, sentence 0: responses must be 'yes' or 'no'.*'maybe'"):
        qags.prepare(bad)


def test_pickle_with_code_is_refused(tmp_path):
    import pickle

    bad = tmp_path / "data.pkl"
    bad.write_bytes(pickle.dumps({"x": shutil.copyfile}))
    with pytest.raises(DataError, match="refusing to load global shutil.copyfile"):
        read_pickle(bad)


def test_summeval_rejects_files_that_do_not_belong_together(mirror, tmp_path):
    src = mirror / "summeval/DAMO-NLP-SG+LLM_summeval/model_output_annotations/M8_outputs_annotations.jsonl"
    lines = src.read_text().splitlines()
    rec = json.loads(lines[0])
    rec["expert_annotations"][0]["fluency"] = 1 if rec["expert_annotations"][0]["fluency"] != 1 else 5
    lines[0] = json.dumps(rec)
    bad = tmp_path / "M8_outputs_annotations.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"mean of expert fluency scores .* differs"):
        summeval.prepare(mirror / SE_PKL, [bad])
