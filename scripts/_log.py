"""Send a rule script's logging and warnings to the rule's log file.

``setup`` also installs the scripts' one handler for user-facing errors: an
uncaught ``TablesInputError`` (or the config, dataset and data errors, which
likewise name the key or file and the fix) is logged as one line and the script
exits with status 1, without a Python traceback. Any other exception is a bug and
keeps its traceback.
"""
import logging
import sys


# Errors whose message already names the file, key or row and the fix. Matched by name,
# not imported, so that this helper pulls no package into a rule's env (tests/test_envs.py).
USER_ERRORS = {"TablesInputError",     # sumjudge/tables/errors.py
               "ConfigError",          # sumjudge/config.py
               "DatasetConfigError",   # sumjudge/datasets.py
               "DataError"}            # sumjudge/data/readers.py


def is_user_error(kind: type) -> bool:
    return any(k.__module__.partition(".")[0] == "sumjudge" and k.__qualname__ in USER_ERRORS
               for k in kind.__mro__)


def _excepthook(log: logging.Logger):
    previous = sys.excepthook

    def hook(kind, value, tb):
        if is_user_error(kind):
            log.error("%s", value)
            logging.shutdown()
            sys.exit(1)  # raised inside the hook: the interpreter exits with this status
        previous(kind, value, tb)
    return hook


def setup(snakemake) -> logging.Logger:
    handlers = [logging.StreamHandler(sys.stderr)]
    if snakemake.log:
        handlers.append(logging.FileHandler(str(snakemake.log[0]), mode="w"))
    logging.basicConfig(level=logging.INFO, handlers=handlers, force=True,
                        format="%(asctime)s %(levelname)s %(message)s")
    logging.captureWarnings(True)
    log = logging.getLogger(snakemake.rule)
    sys.excepthook = _excepthook(log)
    return log
