"""Config validation with one clear message per problem.

Snakemake's own ``validate`` reports the raw jsonschema error; users get one line
instead: the dotted key, what is wrong, and the allowed values.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import yaml

from .errors import UserError


class ConfigError(UserError, ValueError):
    """The configuration does not match workflow/schemas/config.schema.yaml."""


def _dotted(path) -> str:
    return ".".join(str(p) for p in path) or "(top level)"


def _describe(err: jsonschema.ValidationError) -> str:
    key = _dotted(err.absolute_path)
    schema = err.schema if isinstance(err.schema, dict) else {}
    if err.validator == "additionalProperties":
        allowed = sorted(schema.get("properties", {}))
        extra = sorted(set(err.instance) - set(allowed)) if isinstance(err.instance, dict) else []
        prefix = f"{key}." if err.absolute_path else ""
        names = ", ".join(f"'{prefix}{e}'" for e in extra)
        return f"config key {names} is not allowed here; allowed keys: {', '.join(allowed)}"
    if err.validator == "enum":
        return (f"config key '{key}': {err.instance!r} is not allowed; "
                f"allowed values: {', '.join(map(repr, err.validator_value))}")
    if err.validator == "propertyNames":
        return (f"config key '{key}': {err.instance!r} is not an allowed name; "
                f"allowed: {', '.join(map(repr, err.validator_value.get('enum', [])))}")
    if err.validator == "required":
        return f"config key '{key}': {err.message}"
    return f"config key '{key}': {err.message}"


def load_schema(schema_path: str | Path) -> dict[str, Any]:
    """The schema with the registry's names: each ``$defs`` entry that
    :func:`sumjudge.datasets.schema_enums` names gets its ``enum`` from the registry,
    and every ``{"$ref": "#/$defs/<name>"}`` is replaced by that entry (so the file
    never lists the datasets, and messages name the allowed values)."""
    from .datasets import schema_enums

    schema = yaml.safe_load(Path(schema_path).read_text())
    defs = schema.get("$defs", {})
    for name, values in schema_enums().items():
        if name in defs:
            defs[name] = {**defs[name], "enum": list(values)}

    def inline(node):
        if isinstance(node, dict):
            ref = node.get("$ref", "")
            if len(node) == 1 and ref.startswith("#/$defs/") and ref[8:] in defs:
                return dict(defs[ref[8:]])
            return {k: inline(v) for k, v in node.items()}
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    return inline(schema)


def validate(config: dict[str, Any], schema_path: str | Path) -> None:
    """Raise :class:`ConfigError` with one line per problem (most relevant first)."""
    schema = load_schema(schema_path)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=jsonschema.exceptions.relevance)
    if errors:
        # an enum inside propertyNames reports the name itself: describe the key instead
        lines = []
        for err in errors:
            best = jsonschema.exceptions.best_match([err])
            lines.append(_describe(best))
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(dict.fromkeys(lines)))
