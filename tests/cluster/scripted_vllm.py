"""A stand-in for ``vllm.entrypoints.openai.api_server`` that serves chat completions: it takes vLLM's
flags and serves the scripted ``gold`` policy (experiments.bench.scripted_server) over the hand-written tasks
as the served model name, on the host and port it is given. Sweeps start it through
``planner.vllm.module`` so the whole service path runs without vLLM or a GPU.

Environment: SCRIPTED_VLLM_RECORD (a folder: each start writes ``<pid>.json`` with its flags and
the worker it forked), SCRIPTED_VLLM_EXIT (log 60 lines, then exit with this code without binding:
a server that dies during start-up) and SCRIPTED_VLLM_SPLIT (the task file, default handwritten).
It forks an idle worker into its process group, like vLLM's engine core, so teardown must reach it;
on SIGTERM it writes ``<pid>.stats.json`` (requests, most requests in flight at once) and exits.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from experiments.bench.scripted_server import ScriptedServer
from sandbox.suite import load_split


async def serve(args: argparse.Namespace) -> None:
    tasks = load_split(os.environ.get("SCRIPTED_VLLM_SPLIT", "handwritten.jsonl"))
    server = ScriptedServer(tasks, "gold", model=args.served_model_name, host=args.host, port=args.port)
    await server.start()
    print(f"scripted vllm: serving {len(tasks)} tasks at {server.base_url}", flush=True)
    stopping = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stopping.set)
    await stopping.wait()
    record = os.environ.get("SCRIPTED_VLLM_RECORD")
    if record:  # what the endpoint saw, for the test's concurrency check
        stats = {"requests": server.stats.requests, "max_in_flight": server.stats.max_in_flight}
        (Path(record) / f"{os.getpid()}.stats.json").write_text(json.dumps(stats))
    await server.stop()
    print("scripted vllm: stopped on SIGTERM", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--served-model-name", required=True)
    parser.add_argument("--tool-call-parser", required=True)
    parser.add_argument("--enable-auto-tool-choice", action="store_true", required=True)
    args, rest = parser.parse_known_args()
    print(f"scripted vllm: model={args.model} host={args.host} port={args.port} extra={rest}", flush=True)
    # the engine's start-up line as vLLM's CPU build logs it (cluster.vllm.engine_facts reads it)
    print(
        f"Initializing a V1 LLM engine (v0.0.0+scripted) with config: model='{args.model}', device_config=cpu",
        flush=True,
    )
    worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    record = os.environ.get("SCRIPTED_VLLM_RECORD")
    if record:
        Path(record).mkdir(parents=True, exist_ok=True)
        (Path(record) / f"{os.getpid()}.json").write_text(
            json.dumps(
                {
                    "pid": os.getpid(),
                    "pgid": os.getpgid(0),
                    "worker": worker.pid,
                    "host": args.host,
                    "port": args.port,
                    "model": args.model,
                    "served": args.served_model_name,
                    "extra": rest,
                    "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
                }
            )
        )
    if "SCRIPTED_VLLM_EXIT" in os.environ:
        for i in range(60):
            print(f"scripted vllm: startup line {i}", flush=True)
        print("scripted vllm: RuntimeError: CUDA out of memory while loading the weights", flush=True)
        worker.kill()
        sys.exit(int(os.environ["SCRIPTED_VLLM_EXIT"]))
    asyncio.run(serve(args))


if __name__ == "__main__":
    main()
