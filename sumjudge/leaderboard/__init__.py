"""The judge leaderboard: which judge is a human-like evaluator, side by side with the
humans (definitions: docs/statistics.md, "The judge leaderboard").

The verdict path, in memory (no file, no Snakemake): :mod:`.inputs` (a column's units,
human labels and reference: ``ScoreInput``, ``LabelInput``), :mod:`.scores` and
:mod:`.labels` (one column's cells, pair tests and alt-test inputs), :mod:`.verdicts`
(what they share: intervals, ranks from the tests, the alt-test with its null control),
:mod:`.frames` (its entry point, ``verdict_frames``, and the alt-test's family per row).

From the files a run wrote: :mod:`.settings` (typed settings), :mod:`.evidence` (what is
read, once), :mod:`.columns` and :mod:`.humans` (the inputs built from the registry),
:mod:`.summary` (one line per judge: pass and closeness rates, mean rank, cost),
:mod:`.render` and :mod:`.figure` (LaTeX, page, figures) and :mod:`.build`, which
composes them.
"""
