"""A task's patches: inserts, updates and deletes by match (NULL matched as NULL), refusals named."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Connection, select

import sandbox.domains  # noqa: F401
from sandbox import db
from sandbox.episode import apply_changes
from sandbox.personas import PERSONAS
from sandbox.schema import metadata
from sandbox.tasks import Changes
from sandbox.world import world_image

contacts = metadata.tables["contacts"]
NEW = [
    {"contact_id": "contact_901", "name": "Ada Noel", "phone_number": "+1 555 0101", "favorite": 0},
    {
        "contact_id": "contact_902",
        "name": "Bo Noel",
        "phone_number": "+1 555 0102",
        "favorite": 0,
        "email": "bo@noel.test",
    },
]


@pytest.fixture
def conn() -> Iterator[Connection]:
    connection = db.open_database(world_image(sorted(PERSONAS)[0]), journal=False)
    connection.begin()
    try:
        yield connection
    finally:
        db.release(connection)


def _noels(conn: Connection) -> dict[str, tuple]:
    rows = conn.execute(
        select(contacts.c.contact_id, contacts.c.email, contacts.c.favorite).where(contacts.c.name.like("% Noel"))
    ).all()
    return {r[0]: (r[1], r[2]) for r in rows}


def test_updates_match_null_as_null_and_deletes_by_match(conn: Connection) -> None:
    apply_changes(conn, Changes(insert={"contacts": NEW}))
    apply_changes(
        conn,
        Changes(
            update={
                "contacts": [
                    {"match": {"name": "Ada Noel", "email": None}, "set": {"favorite": 1, "email": "ada@noel.test"}}
                ]
            }
        ),
    )
    assert _noels(conn) == {"contact_901": ("ada@noel.test", 1), "contact_902": ("bo@noel.test", 0)}
    apply_changes(conn, Changes(delete={"contacts": [{"email": "bo@noel.test"}]}))
    assert _noels(conn) == {"contact_901": ("ada@noel.test", 1)}


def test_a_patch_that_matches_nothing_or_names_no_column_is_refused(conn: Connection) -> None:
    apply_changes(conn, Changes(insert={"contacts": NEW[:1]}))
    with pytest.raises(ValueError, match="patch: no contacts row matches"):
        apply_changes(
            conn,
            Changes(update={"contacts": [{"match": {"name": "Ada Noel", "email": "x@y.z"}, "set": {"favorite": 1}}]}),
        )
    with pytest.raises(ValueError, match="contacts has no column 'nickname'"):
        apply_changes(conn, Changes(update={"contacts": [{"match": {"name": "Ada Noel"}, "set": {"nickname": "A"}}]}))
    with pytest.raises(ValueError, match="unknown table 'contactz'"):
        apply_changes(conn, Changes(delete={"contactz": [{"name": "Ada Noel"}]}))
