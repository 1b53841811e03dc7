"""A stand-in for ``vllm.entrypoints.openai.api_server`` so the lifecycle tests need no vLLM.

It takes the same flags, logs like a server, and is steered by environment variables:
FAKE_VLLM_DELAY (seconds before it binds: connection refused meanwhile), FAKE_VLLM_UNHEALTHY
(how many /health probes get 503 first), FAKE_VLLM_EXIT (exit with this code after logging,
without binding), FAKE_VLLM_IGNORE_TERM (ignore SIGTERM, so only SIGKILL stops it) and
FAKE_VLLM_CHILD (fork a worker in the same process group, like vLLM's engine core).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--served-model-name", required=True)
    args, rest = parser.parse_known_args()
    print(f"fake vllm: model={args.model} extra={rest}", flush=True)

    if os.environ.get("FAKE_VLLM_IGNORE_TERM"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if os.environ.get("FAKE_VLLM_CHILD"):
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
        print(f"fake vllm: worker pid {child.pid}", flush=True)
    if "FAKE_VLLM_EXIT" in os.environ:
        for i in range(60):
            print(f"fake vllm: startup line {i}", flush=True)
        print("fake vllm: RuntimeError: engine core failed to start", flush=True)
        sys.exit(int(os.environ["FAKE_VLLM_EXIT"]))
    time.sleep(float(os.environ.get("FAKE_VLLM_DELAY", "0")))

    unhealthy = [int(os.environ.get("FAKE_VLLM_UNHEALTHY", "0"))]

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/health":
                status = 503 if unhealthy[0] > 0 else 200
                unhealthy[0] -= 1
                self._reply(status, b"")
            elif self.path == "/v1/models":
                model = {"id": args.served_model_name, "object": "model"}
                body = {"object": "list", "data": [model]}
                self._reply(200, json.dumps(body).encode())
            else:
                self._reply(404, b"")

        def _reply(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *a: object) -> None:
            print(f"fake vllm: {format % a}", flush=True)

    server = ThreadingHTTPServer((args.host, args.port), Handler)
    print(f"fake vllm: listening on {args.host}:{args.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
