"""Send a rule script's logging and warnings to the rule's log file.

``setup`` also installs the scripts' one handler for uncaught errors. A user-facing
error (:class:`sumjudge.errors.UserError`: its message names the file, key or need and
the fix) is logged as one line, to the terminal and to the rule's ``log:`` file, and
the script exits with status 1, without a Python traceback. Any other exception is a
bug: it is logged with its traceback, to both as well. ``SUMJUDGE_DEBUG=1`` in the
environment keeps the traceback of a user-facing error too (docs/metrics.md, "When a
job fails").
"""
import logging
import os
import sys

from sumjudge.errors import UserError  # imports nothing: adds no package to a rule's env (tests/test_rule_envs.py)

DEBUG_ENV = "SUMJUDGE_DEBUG"


def is_user_error(kind: type) -> bool:
    return isinstance(kind, type) and issubclass(kind, UserError)


def debug() -> bool:
    return os.environ.get(DEBUG_ENV, "").strip().lower() not in ("", "0", "false", "no")


def _excepthook(log: logging.Logger):
    def hook(kind, value, tb):
        if issubclass(kind, (KeyboardInterrupt, SystemExit)):
            sys.__excepthook__(kind, value, tb)
            return
        user = is_user_error(kind)
        # one line: the message without the class name (it names the place and the fix)
        text = " ".join(str(value).split("\n")) if user else f"{kind.__name__}: {value}"
        log.error("%s", text, exc_info=(kind, value, tb) if not user or debug() else None)
        logging.shutdown()
        sys.exit(1)  # raised inside the hook: the interpreter exits with this status
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
