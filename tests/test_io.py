"""sumjudge/io.py: the one file hash and the one atomic text/JSON write (issue 28)."""
import hashlib
import json
import os

import pytest

from sumjudge import io


def test_sha256_file_reads_a_file_in_blocks(tmp_path):
    data = bytes(range(256)) * 5000  # 1.28 MB: several blocks of 64 KiB
    (tmp_path / "f").write_bytes(data)
    assert io.sha256_file(tmp_path / "f", block=1 << 16) == hashlib.sha256(data).hexdigest()
    (tmp_path / "e").write_bytes(b"")
    assert io.sha256_file(tmp_path / "e") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


@pytest.mark.parametrize("durable", [False, True])
def test_write_json_compact_has_the_bytes_json_dump_writes(tmp_path, durable, monkeypatch):
    synced = []
    real = os.fsync
    monkeypatch.setattr(io.os, "fsync", lambda fd: (synced.append(fd), real(fd)))
    entry = {"b": "é ✓", "a": [1, 2.5, None]}
    io.write_json(entry, tmp_path / "x.json", compact=True, ensure_ascii=False, durable=durable, prefix=".x.")
    assert (tmp_path / "x.json").read_bytes() == json.dumps(entry, ensure_ascii=False, sort_keys=True).encode()
    io.write_json(entry, tmp_path / "y.json", compact=True)
    assert (tmp_path / "y.json").read_text() == '{"a": [1, 2.5, null], "b": "\\u00e9 \\u2713"}'
    assert len(synced) == (1 if durable else 0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.json", "y.json"]  # no temporary file left


def test_write_json_default_is_indented_and_a_failed_write_keeps_the_old_file(tmp_path):
    path = tmp_path / "u.json"
    io.write_json({"n": 1}, path)
    assert path.read_text() == '{\n  "n": 1\n}\n'
    with pytest.raises(TypeError):
        io.write_json({"n": object()}, path, compact=True)  # compact: no str() fallback
    assert path.read_text() == '{\n  "n": 1\n}\n' and [p.name for p in tmp_path.iterdir()] == ["u.json"]
