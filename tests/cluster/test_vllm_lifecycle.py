"""VLLMServer and ExistingServer against a fake server process (tests.cluster.fake_vllm): command
line, readiness through connection-refused and 503s, early exit and timeout reports, and teardown of
the whole process group. No vLLM needed."""

from __future__ import annotations

import asyncio
import re
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from cluster.vllm import (
    ExistingServer,
    ServerStartupError,
    VLLMServer,
    build_command,
    free_port,
    served_model_name,
)

ROOT = Path(__file__).resolve().parents[2]
FAKE = "tests.cluster.fake_vllm"
CONFIG: dict[str, Any] = {
    "model": "Qwen/Qwen2.5-7B-Instruct",
    "served_model_name": "qwen7b",
    "vllm": {
        "tool_call_parser": "hermes",
        "chat_template": "conf/templates/qwen.jinja",
        "serve_args": ["--max-model-len", 8192, "--enforce-eager"],
    },
}


def fake_server(tmp_path: Path, **env: str | float) -> VLLMServer:
    """A VLLMServer running the fake module, polling fast."""
    return VLLMServer(
        CONFIG,
        module=FAKE,
        run_dir=tmp_path,
        poll_interval=0.05,
        startup_timeout=30,
        stop_timeout=5,
        env={"PYTHONPATH": str(ROOT), **{k: str(v) for k, v in env.items()}},
    )


def alive(pid: int) -> bool:
    """Running and not a zombie (an orphan's zombie may linger unreaped in a container)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_command_from_config() -> None:
    cmd = build_command(CONFIG, port=8123, python="/py")
    assert cmd == [
        "/py",
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        "Qwen/Qwen2.5-7B-Instruct",
        "--host",
        "127.0.0.1",
        "--port",
        "8123",
        "--served-model-name",
        "qwen7b",
        "--enable-auto-tool-choice",
        "--tool-call-parser",
        "hermes",
        "--chat-template",
        "conf/templates/qwen.jinja",
        "--max-model-len",
        "8192",
        "--enforce-eager",
    ]


def test_command_defaults_served_name_to_model_and_omits_template() -> None:
    config = {"model": "/models/tiny", "vllm": {"tool_call_parser": "hermes"}}
    cmd = build_command(config, port=1, python="/py", module="fake")
    assert served_model_name(config) == "/models/tiny"
    assert cmd[1:3] == ["-m", "fake"]
    assert cmd[cmd.index("--served-model-name") + 1] == "/models/tiny"
    assert "--chat-template" not in cmd and cmd[-1] == "hermes"


@pytest.mark.faults
@pytest.mark.parametrize(
    ("config", "key"),
    [
        ({"vllm": {"tool_call_parser": "hermes"}}, "planner.model"),
        ({"model": "m"}, "planner.vllm.tool_call_parser"),
        ({"model": "m", "vllm": {"tool_call_parser": "hermes", "serve_args": "--x 1"}}, "serve_args"),
    ],
)
def test_bad_config_names_the_key(config: dict[str, Any], key: str) -> None:
    with pytest.raises(ValueError, match=re.escape(key)):
        build_command(config, port=1)


@pytest.mark.faults
def test_ready_after_refused_connections_and_503s(tmp_path: Path) -> None:
    server = fake_server(tmp_path, FAKE_VLLM_DELAY=0.5, FAKE_VLLM_UNHEALTHY=3)
    with server:
        assert server.base_url == f"http://127.0.0.1:{server.port}/v1"
        assert server.log_path is not None and server.log_path.parent == tmp_path
        assert server.command()[0] == sys.executable
        with ExistingServer(server.base_url, "qwen7b", timeout=5):
            pass
    log = server.log_path.read_text()
    assert log.count('"GET /health HTTP/1.1" 503') == 3
    assert '"GET /health HTTP/1.1" 200' in log and "GET /v1/models" in log
    assert "extra=['--enable-auto-tool-choice', '--tool-call-parser', 'hermes'" in log
    assert server.process is not None and server.process.poll() is not None


def test_async_context_manager(tmp_path: Path) -> None:
    async def run() -> list[str]:
        async with (
            fake_server(tmp_path, FAKE_VLLM_UNHEALTHY=1) as server,
            aiohttp.ClientSession() as session,
            session.get(f"{server.base_url}/models") as r,
        ):
            return [m["id"] for m in (await r.json())["data"]]

    assert asyncio.run(run()) == ["qwen7b"]


@pytest.mark.faults
def test_early_exit_reports_code_and_log_tail(tmp_path: Path) -> None:
    server = fake_server(tmp_path, FAKE_VLLM_EXIT=3)
    with pytest.raises(ServerStartupError) as err:
        server.start()
    message = str(err.value)
    assert "exited with code 3" in message and str(server.log_path) in message
    assert "RuntimeError: engine core failed to start" in message
    assert "startup line 21\n" in message and "startup line 20\n" not in message  # last 40 lines


@pytest.mark.faults
def test_startup_timeout_reports_and_stops(tmp_path: Path) -> None:
    server = fake_server(tmp_path, FAKE_VLLM_UNHEALTHY=10**9)
    # Long enough for the fake to start listening on a loaded machine (else the last probe was refused).
    server.startup_timeout = 5
    expected = r"not ready after 5 s \(last: /health answered 503\)"
    with pytest.raises(ServerStartupError, match=expected):
        server.start()
    assert server.process is not None and server.process.poll() is not None


def test_existing_server_checks_the_model(tmp_path: Path) -> None:
    wrong = r"serves \['qwen7b'\], not the configured model 'other'"
    with fake_server(tmp_path) as server, pytest.raises(ServerStartupError, match=wrong):
        ExistingServer(server.base_url, "other", timeout=5).__enter__()


@pytest.mark.faults
def test_existing_server_times_out_when_nothing_listens() -> None:
    nowhere = ExistingServer(f"http://127.0.0.1:{free_port()}/v1", timeout=0.3, poll_interval=0.1)
    refused = r"not ready after 0.3 s \(last: ClientConnectorError"
    with pytest.raises(ServerStartupError, match=refused):
        nowhere.__enter__()


@pytest.mark.faults
@pytest.mark.parametrize("ignore_term", [False, True])
def test_stop_kills_the_process_group(tmp_path: Path, ignore_term: bool) -> None:
    env: dict[str, str | float] = {"FAKE_VLLM_CHILD": 1}
    if ignore_term:
        env["FAKE_VLLM_IGNORE_TERM"] = 1  # inherited by the worker: only SIGKILL ends either
    server = fake_server(tmp_path, **env)
    server.stop_timeout = 1
    with server:
        assert server.process is not None and server.log_path is not None
        leader = server.process.pid
        found = re.search(r"worker pid (\d+)", server.log_path.read_text())
        assert found is not None
        worker = int(found.group(1))
        assert alive(leader) and alive(worker)
        started = time.monotonic()
    elapsed = time.monotonic() - started
    assert not alive(leader) and not alive(worker)
    assert server.process.returncode == (-9 if ignore_term else -15)
    assert elapsed < 60  # a hang guard: stop_timeout is 1 s, then SIGKILL
