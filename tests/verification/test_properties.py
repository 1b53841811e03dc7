"""Property tests: invariances the verifier must keep whatever the data."""

from __future__ import annotations

import string
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from sandbox.changes import StateDiff, TableDiff
from sandbox.tasks import RowUpdate, StateChangeCheck
from verification.checkers import diff_failures
from verification.matchers import matches

TABLES = ("messages", "contacts", "alarms", "calendar_events")
WORDS = st.text(alphabet=string.ascii_letters + string.digits + string.punctuation, min_size=1, max_size=8)
SEPARATORS = st.sampled_from([" ", "  ", "\t", "\n", " \r\n "])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False), st.text(max_size=4))
ROWS = st.fixed_dictionaries(
    {
        "id": st.sampled_from(["a", "b", "c"]),
        "kind": st.sampled_from(["x", "y"]),
        "n": st.integers(0, 2),
        "note": SCALARS,
    }
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(string.ascii_letters, max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def diffs(draw: st.DrawFn) -> StateDiff:
    """Diffs over user tables; updates always change something, as read_diff guarantees."""
    changed_pairs = st.tuples(ROWS, ROWS).filter(lambda pair: pair[0] != pair[1])
    tables = draw(st.lists(st.sampled_from(TABLES), unique=True, max_size=3))
    return {
        t: TableDiff(
            inserted=draw(st.lists(ROWS, max_size=3)),
            updated=draw(st.lists(changed_pairs, max_size=3)),
            deleted=draw(st.lists(ROWS, max_size=2)),
        )
        for t in tables
    }


def exact_check(diff: StateDiff) -> StateChangeCheck:
    """The strict check that states exactly this diff (plain values as matchers)."""
    return StateChangeCheck(
        insert={t: list(d.inserted) for t, d in diff.items()},
        update={
            t: [RowUpdate(match=b, set={k: v for k, v in a.items() if b.get(k) != v}) for b, a in d.updated]
            for t, d in diff.items()
        },
        delete={t: list(d.deleted) for t, d in diff.items()},
    )


@given(st.lists(WORDS, min_size=1, max_size=6), st.data())
def test_plain_string_ignores_case_and_whitespace(words: list[str], data: st.DataObject) -> None:
    seps = data.draw(st.lists(SEPARATORS, min_size=len(words) + 1, max_size=len(words) + 1))
    spaced = seps[0] + "".join(w + s for w, s in zip(words, seps[1:]))
    flips = data.draw(st.lists(st.booleans(), min_size=len(spaced), max_size=len(spaced)))
    variant = "".join(c.swapcase() if flip else c for c, flip in zip(spaced, flips))
    assert matches(" ".join(words), variant)
    assert matches(variant, " ".join(words))


@given(JSON)
def test_every_json_value_matches_itself(value: Any) -> None:
    assert matches(value, value)


@given(
    st.lists(ROWS, max_size=5),
    st.lists(st.dictionaries(st.sampled_from(["id", "kind", "n"]), st.sampled_from(["a", "b", "x", 0, 1])), max_size=4),
    st.data(),
)
def test_insert_alignment_ignores_row_order(
    rows: list[dict[str, Any]], specs: list[dict[str, Any]], data: st.DataObject
) -> None:
    check = StateChangeCheck(insert={"messages": specs}, strict=data.draw(st.booleans()))
    shuffled = data.draw(st.permutations(rows))
    verdict = not diff_failures(check, {"messages": TableDiff(inserted=rows)})
    assert verdict == (not diff_failures(check, {"messages": TableDiff(inserted=shuffled)}))


@given(diffs())
def test_a_diff_satisfies_its_exact_check(diff: StateDiff) -> None:
    assert diff_failures(exact_check(diff), diff) == []


@given(diffs(), st.sampled_from(TABLES), ROWS)
def test_an_extra_insert_fails_a_strict_check(diff: StateDiff, table: str, extra: dict[str, Any]) -> None:
    check = exact_check(diff)
    changes = diff.get(table, TableDiff())
    bigger = {**diff, table: TableDiff([*changes.inserted, extra], changes.updated, changes.deleted)}
    assert diff_failures(check, bigger) != []
