"""What reaches the console: the toolkit's own lines. Libraries' log records (MLflow's INFO lines about
its database, alembic's migrations, Dask's warnings such as "Port 8787 is already in use") and Python
warnings go to a log file in the output folder instead, which the command names once."""

from __future__ import annotations

import logging
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LIBRARY_LOGGERS = ("mlflow", "alembic", "distributed", "py.warnings")
LOG_NAME = "mobilepa.log"


@contextmanager
def library_logs(path: Path, *, title: str, import_mlflow: bool = False) -> Iterator[Path]:
    """Send the libraries' log records and Python warnings to ``path`` (appended) while the block runs;
    their own console handlers are put back afterwards. ``import_mlflow``: import it first, since on
    import it installs its console handler, which would otherwise come back."""
    if import_mlflow:
        import mlflow  # noqa: F401
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
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
