"""Introspection of the declared phone: counts, a JSON catalog and the tool reference document.

Everything here is derived from the tool, skill and sub-agent declarations; nothing is written twice.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import sandbox.domains  # noqa: F401  (registers every tool)
from sandbox.skills import SKILLS
from sandbox.taxonomy import DOMAINS, L2
from sandbox.tooling import FRAMEWORK, REGISTRY, ToolSpec, domain_tools


def subagent_entry_points() -> list[ToolSpec]:
    return sorted(
        (s for s in REGISTRY.values() if s.domain == FRAMEWORK and s.name.endswith("_agent")), key=lambda s: s.name
    )


def catalog_json() -> dict[str, Any]:
    tools = domain_tools()
    return {
        "tools": [
            {
                "name": t.name,
                "domain": t.domain,
                "l2": t.l2,
                "app": t.app,
                "mutating": t.mutating,
                "permissions": list(t.permissions),
            }
            for t in tools
        ],
        "skills": [{"id": s.skill_id, "tools": list(s.tools)} for s in SKILLS.values()],
        "subagents": [
            {"name": s.name.removeprefix("call_"), "entry_point": s.name, "handoff_schema": s.parameters}
            for s in subagent_entry_points()
        ],
        "counts": counts(),
    }


def counts() -> dict[str, Any]:
    tools = domain_tools()
    return {
        "tools": len(tools),
        "domains": len({t.domain for t in tools}),
        "l2": len({t.l2 for t in tools}),
        "skills": len(SKILLS),
        "subagents": len(subagent_entry_points()),
        "per_domain": dict(sorted(Counter(t.domain for t in tools).items(), key=lambda kv: int(kv[0][1:]))),
        "per_l2": dict(sorted(Counter(str(t.l2) for t in tools).items(), key=lambda kv: _l2_key(kv[0]))),
    }


def _l2_key(code: str) -> tuple[int, int]:
    major, minor = code.split(".")
    return int(major), int(minor)


def counts_table() -> str:
    c = counts()
    lines = [
        f"{c['tools']} tools · {c['domains']} domains · {c['l2']} level-2 categories · "
        f"{c['skills']} skills · {c['subagents']} sub-agents",
        "",
    ]
    for domain, name in DOMAINS.items():
        lines.append(f"{domain:<4} {name:<32} {c['per_domain'].get(domain, 0):>3} tools")
        for code, l2name in L2.items():
            if "D" + code.split(".")[0] == domain:
                lines.append(f"       {code:<5} {l2name:<40} {c['per_l2'].get(code, 0):>3}")
    return "\n".join(lines)


def _args_table(spec: ToolSpec) -> list[str]:
    props = spec.parameters.get("properties", {})
    if not props:
        return ["No arguments."]
    required = set(spec.parameters.get("required", []))
    rows = ["| argument | type | required | description |", "|---|---|---|---|"]
    for name, schema in props.items():
        kind = schema.get("type", "any")
        if "enum" in schema:
            kind = " \\| ".join(map(str, schema["enum"]))
        elif kind == "array":
            kind = f"array of {schema.get('items', {}).get('type', 'any')}"
        rows.append(
            f"| `{name}` | {kind} | {'yes' if name in required else ''} | "
            f"{schema.get('description', '').replace('|', '/')} |"
        )
    return rows


def _tool_section(spec: ToolSpec) -> list[str]:
    gates = [
        f"permissions: {', '.join(spec.permissions)}" if spec.permissions else "",
        f"services: {', '.join(spec.services)}" if spec.services else "",
        f"network: {spec.network}" if spec.network else "",
        "app session" if spec.needs_login else "",
    ]
    meta = " · ".join(x for x in [f"app `{spec.app}`", "mutating" if spec.mutating else "read-only", *gates] if x)
    errors = ", ".join(e.value for e in spec.errors) or "none beyond the universal ones"
    return [
        f"#### `{spec.name}`",
        "",
        spec.stated_description,
        "",
        meta,
        "",
        *_args_table(spec),
        "",
        f"Tool-specific errors: {errors}.",
        "",
    ]


def reference_markdown() -> str:
    """The tool reference document (``sandbox/TOOLS.md``), generated from the declarations."""
    c = counts()
    out = [
        "# Tool reference",
        "",
        "Generated from the tool declarations by `mobilepa catalog --markdown`; do not edit by hand.",
        "",
        f"{c['tools']} domain tools in {c['domains']} domains and {c['l2']} level-2 categories, "
        f"{c['skills']} skills, {c['subagents']} sub-agents.",
        "",
        "Universal errors (any tool): ToolNotAvailable, MissingRequiredArgument, UnknownArgument, "
        "InvalidArgumentType, InvalidArgumentValue, NetworkUnavailable, ServiceDisabled, PermissionDenied, "
        "AuthenticationRequired (the last four where the tool declares the need).",
        "",
    ]
    tools = domain_tools()
    for domain, name in DOMAINS.items():
        out += [f"## {domain} {name}", ""]
        for code, l2name in L2.items():
            in_l2 = [t for t in tools if t.l2 == code and t.domain == domain]
            if in_l2:
                out += [f"### {code} {l2name}", ""]
                for spec in in_l2:
                    out += _tool_section(spec)
    out += ["## Framework actions", ""]
    for spec in sorted((s for s in REGISTRY.values() if s.domain == FRAMEWORK), key=lambda s: s.name):
        out += _tool_section(spec)
    out += ["## Skills", "", "| skill | tools | description |", "|---|---|---|"]
    out += [f"| `{s.skill_id}` | {', '.join(f'`{t}`' for t in s.tools)} | {s.description} |" for s in SKILLS.values()]
    return "\n".join(out) + "\n"
