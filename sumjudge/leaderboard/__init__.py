"""The judge leaderboard: which judge is a human-like evaluator, side by side with the
humans (definitions: docs/statistics.md, "The judge leaderboard").

Parts: :mod:`.settings` (typed settings), :mod:`.evidence` (what is read, once),
:mod:`.columns` and :mod:`.humans` (per column: the judges' facts and the human rows),
:mod:`.repeats` (several samples per unit), :mod:`.verdicts` (gates, ranks, alt-test, in
that order), :mod:`.summary` (one line per judge), :mod:`.render` (CSV, LaTeX, page,
frontier) and :mod:`.build`, which composes them.
"""
