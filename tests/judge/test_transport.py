"""Issue 16, "One transport contract": the live and the batch transport keep one contract
(cache misses in, one result per request out), neither uses the other's private parts,
and whether a judge is embedded is asked in one place, its endpoint."""
import ast
from pathlib import Path

import pytest

from sumjudge.judge.batch import BatchRunner
from sumjudge.judge.client import RequestLayer
from sumjudge.judge.endpoint import EmbeddedEndpoint, RemoteEndpoint, endpoint_for
from sumjudge.judge.errors import FatalJudgeError
from sumjudge.judge.run import judge_dataset
from sumjudge.judge.spec import judge_spec
from sumjudge.judge.transport import Transport
from support.fake_openai import FakeOpenAIServer
from support.harness import REPO
from test_openai_api_today import TEMPLATE, batch_spec, spec, units

JUDGE = REPO / "sumjudge/judge"


@pytest.mark.parametrize("make", [lambda url: spec(url, "o-live"), lambda url: batch_spec(url, "o-live")],
                         ids=["live", "batch"])
def test_both_transports_answer_the_same_requests_from_one_cache_and_count_alike(tmp_path, make):
    df = units(4)
    with FakeOpenAIServer(reasoning_models=("o-fake",)) as srv:
        first, u1 = judge_dataset(df, "summeval", "base", TEMPLATE, make(srv.url), cache_dir=tmp_path, progress=False)
        calls = sum(srv.calls.values())
        again, u2 = judge_dataset(df, "summeval", "base", TEMPLATE, make(srv.url), cache_dir=tmp_path, progress=False)
        assert sum(srv.calls.values()) == calls  # all cached: no call at all, whichever transport
    assert (first["status"] == "ok").all() and list(again["reply"]) == list(first["reply"])
    assert u1["replies_received"] == 4 and u2["cache_hits"] == 4 and u2["replies_received"] == 0


def test_the_transports_are_one_contract():
    assert issubclass(RequestLayer, Transport) and issubclass(BatchRunner, Transport)
    assert "run" not in vars(RequestLayer) and "run" not in vars(BatchRunner)  # the cache split is the base's


def private_uses(path: Path) -> list[str]:
    """Private names imported from a sibling module, or private attributes of another object."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            out += [f"{path.name}: from .{node.module} import {a.name}" for a in node.names if a.name.startswith("_")]
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__") \
                and not (isinstance(node.value, ast.Name) and node.value.id == "self"):
            out.append(f"{path.name}:{node.lineno}: .{node.attr}")
    return out


def test_no_transport_reaches_into_the_others_private_parts():
    assert [u for f in ("transport.py", "client.py", "batch.py") for u in private_uses(JUDGE / f)] == []


def test_whether_a_judge_is_embedded_is_asked_in_its_endpoint_only():
    for f in ("transport.py", "client.py", "batch.py", "run.py", "offline.py"):
        text = (JUDGE / f).read_text()
        assert '["embedded"]' not in text and '.get("embedded")' not in text and ".embedded" not in text, f
    remote = judge_spec("r", {"model": "m", "base_url": "http://x/v1/", "api_key_env": "SUMJUDGE_TEST_UNSET_KEY"})
    embedded = judge_spec("e", {"model": "m", "embedded": "qwen2.5-coder-1.5b-instruct"})
    assert isinstance(endpoint_for(remote), RemoteEndpoint)
    assert isinstance(endpoint_for(embedded), EmbeddedEndpoint)
    assert endpoint_for(remote).record == {} and "engine" in endpoint_for(embedded).record
    endpoint_for(remote).require_sender("r/summeval/base", 0, 4)  # nothing to send: nothing needed
    with pytest.raises(FatalJudgeError, match=r"r/summeval/base: 3 of 4 requests are not in the cache, and sending "
                                              r"them needs the key of judge 'r': environment variable "
                                              r"SUMJUDGE_TEST_UNSET_KEY is not set"):
        endpoint_for(remote).require_sender("r/summeval/base", 3, 4)


def test_a_failure_keeps_its_class_and_kind_when_the_cache_context_is_added():
    from sumjudge.judge.errors import BatchPending, EmbeddedError, InvalidRequest, MissingKey
    from sumjudge.judge.offline import with_context
    for err, kind in ((MissingKey("no key"), "auth"), (InvalidRequest("no key"), "invalid_request"),
                      (FatalJudgeError("quota", "no key"), "quota"), (BatchPending("no key"), "batch_pending")):
        got = with_context(err, "j/summeval/base", 3, 4, [])
        assert type(got) is type(err) and got.kind == kind and isinstance(got, FatalJudgeError)
        assert str(got) == "j/summeval/base: 3 of 4 requests are not in the cache; no key"
    got = with_context(EmbeddedError("no engine"), "j/tldr/base", 1, 2, [])
    assert type(got) is EmbeddedError and str(got) == "j/tldr/base: 1 of 2 requests are not in the cache; no engine"
