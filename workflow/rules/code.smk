# Rerun by content, not by file time (docs/sharing.md): every script rule gets a param
# `code`, the sha256 of its script and of the sumjudge modules it imports; the default
# profile (profiles/default) leaves Snakemake's mtime-based `code` trigger out.
# A fresh clone with a copied results/ reruns nothing; an edit reruns the rules that run it.
# Included after every stage: it reads every rule.

from sumjudge.share.code import set_code_params

set_code_params(workflow.rules, workflow.basedir)
