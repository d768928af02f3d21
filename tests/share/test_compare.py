"""python -m sumjudge.share compare: which files of two results folders differ, and where."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from sumjudge.share.__main__ import main
from sumjudge.share.compare import (DIFFERS, IDENTICAL, ONLY_A, ONLY_B, SAME_CELLS, compare_results,
                                    json_difference, table_difference, table_structure)


def results(root, score=0.5, compression="snappy", usage_wall=1.0, extra=False):
    (root / "judge/j/summeval").mkdir(parents=True)
    (root / "tables").mkdir()
    (root / "cache").mkdir()
    frame = pd.DataFrame({"unit": ["a", "b", "c"], "score": [0.25, score, np.nan], "valid": [True, True, False]})
    frame.to_parquet(root / "judge/j/summeval/base.parquet", compression=compression)
    (root / "judge/j/summeval/base.usage.json").write_text(json.dumps({"n_units": 3, "wall_s": usage_wall}))
    pd.DataFrame({"row": ["j"], "value": [0.413]}).to_csv(root / "tables/table1.csv", index=False)
    (root / "tables/table1.tex").write_text("j & 0.413 \\\\\n")
    (root / "cache/entry.json").write_text(json.dumps({"reply": str(usage_wall)}))  # left out: SKIP
    if extra:
        (root / "tables/table9.csv").write_text("row,value\nj,1\n")
    return root


def by_path(diffs):
    return {d.path: d for d in diffs}


def test_equal_folders_are_identical_and_the_cache_is_left_out(tmp_path):
    a, b = results(tmp_path / "a"), results(tmp_path / "b")
    (b / "cache/other.json").write_text("{}")
    diffs = compare_results(a, b)
    assert {d.status for d in diffs} == {IDENTICAL}
    assert sorted(by_path(diffs)) == ["judge/j/summeval/base.parquet", "judge/j/summeval/base.usage.json",
                                      "tables/table1.csv", "tables/table1.tex"]


def test_a_parquet_written_otherwise_has_the_same_cells_and_a_changed_cell_names_its_column(tmp_path):
    a = results(tmp_path / "a")
    b = results(tmp_path / "b", compression="gzip", usage_wall=2.5, extra=True)
    d = by_path(compare_results(a, b))
    assert d["judge/j/summeval/base.parquet"].status == SAME_CELLS   # other bytes, same cells (NaN = NaN)
    assert d["judge/j/summeval/base.usage.json"].status == DIFFERS
    assert d["judge/j/summeval/base.usage.json"].where == ["wall_s"]
    assert d["tables/table9.csv"].status == ONLY_B
    c = results(tmp_path / "c", score=0.5000001)
    (c / "tables/table1.tex").write_text("j & 0.414 \\\\\n")
    (c / "tables/table1.csv").unlink()
    d = by_path(compare_results(a, c))
    assert d["judge/j/summeval/base.parquet"].status == DIFFERS
    assert d["judge/j/summeval/base.parquet"].where == ["score"]
    assert d["tables/table1.tex"].where == ["(bytes)"]
    assert d["tables/table1.csv"].status == ONLY_A


def test_table_and_json_differences_say_where():
    x = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    assert table_difference(x, x.copy()) == []
    assert table_difference(x, x[["b", "a"]]) == [] and table_structure(x, x[["b", "a"]]) == ["column order"]
    assert table_difference(x, x.iloc[:1]) == [] and table_structure(x, x.iloc[:1]) == ["rows 2 vs 1"]
    # a column renamed and another changed: both sides named, the shared columns still compared
    y = x.rename(columns={"a": "c"}).assign(b=["x", "z"])
    assert table_structure(x, y) == ["only in A: a", "only in B: c"] and table_difference(x, y) == ["b"]
    assert table_structure(x.assign(d=0), x.iloc[:1]) == ["only in A: d", "rows 2 vs 1"]
    assert table_difference(x, x.assign(b=["x", "z"])) == ["b"]
    assert table_difference(x, x.astype({"a": float})) == ["a"]      # 1 and 1.0: another dtype, not the same cell
    assert json_difference({"k": 1, "m": [1]}, {"k": 1, "m": [2], "n": 0}) == ["m", "n"]
    assert json_difference([1], [2]) == ["(whole document)"]


def test_the_command_prints_each_difference_and_exits_1(tmp_path, capsys):
    a, b = results(tmp_path / "a"), results(tmp_path / "b", score=0.75)
    assert main(["compare", str(a), str(b)]) == 1
    out = capsys.readouterr().out
    assert "4 files; identical 3, same cells 0, differs 1, only in A 0, only in B 0" in out
    assert "differs    judge/j/summeval/base.parquet: score" in out
    c = results(tmp_path / "c")
    pd.read_parquet(c / "judge/j/summeval/base.parquet").rename(columns={"valid": "ok"}).assign(
        score=[0.25, 0.9, 1.0]).to_parquet(c / "judge/j/summeval/base.parquet")
    main(["compare", str(a), str(c)])
    assert "differs    judge/j/summeval/base.parquet: only in A: valid; only in B: ok; score\n" in capsys.readouterr().out
    assert main(["compare", str(a), str(a)]) == 0
    assert main(["compare", str(a), str(b), "--skip", "cache", "judge"]) == 0     # only the tables are left
    assert main(["compare", str(a), str(tmp_path / "nowhere")]) == 2
    assert "nowhere: not a results folder" in capsys.readouterr().err
