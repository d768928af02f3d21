"""Which template of a family scores which document (the subset design's assignment,
:mod:`.design`; numpy only, so the judge's jobs import it without the statistics)."""
from __future__ import annotations

import numpy as np


def per_document_counts(n_docs: int, per_document: float) -> np.ndarray:
    """How many prompts score each document, in stratification order: ``k`` for a whole
    ``k``; for a fractional one (2.5) the floor or the ceiling, spread evenly, so that the
    first ``n`` documents hold ``floor(n k)`` slots (2, 3, 2, 3, ... for 2.5)."""
    cum = np.floor(np.arange(n_docs + 1) * per_document + 1e-9).astype(int)
    return np.diff(cum)


def assign(n_docs: int, n_prompts: int, per_document: float = 2, key=None, seed: int = 0) -> np.ndarray:
    """A ``P x D`` boolean mask: which prompt scores which document (module docstring of
    :mod:`.design`). ``key``: the documents' stratification values (None: their order);
    ``per_document`` may be fractional (2.5: every other document scored by 3 prompts)."""
    if not 1 <= per_document <= n_prompts:
        raise ValueError(f"prompts_per_document must be between 1 and the family's {n_prompts} prompts, "
                         f"not {per_document}")
    if n_docs * per_document < n_prompts:
        raise ValueError(f"{n_docs} documents x {per_document} prompts per document leave some of the family's "
                         f"{n_prompts} prompts without a document; raise prompts_per_document or use the full grid")
    order = np.arange(n_docs) if key is None else np.argsort(np.asarray(key), kind="stable")
    counts = per_document_counts(n_docs, per_document)
    rng = np.random.default_rng(seed)
    mask = np.zeros((n_prompts, n_docs), dtype=bool)
    perm, used = None, n_prompts  # each prompt at most once in a block: a new block when the deal runs out
    for doc, k in zip(order, counts):
        if used + k > n_prompts:
            perm = rng.permutation(n_prompts)
            perm = perm[np.argsort(mask.sum(axis=1)[perm], kind="stable")]  # the least used first: balanced
            used = 0
        mask[perm[used:used + k], doc] = True
        used += k
    return mask


def requests_ratio(mask: np.ndarray) -> float:
    """The design's requests over those of one prompt on every document."""
    return float(mask.sum() / mask.shape[1])
