"""What the jury rules build and read, from the config (used by workflow/rules/jury.smk).

A jury has a table for a dataset and prompt variant (swapped order included) exactly where every one of
its members has one: an imported member's scores cover only some datasets' base prompt, so a jury with
one covers no more.
"""
from __future__ import annotations

from typing import Iterable, Mapping

from ..io import parse_judge_path
from ..judge.spec import JudgeSettings


def juries(specs: Mapping[str, JudgeSettings]) -> dict[str, JudgeSettings]:
    return {name: s for name, s in specs.items() if s.jury}


def with_members(run: Iterable[str], specs: Mapping[str, JudgeSettings]) -> list[str]:
    """The judges of ``run`` and the members of its juries, each once, in that order: those whose
    tables some output needs (a member need not be in judge.run itself)."""
    names = list(run)
    return list(dict.fromkeys(names + [m for j in names for m in (specs[j].jury or ())]))


def member_path(path: str, member: str) -> str:
    """The same output (table or usage) of a member: results/judge/<member>/<dataset>/<variant>.<ext>."""
    judge, dataset, variant = parse_judge_path(path.replace(".usage.json", ".parquet"))
    return path.replace(f"/judge/{judge}/{dataset}/", f"/judge/{member}/{dataset}/", 1)


def kept(path: str, specs: Mapping[str, JudgeSettings], available: set[str]) -> bool:
    """Whether a judge output stays a target: a jury's only where every member's is ``available``."""
    judge = parse_judge_path(path.replace(".usage.json", ".parquet"))[0]
    members = specs[judge].jury if judge in specs else None
    return not members or all(member_path(path, m) in available for m in members)


def summary_output(results: str, jury: str) -> str:
    return f"{results}/judge/{jury}/jury.csv"


def summary_tables(outputs: Iterable[str], jury: JudgeSettings, dataset_specs: Mapping[str, object]) -> list[str]:
    """The jury's tables jury.csv reads: each dataset's base prompt (Likert) or its accuracy
    questions' prompts, among ``outputs``."""
    out = []
    for p in outputs:
        parsed = parse_judge_path(p)
        if not parsed or parsed[0] != jury.name or parsed[1] not in dataset_specs:
            continue
        spec = dataset_specs[parsed[1]]
        wanted = {"base"} if spec.proto.per_dimension else {v for _, _, v in spec.accuracy_questions}
        if parsed[2] in wanted:
            out.append(p)
    return sorted(out)


def summary_inputs(outputs: Iterable[str], jury: JudgeSettings, dataset_specs: Mapping[str, object],
                   dataset_table) -> dict[str, list[str]]:
    """jury.csv's inputs by name: the dataset tables, the jury's tables and its members' (with usage)."""
    tables = summary_tables(outputs, jury, dataset_specs)
    members = [member_path(p, m) for p in tables for m in jury.jury]
    return {"data": sorted({dataset_table(parse_judge_path(p)[1]) for p in tables}), "juries": tables,
            "members": members, "usage": [p.replace(".parquet", ".usage.json") for p in members]}
