"""Send a rule script's logging and warnings to the rule's log file."""
import logging
import sys


def setup(snakemake) -> logging.Logger:
    handlers = [logging.StreamHandler(sys.stderr)]
    if snakemake.log:
        handlers.append(logging.FileHandler(str(snakemake.log[0]), mode="w"))
    logging.basicConfig(level=logging.INFO, handlers=handlers, force=True,
                        format="%(asctime)s %(levelname)s %(message)s")
    logging.captureWarnings(True)
    return logging.getLogger(snakemake.rule)
