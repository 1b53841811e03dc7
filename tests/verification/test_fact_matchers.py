"""The answer matchers: each fact in the formats people write it, and what they must not accept."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sandbox import facts
from sandbox.facts import NOT_PLURAL
from verification.matchers import explain, matches, validate_matcher


@pytest.mark.parametrize(
    ("matcher", "text"),
    [
        ({"$amount": 1234.5}, "That comes to $1,234.50."),
        ({"$amount": {"value": 1234.5, "currency": "USD"}}, "1234.5 USD in total"),
        ({"$amount": {"value": 1234.5, "currency": "USD"}}, "about $1,235"),  # its own rounding
        ({"$amount": {"value": 12, "currency": "EUR"}}, "It costs €12."),
        ({"$amount": {"value": 12, "currency": "EUR"}}, "twelve? no: 12 euros"),
        ({"$amount": {"value": 15.24, "currency": "USD"}}, "An XL is 15.24"),  # no currency written: fine
        ({"$amount": {"value": 10, "tolerance": 0.6}}, "roughly 10.5"),
        ({"$number": 12.6}, "Sunny, 12.6°C"),
        ({"$number": -3}, "low of -3 degrees"),
        ({"$count": 3}, "I found 3 restaurants"),
        ({"$count": 3}, "There are three of them"),
        ({"$count": 20}, "twenty emails"),
        ({"$date": "2025-06-14"}, "on 2025-06-14"),
        ({"$date": "2025-06-14"}, "on June 14"),
        ({"$date": "2025-06-14"}, "14 June 2025"),
        ({"$date": "2025-06-14"}, "Saturday 14 June"),
        ({"$date": "2025-06-14"}, "Saturday, the 14th of June"),
        ({"$date": "2025-06-14"}, "Jun 14th, 2025"),
        ({"$date": "2025-06-14"}, "14/06/2025"),
        ({"$date": "2025-06-04"}, "06/04"),  # month/day or day/month
        ({"$time": "09:00"}, "at 9am"),
        ({"$time": "09:00"}, "at 09:00"),
        ({"$time": "21:00"}, "at 9:00 PM"),
        ({"$time": "21:00"}, "at 9 p.m."),
        ({"$time": "21:30"}, "leave by 9:30 tonight"),
        ({"$time": "22:50"}, "it is 2025-12-04T22:50 there"),
        ({"$time": "12:00"}, "at noon"),
        ({"$name": "Cedar Tree"}, "Try CEDAR  tree on Bridge Street"),
        ({"$name": "ready_for_pickup"}, "It is ready for pickup"),
        ({"$name": "Zurich"}, "It's 22:50 in Zürich"),
        ({"$none": True}, "You made no Metro top-up payments since then."),
        ({"$none": True}, "Nothing matched."),
        ({"$none": True}, "There aren't any."),
        ({"$none": True}, "Total: $0.00"),
    ],
)
def test_fact_stated(matcher: dict[str, Any], text: str) -> None:
    assert explain(matcher, text) is None


@pytest.mark.parametrize(
    ("matcher", "text", "named"),
    [
        ({"$amount": 1234.5}, "That comes to $1,243.50.", "the amount 1234.5"),
        ({"$amount": {"value": 12, "currency": "EUR"}}, "It costs $12.", "the amount 12 EUR"),
        # stated to the cent, and wrong
        ({"$amount": {"value": 15.24, "currency": "USD"}}, "about $15.00", "the amount 15.24 USD"),
        ({"$amount": 7}, "on 2025-06-07 at 7:00", "the amount 7"),  # a date's or time's digits are no amount
        ({"$number": 12.6}, "Sunny, 13.6°C", "the number 12.6"),
        ({"$count": 3}, "I found 4 restaurants", "the count 3"),
        ({"$count": 3}, "rest_003 looks good", "the count 3"),
        ({"$date": "2025-06-14"}, "on June 15", "the date 2025-06-14"),
        ({"$date": "2025-06-14"}, "14 June 2024", "the date 2025-06-14"),
        ({"$time": "09:00"}, "at 9pm", "the time 09:00"),
        ({"$time": "21:00"}, "at 09:00", "the time 21:00"),
        ({"$name": "Leo"}, "Leon says hi", "the name 'Leo'"),
        ({"$none": True}, "You spent $35.20 there.", "that nothing was found"),
    ],
)
def test_fact_missing_is_named(matcher: dict[str, Any], text: str, named: str) -> None:
    reason = explain(matcher, text)
    assert reason is not None and reason.startswith(f"does not state {named}")


def test_fact_matchers_want_text() -> None:
    assert explain({"$count": 3}, 3) == "does not state the count 3: 3"


@pytest.mark.parametrize(
    "matcher",
    [
        {"$amount": "12"},
        {"$amount": {"value": 1, "currency": "dollars"}},
        {"$amount": {"value": 1, "tolerance": -1}},
        {"$amount": {"amount": 1}},
        {"$number": {"value": 1, "currency": "USD"}},
        {"$count": -1},
        {"$count": 2.5},
        {"$count": True},
        {"$date": "14 June"},
        {"$date": "2025-02-30"},
        {"$time": "9pm"},
        {"$time": "24:00"},
        {"$name": ""},
        {"$name": " - "},
        {"$none": False},
        {"$none": "yes"},
        {"$verdict": "maybe"},
        {"$verdict": True},
        {"$verdict": {"value": "no"}},
        {"$verdict": {"value": "maybe", "about": ["delayed"]}},
        {"$verdict": {"value": "no", "about": [""]}},
        {"$first": "Xiaomi 15"},
        {"$first": {"name": "Xiaomi 15"}},
        {"$first": {"name": "", "others": []}},
        {"$first": {"name": "Xiaomi 15", "others": [""]}},
        {"$none_of": {"names": ["order_016"], "as": ["delivered"]}},
        {"$none_of": {"names": ["order_016"], "as": [], "unlike": ["shipped"]}},
    ],
)
def test_malformed_fact_matchers_raise(matcher: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(matcher)).replace("$", r"\$")):
        validate_matcher(matcher)


# ---- properties -----------------------------------------------------------------------------

CURRENCIES = {
    "USD": ("${}", "{} USD", "US${}", "{} dollars"),
    "EUR": ("€{}", "{} EUR", "{} euros", "{}€"),
    "GBP": ("£{}", "{} GBP", "{} pounds"),
    "JPY": ("¥{}", "{} JPY", "{} yen"),
}
cents = st.integers(min_value=0, max_value=10**8)


def _written(value: float, thousands: bool, decimals: int) -> str:
    return f"{value:,.{decimals}f}" if thousands else f"{value:.{decimals}f}"


@given(cents, st.sampled_from(sorted(CURRENCIES)), st.data(), st.booleans(), st.sampled_from(["", "Total: ", "about "]))
def test_any_format_of_an_amount_matches(
    amount: int, currency: str, data: st.DataObject, thousands: bool, lead: str
) -> None:
    value = amount / 100
    form = data.draw(st.sampled_from(CURRENCIES[currency]))
    text = lead + form.format(_written(value, thousands, 2)) + "."
    assert matches({"$amount": {"value": value, "currency": currency}}, text), text


@given(cents, cents.filter(lambda c: c > 0), st.sampled_from(sorted(CURRENCIES)), st.data(), st.booleans())
def test_a_different_amount_does_not_match(
    amount: int, delta: int, currency: str, data: st.DataObject, thousands: bool
) -> None:
    value, other = amount / 100, (amount + delta) / 100
    text = data.draw(st.sampled_from(CURRENCIES[currency])).format(_written(other, thousands, 2))
    assert not matches({"$amount": {"value": value, "currency": currency}}, text), text


@given(
    st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2040, 12, 31)),
    st.sampled_from(["%Y-%m-%d", "%B %d", "%d %B %Y", "%A %d %B", "%b %d, %Y", "%A, %B %d %Y", "%d/%m/%Y"]),
)
def test_any_format_of_a_date_matches(day: dt.date, form: str) -> None:
    assert matches({"$date": day.isoformat()}, f"It is on {day.strftime(form)}.")


@given(
    st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2040, 12, 31)),
    st.integers(1, 400),
    st.sampled_from(["%Y-%m-%d", "%B %d", "%d %B %Y", "%b %d, %Y"]),
)
def test_another_date_does_not_match(day: dt.date, shift: int, form: str) -> None:
    other = day + dt.timedelta(days=shift)
    if form in ("%B %d",) and (other.month, other.day) == (day.month, day.day):
        return  # a year later, written without its year: the same date as far as the text says
    assert not matches({"$date": day.isoformat()}, f"It is on {other.strftime(form)}.")


@given(st.integers(0, 23), st.sampled_from([0, 5, 30, 45]), st.sampled_from(["%H:%M", "%I:%M %p", "%I%p", "%I:%M%p"]))
def test_any_format_of_a_time_matches(hour: int, minute: int, form: str) -> None:
    if form == "%I%p" and minute:
        return
    at = dt.time(hour, minute)
    assert matches({"$time": at.strftime("%H:%M")}, f"Leave at {at.strftime(form).lower()}.")


@given(st.integers(0, 20), st.booleans())
def test_counts_as_digits_or_words(n: int, word: bool) -> None:
    words = (
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty"
    ).split()
    text = f"I found {words[n] if word else n} of them."
    assert matches({"$count": n}, text)
    assert not matches({"$count": n + 1}, text)


def _plural(word: str) -> str:
    """The regular English plural, written independently of the matcher."""
    if word[-1] == "y" and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + ("es" if word.endswith(("s", "x", "z", "ch", "sh", "o")) else "s")


nouns = st.text(alphabet="abcdefghijklmnoprtuvwy", min_size=3, max_size=10).filter(
    lambda w: not w.endswith(("s", "us", "is"))
)
heads = st.sampled_from(["", "chili ", "Cedar "])


@given(nouns, heads, st.sampled_from(["2 {}.", "Add {} and salt", "{}: 4 pieces"]))
def test_a_name_is_stated_in_the_singular_or_plural(word: str, head: str, form: str) -> None:
    name = head + word
    assert matches({"$name": name}, form.format(head + _plural(word))), (name, _plural(word))
    if _plural(word) not in NOT_PLURAL:  # "News" is a name of its own, not stated by "new"
        assert matches({"$name": head + _plural(word)}, form.format(name)), (name, _plural(word))


@given(nouns, heads, st.sampled_from(["ade", "er", "ing", "ed", "ish", "x"]))
def test_a_longer_or_other_word_states_no_name(word: str, head: str, suffix: str) -> None:
    assert not matches({"$name": head + word}, f"2 {head}{word}{suffix}")
    assert not matches({"$name": head + word + suffix}, f"2 {head}{word}")
    assert not matches({"$name": head + word}, f"2 {head}{word[:-1]}")  # a letter short


@pytest.mark.parametrize(
    ("name", "text", "stated"),
    [
        ("lemon", "8 eggs and 2 lemons", True),
        ("berries", "one berry", True),
        ("tomato", "3 tomatoes", True),
        ("box", "two boxes", True),
        ("peach", "peaches", True),
        ("Cedar Tree", "the Cedar Trees cafe", True),
        ("glass", "a glas", False),
        ("bus", "a bu", False),
        ("News", "the new app", False),
        ("lemon", "lemonade", False),
        ("Leo", "Leos", True),
        ("Tree", "Cedar", False),
        ("mar", "2 mars.", True),
        ("new", "the news", True),
        ("Mars", "2 mar", False),
    ],
)
def test_plural_forms_of_names(name: str, text: str, stated: bool) -> None:
    assert matches({"$name": name}, text) is stated


@pytest.mark.parametrize(
    ("name", "text", "stated"),
    [
        ("available", "Yes, it's available.", True),
        ("available", "not available", False),
        ("available", "It isn't available today.", False),
        ("available", "unavailable", False),
        ("available", "I asked whether it is available: they said no.", False),
        ("available", "Is it available?", False),
        ("available", "It's available online, but not available in the store", False),
        ("open", "No, it's not open", False),
        ("open", "They're open until 6, so you can go", True),
        ("in stock", "They have ibuprofen in stock (12 packs).", True),
        ("in stock", "They don't have it in stock.", False),
        ("have it", "No, they don’t have it.", False),
        ("no extra cost", "Roaming is included at no extra cost.", True),  # its own "no" denies nothing
        ("Salt and Pepper", "Salt and Pepper has a table at 8.", True),  # a name holding a clause word
        ("Cedar Tree", "Not Luigi's: Cedar Tree has a table.", True),  # a denial in another clause
        # a denial governs only what it stands before, so a name beside another denial stays stated
        ("Sydney", "Yes, there's a 65% chance of rain on Monday; not a great day for a picnic in Sydney.", True),
        ("London", "No, Friday won't be cold in London: high 20.3 °C", True),
        ("London", "Clara lives in London now. It won't be cold in London.", True),
        ("Toronto", "Not cold at all in Toronto tomorrow: high 27.5 °C", True),
        ("Toronto", "No, Toronto won't be cold tomorrow.", True),
        # a negated presence after the name denies it
        ("Steamed fish with ginger", "Sorry, the Steamed fish with ginger is not available today.", False),
        ("Steamed fish with ginger", "The Steamed fish with ginger isn't on the menu.", False),
        ("amazon.com", "Your amazon.com login was not breached.", False),
        ("in stock", "They don't have it in stock.", False),
        ("available", "It is no longer available.", False),
    ],
)
def test_a_name_is_read_by_polarity(name: str, text: str, stated: bool) -> None:
    assert matches({"$name": name}, text) is stated


@given(
    st.sampled_from(["available", "in stock", "open", "free", "included"]),
    st.sampled_from(["it", "the ibuprofen", "Corner Pharmacy", "No, it"]),
    st.sampled_from(["is not", "isn't", "is no longer", "was never", "is sadly not", "isn’t"]),
    st.sampled_from(["", " today", ", sorry", "."]),
)
def test_a_denied_name_is_never_stated(name: str, subject: str, denial: str, tail: str) -> None:
    assert not matches({"$name": name}, f"{subject} {denial} {name}{tail}")
    assert matches({"$name": name}, f"{subject.removeprefix('No, ')} is {name}{tail}")


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Yes, delayed about 45 minutes.", "yes"),
        ("No, nobody came.", "no"),
        ("Nobody came to the front door.", "no"),
        ("Not delayed: it departed at 20:15.", "no"),
        ("It won't be cold in Toronto.", "no"),
        ("There's no rain expected.", "no"),
        ("It will be 27 °C in Toronto.", None),  # no verdict: the facts decide
        ("Noon is the earliest slot.", None),
    ],
)
def test_the_verdict_is_read_from_the_opening(text: str, said: str | None) -> None:
    assert facts.verdict(text) == said


@pytest.mark.parametrize(
    ("verdict", "text", "ok"),
    [
        ("yes", "Yes: a doorbell ring at 11:12.", True),
        ("yes", "No, nobody came; the doorbell camera did a routine check at 11:12.", False),
        ("no", "No, not delayed, departed on time at 20:15 (0 min delay).", True),
        ("no", "Yes, delayed ~45 min; it has landed.", False),
        ("no", "Yes, it will be cold in Toronto, bring a winter coat.", False),
        ("yes", "There is a good chance of rain in Sydney.", True),  # no verdict stated: the facts decide
    ],
)
def test_an_answer_of_the_opposite_verdict_fails(verdict: str, text: str, ok: bool) -> None:
    assert matches({"$verdict": verdict}, text) is ok


@pytest.mark.parametrize(
    ("verdict", "about", "text", "ok"),
    [
        ("no", ["delayed", "late"], "It was delayed by 30 minutes and landed at 11:59.", False),
        ("no", ["delayed", "late"], "IB332 departed 45 minutes late; it was scheduled for 20:15.", False),
        ("no", ["delayed", "late"], "IB332 landed at 11:59, not delayed.", True),
        ("no", ["delayed", "late"], "On time, no delay: it landed at 11:59.", True),
        ("yes", ["arrived", "delivered"], "The parcel has not arrived; it is in transit.", False),
        ("yes", ["arrived", "delivered"], "Your parcel was delivered at 10:00.", True),
        ("yes", ["going to rain", "will rain"], "There's a 65% chance of rain in Sydney.", True),  # named neither way
        ("no", ["delayed", "late"], "Yes, it was delayed by 30 minutes.", False),  # the opening still decides
    ],
)
def test_an_answer_without_a_verdict_is_read_by_the_property_asked(
    verdict: str, about: list[str], text: str, ok: bool
) -> None:
    matcher = {"$verdict": {"value": verdict, "about": about}}
    validate_matcher(matcher)
    assert matches(matcher, text) is ok


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("dropbox.com was breached; this password is also used on amazon.com, change it there.", True),
        ("dropbox.com (this same password is reused on netflix.com, amazon.com and outlook.com) was breached.", True),
        ("dropbox.com was breached. Your amazon.com login was not breached.", True),
        ("Breached: dropbox.com. Your other logins, e.g. amazon.com, were not breached.", True),
        ("Only dropbox.com was breached.", True),
        ("Your breached passwords: adobe.com, dropbox.com and amazon.com.", False),
        ("Reuse is risky. Breached: dropbox.com, amazon.com.", False),  # the relation stated of no name
        ("amazon.com is also used on dropbox.com; both were breached.", False),  # the relation after the name
    ],
)
def test_none_of_counts_only_names_affirmed_as_members(text: str, ok: bool) -> None:
    assert matches({"$none_of": ["amazon.com", "Amazon"]}, text) is ok


DELIVERED = {
    "$none_of": {
        "names": ["order_014", "order_016", "order_017", "order_019"],
        "as": ["delivered"],
        "unlike": ["cancelled", "pending", "shipped", "earlier", "before"],
    }
}


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        (
            "Only one is delivered: order_015. The others are not delivered yet: order_016 and order_017 are shipped,"
            " and order_019 (placed today) is pending.",
            True,
        ),
        ("order_015 is delivered. Pending: order_019; shipped: order_016.", True),
        ("order_015. Note: order_014 was also delivered (on 22 May), but it was placed earlier, on 19 May.", True),
        ("order_015 was delivered; order_016 is not delivered.", True),
        ("Delivered: order_015 and order_016.", False),
        ("Delivered: order_015 and order_016, but order_017 is pending.", False),  # the label governs the list
        ("order_015 and order_016 are delivered, order_017 is pending.", False),  # the first value after it
        ("order_015 was delivered. Also order_016.", False),
        ("order_015 was delivered. order_014 was delivered too, but it was in May.", False),
    ],
)
def test_none_of_reads_a_non_member_named_with_another_value_as_no_member(text: str, ok: bool) -> None:
    assert matches(DELIVERED, text) is ok
    assert matches({"$none_of": DELIVERED["$none_of"]["names"]}, text) is (
        "order_01" not in text.replace("order_015", "")
    )


CHEAPEST = {"$first": {"name": "Xiaomi 15", "others": ["Apple iPhone 16", "Samsung Galaxy S25"]}}


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("The cheapest smartphone is the Xiaomi 15 at £403.99.", True),
        ("The cheapest is the Xiaomi 15 at £403.99; next is the Apple iPhone 16 at £486.99.", True),
        ("Not the Apple iPhone 16: the Xiaomi 15 is the cheapest.", True),  # a denied rival
        ("The cheapest smartphone is the Apple iPhone 16 at £486.99; the Xiaomi 15 is pricier.", False),
        ("The Samsung Galaxy S25 and the Xiaomi 15 are cheap.", False),
        ("The cheapest is the Apple iPhone 16.", False),
        ("The cheapest is not the Xiaomi 15.", False),
    ],
)
def test_a_superlative_answer_is_named_before_any_other_candidate(text: str, ok: bool) -> None:
    assert matches(CHEAPEST, text) is ok
