"""The declared phone: the paper's counts, and documents generated from the declarations."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from sandbox import catalog
from sandbox.skills import SKILLS, check_skills
from sandbox.taxonomy import DOMAINS, L2
from sandbox.tooling import PERMISSIONS, domain_tools

REFERENCE = Path(catalog.__file__).with_name("TOOLS.md")


def test_the_paper_counts() -> None:
    counts = catalog.counts()
    assert counts["tools"] == 212
    assert counts["domains"] == len(DOMAINS) == 13
    assert counts["l2"] == len(L2) == 89
    assert counts["skills"] >= 20 and counts["subagents"] == 4


def test_every_level2_category_has_a_tool_and_every_tool_is_sound() -> None:
    tools = domain_tools()
    assert {t.l2 for t in tools} == set(L2)
    for t in tools:
        assert t.description and t.description[0].isupper(), t.name
        assert set(t.permissions) <= set(PERMISSIONS)
        assert t.parameters["type"] == "object" and t.parameters["additionalProperties"] is False
        assert "$ref" not in json.dumps(t.parameters), t.name


def test_skills_use_declared_tools() -> None:
    assert check_skills() == []
    assert len({tool for s in SKILLS.values() for tool in s.tools}) > 60


def test_tool_reference_is_generated_from_the_declarations() -> None:
    assert REFERENCE.read_text(encoding="utf-8") == catalog.reference_markdown(), (
        "sandbox/TOOLS.md is stale: run `mobilepa catalog --markdown > sandbox/TOOLS.md`"
    )


def test_catalog_json_command() -> None:
    script = Path(sys.executable).with_name("mobilepa")
    out = subprocess.run([str(script), "catalog", "--json"], capture_output=True, text=True, check=True).stdout
    data = json.loads(out)
    assert len(data["tools"]) == 212 and len(data["subagents"]) == 4 and len(data["skills"]) >= 20
    assert set(data["tools"][0]) == {"name", "domain", "l2", "app", "mutating", "permissions"}
    assert {s["name"] for s in data["subagents"]} == {
        "gui_agent",
        "monitor_agent",
        "screen_reader_agent",
        "voice_agent",
    }
