"""Prompt templates: plain text files with ``{Placeholder}`` fields.

A template file is the user message, verbatim. It may instead be split into
messages by header lines ``### system`` and ``### user`` (each on a line of its
own); the first message then starts after its header. One trailing newline of each
message is dropped (editors add it); everything else is sent as written.

Placeholders (only these are filled; any other ``{...}`` text is left alone, so
articles and templates may contain braces):

``{Article}`` ``{Summary}`` (Likert, Pyramid, binary), ``{Summary_0}``
``{Summary_1}`` ``{Title}`` ``{Subreddit}`` (pairwise; ``{Article}`` is the post),
``{SCUs}`` (Pyramid: ``1. ...`` one per line), ``{Sentence}`` (binary).
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from .protocols import protocol

PLACEHOLDERS = ("Article", "Summary", "Summary_0", "Summary_1", "Title", "Subreddit", "SCUs", "Sentence")
_FIELD = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")
_HEADER = re.compile(r"^### (system|user)[ \t]*$", re.MULTILINE)


class TemplateError(ValueError):
    """A template file cannot be used for its dataset."""


@dataclass(frozen=True)
class Template:
    path: str
    messages: tuple[tuple[str, str], ...]  # (role, text with placeholders)

    @property
    def fields(self) -> set[str]:
        return {m for _, text in self.messages for m in _FIELD.findall(text)}

    @property
    def sha256(self) -> str:
        """The template's prompt hash: :func:`prompt_hash` of its messages, placeholders unfilled."""
        return prompt_hash([{"role": role, "content": text} for role, text in self.messages])

    def render(self, values: Mapping[str, str]) -> list[dict[str, str]]:
        missing = self.fields - set(values)
        if missing:
            raise TemplateError(f"{self.path}: no value for {', '.join(sorted(missing))}")
        # one pass, so a value that itself contains "{Summary}" is never substituted again
        return [{"role": role, "content": _FIELD.sub(lambda m: str(values[m.group(1)]), text)}
                for role, text in self.messages]


def parse_template(text: str, path: str = "<template>") -> Template:
    parts = _HEADER.split(text)
    if len(parts) == 1:
        messages = [("user", text)]
    else:
        if parts[0].strip():
            raise TemplateError(f"{path}: text before the first '### system' / '### user' header")
        messages = [(role, body[1:] if body.startswith("\n") else body)
                    for role, body in zip(parts[1::2], parts[2::2])]
    messages = [(role, body[:-1] if body.endswith("\n") else body) for role, body in messages]
    if not messages or messages[-1][0] != "user":
        raise TemplateError(f"{path}: the last message must be the user message")
    return Template(path=str(path), messages=tuple(messages))


def load_template(path: str | Path) -> Template:
    return parse_template(Path(path).read_text(encoding="utf-8"), str(path))


REQUIRED_FIELDS = {
    "likert": {"Article", "Summary"},
    "pairwise": {"Summary_0", "Summary_1"},
    "pyramid": {"Summary", "SCUs"},
    "binary": {"Sentence"},
}


def check_template(template: Template, dataset: str) -> None:
    """A template must contain the fields its protocol cannot do without."""
    missing = REQUIRED_FIELDS[protocol(dataset)] - template.fields
    if missing:
        raise TemplateError(f"{template.path}: a {protocol(dataset)} prompt needs "
                            f"{', '.join('{' + m + '}' for m in sorted(missing))}")


def format_scus(scus) -> str:
    return "\n".join(f"{i}. {scu}" for i, scu in enumerate(scus, 1))


def unit_fields(dataset: str, row: Mapping[str, Any]) -> dict[str, str]:
    """The placeholder values of one dataset row."""
    p = protocol(dataset)
    if p == "likert":
        return {"Article": row["article"], "Summary": row["summary"]}
    if p == "pairwise":
        return {"Article": row["post"], "Title": row.get("title") or "",
                "Subreddit": row.get("subreddit") or "",
                "Summary_0": row["summary_0"], "Summary_1": row["summary_1"]}
    if p == "pyramid":
        return {"Summary": row["summary"], "SCUs": format_scus(row["scus"]),
                "Article": row.get("article") or ""}
    if p == "binary":
        return {"Article": row["article"], "Sentence": row["sentence"], "Summary": row.get("summary") or ""}
    raise ValueError(p)


def prompt_hash(messages: list[dict[str, str]]) -> str:
    """The one prompt hash (docs/tables.md): sha256 of the canonical JSON (sorted keys, UTF-8)
    of a list of ``{"role", "content"}`` messages. Of a request: the rendered messages (what the
    judge read); of a template (:attr:`Template.sha256`, usage.json, manifest.json): its messages
    with the placeholders unfilled."""
    return hashlib.sha256(json.dumps(messages, ensure_ascii=False, sort_keys=True).encode()).hexdigest()
