"""Send a rule script's logging and warnings to the rule's log file.

``setup`` also installs the scripts' one handler for user-facing errors: an
uncaught ``TablesInputError`` (or the config, dataset and data errors, which
likewise name the key or file and the fix) is logged as one line and the script
exits with status 1, without a Python traceback. Any other exception is a bug and
keeps its traceback.
"""
import logging
import sys


def _user_errors() -> tuple[type, ...]:
    from sumjudge.config import ConfigError
    from sumjudge.data.readers import DataError
    from sumjudge.datasets import DatasetConfigError
    from sumjudge.tables.errors import TablesInputError
    return (TablesInputError, ConfigError, DatasetConfigError, DataError)


def _excepthook(log: logging.Logger, user_errors: tuple[type, ...]):
    previous = sys.excepthook

    def hook(kind, value, tb):
        if issubclass(kind, user_errors):
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
    sys.excepthook = _excepthook(log, _user_errors())
    return log
