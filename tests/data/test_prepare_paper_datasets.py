"""Prepared datasets: the counts PROVENANCE.md verified, labels that reproduce
published scores, and clear errors for damaged files."""
import json
import re
import shutil

import numpy as np
import pytest

from sumjudge.data import newsroom, qags, realsumm, summeval, tldr
from sumjudge.data.readers import DataError, read_pickle

SE_PKL = "summeval/neulab+BARTScore/SUM/SummEval/data.pkl"
SE_ALT = "summeval/nitaytech+AltTest/data/summeval/human_annotations.json"
SE_DAMO = "summeval/DAMO-NLP-SG+LLM_summeval/model_output_annotations/M8_outputs_annotations.jsonl"
RS_PKL = "realsumm/neulab+BARTScore/SUM/REALSumm/data.pkl"


def test_summeval(prepared, mirror):
    df = prepared("summeval")
    assert len(df) == 1600 and df["unit_id"].is_unique
    assert df["doc_id"].nunique() == 100 and df["system"].nunique() == 16
    assert df["references"].map(len).eq(11).all()
    # every expert's score for all 1600 summaries (AltTest), the extractive systems included
    experts = [f"{dim}_expert{k}" for dim in summeval.DIMENSIONS for k in range(3)]
    assert df[experts].notna().all(axis=None)
    alt = json.loads((mirror / SE_ALT).read_text())
    for _, row in df[df["system"].isin(["M0", "M5", "M23"])].head(40).iterrows():
        for k in range(3):
            assert row[f"relevance_expert{k}"] == alt[f"e{k}"][f"{row.doc_id}__{row.system}__relevance"]
    # the mean columns are the expert means (BARTScore's pickle), for all 16 systems
    for dim in summeval.DIMENSIONS:
        np.testing.assert_allclose(df[[f"{dim}_expert{k}" for k in range(3)]].mean(axis=1), df[dim])
    # the 5 crowd scores come from the DAMO files: the 12 abstractive systems only
    have = df["coherence_turker0"].notna()
    assert have.sum() == 1200 and sorted(df.loc[~have, "system"].unique()) == ["M0", "M1", "M2", "M5"]
    assert df.loc[have, [f"{d}_turker{k}" for d in summeval.DIMENSIONS for k in range(5)]].notna().all(axis=None)


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


def test_summeval_stops_when_the_two_expert_sources_disagree(mirror, tmp_path):
    lines = (mirror / SE_DAMO).read_text().splitlines()
    rec = json.loads(lines[0])
    rec["expert_annotations"][0]["fluency"] = 1 if rec["expert_annotations"][0]["fluency"] != 1 else 5
    lines[0] = json.dumps(rec)
    bad = tmp_path / "M8_outputs_annotations.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=re.escape(f"{mirror / SE_ALT} and {bad}, line 1 disagree on the expert scores "
                                                  f"of document {rec['id']}, system M8, fluency")):
        summeval.prepare(mirror / SE_PKL, [bad], mirror / SE_ALT)


def test_summeval_stops_when_experts_do_not_average_to_the_pickle(mirror, tmp_path):
    alt = json.loads((mirror / SE_ALT).read_text())
    key = next(k for k in alt["e1"] if "__M1__" in k and k.endswith("__coherence"))   # an extractive system
    alt["e1"][key] = 1 if alt["e1"][key] != 1 else 5
    bad = tmp_path / "human_annotations.json"
    bad.write_text(json.dumps(alt))
    doc = key.split("__")[0]
    with pytest.raises(DataError, match=rf"{re.escape(str(bad))} and .*data.pkl disagree on document {doc}, system M1, "
                                        r"coherence: the experts' scores .* do not belong together"):
        summeval.prepare(mirror / SE_PKL, [mirror / SE_DAMO], bad)


def test_summeval_stops_on_a_missing_expert_score(mirror, tmp_path):
    alt = json.loads((mirror / SE_ALT).read_text())
    key = next(k for k in alt["e2"] if "__M5__" in k)
    del alt["e2"][key]
    bad = tmp_path / "human_annotations.json"
    bad.write_text(json.dumps(alt))
    with pytest.raises(DataError, match=rf"{re.escape(str(bad))}: no score of every expert for document .*, system M5"):
        summeval.prepare(mirror / SE_PKL, [mirror / SE_DAMO], bad)
