"""A plan before paying (issue 36 item 5; docs/judge.md, "A plan before paying"): ``python -m sumjudge plan``.

:mod:`.build` (the plan's four frames), :mod:`.tokens` (prompt tokens: the judge's tokenizer where it
is local), :mod:`.labels` (human labels for a target interval, with and without the judge),
:mod:`.power` (documents to separate two judges), :mod:`.report` (the printed plan).
"""
