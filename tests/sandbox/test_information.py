"""D12 information and utility tools against the wang_lei world (now = 2025-06-13T09:00, Beijing).

Each tool has success tests asserting its payload (and the state diff: only save_news_article writes),
and every declared ErrorType has a case in ``ERROR_CASES``: the failed call changes nothing and adds
exactly one log row.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from sqlalchemy import Update, select, update

from sandbox.domains.common import world_places
from sandbox.domains.information import tools as information
from sandbox.domains.information.schema import saved_articles, world_news, world_weather
from sandbox.domains.information.seed import CLIMATE
from sandbox.errors import ErrorType
from sandbox.executor import Executor
from sandbox.schema import app_permissions, device_settings
from sandbox.tooling import REGISTRY
from tests.sandbox.conftest import diff, log_count, prepare, query

INFO_TOOLS = sorted(n for n, s in REGISTRY.items() if s.fn.__module__ == information.__name__)
TODAY, TOMORROW = "2025-06-13", "2025-06-14"


def ok(ex: Executor, name: str, args: dict[str, Any]) -> dict[str, Any]:
    env = ex.call(name, args)
    assert env["Status"] == "success", env
    ex.step += 1
    payload: dict[str, Any] = env["Payload"]
    return payload


def location_service(value: str) -> Update:
    return update(device_settings).where(device_settings.c.key == "location_service").values(value=value)


def weather_location(state: str) -> Update:
    return (
        update(app_permissions)
        .where(app_permissions.c.app_id == "weather", app_permissions.c.permission == "LOCATION")
        .values(state=state)
    )


def saved_article(ex: Executor) -> str:
    return str(query(ex, select(saved_articles.c.article_id).order_by(saved_articles.c.article_id))[0]["article_id"])


# ---- world and declarations -------------------------------------------------------------------


def test_world_is_seeded_as_promised(ex: Executor) -> None:
    w = world_weather.c
    daily = query(ex, select(w.location_key, w.date).where(w.hour.is_(None)))
    assert {d["location_key"] for d in daily} == set(CLIMATE)
    assert min(d["date"] for d in daily) == "2025-06-06" and max(d["date"] for d in daily) == "2025-06-27"
    hourly = query(ex, select(w.date).where(w.hour.is_not(None), w.location_key == "Beijing"))
    assert sorted({h["date"] for h in hourly}) == [TODAY, TOMORROW] and len(hourly) == 48
    news = query(ex, select(world_news))
    assert len(news) > 100 and len({n["category"] for n in news}) == 8
    assert all(n["published_at"] < "2025-06-13T09:00" for n in news)


def test_declarations() -> None:
    assert len(INFO_TOOLS) == 11
    assert {n for n in INFO_TOOLS if REGISTRY[n].mutating} == {"save_news_article"}
    for name in INFO_TOOLS:
        spec = REGISTRY[name]
        assert spec.domain == "D12" and spec.permissions == () and spec.services == ()
        for arg in spec.parameters["properties"].values():
            assert arg["description"], name
    offline = {n for n in INFO_TOOLS if REGISTRY[n].network is None}
    assert offline == {
        "save_news_article",
        "lookup_dictionary",
        "calculate",
        "convert_units",
        "get_world_time",
        "get_holidays",
    }


# ---- 12.1 Weather -----------------------------------------------------------------------------


def test_get_weather_today_with_current_conditions(ex: Executor) -> None:
    out = ok(ex, "get_weather", {"location": "Beijing"})
    [day] = out["days"]
    assert out["location"] == "Beijing" and day["date"] == TODAY
    assert day["low_c"] <= day["temp_c"] <= day["high_c"]
    assert out["current"]["hour"] == 9 and diff(ex) == {}


def test_get_weather_tomorrow_morning_rain_hourly(ex: Executor) -> None:
    out = ok(ex, "get_weather", {"location": "home", "date": TOMORROW, "hourly": True})
    [day] = out["days"]
    assert day["precip_pct"] == 85 and day["condition"] in ("rain", "thunderstorm")
    seven = day["hourly"][7]
    assert seven["hour"] == 7 and seven["precip_pct"] >= 70 and seven["condition"] == day["condition"]
    assert "current" not in out


def test_get_weather_resolves_places_and_units(ex: Executor) -> None:
    metric = ok(ex, "get_weather", {"location": "Tokyo, Japan", "days": 3})
    imperial = ok(ex, "get_weather", {"location": "東京", "days": 3, "units": "imperial"})
    assert [d["date"] for d in metric["days"]] == [TODAY, TOMORROW, "2025-06-15"]
    assert imperial["days"][0]["high_f"] == round(metric["days"][0]["high_c"] * 9 / 5 + 32, 1)
    assert "wind_mph" in imperial["days"][0] and "wind_kph" not in imperial["days"][0]
    place = query(ex, select(world_places.c.place_id, world_places.c.city))[0]
    assert ok(ex, "get_weather", {"location": place["place_id"]})["location"] == place["city"]
    assert ok(ex, "get_weather", {"location": "Work"})["location"] == "Beijing"


def test_get_weather_hourly_only_where_available(ex: Executor) -> None:
    out = ok(ex, "get_weather", {"location": "London", "date": TOMORROW, "days": 2, "hourly": True})
    assert len(out["days"][0]["hourly"]) == 24 and out["days"][1]["hourly"] is None


def test_get_weather_past_the_horizon_is_truncated(ex: Executor) -> None:
    out = ok(ex, "get_weather", {"location": "Madrid", "date": "2025-06-25", "days": 5})
    assert len(out["days"]) == 3 and out["note"] == "forecast available until 2025-06-27"


def test_get_weather_current_location(ex: Executor) -> None:
    assert ok(ex, "get_weather", {"location": "current"})["location"] == "Beijing"


def test_get_weather_alerts(ex: Executor) -> None:
    out = ok(ex, "get_weather_alerts", {"location": "Beijing"})
    storms = [a for a in out["alerts"] if a["type"] == "storm"]
    assert storms and storms[0]["starts"] == f"{TOMORROW}T06:00"
    assert ok(ex, "get_weather_alerts", {"location": "Beijing", "types": ["heat", "cold"]})["alerts"] == [
        a for a in out["alerts"] if a["type"] in ("heat", "cold")
    ]


# ---- 12.2 News --------------------------------------------------------------------------------


def test_get_news_headlines(ex: Executor) -> None:
    top = ok(ex, "get_news_headlines", {})
    assert top["count"] == 5
    stamps = [a["published_at"] for a in top["articles"]]
    assert stamps == sorted(stamps, reverse=True)
    local = ok(ex, "get_news_headlines", {"category": "local", "limit": 20})
    assert local["count"] > 0 and all("Beijing" in a["title"] and a["region"] == "CN" for a in local["articles"])
    found = ok(ex, "get_news_headlines", {"category": "tech", "query": "cloud outage", "limit": 20})
    assert all("outage" in a["title"].lower() for a in found["articles"])
    recent = ok(ex, "get_news_headlines", {"category": "world", "since": "2025-06-12T09:00", "limit": 20})
    assert all(a["published_at"] >= "2025-06-12T09:00" for a in recent["articles"])
    assert diff(ex) == {}


def test_save_news_article(ex: Executor) -> None:
    article = ok(ex, "get_news_headlines", {})["articles"][0]
    out = ok(ex, "save_news_article", {"article_id": article["article_id"], "folder": "work"})
    assert out == {"article_id": article["article_id"], "title": article["title"], "folder": "Work"}
    [row] = diff(ex)["saved_articles"]["inserted"]
    assert (row["article_id"], row["folder"], row["created_at"]) == (
        article["article_id"],
        "Work",
        "2025-06-13T09:00:02",
    )


# ---- 12.3 Web search --------------------------------------------------------------------------


def test_web_search_ranks_title_matches_first(ex: Executor) -> None:
    out = ok(ex, "web_search", {"query": "Beijing metro hours"})
    assert out["results"][0]["title"] == "Beijing metro: hours and fares"
    assert out["count"] == 5
    only = ok(ex, "web_search", {"query": "time zone", "site": "wikipedia.org"})
    assert only["results"] and all("wikipedia.org" in r["url"] for r in only["results"])
    fresh = ok(ex, "web_search", {"query": "things to do this week", "freshness": "day"})
    assert fresh["results"] and all(r["published_at"] >= "2025-06-12T09:00" for r in fresh["results"])
    assert ok(ex, "web_search", {"query": "zzzqx"})["results"] == []


# ---- 12.4 Translation & Dictionary ------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "translation", "source"),
    [
        ({"text": "Where is the train station?", "target_lang": "ja"}, "駅はどこですか？", "en"),
        ({"text": "thank you", "target_lang": "zh-CN"}, "谢谢", "en"),
        ({"text": "宫保鸡丁", "target_lang": "en"}, "Kung Pao chicken", "zh"),
        ({"text": "親子丼", "target_lang": "en"}, "Chicken and egg rice bowl", "ja"),
        ({"text": "Danke", "target_lang": "es"}, "Gracias", "de"),
        ({"text": "How are you?", "target_lang": "de", "formality": "formal"}, "Wie geht es Ihnen?", "en"),
        ({"text": "How are you?", "target_lang": "fr", "formality": "informal"}, "Comment ça va ?", "en"),
        ({"text": "How are you?", "target_lang": "zh", "formality": "formal"}, "你好吗？", "en"),
    ],
)
def test_translate_text(ex: Executor, args: dict[str, Any], translation: str, source: str) -> None:
    out = ok(ex, "translate_text", args)
    assert (out["translation"], out["source_lang"], out["fallback"]) == (translation, source, False)


def test_translate_text_fallback_is_marked(ex: Executor) -> None:
    out = ok(ex, "translate_text", {"text": "The weather is lovely", "target_lang": "fr"})
    assert out["fallback"] is True and out["translation"] == "[fr] The weather is lovely"
    same = ok(ex, "translate_text", {"text": "Hello", "target_lang": "en-GB"})
    assert same["translation"] == "Hello" and same["fallback"] is False


@pytest.mark.parametrize(
    "args", [{"text": "hi", "target_lang": "tlh"}, {"text": "hi", "target_lang": "fr", "source_lang": "xx"}]
)
def test_translate_text_unsupported_language(ex: Executor, args: dict[str, Any]) -> None:
    assert ex.call("translate_text", args)["ErrorType"] == "InvalidArgumentValue"


def test_lookup_dictionary(ex: Executor) -> None:
    out = ok(ex, "lookup_dictionary", {"word": "  Forecast "})
    assert out["word"] == "forecast" and [m["part_of_speech"] for m in out["meanings"]] == ["noun", "verb"]
    assert "prediction" in out["synonyms"]
    assert ok(ex, "lookup_dictionary", {"word": "你好", "lang": "zh-CN"})["pronunciation"] == "nǐ hǎo"


# ---- 12.5 Calculator & Units ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "precision", "result"),
    [
        ("(1299 * 0.85 + 40) / 3", 4, 381.3833),
        ("(1299 * 0.85 + 40) / 3", 0, 381),
        ("2^10 + sqrt(16)", 4, 1028),
        ("17 % 5 + -3", 4, -1),
        ("2 ** 100", 4, 2**100),
        ("round(pi, 2) * max(2, 3)", 4, 9.42),
        ("log(8, 2) + ln(e) + log10(1000)", 4, 7),
        ("0.1 + 0.2", 10, 0.3),
        ("12 × 3 ÷ 4", 4, 9),
    ],
)
def test_calculate(ex: Executor, expression: str, precision: int, result: float) -> None:
    assert ok(ex, "calculate", {"expression": expression, "precision": precision}) == {
        "expression": expression,
        "result": result,
    }


@pytest.mark.parametrize(
    "expression",
    [
        "9**9**9",
        "10**10**10",
        "(10**999)*(10**999)",
        "2**4000",
        "__import__('os').system('true')",
        "().__class__.__bases__",
        "open('/etc/passwd')",
        "[1, 2]",
        "x + 1",
        "lambda: 1",
        "1 if 1 else 2",
        "1/0",
        "5 % 0",
        "sqrt(-1)",
        "(-8) ** (1/3)",
        "exp(1000)",
        "10.0 ** 400",
        "1e308 * 10",
        "max()",
        "round(10**50, -10**9)",
        "2 +",
        "(" * 300 + "1" + ")" * 300,
        "1 +* 2",
        "sqrt(x=4)",
        "'a' * 3",
        "True + 1",
        "1j",
    ],
)
def test_calculate_refuses_quickly(ex: Executor, expression: str) -> None:
    started = time.monotonic()
    env = ex.call("calculate", {"expression": expression})
    assert env["ErrorType"] == "InvalidArgumentValue", env
    assert time.monotonic() - started < 30  # a hang guard (2**9**9 would take hours), not a figure


def test_calculate_deep_unary_chain(ex: Executor) -> None:
    assert ok(ex, "calculate", {"expression": "-" * 498 + "1"})["result"] == 1


@pytest.mark.parametrize(
    ("value", "src", "dst", "result"),
    [
        (5, "km", "miles", 3.10686),
        (100, "°C", "F", 212),
        (-40, "fahrenheit", "celsius", -40),
        (0, "K", "C", -273.15),
        (2, "cups", "ml", 473.176),
        (1, "GiB", "MB", 1073.74),
        (3, "acres", "ha", 1.21406),
        (60, "mph", "km/h", 96.5606),
        (1, "jin", "g", 500),
        (2, "hours", "min", 120),
        (12, "inches", "ft", 1),
    ],
)
def test_convert_units(ex: Executor, value: float, src: str, dst: str, result: float) -> None:
    assert ok(ex, "convert_units", {"value": value, "from_unit": src, "to_unit": dst})["result"] == result


@pytest.mark.parametrize(
    ("src", "dst", "value"), [("kg", "km", 1), ("parsec", "m", 1), ("m", "furlong", 1), ("C", "F", -300)]
)
def test_convert_units_rejects_bad_pairs(ex: Executor, src: str, dst: str, value: float) -> None:
    env = ex.call("convert_units", {"value": value, "from_unit": src, "to_unit": dst})
    assert env["ErrorType"] == "InvalidArgumentValue"


# ---- 12.6 Time Zones & Holidays ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "local", "offset", "dst", "user_time"),
    [
        ({"location": "Tokyo"}, "2025-06-13T10:00", "+09:00", False, "2025-06-13T09:00"),
        ({"location": "london"}, "2025-06-13T02:00", "+01:00", True, "2025-06-13T09:00"),
        ({"location": "America/New_York"}, "2025-06-12T21:00", "-04:00", True, "2025-06-13T09:00"),
        ({"location": "Sydney"}, "2025-06-13T11:00", "+10:00", False, "2025-06-13T09:00"),
        ({"location": "Auckland", "at": "2025-12-01T09:00"}, "2025-12-01T14:00", "+13:00", True, "2025-12-01T09:00"),
        ({"location": "London", "at": "2025-01-10T20:00"}, "2025-01-10T12:00", "+00:00", False, "2025-01-10T20:00"),
        (
            {"location": "Tokyo", "at": "2025-06-14T09:00", "at_is_location_time": True},
            "2025-06-14T09:00",
            "+09:00",
            False,
            "2025-06-14T08:00",
        ),
        (
            {"location": "Los Angeles", "at": "2025-03-09T12:00", "at_is_location_time": True},
            "2025-03-09T12:00",
            "-07:00",
            True,
            "2025-03-10T03:00",
        ),
    ],
)
def test_get_world_time(ex: Executor, args: dict[str, Any], local: str, offset: str, dst: bool, user_time: str) -> None:
    out = ok(ex, "get_world_time", args)
    assert (out["local_time"], out["utc_offset"], out["dst"], out["user_time"]) == (local, offset, dst, user_time)
    assert out["user_timezone"] == "Asia/Shanghai"


def test_get_holidays(ex: Executor) -> None:
    us = ok(ex, "get_holidays", {"country": "us", "year": 2025, "month": 11})
    assert us["holidays"] == [
        {"date": "2025-11-11", "name": "Veterans Day"},
        {"date": "2025-11-27", "name": "Thanksgiving Day"},
    ]
    gb = {h["name"]: h["date"] for h in ok(ex, "get_holidays", {"country": "GB", "year": 2026})["holidays"]}
    assert (gb["Good Friday"], gb["Easter Monday"]) == ("2026-04-03", "2026-04-06")
    cn = {h["name"]: h["date"] for h in ok(ex, "get_holidays", {"country": "CN", "year": 2025})["holidays"]}
    assert cn["Spring Festival"] == "2025-01-29" and cn["Dragon Boat Festival"] == "2025-05-31"
    ca = {h["name"]: h["date"] for h in ok(ex, "get_holidays", {"country": "CA", "year": 2025})["holidays"]}
    assert ca["Victoria Day"] == "2025-05-19"
    assert ok(ex, "get_holidays", {"country": "JP", "year": 2025, "month": 2})["count"] == 2


# ---- declared errors --------------------------------------------------------------------------

ERROR_CASES: list[tuple[str, dict[str, Any], list[Update], ErrorType]] = [
    ("get_weather", {"location": "current"}, [location_service("0")], ErrorType.SERVICE_DISABLED),
    ("get_weather", {"location": "current"}, [weather_location("not_requested")], ErrorType.PERMISSION_DENIED),
    ("get_weather", {"location": "current"}, [weather_location("policy_blocked")], ErrorType.PERMISSION_DENIED),
    ("get_weather", {"location": "Atlantis"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("get_weather", {"location": "place_999"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("get_weather", {"location": "Beijing", "date": "2025-08-01"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("get_weather_alerts", {"location": "current"}, [location_service("0")], ErrorType.SERVICE_DISABLED),
    ("get_weather_alerts", {"location": "current"}, [weather_location("denied")], ErrorType.PERMISSION_DENIED),
    ("get_weather_alerts", {"location": "Gotham"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("save_news_article", {"article_id": "article_999"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("save_news_article", {"article_id": "<saved>"}, [], ErrorType.DUPLICATE_ENTITY),
    ("lookup_dictionary", {"word": "flibbertigibbet"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("lookup_dictionary", {"word": "forecast", "lang": "fr"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("calculate", {"expression": "1 / (3 - 3)"}, [], ErrorType.INVALID_ARGUMENT_VALUE),
    ("calculate", {"expression": "9**9**9"}, [], ErrorType.INVALID_ARGUMENT_VALUE),
    ("get_world_time", {"location": "Atlantis"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("get_holidays", {"country": "ZZ", "year": 2025}, [], ErrorType.ENTITY_NOT_FOUND),
    ("get_holidays", {"country": "US", "year": 1999}, [], ErrorType.ENTITY_NOT_FOUND),
]


@pytest.mark.parametrize(
    ("name", "args", "before", "error"),
    ERROR_CASES,
    ids=[f"{c[0]}-{c[3].value}-{i}" for i, c in enumerate(ERROR_CASES)],
)
def test_declared_error_changes_nothing(
    ex: Executor,
    name: str,
    args: dict[str, Any],
    before: list[Update],
    error: ErrorType,
) -> None:
    prepare(ex.conn, *before)
    if args.get("article_id") == "<saved>":
        args = {**args, "article_id": saved_article(ex)}
    logged = log_count(ex.conn)
    env = ex.call(name, args)
    assert (env["Status"], env["ErrorType"]) == ("error", error.value), env
    assert isinstance(env["Payload"]["message"], str)
    assert diff(ex) == {}
    assert log_count(ex.conn) == logged + 1


def test_every_declared_error_is_tested() -> None:
    declared = {(n, e) for n in INFO_TOOLS for e in REGISTRY[n].errors}
    assert {(c[0], c[3]) for c in ERROR_CASES} == declared


def test_location_errors_name_the_fix(ex: Executor) -> None:
    prepare(ex.conn, weather_location("policy_blocked"))
    env = ex.call("get_weather", {"location": "current"})
    assert env["Payload"] == {
        "message": env["Payload"]["message"],
        "app_id": "weather",
        "permission": "LOCATION",
        "reason": "policy",
    }
    assert ok(ex, "get_weather", {"location": "Beijing"})["location"] == "Beijing"  # a named city needs no access
    prepare(ex.conn, location_service("0"))
    assert ex.call("get_weather_alerts", {"location": "current"})["Payload"]["service"] == "location_service"


def test_saved_article_duplicate_names_its_folder(ex: Executor) -> None:
    env = ex.call("save_news_article", {"article_id": saved_article(ex)})
    assert env["Payload"]["existing_id"] == saved_article(ex) and env["Payload"]["folder"]


def test_network_tools_need_the_network(ex: Executor) -> None:
    prepare(
        ex.conn, update(device_settings).where(device_settings.c.key.in_(["wifi", "mobile_data"])).values(value="0")
    )
    assert ex.call("get_news_headlines", {})["ErrorType"] == "NetworkUnavailable"
    assert ok(ex, "calculate", {"expression": "1+1"})["result"] == 2
