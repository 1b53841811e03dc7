"""MLflow logging of a finished sweep, from the results store; only the driver calls this.

A parent run per sweep and a child run per (planner, split, condition, seed), found again by tags on a
re-run (``mobilepa_sweep_key``, ``mobilepa_cell``), so re-running or resuming a sweep refreshes the same
runs instead of adding duplicates. SQLite backend by default (MLflow's file store is deprecated);
``MLFLOW_TRACKING_URI`` wins over the config, as MLflow users expect.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import logging
import os
import shutil
import sqlite3
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import mlflow
from alembic.util.exc import CommandError as AlembicError
from mlflow.data.meta_dataset import MetaDataset
from mlflow.data.sources import LocalArtifactDatasetSource  # type: ignore[attr-defined]  # generated at import
from mlflow.entities import AssessmentSource, DatasetInput, Feedback, InputTag, Metric, Param
from mlflow.exceptions import MlflowException
from mlflow.tracing.client import TracingClient
from mlflow.tracking import MlflowClient
from mlflow.utils.mlflow_tags import MLFLOW_DATASET_CONTEXT
from sqlalchemy.exc import SQLAlchemyError

from experiments.analysis.compare import sweep_analysis
from experiments.analysis.cost import with_costs
from experiments.analysis.groups import by_group, group_stability, row_outcomes
from experiments.analysis.stability import Spread, Stability
from experiments.analysis.stats import pass_hat_k, runs_by_task
from experiments.plan.model import Tracking
from experiments.reporting.leaderboard import cell_metrics, score_row, write_report
from experiments.results.gaps import Gap, find_gaps, sweep_rows
from experiments.results.secrets import redacted
from experiments.results.store import ResultsStore, record_key, trajectory_json
from sandbox.suite import task_path
from sandbox.tasks import CATEGORIES

# MLflow says at exit that it flushes its trace queue: this toolkit logs no traces, and the line came
# after a command's own last line (``mobilepa bench --json`` ends with its JSON object).
logging.getLogger("mlflow.tracing.export.async_export_queue").setLevel(logging.WARNING)
log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from experiments.plan.model import Plan

REPO = Path(__file__).resolve().parents[2]


def tracking_uri(tracking: Tracking) -> str:
    uri = os.environ.get("MLFLOW_TRACKING_URI") or tracking.uri
    if not uri:
        raise ValueError("tracking.uri: required when tracking is enabled (or set MLFLOW_TRACKING_URI)")
    if uri.startswith("sqlite:///"):
        Path(uri.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    return str(uri)


class TrackingUnavailable(RuntimeError):
    """MLflow could not be reached, or its store cannot be used; the message names the URI and says what
    happens to the results."""

    exit_code = 2  # the command could not start: a tracking.uri to fix, or a server to bring back


MLFLOW_ERRORS: tuple[type[BaseException], ...] = (
    MlflowException,
    OSError,
    SQLAlchemyError,  # MLflow's SQL store lets its database's errors through (a full disk, a locked file)
    AlembicError,  # a schema migration that cannot proceed
    TrackingUnavailable,
)
"""What MLflow failing looks like to its caller: caught as one line, the results safe in the store."""


def mlflow_failure(exc: BaseException) -> str:
    """One line for an MLflow failure (its own messages run to many lines, SQL included)."""
    if isinstance(exc, TrackingUnavailable):  # the toolkit's own line
        return str(exc)
    text = str(getattr(exc, "orig", None) or exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"


MLFLOW_CLIENT_LIMITS = {
    "MLFLOW_HTTP_REQUEST_MAX_RETRIES": "1",  # MLflow's own default, 7 with backoff, waits about 4 minutes
    "MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR": "1",
    "MLFLOW_HTTP_REQUEST_TIMEOUT": "10",  # seconds per request (default 120)
    "MLFLOW_SUPPRESS_PRINTING_URL_TO_STDOUT": "true",  # its "View run ... at" lines: the sweep names the run
}
"""MLflow client settings for a tracking server, unless the user set them: one that stops answering is
named within seconds (a refused connection at once, a silent one after 2 × 10 s), and the results wait
in the store for ``mobilepa report --sync``."""


def limit_mlflow_client() -> None:
    """``MLFLOW_CLIENT_LIMITS`` into the environment, where MLflow reads them, except those the user set."""
    for name, value in MLFLOW_CLIENT_LIMITS.items():
        os.environ.setdefault(name, value)


def check_tracking_store(uri: str, results_store: str | None = None) -> None:
    """Before any work: a local SQLite tracking store that MLflow could not open again is named, with the
    way out. A schema migration stopped half-way (a full disk, a killed process) leaves some of MLflow's
    tables and a migration mark; MLflow then re-runs the migration on every later start and fails
    ("duplicate column name: step"). The file is moved aside and recreated; ``mobilepa report --sync``
    logs every sweep of the results store into the new one, so nothing is lost."""
    limit_mlflow_client()
    if not uri.startswith("sqlite:///"):
        check_reachable(uri)
        return
    path = Path(uri.removeprefix("sqlite:///"))
    if not path.is_file() or path.stat().st_size == 0:
        return  # MLflow creates it
    refill = f"mobilepa report --sync --store {results_store or 'outputs/results.db'}"
    way_out = (
        f"move it aside (`mv {path} {path}.broken`); the next sweep creates it again and `{refill}` "
        "logs the results store's sweeps into it (nothing is lost)"
    )
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.Error as exc:
        raise TrackingUnavailable(f"tracking.uri: MLflow store {path} cannot be read ({exc}); {way_out}") from None
    import mlflow.store.tracking.dbmodels.models  # noqa: F401  # declares MLflow's tables on Base
    from mlflow.store.db.base_sql_model import Base

    if "alembic_version" in tables and not set(Base.metadata.tables) <= tables:
        raise TrackingUnavailable(
            f"tracking.uri: MLflow store {path} was left half-built by an interrupted schema migration "
            f"(a full disk or a killed process; MLflow cannot start on it again); {way_out}"
        )


def check_reachable(uri: str, timeout_s: float = 5.0) -> None:
    """Fail fast for an HTTP tracking server that does not answer (MLflow's own client retries for minutes)."""
    if not uri.startswith(("http://", "https://")):
        return
    try:
        with urllib.request.urlopen(f"{uri.rstrip('/')}/health", timeout=timeout_s) as reply:
            reply.read()
    except (OSError, ValueError) as exc:
        raise TrackingUnavailable(f"tracking.uri: cannot reach MLflow at {uri} ({exc})") from None


def git_commit(root: Path = REPO) -> str | None:
    """The checked-out commit, read from ``.git`` directly (no git binary needed on cluster nodes); in a
    worktree ``.git`` is a file naming its folder, whose branches live in the main repository's."""
    gitdir = root / ".git"
    if gitdir.is_file():
        gitdir = (root / gitdir.read_text().strip().removeprefix("gitdir: ")).resolve()
    head = gitdir / "HEAD"
    if not head.is_file():
        return None
    common = gitdir / "commondir"
    folders = [gitdir, *([(gitdir / common.read_text().strip()).resolve()] if common.is_file() else [])]
    ref = head.read_text().strip()
    if not ref.startswith("ref: "):
        return ref or None
    name = ref.removeprefix("ref: ")
    for folder in folders:
        loose = folder / name
        if loose.is_file():
            return loose.read_text().strip()
        packed = folder / "packed-refs"
        for line in packed.read_text().splitlines() if packed.is_file() else []:
            sha, _, ref_name = line.partition(" ")
            if ref_name == name:
                return sha
    return None


def _experiment(client: MlflowClient, name: str, uri: str) -> str:
    found = client.get_experiment_by_name(name)
    if found is not None:
        return str(found.experiment_id)
    location = None
    if uri.startswith("sqlite:///"):  # artifacts next to the database, not in the working directory
        location = (Path(uri.removeprefix("sqlite:///")).resolve().parent / "mlartifacts" / name).as_uri()
    try:
        return str(client.create_experiment(name, artifact_location=location))
    except MlflowException:  # another sweep created it a moment ago
        found = client.get_experiment_by_name(name)
        if found is None:
            raise
        return str(found.experiment_id)


def _run(
    client: MlflowClient,
    experiment_id: str,
    tags: dict[str, str],
    name: str,
    params: dict[str, Any],
    parent: str | None = None,
    start_ms: int | None = None,
) -> str:
    """The run carrying ``tags`` (a new one when none does, started at ``start_ms`` when given) with every
    one of ``params`` logged: a run created just before MLflow went away gets its missing params here.
    Params never change once set, so only the missing ones are logged (a restarted server's new URL
    leaves the first one in place)."""
    query = " and ".join(f"tags.{k} = '{v}'" for k, v in tags.items())
    found = client.search_runs([experiment_id], filter_string=query, max_results=1)
    if found:
        run_id, have = str(found[0].info.run_id), dict(found[0].data.params)
    else:
        run_tags = {**tags, **({"mlflow.parentRunId": parent} if parent else {})}
        created = client.create_run(experiment_id, start_time=start_ms, tags=run_tags, run_name=name)
        run_id, have = str(created.info.run_id), {}
    missing = [Param(k, str(v)[:6000]) for k, v in params.items() if k not in have]
    if missing:
        client.log_batch(run_id, params=missing)
    return run_id


def _log_metrics(client: MlflowClient, run_id: str, values: dict[str, float]) -> None:
    """In batches of 1000, MLflow's per-request limit."""
    stamp = int(time.time() * 1000)  # MLflow shows a metric at its timestamp: 0 read as 1970
    metrics = [Metric(k, float(v), stamp, 0) for k, v in sorted(values.items())]
    for start in range(0, len(metrics), 1000):
        client.log_batch(run_id, metrics=metrics[start : start + 1000])


def _log_traces(client: MlflowClient, experiment_id: str, run_id: str, rows: list[dict[str, Any]]) -> dict[str, str]:
    """One trace per sampled episode, one TOOL span per step (durations from the recorded latencies, laid
    out from the episode's recorded start, or from the logging time for a row stored before starts were
    recorded); returns task id -> trace id."""
    traces = {}
    for row in rows:
        trajectory = json.loads(trajectory_json(row))
        clock = _start_ns(row.get("started_at")) or time.time_ns()
        root = client.start_trace(
            f"episode {row['task_id']}",
            span_type="AGENT",
            experiment_id=experiment_id,
            run_id=run_id,
            start_time_ns=clock,
            inputs={"task_id": row["task_id"], "category": row["category"]},
            tags={"task_id": row["task_id"], "verdict": row["verdict"], **_commit_tag()},
        )
        for step in trajectory["steps"]:
            took = int(1e9 * (step.get("latency_s", 0.0) + step.get("planner", {}).get("planner_latency_s", 0.0)))
            span = client.start_span(
                f"step {step['index']}: {step['name']}",
                trace_id=root.trace_id,
                parent_id=root.span_id,
                span_type="TOOL",
                inputs=step["arguments"],
                attributes={k: v for k, v in step.get("planner", {}).items() if isinstance(v, int | float | str)},
                start_time_ns=clock,
            )
            clock += max(took, 1000)
            client.end_span(root.trace_id, span.span_id, outputs=step["envelope"], end_time_ns=clock)
        client.end_trace(
            root.trace_id,
            outputs={
                "verdict": row["verdict"],
                "reasons": json.loads(row["reasons"]),
                "termination": row["termination"],
            },
            end_time_ns=clock + 1000,
        )
        traces[row["task_id"]] = root.trace_id
    return traces


def _start_ns(stamp: str | None) -> int | None:
    if not stamp:
        return None
    try:
        return int(dt.datetime.fromisoformat(stamp).timestamp() * 1e9)
    except ValueError:
        return None


VERDICT_ASSESSMENT = "verdict"  # the name of the feedback each logged trace carries: pass, fail or unscorable


def _assess(tracing: TracingClient, trace_id: str, row: dict[str, Any], have: Sequence[Any] = ()) -> None:
    """Attach the episode's verdict to its trace as an MLflow assessment (feedback from code: the verifier),
    with its reasons as the rationale; a trace whose latest verdict assessment already says so keeps it
    (``have``: its assessments), one judged again since (``mobilepa rescore``) gets the new verdict."""
    mine = [a for a in have if getattr(a, "name", None) == VERDICT_ASSESSMENT]
    latest = max(mine, key=lambda a: a.create_time_ms or 0, default=None)
    if latest is not None and getattr(latest, "value", None) == row["verdict"]:
        return
    reasons = json.loads(row["reasons"])
    tracing.log_assessment(
        trace_id,
        Feedback(
            name=VERDICT_ASSESSMENT,
            value=row["verdict"],
            trace_id=trace_id,
            rationale="; ".join(reasons) if reasons else f"passed ({row['termination']})",
            source=AssessmentSource(source_type="CODE", source_id=f"mobilepa-verifier-{row.get('verifier_version')}"),
            metadata={
                "termination": str(row["termination"]),
                "verifier_version": str(row.get("verifier_version")),
                "task_id": str(row["task_id"]),
            },
        ),
    )


def _log_dataset(client: MlflowClient, run_id: str, split: str, file: str, sha256: str) -> None:
    """The cell's task file as the run's input dataset (MLflow's ``log_inputs``): named after its split and
    file, its digest the start of its sha256 (the full hash is the parent run's ``dataset/<split>`` param)."""
    path = task_path(file)
    source = LocalArtifactDatasetSource(str(path.resolve()))
    dataset = MetaDataset(source, name=f"{split}:{path.name}", digest=sha256[:32])  # type: ignore[abstract]
    client.log_inputs(
        run_id, [DatasetInput(dataset._to_mlflow_entity(), tags=[InputTag(MLFLOW_DATASET_CONTEXT, "evaluation")])]
    )


@dataclass
class SweepTracker:
    """The sweep's experiment and parent run, opened before any work is submitted (never from workers)."""

    client: MlflowClient
    experiment_id: str
    parent: str
    plan: Plan

    def fail(self, *, killed: bool = False) -> None:
        """Close the parent run as KILLED (interrupted) or FAILED; MLflow being down too is only logged,
        so the error that ended the sweep is the one reported."""
        try:
            self.client.set_terminated(self.parent, status="KILLED" if killed else "FAILED")
        except Exception as exc:  # any MLflow or network failure: the sweep's own error matters
            log.warning("could not close the MLflow parent run %s: %s", self.parent, exc)


@contextmanager
def first_use_lock(uri: str) -> Iterator[None]:
    """Serialise the first use of a local SQLite tracking store across processes: MLflow creates and
    migrates its schema on first use, and a second sweep doing it at the same moment crashed (alembic's
    ``CommandError``, ``duplicate column name``). Other stores are servers, which serialise themselves."""
    if not uri.startswith("sqlite:///"):
        yield
        return
    import fcntl

    with Path(uri.removeprefix("sqlite:///") + ".lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def start_tracking(plan: Plan) -> SweepTracker:
    """Create (or find again, by the sweep's key) the experiment and the parent run, marked running."""
    uri = tracking_uri(plan.tracking)
    check_tracking_store(uri, str(plan.store) if plan.store else None)
    user_choice = os.environ.get("MLFLOW_TRACKING_URI")
    mlflow.set_tracking_uri(uri)  # traces are exported through the global URI; only the driver is here
    # MLflow also writes the URI into the environment, where it would override the next sweep's own
    # tracking.uri in this process; only a URI the user set there may stay.
    if user_choice is None:
        os.environ.pop("MLFLOW_TRACKING_URI", None)
    else:
        os.environ["MLFLOW_TRACKING_URI"] = user_choice
    with first_use_lock(uri):
        client = MlflowClient(tracking_uri=uri)
        experiment_id = _experiment(client, plan.tracking.experiment or plan.name, uri)
        return _open_parent(client, experiment_id, plan)


def _open_parent(client: MlflowClient, experiment_id: str, plan: Plan) -> SweepTracker:
    params = {
        "name": plan.name,
        "planners": ",".join(plan.grid.planners),
        "splits": ",".join(plan.grid.splits),
        "seeds": ",".join(map(str, plan.grid.seeds)),
        "conditions": ",".join(plan.grid.conditions),
        "cluster": plan.cluster["kind"],
        "git_commit": git_commit() or "unknown",
        "t_max": plan.work.t_max,
        **{f"dataset/{split}": f"{file}@sha256:{sha}" for split, (file, sha) in plan.datasets.items()},
    }
    parent = _run(
        client,
        experiment_id,
        {"mobilepa_sweep_key": plan.sweep_key, "mobilepa_role": "parent"},
        plan.name,
        params,
    )
    client.update_run(parent, status="RUNNING")
    _tag_commit(client, parent)
    return SweepTracker(client, experiment_id, parent, plan)


def _commit_tag() -> dict[str, str]:
    """MLflow's source tag with the checked-out commit (none when unknown), for runs and traces alike."""
    commit = git_commit()
    return {"mlflow.source.git.commit": commit} if commit else {}


def _tag_commit(client: MlflowClient, run_id: str) -> None:
    """MLflow's own source tag, which its UI shows; set apart from the tags that find a run again, so a
    re-run from a newer commit updates the same run and names that commit."""
    for key, value in _commit_tag().items():
        client.set_tag(run_id, key, value)


def log_sweep(
    tracker: SweepTracker,
    store: ResultsStore,
    report_written: bool = False,
    rows: list[dict[str, Any]] | None = None,
) -> str:
    """Log every cell as a child run and the stability analysis on the parent; returns the parent run id.

    Safe to repeat, and completes what an interrupted logging left: runs are found again by their tags
    and get their missing params, metrics are rewritten with the same values, artifacts replaced, and
    only the sampled traces a run lacks are logged. A cell with keys missing (``infra_error`` after
    every retry, or never run) ends FAILED, and so does the parent when any cell does; else FINISHED.
    ``rows``: the sweep's rows with their costs when the caller has read them already, else read here."""
    client, parent, plan = tracker.client, tracker.parent, tracker.plan
    if rows is None:
        rows = with_costs(sweep_rows(plan, store.rows()), store.provenance())  # + cost_usd, gpu_s
    gaps = {g.cell: g for g in find_gaps(plan, rows)}
    parent_metrics: dict[str, float] = {"missing_keys": sum(g.missing for g in gaps.values())}
    stability_doc: dict[str, Any] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for (planner, split, condition), per_seed in by_group(rows).items():
                # pass^k of the group over its seeds, on each of its children too, so runs alone compare
                passes = pass_hat_k(runs_by_task(row_outcomes(r for v in per_seed.values() for r in v)))
                over_seeds = {f"pass_hat_k/{k}": v for k, v in passes.items()}
                for seed, cell_rows in sorted(per_seed.items()):
                    label = f"{planner}/{split}/{condition}/seed{seed}"
                    _log_cell(tracker, store, label, cell_rows, gaps.get(label), Path(tmp), over_seeds)
                s = group_stability(per_seed)
                if s is not None:  # else no seed has a scorable episode: no spread to log
                    stability_doc[f"{planner}/{split}/{condition}"] = s.to_json()
                    parent_metrics.update(_stability_metrics(f"stability/{planner}/{split}/{condition}", s))
            _log_metrics(client, parent, parent_metrics)
            report = Path(tmp) / "report"
            if report_written:  # the sweep just wrote it to report_dir: log that instead of rendering it again
                shutil.copytree(plan.report_dir, report)
            elif rows:
                write_report(rows, report, analysis=sweep_analysis(store, {record_key(r) for r in rows}))
            report.mkdir(exist_ok=True)
            (report / "stability.json").write_text(json.dumps(stability_doc, indent=2, sort_keys=True))
            (report / "config.json").write_text(
                json.dumps(redacted(plan.record), indent=2, sort_keys=True, default=str)
            )
            client.log_artifacts(parent, str(report))
    finally:  # traces are exported in the background: those ended must be in before anyone looks again
        mlflow.flush_trace_async_logging()
    client.set_terminated(parent, status="FAILED" if gaps else "FINISHED")
    store.mark_logged(plan.sweep_key)
    return parent


def _log_cell(
    tracker: SweepTracker,
    store: ResultsStore,
    label: str,
    rows: list[dict[str, Any]],
    gap: Gap | None,
    tmp: Path,
    group_metrics: dict[str, float],
) -> None:
    """One cell's child run, timed by when its episodes ran: params (completed if missing) with the model,
    the name it is served under, its sampling and its whole planner config, metrics (the cell's and
    ``group_metrics``), artifacts, the sampled traces it lacks, and its status (FAILED when keys are
    missing)."""
    client, experiment_id, plan = tracker.client, tracker.experiment_id, tracker.plan
    first = rows[0]
    where = {
        "planner": first["planner"],
        "split": first["split"],
        "condition": first["condition"],
        "seed": first["seed"],
    }
    cell = next(c for c in plan.cells if (c.planner, c.split, c.condition, c.seed) == tuple(where.values()))
    params = {
        **where,
        "planner_kind": cell.planner_config.get("kind"),
        "t_max": cell.t_max,
        "dataset_hash": cell.dataset_hash,
        **planner_params(cell.planner_config),
    }
    if cell.planner_config.get("kind") == "openai":  # given, or the server the sweep started
        params["base_url"] = cell.planner_config.get("base_url") or plan.record.get("endpoints", {}).get(cell.planner)
    child = _run(
        client,
        experiment_id,
        {"mobilepa_sweep_key": plan.sweep_key, "mobilepa_cell": label},
        label,
        params,
        parent=tracker.parent,
        start_ms=_cell_time(rows, "started_at", min),
    )
    _tag_commit(client, child)
    inputs = client.get_run(child).inputs
    logged_inputs = {d.dataset.digest for d in inputs.dataset_inputs} if inputs is not None else set()
    if cell.dataset_hash[:32] not in logged_inputs:  # a re-run finds it there already
        _log_dataset(client, child, cell.split, cell.split_file, cell.dataset_hash)
    _log_metrics(client, child, {**cell_metrics(rows), **group_metrics, "missing": gap.missing if gap else 0})
    folder = tmp / label.replace("/", "_")
    folder.mkdir()
    with gzip.open(folder / "trajectories.jsonl.gz", "wt", encoding="utf-8") as fh:  # one cell in memory at a time
        fh.writelines(trajectory_json(r) + "\n" for r in store.rows(with_trajectories=True, **where))
    with (folder / "episodes.jsonl").open("w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r, sort_keys=True) + "\n" for r in rows)
    client.log_artifacts(child, str(folder))
    sample = plan.tracking.trace_sample
    if sample:
        logged = {
            t.info.tags.get("task_id"): t.info
            for t in client.search_traces(locations=[experiment_id], run_id=child, max_results=max(100, 2 * sample))
        }
        chosen = {r["task_id"]: r for r in trace_sample(rows, sample)}
        new = _log_traces(
            client,
            experiment_id,
            child,
            [
                r
                for r in store.rows(with_trajectories=True, **where)
                if r["task_id"] in chosen and r["task_id"] not in logged
            ],
        )
        mlflow.flush_trace_async_logging()  # an assessment needs its trace stored
        tracing = TracingClient(tracking_uri=client.tracking_uri)
        for task_id, row in chosen.items():  # each sampled trajectory's verdict on its trace
            if task_id in new:
                _assess(tracing, new[task_id], row)
            elif task_id in logged:
                _assess(tracing, logged[task_id].trace_id, row, logged[task_id].assessments or ())
    client.set_terminated(child, status="FAILED" if gap else "FINISHED", end_time=_cell_time(rows, "ended_at", max))


def planner_params(config: dict[str, Any] | Any) -> dict[str, Any]:
    """What tells two planners apart on a dashboard: ``model``, ``served_model`` (the name the endpoint
    serves it under: ``served_model_name`` where set, else the model) and the whole planner config as
    ``planner.<key>`` (``planner.sampling.temperature``…), secrets masked."""
    params: dict[str, Any] = {}
    if config.get("model") is not None:
        params["model"] = config["model"]
        params["served_model"] = config.get("served_model_name") or config["model"]

    def flatten(prefix: str, value: Any) -> None:
        if isinstance(value, dict) and value:
            for key, item in value.items():
                flatten(f"{prefix}.{key}", item)
        else:
            params[prefix] = json.dumps(value, default=str) if isinstance(value, list | dict) else value

    flatten("planner", redacted(dict(config)))
    return params


def _cell_time(rows: list[dict[str, Any]], column: str, pick: Any) -> int | None:
    """The cell's first start (``min`` of ``started_at``) or last end (``max`` of ``ended_at``) in epoch
    milliseconds, from its episodes' recorded times; None when none was recorded (MLflow then uses now)."""
    stamps = []
    for r in rows:
        try:
            stamps.append(round(dt.datetime.fromisoformat(r[column]).timestamp() * 1000))
        except (KeyError, TypeError, ValueError):  # not recorded (a row stored before these columns)
            continue
    return pick(stamps) if stamps else None


def trace_sample(rows: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """``n`` episodes spread across verdicts and categories (one of each (verdict, category) in turn, in key
    order), not the first ``n`` by key, which were all passing basic tasks; the same rows every time."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in sorted(rows, key=lambda r: r["task_id"]):
        groups.setdefault((str(r["verdict"]), str(r["category"])), []).append(r)
    order = sorted(groups, key=lambda g: (g[0] == "pass", g))  # failures first: they are what one reads traces for
    chosen: list[dict[str, Any]] = []
    depth = 0
    while len(chosen) < n and any(len(groups[g]) > depth for g in order):
        chosen += [groups[g][depth] for g in order if len(groups[g]) > depth][: n - len(chosen)]
        depth += 1
    return chosen


def _stability_metrics(prefix: str, s: Stability) -> dict[str, float]:
    metrics = {
        f"{prefix}/{name}/{stat}": getattr(spread, stat)
        for name, spread in (("overall", s.overall), *s.categories.items())
        for stat in ("mean", "std", "range")
    }
    metrics.update({f"{prefix}/{c}/overall_shift": shift for c, shift in s.overall_shift.items()})
    return {
        **metrics,
        f"{prefix}/pass_all": s.pass_all,
        f"{prefix}/pass_any": s.pass_any,
        f"{prefix}/flipping_tasks": len(s.flipping),
    }


def _has_parent_run(record: dict[str, Any], sweep_key: str) -> bool:
    """Whether the sweep's tracking store (``record``: the config the results store kept) holds its parent
    run; one recreated after damage holds none."""
    uri = tracking_uri(Tracking(enabled=True, uri=record["tracking"].get("uri"), experiment=None))
    check_tracking_store(uri, str(record.get("store") or "") or None)
    client = MlflowClient(tracking_uri=uri)
    ids = [e.experiment_id for e in client.search_experiments()]
    query = f"tags.mobilepa_sweep_key = '{sweep_key}' and tags.mobilepa_role = 'parent'"
    return bool(ids) and bool(client.search_runs(ids, filter_string=query, max_results=1))


def leaderboard_from_runs(runs: Any) -> dict[str, list[list[str]]]:
    """The leaderboard's scores table per split (``leaderboard.sections``' first table), rebuilt from the
    child runs alone: ``runs`` is what ``mlflow.search_runs`` returns over an experiment (a DataFrame or
    its records), so a dashboard over one experiment reads the figures the report prints."""
    records = runs.to_dict("records") if hasattr(runs, "to_dict") else list(runs)
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for run in records:
        if isinstance(run.get("tags.mobilepa_cell"), str):  # a child run: one cell
            groups.setdefault((run["params.planner"], run["params.split"], run["params.condition"]), []).append(run)
    entries = []
    for (planner, split, condition), cells in sorted(groups.items()):
        cells = sorted(cells, key=lambda r: int(r["params.seed"]))
        scored = [r for r in cells if _metric(r, "overall") is not None]
        categories = {
            c: Spread(tuple(v for r in scored if (v := _metric(r, f"category/{c}")) is not None)) for c in CATEGORIES
        }
        overall = Spread(tuple(_metric(r, "overall") for r in scored)) if scored else None  # type: ignore[misc]
        row = score_row(
            planner,
            condition,
            [int(r["params.seed"]) for r in scored or cells],
            max(int(_metric(r, "episodes") or 0) for r in cells),
            overall,
            {c: s for c, s in categories.items() if s.values},
        )
        entries.append(((split, overall is None, -overall.mean if overall else 0), row))
    tables: dict[str, list[list[str]]] = {}
    for (split, _, _), row in sorted(entries, key=lambda e: e[0]):
        tables.setdefault(split, []).append(row)
    return tables


def _metric(run: dict[str, Any], name: str) -> float | None:
    value = run.get(f"metrics.{name}")
    return None if value is None or value != value else float(value)  # NaN: not logged for this run


def sync_store(store: ResultsStore, plan_of: Any) -> list[str]:
    """Log every sweep the store holds that MLflow does not have: those not logged yet, and the tracked
    ones whose parent run the tracking store lacks (a store moved aside and recreated is refilled);
    returns their parent run ids."""
    waiting = dict(store.unlogged_sweeps())
    for key, config in store.recorded_sweeps():
        if key not in waiting and (config.get("tracking") or {}).get("enabled") and not _has_parent_run(config, key):
            waiting[key] = config
    parents = []
    for key, config in sorted(waiting.items()):
        plan = plan_of(config)
        if plan.sweep_key != key:
            raise TrackingUnavailable(
                f"sweep {key}: its task files or settings changed since it ran; cannot log it as it was"
            )
        parents.append(log_sweep(start_tracking(plan), store))
    return parents
