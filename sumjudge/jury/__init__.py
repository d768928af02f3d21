"""Juries as judges (issue 36 item 4; docs/judge.md, "Juries"; docs/statistics.md, "Juries").

``judges: {<name>: {jury: [a, b, c], aggregate: mean | median | majority}}`` is a judge computed from
its members' judge tables, with no request of its own: :mod:`.votes` (how the members' answers on a
unit become the jury's), :mod:`.aggregate` (the jury's judge table), :mod:`.cost` (its usage.json: the
members' summed cost), :mod:`.independence` (the effective number of independent votes),
:mod:`.summary` (results/judge/<jury>/jury.csv) and :mod:`.targets` (what the rules build).
"""
