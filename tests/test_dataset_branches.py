"""No stage branches on a built-in dataset's name (issue 28): the registry
(sumjudge/datasets.py) says what each dataset is, the catalog (sumjudge/catalog.py)
which paper table has which datasets, variants, levels and columns, and the data
readers (sumjudge/data/) read each dataset's files. Everywhere else a dataset is a
spec that is asked, so a new dataset touches the registry, its reader and its prompt.

The twin of tests/test_protocol_branches.py, with its token scanner: every string
literal (or keyword) in ``sumjudge/``, ``scripts/``, ``workflow/`` and the
``Snakefile`` that is a name in ``sumjudge.datasets.BUILTIN`` is reported as
``file:line``. Comments, docstrings, f-strings and prose in messages are not code.
"""
from __future__ import annotations

import tokenize

import pytest

from sumjudge.datasets import BUILTIN
from test_protocol_branches import REPO, scan

NAMES = frozenset(BUILTIN)
# Where a dataset's name may be spelled (a folder: everything under it), and why. The one list.
EXEMPT = {
    "sumjudge/datasets.py": "the registry",
    "sumjudge/catalog.py": "the paper's tables",
    "sumjudge/data/": "the data readers",
    # being rewritten as the package sumjudge/leaderboard/ (issue 25), which must comply:
    # drop this line once that branch is merged
}


def exempt(rel: str) -> bool:
    return any(rel == e or e.endswith("/") and rel.startswith(e) for e in EXEMPT)


def code_files() -> list[str]:
    files = [REPO / "Snakefile"]
    for top in ("sumjudge", "scripts", "workflow"):
        files += sorted(p for p in (REPO / top).rglob("*") if p.suffix in (".py", ".smk")
                        and "__pycache__" not in p.parts)
    return [p.relative_to(REPO).as_posix() for p in files]


def branches(files: list[str], root=REPO) -> list[str]:
    found = []
    for rel in files:
        if exempt(rel):
            continue
        try:
            hits = scan((root / rel).read_text(encoding="utf-8"), NAMES, kind="dataset", attributes=False)
        except (tokenize.TokenError, SyntaxError) as err:  # unreadable code is not proof of none
            pytest.fail(f"{rel}: cannot tokenize ({err}); the scan must read every file")
        found += [f"{rel}:{line}: {what}" for line, what in hits]
    return found


def test_no_dataset_name_outside_the_registry_the_catalog_and_the_readers():
    found = branches(code_files())
    assert not found, ("a stage spells a dataset's name; ask its spec (sumjudge/datasets.py) or the "
                       "paper's table catalog (sumjudge/catalog.py) instead:\n" + "\n".join(found))


def test_the_scan_reads_the_real_code_and_skips_only_the_exempt():
    files = code_files()
    assert {"Snakefile", "workflow/rules/tables.smk", "sumjudge/tables/build.py", "sumjudge/judge/targets.py",
            "scripts/judge.py"} <= set(files)
    skipped = {f for f in files if exempt(f)}
    assert {"sumjudge/datasets.py", "sumjudge/catalog.py", "sumjudge/data/tldr.py"} <= skipped
    assert all(f.startswith("sumjudge/data/") or f in EXEMPT for f in skipped), skipped
    # the registry and the catalog do spell names: the exemptions are needed, and the scan sees them
    assert branches(["sumjudge/catalog.py"]) == [] and scan((REPO / "sumjudge/catalog.py").read_text(), NAMES,
                                                            kind="dataset", attributes=False)


PLANTED = '''\
"""Table 6 reads "summeval": prose in a docstring is not a branch."""
if spec.name == "summeval":
    pass
human = pd.read_parquet(data_paths["tldr"])
if dataset in ("qags_cnn", "qags_xsum"):
    pass
WORDS = {"realsumm": "SCUs"}
n = TOKENS.get("newsroom", 0)
t = dict(summeval=4)
msg = f"{name}: not summeval"  # an f-string, and a comment: "tldr"
runs = [r for r in runs if r.dataset == "summeval"]
'''


def test_scanner_catches_planted_dataset_branches():
    by_line = {}
    for line, what in scan(PLANTED, NAMES, kind="dataset", attributes=False):
        by_line.setdefault(line, []).append(what)
    assert sorted(by_line) == [2, 4, 5, 7, 8, 9, 11]
    assert by_line[2] == ['dataset name "summeval" compared with']
    assert by_line[4] == ['dataset name "tldr" as a lookup key']
    assert by_line[5] == ['dataset name "qags_cnn" tested for membership in',
                          'dataset name "qags_xsum" tested for membership in']
    assert by_line[7] == ['dataset name "realsumm" as a dict key']
    assert by_line[9] == ["dataset name summeval as a keyword"]


def test_a_planted_branch_in_a_stage_fails_the_check(tmp_path):
    (tmp_path / "sumjudge/tables").mkdir(parents=True)
    (tmp_path / "sumjudge/data").mkdir(parents=True)
    (tmp_path / "sumjudge/tables/build.py").write_text('spec = BUILTIN["summeval"]\n')
    (tmp_path / "sumjudge/data/summeval.py").write_text('NAME = "summeval"\n')  # a reader: exempt
    found = branches(["sumjudge/tables/build.py", "sumjudge/data/summeval.py"], root=tmp_path)
    assert found == ['sumjudge/tables/build.py:1: dataset name "summeval" as a lookup key']


def test_the_catalog_has_the_statistics_levels_and_the_registrys_tables():
    from sumjudge import catalog
    from sumjudge.stats.correlation import LEVELS

    assert catalog.LEVELS == LEVELS
    assert [t.label for t in catalog.TABLES.values()] == [f"Table {i}" for i in range(1, 10)]
    assert catalog.TABLES["table5"].datasets == ("qags_cnn", "qags_xsum")
    assert catalog.VARIANTS_TABLE.variants == BUILTIN["summeval"].variants == ("base", "def", "def_ins", "sys_prompt")
    assert catalog.TABLES["table3"].levels == ("accuracy",) and catalog.TABLES["table1"].levels == LEVELS
