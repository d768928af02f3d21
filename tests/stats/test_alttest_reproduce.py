"""benchmarks/alttest_reproduce.py: reads a folder shaped like the alt-test's repository
and its notebook's printed numbers, and compares sumjudge's alt-test with them (the real
repository is not here: it has no licence; the figures on it are in docs/statistics.md)."""
import importlib.util
import json

from support import alttest_format
from support.harness import REPO


def _script():
    spec = importlib.util.spec_from_file_location("alttest_reproduce", REPO / "benchmarks/alttest_reproduce.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_hand_computed_numbers_are_reproduced(tmp_path, capsys):
    folder = alttest_format.write(tmp_path)
    script = _script()
    for (dataset, llm), want in alttest_format.BY_HAND.items():
        humans = json.loads((folder / "data" / dataset / "human_annotations.json").read_text())
        llms = json.loads((folder / "data" / dataset / "llm_annotations.json").read_text())
        wr, ap = script.ours(humans, llms[llm], {"cat": "accuracy", "stars": "neg_rmse"}[dataset], 0.2)
        assert (round(wr, 2), round(ap, 2)) == want, (dataset, llm)
    assert script.main([str(folder)]) == 0
    out = capsys.readouterr().out
    assert "6 of 6 published numbers reproduced" in out and "differs" not in out


def test_a_number_that_differs_is_flagged_and_fails(tmp_path, capsys):
    published = {**alttest_format.BY_HAND, ("cat", "bad"): (0.50, 0.50)}
    assert _script().main([str(alttest_format.write(tmp_path, published))]) == 1
    out = capsys.readouterr().out
    assert "5 of 6 published numbers reproduced" in out
    assert [line.split()[:2] for line in out.splitlines() if "differs" in line] == [["cat", "bad"]]


def test_units_with_one_human_label_or_no_llm_label_are_left_out(tmp_path):
    humans = {"h0": {"u0": "a", "u1": "a", "u2": "b"}, "h1": {"u0": "a", "u2": "b"}}
    names, labels, pred = _script().matrices(humans, {"u0": "a", "u1": "b"})
    assert names == ["h0", "h1"] and labels.tolist() == [[0.0, 0.0]] and pred.tolist() == [0.0]
