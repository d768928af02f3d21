"""TLDR's comparison counts (sumjudge/data/tldr_counts.py) by hand and on the offline
batches of the mirror (moved from tests/stats)."""
import json
from pathlib import Path

from support.harness import default_options


def _write_batch(path: Path, rows):
    with path.open("w") as fh:
        for post, policies, split in rows:
            fh.write(json.dumps({"info": {"id": post}, "summaries": [{"policy": p} for p in policies],
                                 "split": split, "batch": path.stem}) + "\n")


def test_tldr_counts_hand_computed(tmp_path, capsys):
    from sumjudge.data import tldr_counts

    _write_batch(tmp_path / "b1.json", [("p1", ["ref", "m"], "valid1"), ("p1", ["m", "n"], "valid1"),
                                        ("p2", ["m", "n"], "valid2"), ("p1", ["n", "m"], "train")])
    _write_batch(tmp_path / "b2.json", [("p2", ["ref", "n"], "valid2"), ("p3", ["m", "n"], "valid2")])
    df = tldr_counts.load(tldr_counts.batch_files([str(tmp_path)]))
    assert tldr_counts.count(df, ["b1"], ["valid1", "valid2", "train"], False, False) == 4
    assert tldr_counts.count(df, ["b1"], ["valid1", "valid2", "train"], True, True) == 2   # p1's non-ref pairs
    assert tldr_counts.count(df, ["b1", "b2"], ["valid2"], True, True) == 1                 # p2 gets b2's reference
    assert tldr_counts.main([str(tmp_path), "--target", "1"]) == 0
    out = capsys.readouterr().out
    assert "6 comparisons in 2 file(s)" in out
    assert "batches b1+b2, splits valid2, drop_reference_pairs true, require_reference true" in out
    assert tldr_counts.main([str(tmp_path / "absent")]) == 2


def test_tldr_counts_of_the_offline_batches(mirror):
    from sumjudge.data import tldr_counts

    df = tldr_counts.load(tldr_counts.batch_files([str(mirror / "tldr")]))
    assert len(df) == 1097 + 674
    t = default_options()["tldr"]  # the default subset (config.yaml's tldr section)
    assert tldr_counts.count(df, t["batches"], t["splits"], t["drop_reference_pairs"], t["require_reference"]) == 335
    assert tldr_counts.count(df, ["batch13"], ["valid1", "valid2"], False, False) == 1097
    assert tldr_counts.find(df, 1847) == []   # no combination of the offline batches has the paper's 1847
