"""Shared fixtures. Tests read the real data from the local mirror (../shared/data
beside the checkout, or $SUMJUDGE_MIRROR), exactly as CI does."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MIRROR = Path(os.environ.get("SUMJUDGE_MIRROR", REPO.parent / "shared" / "data")).resolve()


@pytest.fixture(scope="session")
def mirror() -> Path:
    if not (MIRROR / "summeval").is_dir():
        pytest.fail(f"data mirror not found at {MIRROR}; set SUMJUDGE_MIRROR to a directory "
                    "laid out like shared/data")
    return MIRROR


DEFAULT_OPTIONS = {
    "tldr": {"batches": ["batch18"], "splits": ["valid1", "valid2"],
             "drop_reference_pairs": True, "require_reference": True},
    "realsumm": {"tie": "absent"},
    "subset": {},
}


@pytest.fixture(scope="session")
def prepared(mirror):
    """Prepare every dataset from the mirror once per session (about a second)."""
    from sumjudge.data.prepare import DATASETS, locate, prepare_dataset, source_files

    cache = {}

    def get(name: str, options: dict | None = None):
        opts = options or DEFAULT_OPTIONS
        key = (name, repr(opts))
        if key not in cache:
            inputs = locate(source_files(name, opts), mirror)
            cache[key] = prepare_dataset(name, inputs, opts)
        return cache[key]

    assert set(DATASETS) == {"summeval", "newsroom", "tldr", "realsumm", "qags_cnn", "qags_xsum"}
    return get
