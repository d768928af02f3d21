"""Rule `fetch`: one pinned upstream file, from the mirror or its URL."""
import os
import sys

sys.path[:0] = [snakemake.scriptdir, os.path.dirname(snakemake.scriptdir)]  # _log, sumjudge
import _log

from sumjudge.data.fetch import FetchError, fetch

log = _log.setup(snakemake)
try:
    origin = fetch(snakemake.wildcards.path, snakemake.output[0], snakemake.config.get("mirror"))
except FetchError as err:
    log.error("%s", err)
    sys.exit(1)
log.info("fetched %s from %s (sha256 ok)", snakemake.wildcards.path, origin)
