"""The episode database schema: framework tables declared once here, domain tables in `sandbox.domains`.

Every table carries `info["kind"]`:
- ``system``: bookkeeping the verifier reads from the trajectory, never diffed;
- ``user``: the phone's user state, diffed by the State Change checker;
- ``world``: the outside world's catalogue, diffed only where a task asks.
"""

from __future__ import annotations

from sqlalchemy import Column, Integer, MetaData, Table, Text

metadata = MetaData()

SYSTEM, USER, WORLD = "system", "user", "world"


def table(
    name: str, kind: str, *columns: Column, natural_key: tuple[str, ...] = (), id_prefix: str | None = None
) -> Table:
    """Declare a table with its diff kind. ``natural_key`` names rows in readable reasons;
    ``id_prefix`` overrides the generated-id prefix (default: the id column minus ``_id``)."""
    return Table(name, metadata, *columns, info={"kind": kind, "natural_key": natural_key, "id_prefix": id_prefix})


def stamps() -> tuple[Column, Column]:
    """The creation and update stamps every user entity carries (set from the frozen clock)."""
    return Column("created_at", Text), Column("updated_at", Text)


meta = table("meta", SYSTEM, Column("key", Text, primary_key=True), Column("value", Text))

id_sequences = table(
    "id_sequences", SYSTEM, Column("prefix", Text, primary_key=True), Column("last", Integer, nullable=False)
)

operation_logs = table(
    "Operation_logs",
    SYSTEM,
    Column("log_id", Integer, primary_key=True),
    Column("step", Integer, nullable=False),
    Column("ts", Text, nullable=False),
    Column("actor", Text, nullable=False),
    Column("tool_name", Text, nullable=False),
    Column("args_json", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("error_type", Text),
    Column("payload_json", Text, nullable=False),
    Column("parent_job_id", Text),
)

user_profile = table(
    "user_profile",
    USER,
    Column("user_id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("phone", Text, nullable=False),
    Column("email", Text, nullable=False),
    Column("locale", Text, nullable=False),
    Column("timezone", Text, nullable=False),
    Column("home_city", Text),
    Column("work_city", Text),
)

apps = table(
    "apps",
    USER,
    Column("app_id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("installed", Integer, nullable=False),
    Column("logged_in", Integer, nullable=False),
    Column("notifications_enabled", Integer, nullable=False),
    natural_key=("app_id",),
)

app_permissions = table(
    "app_permissions",
    USER,
    Column("app_id", Text, primary_key=True),
    Column("permission", Text, primary_key=True),
    Column("state", Text, nullable=False),
    natural_key=("app_id", "permission"),
)

device_settings = table(
    "device_settings",
    USER,
    Column("key", Text, primary_key=True),
    Column("value", Text, nullable=False),
    natural_key=("key",),
)

memory_records = table(
    "memory_records",
    USER,
    Column("memory_id", Text, primary_key=True),
    Column("category", Text, nullable=False),
    Column("content", Text, nullable=False),
    Column("entities_json", Text, nullable=False),
    Column("source", Text, nullable=False),
    Column("valid_from", Text, nullable=False),
    Column("valid_to", Text),
    Column("status", Text, nullable=False),
    Column("superseded_by", Text),
    *stamps(),
    id_prefix="mem",
)

loaded_skills = table(
    "loaded_skills",
    SYSTEM,
    Column("skill_id", Text, primary_key=True),
    Column("loaded_at_step", Integer, nullable=False),
)

subagent_jobs = table(
    "subagent_jobs",
    USER,
    Column("job_id", Text, primary_key=True),
    Column("agent", Text, nullable=False),
    Column("handoff_json", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("result_json", Text, nullable=False),
    *stamps(),
)

user_interactions = table(
    "user_interactions",
    SYSTEM,
    Column("interaction_id", Integer, primary_key=True),
    Column("step", Integer, nullable=False),
    Column("kind", Text, nullable=False),
    Column("question", Text, nullable=False),
    Column("slot", Text),
    Column("answer", Text, nullable=False),
)

final_answers = table(
    "final_answers",
    SYSTEM,
    Column("step", Integer, primary_key=True),
    Column("status", Text, nullable=False),
    Column("answer", Text, nullable=False),
)
