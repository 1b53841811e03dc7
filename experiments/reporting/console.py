"""What reaches the console: the toolkit's own lines. Libraries' log records (MLflow's INFO lines about
its database, alembic's migrations, Dask's warnings such as "Port 8787 is already in use") and Python
warnings go to a log file in the output folder instead, which the command names once. A failure no
command caught is one line too (``failure_line``), its traceback in that log file."""

from __future__ import annotations

import contextlib
import errno
import logging
import sqlite3
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LIBRARY_LOGGERS = ("mlflow", "alembic", "distributed", "tornado", "asyncio", "urllib3", "py.warnings")
"""Loggers whose records go to the log file: MLflow and its migrations, Dask (a lost scheduler's
"Failed to reconnect", "Couldn't gather", CommClosedError tracebacks, some through tornado's and
asyncio's loggers), urllib3's retries of MLflow requests, and Python warnings."""
LOG_NAME = "mobilepa.log"
DEFAULT_LOG = Path("outputs") / LOG_NAME  # beside the default results store, for commands that name no folder
FULL_DISK = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT}  # a full disk, a file-size limit, a quota
INFRASTRUCTURE = FULL_DISK | {errno.EIO, errno.ENOMEM}
"""OS errors of the machine, not of what the user gave: exit 1 (the rest, a missing file, a read-only
folder, a file where a folder should be, exit 2)."""

_last_log: list[Path] = []  # the log file the running command chose (library_logs); the failure goes there too


class _LogFile(logging.FileHandler):
    """A log file that, once it cannot be written (a full disk), drops its records instead of printing
    logging's own traceback to the console."""

    def handleError(self, record: logging.LogRecord) -> None:  # logging's name
        pass


@contextmanager
def library_logs(path: Path, *, title: str, import_mlflow: bool = False) -> Iterator[Path]:
    """Send the libraries' log records and Python warnings to ``path`` (appended) while the block runs;
    their own console handlers are put back afterwards. ``import_mlflow``: import it first, since on
    import it installs its console handler, which would otherwise come back."""
    if import_mlflow:
        import mlflow  # noqa: F401
    handler = _open_log(path)
    path = Path(handler.baseFilename)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    _last_log[:] = [path]
    with contextlib.suppress(OSError):  # a full disk: the records are lost, the command goes on
        handler.stream.write(f"---- {time.strftime('%Y-%m-%d %H:%M:%S')} {title}\n")  # type: ignore[union-attr]  # opened
    saved = []
    for name in LIBRARY_LOGGERS:
        logger = logging.getLogger(name)
        saved.append((logger, logger.handlers[:], logger.propagate))
        logger.handlers = [handler]
        logger.propagate = False
    logging.captureWarnings(True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default")  # each distinct warning once, into the file
            yield path
    finally:
        logging.captureWarnings(False)
        for logger, handlers, propagate in saved:
            logger.handlers = handlers
            logger.propagate = propagate
        handler.close()


def _log_candidates(path: Path | None = None) -> list[Path]:
    """Where a log may go: the command's own file, else ``outputs/mobilepa.log``, else the temp folder's."""
    return [*([path] if path else []), DEFAULT_LOG, Path(tempfile.gettempdir()) / LOG_NAME]


def _open_log(path: Path) -> _LogFile:
    """The log file at ``path``, or the first of the fallbacks that can be opened (a read-only folder
    holds no log, and the command's own error about that folder is the one to say)."""
    error: OSError | None = None
    for candidate in _log_candidates(path):
        try:
            candidate.parent.mkdir(parents=True, exist_ok=True)
            return _LogFile(candidate.resolve(), encoding="utf-8")
        except OSError as exc:
            error = error or exc
    assert error is not None
    raise error


def forget_log() -> None:
    """A new command starts: failures go to the log file it chooses, else the default one."""
    _last_log.clear()


def failure_line(exc: BaseException) -> tuple[str, int]:
    """What an error no command caught means, in one line, and the exit code: 2 when it is about what the
    user gave (a missing file, a read-only folder, a damaged store), 1 when the machine failed (a full
    disk) or the toolkit did (anything unforeseen)."""
    code = getattr(exc, "exit_code", None)
    if isinstance(code, int):  # the toolkit's own errors that know whose they are (StoreError)
        return str(exc), code
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        why = exc.strerror or str(exc) or type(exc).__name__
        if exc.errno in FULL_DISK:
            return f"{where}{why} (a full disk or a file-size limit); free space and run again", 1
        return f"{where}{why}", 1 if exc.errno in INFRASTRUCTURE else 2
    orig = getattr(exc, "orig", None)  # SQLAlchemy's wrapper of the driver's error
    if isinstance(exc, sqlite3.Error) or isinstance(orig, sqlite3.Error):
        text = str(orig if isinstance(orig, sqlite3.Error) else exc).splitlines()[0]
        return f"database: {text}", 1 if "disk is full" in text or "disk I/O" in text else 2
    first = str(exc).splitlines()[0] if str(exc) else ""
    return f"unexpected {type(exc).__name__}{': ' + first if first else ''}", 1


def save_traceback(exc: BaseException, title: str) -> Path | None:
    """Append ``exc``'s traceback to the command's log file (else ``outputs/mobilepa.log``, else one in the
    temp folder); the path written, or None when no file could be (a full disk)."""
    text = f"---- {time.strftime('%Y-%m-%d %H:%M:%S')} {title}\n" + "".join(traceback.format_exception(exc))
    for path in _log_candidates(_last_log[0] if _last_log else None):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as fh:
                fh.write(text)
            return path
        except OSError:
            continue
    return None


def report_failure(command: str, exc: BaseException) -> int:
    """One line on stderr for an error that reached the top, its traceback into the log; the exit code."""
    line, code = failure_line(exc)
    known = isinstance(getattr(exc, "exit_code", None), int)  # the toolkit's own error: its line says it all
    saved = None if known else save_traceback(exc, f"mobilepa {command}")
    where = f" (traceback in {saved})" if saved is not None else ""
    print(f"mobilepa {command}: {line}{where}", file=sys.stderr, flush=True)
    return code
