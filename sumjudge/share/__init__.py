"""Share results/ with a collaborator (docs/sharing.md).

- :mod:`.code`    the content hash of a rule's code (its param ``code``)
- :mod:`.archive` export / verify / import of a results archive
- :mod:`.status`  which outputs are stale against this checkout's code, and why
- :mod:`.compare` which files of two results folders differ, and in which columns
"""
