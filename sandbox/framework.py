"""Framework actions: memory, skills, the GUI sub-agent, ask_user and finish (not counted in the 212).

They share the domain tools' interface (a name plus JSON arguments under a schema), so they are
validated and logged by the same executor.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import bindparam, insert, select, update

from sandbox import memory, subagents
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx
from sandbox.schema import final_answers, loaded_skills, memory_records, user_interactions
from sandbox.skills import SKILLS
from sandbox.tooling import FRAMEWORK, Date, DateTime, tool
from sandbox.user import NO_ANSWER

MemoryCategory = Literal["profile", "preference", "past_record", "relationship", "routine", "commitment"]
Sentence = Annotated[str, Field(min_length=1, max_length=2000)]


@tool(domain=FRAMEWORK, app="assistant", mutating=False)
def search_memory(
    ctx: Ctx,
    query: Sentence,
    category: MemoryCategory | None = None,
    top_k: Annotated[int, Field(ge=1, le=20)] = 5,
    include_superseded: bool = False,
) -> dict[str, Any]:
    """Search the user's long-term memory (facts, preferences, routines, relationships) by keywords.

    Args:
        query: Keywords describing what you need to know.
        category: Only records of this category.
        top_k: Number of records to return.
        include_superseded: Also return records that were replaced by newer ones.
    """
    return {"records": memory.search(ctx.conn, query, category, top_k, include_superseded)}


_ACTIVE_CONTENTS = select(memory_records.c.memory_id, memory_records.c.content).where(
    memory_records.c.status == "active"
)
_ADD_RECORD = insert(memory_records)


@tool(domain=FRAMEWORK, app="assistant", mutating=True, errors=(ErrorType.DUPLICATE_ENTITY,))
def add_memory(
    ctx: Ctx,
    content: Sentence,
    category: MemoryCategory,
    entities: list[str] | None = None,
    valid_from: Date | None = None,
) -> dict[str, Any]:
    """Remember a new fact the user stated.

    Args:
        content: The fact, as one sentence.
        category: Kind of fact.
        entities: Names or keywords the fact is about.
        valid_from: Date from which the fact holds (default today).
    """
    norm = " ".join(content.lower().split())
    for mid, existing in ctx.conn.execute(_ACTIVE_CONTENTS):
        if " ".join(existing.lower().split()) == norm:
            raise ToolError(ErrorType.DUPLICATE_ENTITY, f"already remembered as {mid}", existing_id=mid)
    mid = ctx.new_id(memory_records)
    ctx.conn.execute(
        _ADD_RECORD,
        dict(
            memory_id=mid,
            category=category,
            content=content,
            entities_json=json.dumps(entities or []),
            source="user_stated",
            valid_from=valid_from or ctx.now.date().isoformat(),
            valid_to=None,
            status="active",
            superseded_by=None,
            created_at=ctx.ts(),
            updated_at=ctx.ts(),
        ),
    )
    return {"memory_id": mid}


_RECORD = select(memory_records).where(memory_records.c.memory_id == bindparam("memory_id"))
_SET_RECORD = update(memory_records).where(memory_records.c.memory_id == bindparam("match_memory_id"))


def _active_record(ctx: Ctx, memory_id: str) -> dict[str, Any]:
    row = ctx.conn.execute(_RECORD, {"memory_id": memory_id}).first()
    if row is None:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no memory record {memory_id!r}", hint="search_memory")
    if row.status != "active":
        raise ToolError(ErrorType.STATE_CONFLICT, f"{memory_id} is {row.status}, not active")
    return dict(row._mapping)


@tool(domain=FRAMEWORK, app="assistant", mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT))
def replace_memory(ctx: Ctx, memory_id: str, new_content: Sentence) -> dict[str, Any]:
    """Replace an outdated memory record with corrected content (the old one is kept as superseded).

    Args:
        memory_id: Id of the record to replace, e.g. mem_907.
        new_content: The corrected fact.
    """
    old = _active_record(ctx, memory_id)
    mid = ctx.new_id(memory_records)
    today = ctx.now.date().isoformat()
    ctx.conn.execute(
        _ADD_RECORD,
        dict(
            memory_id=mid,
            category=old["category"],
            content=new_content,
            entities_json=old["entities_json"],
            source="user_stated",
            valid_from=today,
            valid_to=None,
            status="active",
            superseded_by=None,
            created_at=ctx.ts(),
            updated_at=ctx.ts(),
        ),
    )
    ctx.conn.execute(
        _SET_RECORD,
        dict(match_memory_id=memory_id, status="superseded", valid_to=today, superseded_by=mid, updated_at=ctx.ts()),
    )
    return {"memory_id": mid, "replaced": memory_id}


@tool(domain=FRAMEWORK, app="assistant", mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT))
def delete_memory(ctx: Ctx, memory_id: str) -> dict[str, Any]:
    """Forget a memory record.

    Args:
        memory_id: Id of the record to forget.
    """
    _active_record(ctx, memory_id)
    ctx.conn.execute(_SET_RECORD, dict(match_memory_id=memory_id, status="deleted", updated_at=ctx.ts()))
    return {"deleted": memory_id}


_LOADED_SKILL = select(loaded_skills.c.skill_id).where(loaded_skills.c.skill_id == bindparam("skill_id"))
_ADD_LOADED_SKILL = insert(loaded_skills)


@tool(domain=FRAMEWORK, app="assistant", mutating=False, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT))
def load_skill(ctx: Ctx, skill_id: str) -> dict[str, Any]:
    """Load a skill: its tools become available from the next step, with instructions for using them.

    Args:
        skill_id: Id of one of the offered skills.
    """
    offered = ctx.executor.skills_offered
    if skill_id not in offered:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no skill {skill_id!r} is offered", candidates=list(offered))
    if ctx.conn.execute(_LOADED_SKILL, {"skill_id": skill_id}).first():
        raise ToolError(ErrorType.STATE_CONFLICT, f"skill {skill_id} is already loaded")
    skill = SKILLS[skill_id]
    ctx.conn.execute(_ADD_LOADED_SKILL, {"skill_id": skill_id, "loaded_at_step": ctx.step})
    ctx.executor.loaded_skill_tools.update(skill.tools)
    return {"skill_id": skill_id, "tools": list(skill.tools), "instructions": skill.instructions}


_ADD_INTERACTION = insert(user_interactions)


@tool(domain=FRAMEWORK, app="assistant", mutating=False)
def ask_user(
    ctx: Ctx,
    question: Sentence,
    kind: Literal["clarify", "confirm", "choose"] = "clarify",
    options: list[str] | None = None,
    slot: str | None = None,
) -> dict[str, Any]:
    """Ask the user a question and wait for the answer (to clarify, confirm or choose).

    Args:
        question: The question, addressed to the user.
        kind: clarify a missing detail, confirm a risky action, or choose between options.
        options: The choices, when kind is choose.
        slot: Short name of the detail you need, e.g. "phone_number".
    """
    answer = ctx.executor.answer(question, slot, kind, options)
    ctx.conn.execute(
        _ADD_INTERACTION, dict(step=ctx.step, kind=kind, question=question, slot=slot, answer=answer or "")
    )
    if answer is None:
        return {"answer": None, "message": NO_ANSWER}
    return {"answer": answer}


_FINAL_ANSWER = select(final_answers.c.step)
_ADD_FINAL_ANSWER = insert(final_answers)


@tool(domain=FRAMEWORK, app="assistant", mutating=False, errors=(ErrorType.STATE_CONFLICT,))
def finish(
    ctx: Ctx,
    answer: Annotated[str, Field(max_length=4000)],
    status: Literal["completed", "partial", "failed", "refused"] = "completed",
) -> dict[str, Any]:
    """End the task and report to the user.

    Args:
        answer: What was done (or why it could not be done), addressed to the user.
        status: How the task ended.
    """
    if ctx.conn.execute(_FINAL_ANSWER).first() is not None:
        raise ToolError(ErrorType.STATE_CONFLICT, "the task is already finished")
    ctx.conn.execute(_ADD_FINAL_ANSWER, {"step": ctx.step, "status": status, "answer": answer})
    return {"finished": True}


@tool(
    domain=FRAMEWORK,
    app="assistant",
    mutating=True,
    errors=(ErrorType.UNSUPPORTED_OPERATION, ErrorType.SUB_AGENT_FAILED),
)
def call_gui_agent(
    ctx: Ctx,
    app_id: str,
    goal: Sentence,
    inputs: dict[str, Any],
    expected_outputs: list[str] | None = None,
) -> dict[str, Any]:
    """Delegate steps that have no API to the GUI agent, which operates the app's screens.

    Args:
        app_id: The installed app to operate, e.g. roombook; an app that is not installed is refused with the
            installed apps' ids (installed_apps).
        goal: A self-contained instruction of what to achieve in the app.
        inputs: Every value the flow needs (dates, times, names, counts); a call lacking one is told each input's
            name and format, e.g. roombook's date (YYYY-MM-DD), start and end (HH:MM), attendees.
        expected_outputs: Names of results to return, e.g. ["booking_code"].
    """
    return subagents.run_gui(ctx, app_id, goal, inputs, expected_outputs or [])


class Condition(BaseModel):
    """What the monitor watches: a read-only tool's result at ``path`` compared with ``value``."""

    model_config = ConfigDict(extra="forbid", strict=True)
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    path: str = "$"
    op: Literal["lt", "le", "gt", "ge", "eq", "ne", "contains", "exists"]
    value: Any = None


class PlanStep(BaseModel):
    """One call the monitor makes when the condition holds (``{{stepN.Payload.x}}`` refers back)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


def _monitor_rules(args: dict[str, Any]) -> str | None:
    """Give on_trigger steps or notify_only=true, not both; ops lt, le, gt, ge and contains need a
    condition.value; condition.path is "$" followed by ".name" and "[index]" parts, e.g. "$.offers[0].price"."""
    condition: Condition = args["condition"]
    if bool(args.get("on_trigger")) == bool(args.get("notify_only")):
        return "give either on_trigger steps or notify_only=true"
    if condition.op in (*subagents.ORDERED_OPS, "contains") and condition.value is None:
        return f"condition.value: op {condition.op!r} compares with a value; give one"
    if not subagents.path_parses(condition.path):
        return f'condition.path {condition.path!r} does not parse; write "$" then ".name" and "[index]" parts'
    return None


@tool(
    domain=FRAMEWORK,
    app="assistant",
    mutating=True,
    check=_monitor_rules,
    errors=(ErrorType.INVALID_ARGUMENT_VALUE, ErrorType.TOOL_NOT_AVAILABLE),
)
def call_monitor_agent(
    ctx: Ctx,
    condition: Condition,
    on_trigger: list[PlanStep] | None = None,
    notify_only: bool = False,
    expires_at: DateTime | None = None,
    description: str | None = None,
) -> dict[str, Any]:
    """Ask the monitor agent to watch a condition and act (or notify the user) when it holds; a condition
    that already holds now is refused.

    Args:
        condition: {tool: an app tool that only reads, args: its arguments (validated as that tool validates
            them), path: JSONPath into its Payload such as "$.price", op: lt|le|gt|ge|eq|ne|contains|exists,
            value: the value to compare with}.
        on_trigger: Calls to make when the condition holds, in order, each a tool you could call now with
            valid arguments; a whole argument value may be "{{step1.Payload.field}}" to use an earlier
            step's result.
        notify_only: Only notify the user when the condition holds (instead of on_trigger).
        expires_at: Stop watching after this time, YYYY-MM-DDTHH:MM.
        description: What the monitor is for, in words.
    """
    return subagents.register_monitor(
        ctx, condition.model_dump(), [s.model_dump() for s in on_trigger or []], notify_only, expires_at, description
    )


class Source(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    type: Literal["screen", "photo", "file"]
    id: Annotated[str, Field(min_length=1)]


def _one_request(args: dict[str, Any]) -> str | None:
    """Give exactly one of question or extract_fields."""
    return (
        None
        if bool(args.get("question")) != bool(args.get("extract_fields"))
        else "give exactly one of question or extract_fields"
    )


@tool(domain=FRAMEWORK, app="assistant", mutating=True, check=_one_request, errors=(ErrorType.ENTITY_NOT_FOUND,))
def call_screen_reader_agent(
    ctx: Ctx,
    source: Source,
    question: str | None = None,
    extract_fields: list[str] | None = None,
) -> dict[str, Any]:
    """Ask the screen-reader agent to read text or fields from a screen snapshot, a photo or a file.

    Args:
        source: What to read: {type: screen|photo|file, id: snapshot_id, photo_id or file_id}.
        question: A question about what is shown.
        extract_fields: Names of fields to extract, e.g. ["invoice_number", "due_date"].
    """
    return subagents.read_screen(ctx, source.model_dump(), question, extract_fields)


class Callee(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    phone: str | None = None
    place_id: str | None = None


@tool(
    domain=FRAMEWORK,
    app="assistant",
    mutating=True,
    permissions=("PHONE",),
    network="cellular",
    errors=(ErrorType.INVALID_ARGUMENT_VALUE, ErrorType.SUB_AGENT_FAILED),
)
def call_voice_agent(ctx: Ctx, callee: Callee, objective: Sentence, facts: dict[str, Any]) -> dict[str, Any]:
    """Ask the voice agent to phone a business for the user (to book, ask or change something).

    Args:
        callee: Who to call: {phone: number} or {place_id: place}.
        objective: What the call should achieve, in one sentence.
        facts: Everything the callee may ask for, e.g. {date, time, name, notes}; party_size for a table or a tour.
    """
    return subagents.place_call(ctx, callee.model_dump(exclude_none=True), objective, facts)
