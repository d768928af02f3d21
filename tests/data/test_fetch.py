"""Fetching pinned files: mirror copies, checksum failures, missing files, downloads."""
import hashlib
import shutil
import pytest

from sumjudge.data.fetch import FetchError, fetch
from sumjudge.io import sha256_file as sha256_of
from sumjudge.data.sources import SOURCES

QAGS = "qags/W4ngatang+qags/data/mturk_xsum.jsonl"


def test_every_mirror_file_matches_its_pin(mirror):
    for s in SOURCES:
        assert sha256_of(mirror / s.local_path) == s.sha256, s.local_path


def test_copy_from_mirror(mirror, tmp_path):
    dest = tmp_path / "out" / "x.jsonl"
    origin = fetch(QAGS, dest, mirror=str(mirror))
    assert origin == str(mirror / QAGS)
    assert hashlib.sha256(dest.read_bytes()).hexdigest() == sha256_of(mirror / QAGS)


def test_wrong_checksum_names_file_hashes_and_fix(mirror, tmp_path):
    bad_mirror = tmp_path / "mirror"
    target = bad_mirror / QAGS
    target.parent.mkdir(parents=True)
    shutil.copyfile(mirror / QAGS, target)
    with open(target, "ab") as fh:
        fh.write(b"\n")  # one extra byte: a different file
    dest = tmp_path / "out" / "mturk_xsum.jsonl"
    with pytest.raises(FetchError) as err:
        fetch(QAGS, dest, mirror=str(bad_mirror))
    msg = str(err.value)
    pinned = next(s.sha256 for s in SOURCES if s.local_path == QAGS)
    assert QAGS in msg and "checksum mismatch" in msg
    assert f"expected sha256 {pinned}" in msg
    assert f"actual   sha256 {sha256_of(target)}" in msg
    assert "fetch it again" in msg
    assert not dest.exists()
    assert list(dest.parent.iterdir()) == []  # no temporary file left behind


def test_missing_file_in_mirror(tmp_path):
    with pytest.raises(FetchError, match=r"missing from the mirror .*unset the config key 'mirror'"):
        fetch(QAGS, tmp_path / "x", mirror=str(tmp_path))
    assert not (tmp_path / "x").exists()


def test_unknown_path_is_refused(tmp_path):
    with pytest.raises(FetchError, match="not a pinned source file"):
        fetch("qags/nope.jsonl", tmp_path / "x", mirror=str(tmp_path))


def test_download_failure_is_clear_and_leaves_nothing(monkeypatch, tmp_path):
    src = next(s for s in SOURCES if s.local_path == QAGS)
    monkeypatch.setattr(type(src), "url", property(lambda self: "http://127.0.0.1:9/unreachable"))
    dest = tmp_path / "dl" / "x.jsonl"
    with pytest.raises(FetchError, match=r"download from http://127.0.0.1:9/unreachable failed.*'mirror'"):
        fetch(QAGS, dest, mirror=None, timeout=5)
    assert list(dest.parent.iterdir()) == []


def test_download_from_local_http_server(mirror, tmp_path, monkeypatch):
    """The real download path (urllib) against a loopback HTTP server serving the mirror."""
    import functools
    import http.server
    import threading

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(mirror))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        src = next(s for s in SOURCES if s.local_path == QAGS)
        monkeypatch.setattr(type(src), "url",
                            property(lambda self: f"http://127.0.0.1:{port}/{self.local_path}"))
        dest = tmp_path / "dl.jsonl"
        assert fetch(QAGS, dest, mirror=None) == f"http://127.0.0.1:{port}/{QAGS}"
        assert sha256_of(dest) == src.sha256
    finally:
        server.shutdown()
