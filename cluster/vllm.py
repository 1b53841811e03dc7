"""vLLM server lifecycle: launch the OpenAI-compatible server as a child process, wait until it can
serve the configured model, and always tear it down with its whole process group.

A run needs the base URL, the server log and a guaranteed teardown even when the run fails, so this
is code rather than a shell script. ``ExistingServer`` gives the same interface for a server the
user started elsewhere; it only checks readiness.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Self

import aiohttp

API_SERVER_MODULE = "vllm.entrypoints.openai.api_server"
"""The server entry point: the CPU wheel's ``vllm`` console script fails, ``python -m`` works."""

DIE_WITH_PARENT = (
    "import ctypes, os, signal, sys\n"
    "ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG, kept across exec\n"
    "if os.getppid() != int(sys.argv[1]): sys.exit(1)  # the parent died already\n"
    "os.execv(sys.argv[2], sys.argv[2:])"
)
"""Linux launcher for ``die_with_parent``: the server gets SIGTERM when the thread that started it
exits (its Dask worker died), then execs the real command (same process, same group)."""

LOG_TAIL_LINES = 40
HOST = "127.0.0.1"


class ServerStartupError(RuntimeError):
    """The server exited, timed out or served the wrong model before it became ready."""


def _model(config: Mapping[str, Any]) -> str:
    model = config.get("model")
    if not model:
        raise ValueError("planner.model: missing (an HF id or a local directory)")
    return str(model)


def served_model_name(config: Mapping[str, Any]) -> str:
    """The model id clients must send: ``served_model_name`` if set, else ``model``."""
    return str(config.get("served_model_name") or _model(config))


def build_command(
    config: Mapping[str, Any],
    *,
    port: int,
    python: str = sys.executable,
    module: str = API_SERVER_MODULE,
    host: str = HOST,
) -> list[str]:
    """The server command line for a planner config (``model``, ``vllm: {tool_call_parser,
    chat_template, serve_args}``, ``served_model_name``); a bad config fails naming the key."""
    vllm_conf = config.get("vllm") or {}
    parser = vllm_conf.get("tool_call_parser")
    if not parser:
        raise ValueError("planner.vllm.tool_call_parser: missing (e.g. hermes for Qwen2.5)")
    serve_args = vllm_conf.get("serve_args") or []
    if isinstance(serve_args, str):
        raise ValueError("planner.vllm.serve_args: must be a list of arguments, not a string")
    cmd = [
        python,
        "-m",
        module,
        "--model",
        _model(config),
        "--host",
        host,
        "--port",
        str(port),
        "--served-model-name",
        served_model_name(config),
        "--enable-auto-tool-choice",
        "--tool-call-parser",
        str(parser),
    ]
    if vllm_conf.get("chat_template"):
        cmd += ["--chat-template", str(vllm_conf["chat_template"])]
    return cmd + [str(a) for a in serve_args]


def free_port(host: str = HOST) -> int:
    """A port the OS reports free now (another process may still take it before the server binds;
    the server then exits early, which ``VLLMServer`` reports with its log)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def log_tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    """The last ``lines`` lines of a log, for error messages."""
    try:
        with path.open(encoding="utf-8", errors="replace") as f:
            return "".join(deque(f, maxlen=lines))
    except FileNotFoundError:
        return "(no log written)"


_ENGINE = re.compile(r"Initializing a V1 LLM engine \(v([^)\s]+)\)")
_DEVICE = re.compile(r"device_config=(\w+)")


def engine_facts(log: Path | None) -> dict[str, str]:
    """What a server's log says it ran: its vLLM version and the device (``cpu``, ``cuda``), from the
    engine's start-up line; an empty mapping when the log says neither (another server, no log)."""
    facts: dict[str, str] = {}
    if log is None:
        return facts
    try:
        with log.open(encoding="utf-8", errors="replace") as f:
            for line in f:
                if (version := _ENGINE.search(line)) is not None:
                    facts["vllm_version"] = version.group(1)
                    if (device := _DEVICE.search(line)) is not None:
                        facts["device"] = device.group(1)
                    break
    except OSError:
        return {}
    return facts


def _root_url(base_url: str) -> str:
    """``http://h:p/v1`` -> ``http://h:p``: /health lives at the root, the OpenAI API under /v1."""
    return base_url.rstrip("/").removesuffix("/v1")


async def _probe(session: aiohttp.ClientSession, root: str, model: str | None) -> str | None:
    """One readiness check: None when ready, else what the server answered."""
    async with session.get(f"{root}/health") as health:
        if health.status != 200:
            return f"/health answered {health.status}"
    async with session.get(f"{root}/v1/models") as models:
        if models.status != 200:
            return f"/v1/models answered {models.status}"
        ids = [m.get("id") for m in (await models.json(content_type=None)).get("data", [])]
    if model is not None and model not in ids:
        raise ServerStartupError(f"{root} serves {ids}, not the configured model {model!r}")
    return None


async def wait_until_ready(
    base_url: str,
    model: str | None,
    *,
    timeout: float,
    poll_interval: float = 1.0,
    api_key: str | None = None,
    check_alive: Callable[[], None] | None = None,
) -> None:
    """Poll ``/health`` until 200, then require ``model`` in ``/v1/models``.

    Connection errors and 503s are normal while the engine starts, so they only mean "poll again";
    ``check_alive`` raises when the process behind the URL died, so a crash fails at once.
    """
    root = _root_url(base_url)
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    deadline = time.monotonic() + timeout
    request_timeout = aiohttp.ClientTimeout(total=max(poll_interval, 5.0))
    async with aiohttp.ClientSession(timeout=request_timeout, headers=headers) as session:
        while True:
            if check_alive is not None:
                check_alive()
            try:
                last = await _probe(session, root, model)
            except (aiohttp.ClientError, TimeoutError) as e:
                last = f"{type(e).__name__}: {e}"
            if last is None:
                return
            if time.monotonic() >= deadline:
                raise TimeoutError(f"{root} not ready after {timeout:g} s (last: {last})")
            await asyncio.sleep(poll_interval)


class VLLMServer:
    """A vLLM OpenAI-compatible server started for one run and stopped when it ends.

    Use ``with VLLMServer(...) as s`` outside an event loop and ``async with`` inside one;
    ``s.base_url`` is what an OpenAI client takes.
    """

    def __init__(
        self,
        config: Mapping[str, Any],
        *,
        python: str = sys.executable,
        env: Mapping[str, str] | None = None,
        log_path: str | Path | None = None,
        run_dir: str | Path = ".",
        startup_timeout: float = 900.0,
        stop_timeout: float = 30.0,
        poll_interval: float = 1.0,
        module: str = API_SERVER_MODULE,
        host: str = HOST,
        die_with_parent: bool = False,
    ) -> None:
        """``host``: where the server binds and is reached; ``die_with_parent``: on Linux, SIGTERM the
        server when the thread that started it exits (a server started by a Dask worker dies with it)."""
        self.config = config
        self.model = served_model_name(config)
        self.python = python
        self.env = dict(env or {})
        self.run_dir = Path(run_dir)
        self.log_path: Path | None = Path(log_path) if log_path is not None else None
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self.poll_interval = poll_interval
        self.module = module
        self.host = host
        self.die_with_parent = die_with_parent
        self.port: int | None = None
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        """The OpenAI API root, ``http://HOST:PORT/v1`` (``host`` is where the server binds:
        127.0.0.1 by default, a worker's own address when other nodes must reach it)."""
        if self.port is None:
            raise RuntimeError("VLLMServer: not started")
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/v1"

    def command(self) -> list[str]:
        """The command line this server runs (port chosen at start)."""
        if self.port is None:
            raise RuntimeError("VLLMServer: not started")
        return build_command(self.config, port=self.port, python=self.python, module=self.module, host=self.host)

    def _spawn(self) -> None:
        """Start the process in a new session (its own process group) so teardown reaches the
        engine workers vLLM forks, not just the API process."""
        if self.process is not None:
            raise RuntimeError("VLLMServer: already started")
        self.port = free_port(self.host)
        if self.log_path is None:
            safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", self.model).strip("_")
            self.log_path = self.run_dir / f"vllm-{safe}-{self.port}.log"
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self.env}
        command = self.command()
        if self.die_with_parent and sys.platform == "linux":
            command = [self.python, "-c", DIE_WITH_PARENT, str(os.getpid()), *command]
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )

    def _check_alive(self) -> None:
        """Raise with the log tail if the server process has exited."""
        assert self.process is not None and self.log_path is not None
        code = self.process.poll()
        if code is not None:
            raise ServerStartupError(
                f"vLLM server exited with code {code} before it was ready; "
                f"last {LOG_TAIL_LINES} lines of {self.log_path}:\n{log_tail(self.log_path)}"
            )

    async def _wait_ready(self) -> None:
        try:
            await wait_until_ready(
                self.base_url,
                self.model,
                timeout=self.startup_timeout,
                poll_interval=self.poll_interval,
                check_alive=self._check_alive,
            )
        except TimeoutError as e:
            assert self.log_path is not None
            raise ServerStartupError(
                f"vLLM server: {e}; last {LOG_TAIL_LINES} lines of {self.log_path}:\n{log_tail(self.log_path)}"
            ) from None

    def start(self) -> None:
        """Start and block until ready; on failure the process is already stopped."""
        self._spawn()
        try:
            asyncio.run(self._wait_ready())
        except BaseException:
            self.stop()
            raise

    async def astart(self) -> None:
        """Start and wait until ready without blocking the event loop."""
        self._spawn()
        try:
            await self._wait_ready()
        except BaseException:
            await asyncio.to_thread(self.stop)
            raise

    def stop(self) -> None:
        """SIGTERM the whole process group (the API server and the engine workers it forked), wait
        ``stop_timeout`` for it to empty, then SIGKILL whatever is left."""
        if self.process is None:
            return
        pgid = self.process.pid  # start_new_session: the process leads its own group
        if self.process.poll() is not None and not group_alive(pgid):
            return  # already gone; signalling a reused id could hit a stranger
        _signal_group(pgid, signal.SIGTERM)
        if not _wait_group(self.process, pgid, self.stop_timeout):
            _signal_group(pgid, signal.SIGKILL)
            _wait_group(self.process, pgid, self.stop_timeout)
        self.process.wait()

    async def astop(self) -> None:
        """``stop`` off the event loop (it blocks while the server shuts down)."""
        await asyncio.to_thread(self.stop)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    async def __aenter__(self) -> Self:
        await self.astart()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.astop()


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, sig)


def group_alive(pgid: int) -> bool:
    """Whether a live (non-zombie) process is left in the group.

    Orphaned workers whose new parent never reaps them stay zombies, which ``killpg(pgid, 0)``
    still counts, so on Linux read the group and state of each process from /proc.
    """
    proc = Path("/proc")
    if not proc.is_dir():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        return True
    for stat in proc.glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # the process ended while we looked
        if fields[0] != "Z" and int(fields[2]) == pgid:
            return True
    return False


def _wait_group(process: subprocess.Popen[bytes], pgid: int, timeout: float) -> bool:
    """Wait until the leader has exited and the group is empty; False on timeout."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        process.poll()  # reap the leader, or it stays a zombie member of the group
        if process.returncode is not None and not group_alive(pgid):
            return True
        time.sleep(0.1)
    return False


class ExistingServer:
    """A server someone else started at ``base_url``: entering only checks that it is ready and
    serves ``model`` (if given); leaving does nothing."""

    def __init__(
        self,
        base_url: str,
        model: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        poll_interval: float = 1.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.poll_interval = poll_interval

    async def wait_ready(self) -> None:
        """Raise ``ServerStartupError`` unless the server answers and lists the model in time."""
        try:
            await wait_until_ready(
                self.base_url,
                self.model,
                timeout=self.timeout,
                poll_interval=self.poll_interval,
                api_key=self.api_key,
            )
        except TimeoutError as e:
            raise ServerStartupError(str(e)) from None

    def __enter__(self) -> Self:
        asyncio.run(self.wait_ready())
        return self

    def __exit__(self, *exc_info: object) -> None:
        return None

    async def __aenter__(self) -> Self:
        await self.wait_ready()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        return None
