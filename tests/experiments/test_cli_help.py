"""``--help`` of every command answers without importing the heavy machinery: no cluster, no MLflow, no
plots or data frames, not the phone. A property of the code (which modules load), not a timing:
``mobilepa bench cli`` prints how long each ``--help`` takes."""

from __future__ import annotations

import json
import subprocess
import sys

from experiments.cli import COMMANDS

HEAVY = ("dask", "distributed", "mlflow", "matplotlib", "pandas", "sandbox.domains")
"""Top-level packages (and the phone's domains) that ``--help`` must leave unimported."""

# One fresh interpreter runs every command's --help in turn and reports, after each, the heavy modules
# loaded so far: the first command that loads one is the one named.
PROBE = """
import contextlib, io, json, sys
from experiments.cli import main
heavy, loaded = json.loads(sys.argv[1]), {}
for command in json.loads(sys.argv[2]):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main([*command.split(), "--help"])
    loaded[command] = [code, sorted(h for h in heavy if h in sys.modules)]
print(json.dumps(loaded))
"""


def test_help_of_every_command_imports_nothing_heavy() -> None:
    commands = [*COMMANDS, "tasks build", "tasks validate", "bench cli"]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(HEAVY), json.dumps(commands)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    loaded = json.loads(done.stdout)
    assert {command: code for command, (code, _) in loaded.items()} == dict.fromkeys(commands, 0)
    assert {command: heavy for command, (_, heavy) in loaded.items() if heavy} == {}
