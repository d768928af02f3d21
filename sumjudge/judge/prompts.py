"""Prompt templates: plain text files with ``{Placeholder}`` fields.

A template file is the user message, verbatim. It may instead be split into
messages by header lines ``### system`` and ``### user`` (each on a line of its
own); the first message then starts after its header. One trailing newline of each
message is dropped (editors add it); everything else is sent as written.

Placeholders (only these are filled; any other ``{...}`` text is left alone, so
articles and templates may contain braces):

``{Article}`` ``{Summary}`` (Likert, Pyramid, binary), ``{Summary_0}``
``{Summary_1}`` ``{Title}`` ``{Subreddit}`` (pairwise; ``{Article}`` is the post),
``{SCUs}`` (Pyramid: ``1. ...`` one per line), ``{Sentence}`` (binary),
``{Dimensions}`` (Likert: the dataset's dimensions, comma-separated; the generic
``prompts/likert.txt`` of a user's dataset asks for them), ``{Question}`` (a
question-focused dataset's question: a Likert dataset's ``prompt_columns``, SQuALITY).

Which fields a protocol needs and how a row fills them is its protocol object's
(:mod:`sumjudge.protocols`); here only the text is handled.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from .. import datasets as _ds
from .errors import TemplateError  # raised here; importers name it from prompts too

PLACEHOLDERS = ("Article", "Summary", "Summary_0", "Summary_1", "Title", "Subreddit", "SCUs", "Sentence",
                "Dimensions", "Question")
_FIELD = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")
_HEADER = re.compile(r"^### (system|user)[ \t]*$", re.MULTILINE)




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


def check_template(template: Template, dataset: "str | _ds.DatasetSpec") -> None:
    """A template must contain the fields its protocol cannot do without, and the
    dataset's ``prompt_columns`` (SQuALITY's ``{Question}``)."""
    spec = _ds.get(dataset)
    proto = spec.proto
    missing = proto.prompt_fields - template.fields
    if missing:
        raise TemplateError(f"{template.path}: a {proto.name} prompt needs "
                            f"{', '.join('{' + m + '}' for m in sorted(missing))}")
    missing = {f for f, _ in spec.prompt_columns} - template.fields
    if missing:
        raise TemplateError(f"{template.path}: a prompt for {spec.name} needs "
                            f"{', '.join('{' + m + '}' for m in sorted(missing))} (without it the judge "
                            "does not see the question the summary answers)")


def unit_fields(dataset: "str | _ds.DatasetSpec", row: Mapping[str, Any]) -> dict[str, str]:
    """The placeholder values of one dataset row (its protocol object fills them)."""
    spec = _ds.get(dataset)
    return spec.proto.unit_fields(row, spec)


def prompt_hash(messages: list[dict[str, str]]) -> str:
    """The one prompt hash (docs/tables.md): sha256 of the canonical JSON (sorted keys, UTF-8)
    of a list of ``{"role", "content"}`` messages. Of a request: the rendered messages (what the
    judge read); of a template (:attr:`Template.sha256`, usage.json, manifest.json): its messages
    with the placeholders unfilled."""
    return hashlib.sha256(json.dumps(messages, ensure_ascii=False, sort_keys=True).encode()).hexdigest()
