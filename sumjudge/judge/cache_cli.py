"""``python -m sumjudge.judge.cache stats|verify|prune|export``: look after a response cache.

    stats                 entries per model, judge and kind (a reply, a reply with logprobs, or the
                          labels of a logprobs reply kept under the request without logprobs:
                          no request of its own), tokens, cost, how they were obtained
    verify                check every entry (exit 1 naming each bad one)
    prune [--yes]         remove entries no judge table under results/judge/ refers to
                          (dry run unless --yes)
    export --judge NAME DIR   copy the entries NAME's tables refer to into DIR (a cache
                          directory a collaborator can use as judge.cache_dir)

``--cache-dir`` defaults to ``judge.cache_dir`` of ``--configfile`` (config.yaml), and
``--results`` (where the judge tables are) to ``results``. See docs/judge.md.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from .cache import QUARANTINE, ResponseCache, copy_entry, read_entry
from .spec import JudgeConfigError, JudgeSettings, judge_spec

DEFAULT_CACHE_DIR = "results/cache/judge"


def default_cache_dir(configfile: str | Path = "config.yaml") -> str:
    path = Path(configfile)
    if path.is_file():
        import yaml
        cfg = yaml.safe_load(path.read_text()) or {}
        value = (cfg.get("judge") or {}).get("cache_dir")
        if value:
            return str(value)
    return DEFAULT_CACHE_DIR


def table_keys(results: str | Path, judge: str | None = None) -> dict[str, set[str]]:
    """judge name -> the request keys its tables under ``results/judge/`` refer to."""
    import pandas as pd
    out: dict[str, set[str]] = defaultdict(set)
    root = Path(results) / "judge"
    for path in sorted(root.glob("*/*/*.parquet")):
        name = path.parent.parent.name
        if judge is not None and name != judge:
            continue
        df = pd.read_parquet(path, columns=None)
        for col in ("request_key", "logprobs_key"):  # logprobs_key: the weighted score's reply
            if col in df:
                out[name].update(k for k in df[col].dropna().astype(str) if k)
    return dict(out)


def _judge_settings(configfile: str | Path) -> dict[str, JudgeSettings]:
    """The judges of ``configfile`` whose settings are valid (a broken one has no price here)."""
    path = Path(configfile)
    if not path.is_file():
        return {}
    import yaml
    cfg = yaml.safe_load(path.read_text()) or {}
    out = {}
    for name, settings in (cfg.get("judges") or {}).items():
        try:
            out[name] = judge_spec(str(name), settings)
        except JudgeConfigError:
            continue
    return out


# what an entry is (stats' ``kind``): a judge asking for logprobs (a weighted score) has, per unit, the
# reply to its request and, under the same request without logprobs (where the labels are read), a copy
# of that reply's labels: two entries, one request (sumjudge.judge.run.label_entries)
REPLY, LOGPROBS, LABEL_COPY = "reply", "logprobs", "label copy"
KINDS = {REPLY: "replies to requests without logprobs",
         LOGPROBS: "replies to requests with logprobs (the weighted score's)",
         LABEL_COPY: "labels of a logprobs reply, kept under the request without logprobs (no request, no "
                     "tokens: turning top_logprobs off later costs nothing)"}


def entry_kind(entry: dict[str, Any]) -> str:
    if entry.get("answered_with"):
        return LABEL_COPY
    return LOGPROBS if ((entry.get("request") or {}).get("params") or {}).get("logprobs") else REPLY


def stats(cache_dir: str, results: str, configfile: str) -> list[dict[str, Any]]:
    """One row per model, judge, how obtained (``via``) and kind (:func:`entry_kind`): entries,
    tokens and cost (a label copy's are its reply's, counted there)."""
    owner: dict[str, str] = {}
    for name, keys in table_keys(results).items():
        for k in keys:
            owner.setdefault(k, name)
    judges = _judge_settings(configfile)
    rows: dict[tuple, dict[str, Any]] = {}
    for path in ResponseCache(cache_dir).files():
        entry, why = read_entry(path)
        if entry is None:
            model, judge, via, kind = "(bad entry)", "-", why.split(" (")[0], "-"
            usage: dict = {}
        else:
            model = (entry.get("request") or {}).get("params", {}).get("model") or entry.get("model") or "?"
            judge = owner.get(entry["key"], "(no table)")
            via = entry.get("via") or ("migrated" if entry.get("migrated_from") else "request")
            kind = entry_kind(entry)
            usage = entry.get("usage") or {}
        row = rows.setdefault((model, judge, via, kind),
                              {"model": model, "judge": judge, "via": via, "kind": kind, "entries": 0,
                               "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0})
        row["entries"] += 1
        if kind == LABEL_COPY:
            continue
        pt, ct = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
        row["prompt_tokens"] += pt
        row["completion_tokens"] += ct
        if entry is not None and isinstance(entry.get("cost_usd"), (int, float)):
            row["cost_usd"] += float(entry["cost_usd"])
        elif judge in judges:  # written before entries stored their cost: today's prices
            row["cost_usd"] += judges[judge].cost(usage, entry.get("via") or "live") or 0.0
    return sorted(rows.values(), key=lambda r: (r["model"], r["judge"], r["via"], r["kind"]))


def kinds_note(rows: list[dict[str, Any]]) -> str:
    """Why there are more entries than units: the entries of each kind, and the requests they cost."""
    count = {k: sum(r["entries"] for r in rows if r["kind"] == k) for k in KINDS}
    total = sum(r["entries"] for r in rows)
    parts = [f"{count[k]} {KINDS[k]}" for k in KINDS if count[k]]
    sent = count[REPLY] + count[LOGPROBS]
    return f"{total} entries: " + "; ".join(parts) + f". Replies received: {sent}."


def verify(cache_dir: str) -> list[tuple[Path, str]]:
    """(file, why) for every entry that is unreadable or does not match its key."""
    return [(p, why) for p in ResponseCache(cache_dir).files() for _, why in [read_entry(p)] if why]


def unreferenced(cache_dir: str, results: str) -> list[Path]:
    keys = set().union(*table_keys(results).values()) if table_keys(results) else set()
    return [p for p in ResponseCache(cache_dir).files() if p.stem not in keys]


def export(cache_dir: str, results: str, judge: str, dest: str) -> tuple[int, list[str]]:
    """Copy judge's referenced entries to ``dest``; (copied, keys missing from the cache)."""
    keys = table_keys(results, judge).get(judge, set())
    if not keys:
        raise SystemExit(f"export: no judge table under {results}/judge/{judge}/ refers to any cache entry "
                         f"(is the judge name right? judges with tables: "
                         f"{', '.join(sorted(table_keys(results))) or 'none'})")
    cache = ResponseCache(cache_dir)
    missing, copied = [], 0
    for key in sorted(keys):
        src = cache.path(key)
        entry, _ = read_entry(src, key)
        if entry is None:
            missing.append(key)
            continue
        copy_entry(src, Path(dest))
        copied += 1
    return copied, missing


def print_stats(rows: list[dict[str, Any]], cache_dir: str, as_json: bool) -> None:
    """The stats as JSON lines, or as a table with the kinds' line and the quarantine's size."""
    if as_json:
        for r in rows:
            print(json.dumps(r))
        return
    print(f"{'model':32} {'judge':20} {'via':10} {'kind':10} {'entries':>8} {'prompt_tok':>11} "
          f"{'compl_tok':>10} {'cost_usd':>9}")
    for r in rows:
        print(f"{r['model'][:32]:32} {r['judge'][:20]:20} {r['via'][:10]:10} {r['kind']:10} "
              f"{r['entries']:8d} {r['prompt_tokens']:11d} {r['completion_tokens']:10d} {r['cost_usd']:9.4f}")
    print(kinds_note(rows))
    q = Path(cache_dir) / QUARANTINE
    if q.is_dir():
        print(f"quarantined: {sum(1 for _ in q.iterdir())} file(s) in {q}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m sumjudge.judge.cache", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["stats", "verify", "prune", "export"], help="what to do (above)")
    ap.add_argument("dest", nargs="?", help="export: the directory to copy the entries into")
    ap.add_argument("--cache-dir", help="the response cache (default: judge.cache_dir of --configfile)")
    ap.add_argument("--configfile", default="config.yaml",
                    help="the config whose judge.cache_dir and judges are read (default: config.yaml)")
    ap.add_argument("--results", default="results", help="where results/judge/ is (default: results)")
    ap.add_argument("--judge", help="export: the judge whose entries to copy")
    ap.add_argument("--yes", action="store_true", help="prune: really delete (default: dry run)")
    ap.add_argument("--json", action="store_true", help="stats: print JSON lines")
    a = ap.parse_intermixed_args(argv)
    cache_dir = a.cache_dir or default_cache_dir(a.configfile)
    if not Path(cache_dir).is_dir():
        print(f"{cache_dir}: no such cache directory (set --cache-dir or judge.cache_dir)", file=sys.stderr)
        return 2
    if a.command == "stats":
        print_stats(stats(cache_dir, a.results, a.configfile), cache_dir, a.json)
        return 0
    if a.command == "verify":
        bad = verify(cache_dir)
        n = len(ResponseCache(cache_dir))
        for path, why in bad:
            print(f"BAD {path}: {why}")
        print(f"{n - len(bad)} of {n} entries valid" + (f", {len(bad)} bad" if bad else ""),
              file=sys.stderr if bad else sys.stdout)
        return 1 if bad else 0
    if a.command == "prune":
        if not (Path(a.results) / "judge").is_dir():
            print(f"prune: {a.results}/judge/ does not exist: every entry would look unused; not pruning",
                  file=sys.stderr)
            return 2
        orphans = unreferenced(cache_dir, a.results)
        size = sum(p.stat().st_size for p in orphans)
        for p in orphans:
            print(("deleting " if a.yes else "would delete ") + str(p))
            if a.yes:
                p.unlink()
        print(f"{len(orphans)} of {len(ResponseCache(cache_dir)) + (len(orphans) if a.yes else 0)} entries "
              f"({size / 1e6:.2f} MB) are referenced by no table under {a.results}/judge/"
              + ("; deleted" if a.yes else "; dry run: add --yes to delete them"))
        return 0
    if a.command == "export":
        if not a.judge or not a.dest:
            ap.error("export needs --judge NAME and a destination directory")
        copied, missing = export(cache_dir, a.results, a.judge, a.dest)
        print(f"copied {copied} entries of judge {a.judge} to {a.dest}")
        if missing:
            print(f"{len(missing)} referenced entries are missing or bad in {cache_dir}, e.g. {missing[:3]}",
                  file=sys.stderr)
            return 1
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
