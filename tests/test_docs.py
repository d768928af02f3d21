"""The documentation holds together: every relative link in README.md and docs/ resolves,
and every config key the schema allows is documented somewhere in docs/ or the README."""
from __future__ import annotations

import re

import yaml

from support.harness import REPO

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def relative_links(text: str) -> list[str]:
    return [t for t in LINK.findall(text) if not re.match(r"^[a-z]+:|^#", t)]


def schema_keys(node: dict, prefix: str = "") -> list[str]:
    """Dotted config keys the schema names (``properties``; a map's ``additionalProperties``
    is entered as ``<name>``)."""
    out = []
    for key, sub in (node.get("properties") or {}).items():
        out.append(prefix + key)
        out += schema_keys(sub, f"{prefix}{key}.")
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        out += schema_keys(extra, f"{prefix}<name>.")
    for alt in node.get("anyOf", []) + node.get("oneOf", []):
        if isinstance(alt, dict):
            out += schema_keys(alt, prefix)
    if isinstance(node.get("items"), dict):
        out += schema_keys(node["items"], prefix)
    return sorted(set(out))


def test_link_finder():
    text = "see [a](docs/a.md), [b](https://x.org/b), [c](#top), [d](../e/f.md#sec)"
    assert relative_links(text) == ["docs/a.md", "../e/f.md#sec"]


def test_every_relative_link_resolves():
    broken = []
    for doc in DOCS:
        for target in relative_links(doc.read_text()):
            path = target.split("#")[0]
            if path and not (doc.parent / path).exists():
                broken.append(f"{doc.relative_to(REPO)} -> {target}")
    assert not broken, "links that resolve to nothing:\n" + "\n".join(broken)


def test_schema_key_walker():
    schema = {"properties": {"a": {"properties": {"b": {}}},
                             "m": {"additionalProperties": {"properties": {"c": {}}}}}}
    assert schema_keys(schema) == ["a", "a.b", "m", "m.<name>.c"]


def test_every_schema_key_is_documented():
    schema = yaml.safe_load((REPO / "workflow/schemas/config.schema.yaml").read_text())
    text = "\n".join(d.read_text() for d in DOCS)
    missing = []
    for key in schema_keys(schema):
        leaf = key.rsplit(".", 1)[-1]
        # documented: the dotted key or the key's own name in code style (`leaf`, `parent.leaf`, `leaf: ...`)
        if key not in text and not re.search(r"`[^`\n]*\b" + re.escape(leaf) + r"\b[^`\n]*`", text):
            missing.append(key)
    assert not missing, f"{len(missing)} config keys appear nowhere in README.md or docs/: {missing}"


# ------------------------------------------------------------------ names that go stale (issue 34)
# Every rule a doc names, every `python -m` module and every repository path in its code (fenced
# blocks and inline code) must exist: a renamed rule or a moved module fails here, not in a reader's
# terminal.

FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)
INLINE = re.compile(r"`([^`\n]+)`")
RULE_WORDS = re.compile(r"\brules?\s+(`[a-z][a-z0-9_]*`(?:\s*(?:,|and|or|then)\s*`[a-z][a-z0-9_]*`)*)")
RULE_BEFORE = re.compile(r"`([a-z][a-z0-9_]*)`\s+rules?\b")
MODULE = re.compile(r"python3? -m (sumjudge(?:\.\w+)*)")
PATH = re.compile(r"(?<![\w./<-])((?:sumjudge|scripts|workflow|tests|benchmarks|docs|prompts|envs|config|profiles)"
                  r"/[^\s`'\"(),;]*[\w*/])")
PLACEHOLDER = re.compile(r"[{}<>\[\]$]")  # `results/{dataset}.parquet`, `config/NN-<name>`: not one file
SNAKEMAKE_COMMAND = re.compile(r"(?m)(?:^|&&|\$ )\s*(?:[\w./]*/)?snakemake\b([^\n|;&#`]*)")
# the worked example of docs/extending.md: a file the reader creates
HYPOTHETICAL = {"prompts/acceptable.txt"}


def rule_names() -> set[str]:
    files = [REPO / "Snakefile", *sorted((REPO / "workflow/rules").glob("*.smk"))]
    return {m for f in files for m in re.findall(r"(?m)^rule (\w+):", f.read_text())}


def code_of(text: str) -> list[str]:
    """The fenced blocks and inline code spans of a Markdown text."""
    blocks = FENCE.findall(text)
    return blocks + INLINE.findall(FENCE.sub("", text))


def named_rules(text: str) -> set[str]:
    """Rule names a doc uses: `x` after "rule(s)" or before "rule", the rules column of a
    table whose header says rules, and a bare target of a `snakemake` command."""
    found = {w for m in RULE_WORDS.findall(text) for w in re.findall(r"`([a-z][a-z0-9_]*)`", m)}
    found |= set(RULE_BEFORE.findall(text))
    for table in re.findall(r"(?m)^\|[^\n]*\|\n(?:\|[^\n]*\n)+", text):
        head = [c.strip() for c in table.splitlines()[0].strip("|").split("|")]
        # a "rules" column lists rules; a "jobs about to run" column starts each cell with one
        col = next((i for i, h in enumerate(head) if h == "rules" or h.startswith("jobs")), None)
        for row in table.splitlines()[2:] if col is not None else []:
            cells = row.strip("|").split("|")
            cell = re.sub(r"\([^)]*\)", "", cells[col]) if col < len(cells) else ""  # not a rule's (notes)
            names = re.findall(r"`([a-z][a-z0-9_]*)`", cell)
            found |= set(names if head[col] == "rules" else names[:1] if cell.strip().startswith("`") else [])
    for code in code_of(text):
        for cmd in SNAKEMAKE_COMMAND.findall(code):
            words = cmd.split()
            found |= {w for i, w in enumerate(words) if re.fullmatch(r"[a-z][a-z0-9_]*", w)
                      and (i == 0 or not words[i - 1].startswith("-"))}
    return found


def stale_path(path: str) -> bool:
    """A repository path that names nothing: no file or folder, or a glob matching none."""
    path = path.rstrip(".:").split("::")[0]  # a pytest node id names its file
    if PLACEHOLDER.search(path) or path in HYPOTHETICAL:
        return False
    return not any(REPO.glob(path)) if "*" in path else not (REPO / path).exists()


def test_the_name_finders():
    text = ("the rule `judge`, rules `rouge`, `metric` and `manifest`; the `leaderboard` rule;\n"
            "| stage | rules | outputs |\n|---|---|---|\n| data | `fetch`, `prepare_dataset` | `results/x` |\n"
            "```bash\nsnakemake --cores 2 judge_cost_estimate -n   # then the jobs run\n"
            "python -m sumjudge.share export\n"
            "```\nsee `sumjudge/io.py`, `tests/slice.yaml` and `results/{judge}/x`; `snakemake` starting twice")
    assert named_rules(text) == {"judge", "rouge", "metric", "manifest", "leaderboard", "fetch", "prepare_dataset",
                                 "judge_cost_estimate"}
    code = "\n".join(code_of(text))
    assert MODULE.findall(code) == ["sumjudge.share"]
    assert PATH.findall(code) == ["sumjudge/io.py", "tests/slice.yaml"]
    assert [stale_path(p) for p in ("tests/slice.yaml", "tests/stats/test_*.py", "tests/nothing_*.py",
                                    "sumjudge/tables/leaderboard.py", "config/NN-<name>")] == [
        False, False, True, True, False]


def test_every_rule_a_doc_names_is_in_the_workflow():
    rules = rule_names()
    assert {"all", "judge", "manifest", "leaderboard"} <= rules
    stale = [f"{doc.relative_to(REPO)}: rule {name}" for doc in DOCS for name in sorted(named_rules(doc.read_text()))
             if name not in rules]
    assert not stale, "rules the docs name that the workflow does not have:\n" + "\n".join(stale)


def test_every_module_and_path_in_the_docs_code_exists():
    import importlib.util

    stale = []
    for doc in DOCS:
        for code in code_of(doc.read_text()):
            stale += [f"{doc.relative_to(REPO)}: python -m {m}" for m in MODULE.findall(code)
                      if importlib.util.find_spec(m) is None]
            stale += [f"{doc.relative_to(REPO)}: {p}" for p in PATH.findall(code) if stale_path(p)]
    assert not stale, "modules and paths the docs' code names that do not exist:\n" + "\n".join(sorted(set(stale)))


def anchors(text: str) -> set[str]:
    """GitHub's anchors of a Markdown text's headings (lower case, punctuation dropped, spaces
    to hyphens), outside code blocks."""
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"(?m)^#{1,6} (.+)$", FENCE.sub("", text))}


def test_every_link_to_a_heading_finds_it():
    """A table of contents (docs/judge.md) and every `file.md#heading` link land on a heading."""
    assert anchors("## Sharing results/\n## Judges of today: reasoning models\n```\n# not a heading\n```") == {
        "sharing-results", "judges-of-today-reasoning-models"}
    broken = []
    for doc in DOCS:
        for target in LINK.findall(doc.read_text()):
            path, _, anchor = target.partition("#")
            if not anchor or re.match(r"^[a-z]+:", path) or not (path == "" or path.endswith(".md")):
                continue
            file = doc if path == "" else doc.parent / path
            if file.exists() and anchor not in anchors(file.read_text()):
                broken.append(f"{doc.relative_to(REPO)} -> {target}")
    assert not broken, "links to headings that do not exist:\n" + "\n".join(broken)


# ------------------------------------------------------------------ docs/judge.md's contents (issue 35)

def headings(text: str) -> list[tuple[int, str]]:
    """(level, title) of every ##-#### heading outside fenced code, in order."""
    body = FENCE.sub("", text)
    return [(len(h), t.strip()) for h, t in re.findall(r"(?m)^(#{2,4}) (.+)$", body)]


def anchor(title: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


def test_judge_md_contents_list_every_heading_in_order():
    text = (REPO / "docs/judge.md").read_text()
    toc = text.split("**Contents**", 1)[1].split("\n\n", 2)[1]
    listed = re.findall(r"(?m)^( *)- \[([^\]]+)\]\(#([^)]+)\)$", toc)
    assert [((len(i) // 2) + 2, t, a) for i, t, a in listed] == [(lv, t, anchor(t)) for lv, t in headings(text)]
    assert anchor("Outputs (contract for the tables stage)") == "outputs-contract-for-the-tables-stage"
