"""The chaos soak (``make test-chaos``): real processes killed at random while sweeps run, then the store
compared with a clean run.

A real ``dask scheduler`` and two ``dask worker``s, a real ``mlflow server`` and an OpenAI-compatible
endpoint (the scripted server, ``gold`` policy) run as processes of their own; a supervisor restarts any
that dies. Sweeps of the noisy oracle (run on the workers) and a model planner (calling the endpoint)
over the hand-written split run one after another, a few seeds each, through ``mobilepa sweep`` as a
user runs it. Every 10–30 s one of them is killed (SIGKILL; the driver SIGINT or SIGKILL), and a sweep
that did not exit 0 is run again, the same command, until it does. When the time is up, the same
commands run once more on a fresh store with no faults (the clean run), and the soak checks:

- the store against the clean run: no key lost, none stored twice, no verdict differing;
- MLflow: every sweep's parent and child runs FINISHED, one child per cell, each with its Overall;
- the driver's console: none of Dask's or MLflow's own messages (tracebacks, "Failed to reconnect",
  "Couldn't gather", "View run"), which belong in mobilepa.log.

``python -m tests.chaos --seconds 900`` (``make test-chaos``; ``CHAOS_SECONDS=150`` for a short run that
checks it works) prints its figures and exits 0 when every check holds, 1 otherwise; ``--keep DIR``
keeps the stores and logs there. ``python -m tests.chaos endpoint PORT`` is the endpoint process.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SPLIT = "handwritten"
PLANNERS = "noisy_oracle,qwen3_8b"  # qwen3_8b's config, pointed at the scripted endpoint
SEEDS_PER_SWEEP = 3
NOISE = ("Traceback", "CommClosedError", "Failed to reconnect", "Couldn't gather", "View run", "View experiment")
COMPARED = ("verdict", "passed", "scorable", "termination", "reasons", "task_hash", "dataset_hash")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def endpoint(port: int) -> None:
    """The OpenAI-compatible endpoint: the scripted server answering the split's gold, until killed."""
    from experiments.bench.scripted_server import ScriptedServer
    from sandbox.suite import load_split

    async def serve() -> None:
        server = ScriptedServer(load_split(f"{SPLIT}.jsonl"), "gold", port=port, keep_bodies=False)
        await server.start()
        await asyncio.Event().wait()

    asyncio.run(serve())


@dataclass
class Service:
    """A process the supervisor keeps running: started again when it exits or is killed."""

    name: str
    command: list[str]
    log: Path
    cwd: Path
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                self.command, cwd=self.cwd, stdout=out, stderr=out, start_new_session=True, env=_env()
            )
        self.starts += 1

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, sig)
            self.process.wait()


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"}


@dataclass
class Soak:
    folder: Path
    seconds: float
    rng: random.Random
    ports: dict[str, int] = field(default_factory=lambda: {k: _free_port() for k in ("dask", "mlflow", "model")})
    faults: Counter[str] = field(default_factory=Counter)
    reruns: int = 0
    noise: list[str] = field(default_factory=list)
    driver: subprocess.Popen[bytes] | None = None
    stopping: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        address = f"tcp://127.0.0.1:{self.ports['dask']}"
        dask = str(BIN / "dask")
        logs = self.folder / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        self.services = [
            Service(
                "scheduler",
                [dask, "scheduler", "--host", "127.0.0.1", "--port", str(self.ports["dask"]), "--no-dashboard"],
                logs / "scheduler.log",
                self.folder,
            ),
            *(
                Service(
                    f"worker{i}",
                    [dask, "worker", address, "--host", "127.0.0.1", "--nthreads", "2", "--no-dashboard"],
                    logs / f"worker{i}.log",
                    self.folder,
                )
                for i in (1, 2)
            ),
            Service(
                "mlflow",
                [
                    str(BIN / "mlflow"),
                    "server",
                    "--backend-store-uri",
                    f"sqlite:///{self.folder / 'mlflow.db'}",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(self.ports["mlflow"]),
                    "--workers",
                    "1",
                ],
                logs / "mlflow.log",
                self.folder,
            ),
            Service(
                "endpoint",
                [sys.executable, "-m", "tests.chaos", "endpoint", str(self.ports["model"])],
                logs / "endpoint.log",
                REPO,
            ),
        ]

    def sweep_args(self, seeds: range, store: Path, *, clean: bool = False) -> list[str]:
        args = [
            f"planner={PLANNERS}",
            f"split={SPLIT}",
            f"seed={','.join(map(str, seeds))}",
            f"name=chaos-{seeds.start}",
            f"planner.qwen3_8b.base_url=http://127.0.0.1:{self.ports['model']}/v1",
            "planner.qwen3_8b.model=scripted",  # the model the scripted server serves (the pre-flight asks)
            f"store={store}",
            f"report_dir={store.parent / 'report'}",
            "unit_size=8",
        ]
        if clean:  # no faults: an in-process cluster, no MLflow
            return [*args, "tracking=none", "cluster.n_workers=1", "cluster.processes=false"]
        return [
            *args,
            "cluster=address",
            f"cluster.address=tcp://127.0.0.1:{self.ports['dask']}",
            "cluster.connect_timeout=20s",
            f"tracking.uri=http://127.0.0.1:{self.ports['mlflow']}",
        ]

    def run_driver(self, args: list[str], console: Path) -> int:
        with console.open("ab") as out:
            self.driver = subprocess.Popen(
                [sys.executable, "-m", "experiments.cli", "sweep", *args],
                cwd=self.folder,
                stdout=out,
                stderr=out,
                start_new_session=True,
                env=_env(),
            )
            code = self.driver.wait()
        return code

    def supervise(self) -> None:
        """Restart what died, 1–3 s later (a scheduler's workers reconnect or are restarted in turn)."""
        while not self.stopping.is_set():
            for service in self.services:
                if not service.alive():
                    time.sleep(self.rng.uniform(1, 3))
                    service.start()
            time.sleep(0.5)

    def chaos(self, until: float) -> None:
        """Kill one process every 10–30 s until ``until``."""
        while time.monotonic() < until and not self.stopping.is_set():
            time.sleep(self.rng.uniform(10, 30))
            if time.monotonic() >= until:
                return
            target = self.rng.choice(["scheduler", "worker1", "worker2", "mlflow", "endpoint", "driver"])
            if target == "driver":
                driver = self.driver
                if driver is not None and driver.poll() is None:
                    how = self.rng.choice([signal.SIGINT, signal.SIGKILL])
                    os.killpg(driver.pid, how)
                    self.faults[f"driver {how.name}"] += 1
                continue
            next(s for s in self.services if s.name == target).kill()
            self.faults[f"{target} SIGKILL"] += 1

    def wait_ready(self, *names: str) -> None:
        """Until the named services' (default: MLflow and the endpoint) health checks answer."""
        deadline = time.monotonic() + 600
        for name in names or ("mlflow", "model"):
            url = f"http://127.0.0.1:{self.ports[name]}/health"
            while True:
                try:
                    with urllib.request.urlopen(url, timeout=5):
                        break
                except OSError:
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"{url} never answered; see {self.folder / 'logs'}") from None
                    time.sleep(1)

    def run(self) -> int:
        for service in self.services:
            service.start()
        supervisor = threading.Thread(target=self.supervise, daemon=True)
        supervisor.start()
        started = time.monotonic()
        store, console = self.folder / "chaos" / "results.db", self.folder / "console.log"
        clean, clean_console = self.folder / "clean" / "results.db", self.folder / "clean-console.log"
        store.parent.mkdir(exist_ok=True)
        clean.parent.mkdir(exist_ok=True)
        sweeps: list[range] = []
        try:
            self.wait_ready()
            print(f"chaos soak: services up in {time.monotonic() - started:.0f} s; faults for {self.seconds:.0f} s")
            until = time.monotonic() + self.seconds
            threading.Thread(target=self.chaos, args=(until,), daemon=True).start()
            while time.monotonic() < until:
                seeds = range(len(sweeps) * SEEDS_PER_SWEEP, (len(sweeps) + 1) * SEEDS_PER_SWEEP)
                sweeps.append(seeds)
                while self.run_driver(self.sweep_args(seeds, store), console) != 0:
                    self.reruns += 1  # killed, interrupted or incomplete: the same command again
                    if time.monotonic() > until + 900:
                        print(f"chaos soak: sweep chaos-{seeds.start} never completed; see {console}")
                        return 1
                    time.sleep(2)
            text = console.read_text(errors="replace")
            self.noise = [line for line in text.splitlines() if any(n in line for n in NOISE)]
            mlflow_problems = self.check_mlflow(store, sweeps)
            self.stopping.set()  # the clean run: the same commands, no faults, a fresh store
            supervisor.join()
            for service in self.services:
                if service.name != "endpoint":
                    service.kill()
                elif not service.alive():
                    service.start()
            self.wait_ready("model")
            for seeds in sweeps:
                if self.run_driver(self.sweep_args(seeds, clean, clean=True), clean_console) != 0:
                    print(f"chaos soak: the clean run of sweep chaos-{seeds.start} failed; see {clean_console}")
                    return 1
        finally:
            self.stopping.set()
            for service in self.services:
                service.kill()
        return self.verdict(store, clean, sweeps, mlflow_problems, time.monotonic() - started)

    def check_mlflow(self, store: Path, sweeps: list[range]) -> list[str]:
        """Every sweep's parent run and one child per cell, FINISHED, with its Overall."""
        from mlflow.tracking import MlflowClient

        self.wait_ready()
        with closing(sqlite3.connect(store)) as db:
            cells = {
                (p, s) for p, s in db.execute("SELECT DISTINCT planner, seed FROM episodes")
            }  # one split, one condition
        client = MlflowClient(tracking_uri=f"http://127.0.0.1:{self.ports['mlflow']}")
        problems = []
        for seeds in sweeps:
            experiment = client.get_experiment_by_name(f"chaos-{seeds.start}")
            if experiment is None:
                problems.append(f"sweep chaos-{seeds.start}: no MLflow experiment")
                continue
            runs = client.search_runs([experiment.experiment_id], max_results=1000)
            parents = [r for r in runs if r.data.tags.get("mobilepa_role") == "parent"]
            children = [r for r in runs if "mobilepa_cell" in r.data.tags]
            wanted = sum(1 for _, seed in cells if seed in seeds)
            if len(parents) != 1 or parents[0].info.status != "FINISHED":
                problems.append(f"sweep chaos-{seeds.start}: parent runs {[p.info.status for p in parents]}")
            if len(children) != wanted:
                problems.append(f"sweep chaos-{seeds.start}: {len(children)} child runs, {wanted} cells")
            for child in children:
                if child.info.status != "FINISHED" or "overall" not in child.data.metrics:
                    problems.append(f"{child.data.tags['mobilepa_cell']}: {child.info.status}, metrics incomplete")
        return problems

    def verdict(self, store: Path, clean: Path, sweeps: list[range], mlflow: list[str], took: float) -> int:
        def rows(path: Path) -> tuple[dict[tuple[str, ...], tuple[object, ...]], int]:
            with closing(sqlite3.connect(path)) as db:
                found = db.execute(
                    f"SELECT planner, split, condition, seed, task_id, {', '.join(COMPARED)} FROM episodes"
                ).fetchall()
            return {tuple(map(str, r[:5])): r[5:] for r in found}, len(found)

        chaos, stored = rows(store)
        reference, _ = rows(clean)
        lost = sorted(set(reference) - set(chaos))
        extra = sorted(set(chaos) - set(reference))
        differing = sorted(k for k in set(chaos) & set(reference) if chaos[k] != reference[k])
        twice = stored - len(chaos)
        print(
            f"chaos soak: {took / 60:.1f} min, {len(sweeps)} sweeps ({PLANNERS} × {SPLIT} × {SEEDS_PER_SWEEP} seeds "
            f"each), {len(reference)} episodes; {sum(self.faults.values())} faults "
            f"({', '.join(f'{k} ×{n}' for k, n in sorted(self.faults.items()))}), {self.reruns} re-runs; "
            f"service starts: {', '.join(f'{s.name} {s.starts}' for s in self.services)}"
        )
        print(
            f"chaos soak: lost {len(lost)}, stored twice {twice}, not in the clean run {len(extra)}, differing "
            f"{len(differing)}; MLflow problems {len(mlflow)}; console lines that belong in mobilepa.log "
            f"{len(self.noise)}"
        )
        for line in [*lost[:5], *extra[:5], *differing[:5], *mlflow[:10], *self.noise[:10]]:
            print(f"  {line}")
        failed = bool(lost or extra or differing or twice or mlflow or self.noise)
        print(f"chaos soak: {'FAILED' if failed else 'passed'}")
        return int(failed)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.chaos", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=float(os.environ.get("CHAOS_SECONDS", 900)))
    parser.add_argument("--seed", type=int, default=0, help="the faults' random seed")
    parser.add_argument("--keep", type=Path, help="keep the stores and logs in this folder")
    args, rest = parser.parse_known_args(argv)
    if rest[:1] == ["endpoint"]:
        endpoint(int(rest[1]))
        return 0
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        return Soak(args.keep.resolve(), args.seconds, random.Random(args.seed)).run()
    with tempfile.TemporaryDirectory(prefix="mobilepa-chaos-") as folder:
        return Soak(Path(folder), args.seconds, random.Random(args.seed)).run()


if __name__ == "__main__":
    raise SystemExit(main())
