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
