"""Rule `manifest`: results/manifest.json (config, code version, prompt hashes, models)."""
import os
import sys

sys.path[:0] = [snakemake.scriptdir, os.path.dirname(snakemake.scriptdir)]  # _log, sumjudge
import _log  # noqa: E402

from sumjudge.io import write_json  # noqa: E402
from sumjudge.tables.manifest import build_manifest  # noqa: E402

log = _log.setup(snakemake)
config = dict(snakemake.config)
manifest = build_manifest(config, os.path.dirname(snakemake.scriptdir), list(snakemake.input.prompts),
                          list(snakemake.input.judges), list(snakemake.input.metrics), list(snakemake.input.data),
                          config.get("judges"))
write_json(manifest, snakemake.output[0])
log.info("code %s; %d prompt templates; judges %s", manifest["code_version"], len(manifest["prompt_templates"]),
         sorted(manifest["judges"]))
