"""The batch lifecycle apart from OpenAI: `BatchRunner` runs on any provider that keeps the
`BatchAPI` hooks (here an in-memory one, no HTTP), a fall-back transport counts in the
same `Stats`, a job whose requests are all cached gets `CacheOnly`, and the batch modules
stay in small pieces."""
import ast
import contextlib
import json

import pytest

from sumjudge.judge.batch import BatchRunner, BatchState, Journal, LineError
from sumjudge.judge.cache import ResponseCache, make_entry, request_key
from sumjudge.judge.errors import FatalJudgeError
from sumjudge.judge.spec import judge_spec
from sumjudge.judge.transport import CacheOnly, Request, Result, Stats, Transport
from support.harness import REPO

SPEC = judge_spec("mem", {"model": "m", "base_url": "http://memory/v1", "mode": "batch", "max_retries": 2,
                          "price_input_per_1k": 0.001, "price_output_per_1k": 0.002,
                          "batch": {"max_requests": 2}})


def completion(text: str) -> dict:
    return {"id": "c", "model": "m", "choices": [{"message": {"role": "assistant", "content": text},
                                                  "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}}


def requests(n: int) -> list[Request]:
    out = []
    for i in range(n):
        identity = {"server": {"base_url": "http://memory/v1"}, "messages": [{"role": "user", "content": f"q{i}"}],
                    "params": {"model": "m"}, "sample": 0}
        out.append(Request(request_key(identity), identity, identity["messages"], {"model": "m"}))
    return out


class MemoryBatches:
    """A provider in memory: each batch is final at its first poll. ``script``: key -> the
    outcomes of its successive batch lines ("ok", "500", "gone": no answer)."""

    base_url = "http://memory/v1"

    def __init__(self, script: dict[str, list[str]] | None = None):
        self.script = script or {}
        self.files: dict[str, bytes] = {}
        self.created: list[str] = []

    @contextlib.contextmanager
    def session(self):
        yield None

    def line(self, req):
        return (json.dumps({"custom_id": req.key}) + "\n").encode()

    def upload(self, name, data):
        self.files[f"in{len(self.files)}"] = data
        return f"in{len(self.files) - 1}"

    def create(self, file_id, cid):
        self.created.append(file_id)
        return BatchState(f"b{len(self.created)}", "in_progress", False, input_file_id=file_id)

    def retrieve(self, batch_id):
        lines = self.files[self.created[int(batch_id[1:]) - 1]].decode().splitlines()
        out = "\n".join(json.dumps({"custom_id": json.loads(x)["custom_id"]}) for x in lines)
        self.files[f"out-{batch_id}"] = out.encode()
        return BatchState(batch_id, "completed", True, completed=len(lines), total=len(lines), created_at=1.0,
                          ended_at=3.5, result_files=(f"out-{batch_id}",))

    def find(self, cid):
        return None

    def download(self, file_id):
        return self.files[file_id].decode()

    def parse_line(self, obj):
        key = obj["custom_id"]
        queue = self.script.get(key)
        outcome = queue.pop(0) if queue else "ok"
        if outcome == "500":
            return key, LineError("server_error", "HTTP 500", {})
        return key, (None if outcome == "gone" else completion(f"reply {key[:6]}"))


class Answers(Transport):
    """A fall-back that answers every request at once (counted as a reply)."""

    def send(self, todo):
        out = {}
        for key in todo:
            self.stats.add_reply({"usage": completion("")["usage"], "cost_usd": 0.0})
            out[key] = Result(key, {"reply": "live"}, attempts=1)
        return out


def runner(tmp_path, api, **kw) -> BatchRunner:
    cache = ResponseCache(tmp_path / "cache")
    return BatchRunner(SPEC, api, cache, Journal(tmp_path / "cache/batches"), progress=False,
                       sleep=lambda s: None, **kw)


def test_the_lifecycle_runs_rounds_over_the_hooks_alone(tmp_path):
    reqs = requests(5)
    api = MemoryBatches({reqs[1].key: ["500", "ok"]})  # a transient error line: retried in a second round
    run = runner(tmp_path, api)
    results = run.run(reqs)
    assert [r.entry["reply"] for r in results] == [f"reply {r.key[:6]}" for r in reqs]
    assert all(r.entry["via"] == "batch" and r.entry["latency_s"] == 2.5 for r in results)
    assert len(api.created) == 3 + 1  # 5 requests at max_requests 2, then the one retried
    assert run.stats.batches_submitted == 4 and run.stats.retries == 1 and run.stats.batch_requests == 5
    assert run.stats.errors == {"server_error": 1}
    states = sorted(json.loads(p.read_text())["state"] for p in (tmp_path / "cache/batches").glob("*.json"))
    assert states == ["collected"] * 4
    # cost at batch_price_factor 0.5: (10 * 0.001 + 2 * 0.002) / 1000 * 0.5 per reply
    assert run.stats.cost_usd == pytest.approx(5 * 0.000007)


def test_leftovers_go_to_the_fall_back_which_counts_in_the_same_stats(tmp_path):
    reqs = requests(3)
    stats = Stats()
    fallback = Answers(SPEC, "http://memory/v1", "", ResponseCache(tmp_path / "cache"), stats=stats)
    run = runner(tmp_path, MemoryBatches({reqs[2].key: ["gone"]}), fallback=fallback, stats=stats)
    results = run.run(reqs)
    assert [r.entry["reply"] for r in results][2] == "live"
    assert run.stats is fallback.stats
    assert stats.done == 3 and stats.batch_requests == 2 and stats.batches_submitted == 2


def test_without_a_fall_back_leftovers_are_resubmitted(tmp_path):
    reqs = requests(3)
    api = MemoryBatches({reqs[2].key: ["gone", "ok"]})
    results = runner(tmp_path, api).run(reqs)
    assert all(r.entry["via"] == "batch" for r in results) and len(api.created) == 3


def test_cache_only_answers_from_the_cache_and_never_sends(tmp_path):
    cache = ResponseCache(tmp_path)
    reqs = requests(2)
    cache.put(reqs[0].key, make_entry(reqs[0].key, reqs[0].identity, completion("cached"), 0.1))
    layer = CacheOnly(SPEC, cache)
    assert [r.entry["reply"] for r in layer.run(reqs[:1])] == ["cached"] and layer.stats.cache_hits == 1
    with pytest.raises(FatalJudgeError, match=r"judge 'mem': 1 request\(s\) were cached when this job began and "
                                              r"are not now \(the cache under .* changed meanwhile\)") as err:
        layer.run(reqs)
    assert err.value.kind == "cache_changed"


def sizes(path) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(classes, functions) of a module, each (lines, name), counted end_lineno - lineno + 1."""
    tree = ast.parse(path.read_text())
    def length(n):
        return n.end_lineno - n.lineno + 1
    return ([(length(n), n.name) for n in ast.walk(tree) if isinstance(n, ast.ClassDef)],
            [(length(n), n.name) for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))])


@pytest.mark.parametrize("module", ["batch.py", "openai_batch.py", "transport.py"])
def test_no_class_over_200_lines_and_no_function_over_40(module):
    classes, functions = sizes(REPO / "sumjudge/judge" / module)
    assert [c for c in classes if c[0] > 200] == [] and [f for f in functions if f[0] > 40] == []


def stats_set_from_outside(source: str) -> list[int]:
    """Lines that set another object's ``stats`` (``other.stats = ...``)."""
    return [n.lineno for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Assign) for t in n.targets
            if isinstance(t, ast.Attribute) and t.attr == "stats"
            and not (isinstance(t.value, ast.Name) and t.value.id == "self")]


def test_no_transport_sets_another_ones_stats():
    """Counters are shared by handing one Stats to both constructors, never by aliasing."""
    assert stats_set_from_outside("self.stats = stats\nself._live.stats = self.stats") == [2]  # the scan sees it
    for module in ("batch.py", "openai_batch.py", "client.py", "run.py"):
        assert stats_set_from_outside((REPO / "sumjudge/judge" / module).read_text()) == [], module
