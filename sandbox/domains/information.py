"""D12 Information & Utilities: weather, news, web search, translation and dictionary, calculator and
unit conversion, world time and public holidays.

Everything here reads small deterministic world tables (forecasts, articles, web pages, phrase
translations, dictionary entries, time zones, holidays); the calculator and the unit converter are
pure functions. Asking for the weather at ``"current"`` uses the user's position, so it needs the
location service and the weather app's LOCATION permission.
"""

from __future__ import annotations

import ast
import datetime as dt
import json
import math
import operator
import random
import re
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import (
    Column,
    Connection,
    Float,
    Integer,
    Text,
    bindparam,
    func,
    insert,
    or_,
    select,
)
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from sandbox.domains.common import CITY_CENTRES, addresses, world_places
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx, rows
from sandbox.locales import CITIES, COUNTRIES, GLOBAL_OUTLETS
from sandbox.personas import Persona, seeder
from sandbox.schema import USER, WORLD, app_permissions, stamps, table, user_profile
from sandbox.tooling import Date, DateTime, tool

world_weather = table(
    "world_weather",
    WORLD,
    Column("weather_id", Integer, primary_key=True),
    Column("location_key", Text, nullable=False),  # a city
    Column("date", Text, nullable=False),
    Column("hour", Integer),  # NULL: the day's summary; 0-23: that hour
    Column("condition", Text, nullable=False),
    Column("temp_c", Float, nullable=False),
    Column("high_c", Float),
    Column("low_c", Float),  # daily rows only
    Column("precip_pct", Integer, nullable=False),
    Column("wind_kph", Integer, nullable=False),
    Column("humidity_pct", Integer, nullable=False),
    Column("aqi", Integer, nullable=False),
    natural_key=("location_key", "date", "hour"),
)

world_weather_alerts = table(
    "world_weather_alerts",
    WORLD,
    Column("alert_id", Text, primary_key=True),
    Column("location_key", Text, nullable=False),
    Column("type", Text, nullable=False),  # storm, heat, cold, flood, air_quality, typhoon
    Column("severity", Text, nullable=False),  # minor, moderate, severe
    Column("headline", Text, nullable=False),
    Column("starts", Text, nullable=False),
    Column("ends", Text, nullable=False),  # YYYY-MM-DDTHH:MM
    natural_key=("location_key", "type", "starts"),
)

world_news = table(
    "world_news",
    WORLD,
    Column("article_id", Text, primary_key=True),
    Column("title", Text, nullable=False),
    Column("category", Text, nullable=False),
    Column("region", Text, nullable=False),  # ISO country code, or "global"
    Column("source", Text, nullable=False),
    Column("published_at", Text, nullable=False),
    Column("summary", Text, nullable=False),
    Column("top", Integer, nullable=False),  # a top story
    natural_key=("title",),
)

saved_articles = table(
    "saved_articles",
    USER,
    Column("article_id", Text, primary_key=True),
    Column("folder", Text, nullable=False),
    *stamps(),
    natural_key=("article_id",),
)

world_web_docs = table(
    "world_web_docs",
    WORLD,
    Column("doc_id", Text, primary_key=True),
    Column("url", Text, nullable=False),
    Column("title", Text, nullable=False),
    Column("snippet", Text, nullable=False),
    Column("content", Text, nullable=False),
    Column("published_at", Text, nullable=False),
    natural_key=("url",),
    id_prefix="web",
)

world_translations = table(
    "world_translations",
    WORLD,
    Column("text_key", Text, primary_key=True),  # the normalised English phrase
    Column("target_lang", Text, primary_key=True),
    Column("formality", Text, primary_key=True),  # default | formal | informal
    Column("source_text", Text, nullable=False),  # the English phrase as written
    Column("translation", Text, nullable=False),
    Column("translation_key", Text, nullable=False),  # the normalised translation (reverse lookups)
    natural_key=("text_key", "target_lang", "formality"),
)

world_dictionary = table(
    "world_dictionary",
    WORLD,
    Column("word", Text, primary_key=True),  # case-folded
    Column("lang", Text, primary_key=True),
    Column("entry_json", Text, nullable=False),
    natural_key=("word", "lang"),
)

world_timezones = table(
    "world_timezones",
    WORLD,
    Column("city", Text, primary_key=True),
    Column("country", Text, nullable=False),
    Column("tz", Text, nullable=False),  # IANA name
    Column("utc_offset_min", Integer, nullable=False),  # standard time
    Column("dst_rule", Text, nullable=False),  # none | us | eu | au | nz
    natural_key=("city",),
)

world_holidays = table(
    "world_holidays",
    WORLD,
    Column("country", Text, primary_key=True),
    Column("date", Text, primary_key=True),
    Column("name", Text, primary_key=True),
    natural_key=("country", "date", "name"),
)

DT_FMT = "%Y-%m-%dT%H:%M"
FORECAST_PAST_DAYS, FORECAST_DAYS, HOURLY_DAYS = 7, 14, 2  # daily rows -7..+14; hourly rows today, tomorrow
Query = Annotated[str, Field(min_length=1, max_length=200)]
Location = Annotated[str, Field(min_length=1, max_length=120)]
AlertType = Literal["storm", "heat", "cold", "flood", "air_quality", "typhoon"]
NewsCategory = Literal["top", "world", "business", "tech", "sports", "entertainment", "science", "health", "local"]
LANGUAGES = {
    "en": "English",
    "zh": "Chinese",
    "ja": "Japanese",
    "ko": "Korean",
    "es": "Spanish",
    "fr": "French",
    "de": "German",
    "it": "Italian",
    "pt": "Portuguese",
    "ru": "Russian",
    "ar": "Arabic",
    "hi": "Hindi",
}
LangCode = Annotated[str, Field(pattern=r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$")]


def _lang(code: str) -> str:
    """The primary language subtag of a BCP-47 code (``zh-CN`` -> ``zh``)."""
    return code.split("-", 1)[0].lower()


# ---- Weather (12.1) ---------------------------------------------------------------------------

CITY_ALIASES = {
    "北京": "Beijing",
    "上海": "Shanghai",
    "东京": "Tokyo",
    "東京": "Tokyo",
    "서울": "Seoul",
    "sf": "San Francisco",
    "san fran": "San Francisco",
    "bombay": "Mumbai",
    "bj": "Beijing",
}


_LOCATION_PERMISSION = select(app_permissions.c.state).where(
    app_permissions.c.app_id == bindparam("app_id"), app_permissions.c.permission == "LOCATION"
)


def require_location(ctx: Ctx, app_id: str) -> None:
    """The gates for ``location="current"``: the location service (step 7), then LOCATION (step 8); tools that
    take an explicit place as well gate only the phone's position (maps does too)."""
    if ctx.setting("location_service") != "1":
        raise ToolError(ErrorType.SERVICE_DISABLED, "location_service is turned off", service="location_service")
    require_location_permission(ctx, app_id)


def require_location_permission(ctx: Ctx, app_id: str) -> None:
    """The LOCATION gate alone (step 8), for arguments that use the user's position (the decorator gates whole
    tools)."""
    state = ctx.conn.execute(_LOCATION_PERMISSION, {"app_id": app_id}).scalar()
    if state != "granted":
        raise ToolError(
            ErrorType.PERMISSION_DENIED,
            f"app {app_id!r} lacks the LOCATION permission",
            app_id=app_id,
            permission="LOCATION",
            reason="policy" if state == "policy_blocked" else "app_permission",
        )


_WEATHER_CITIES = select(world_weather.c.location_key).distinct()
_HOME_AND_WORK_CITY = select(user_profile.c.home_city, user_profile.c.work_city)
_PLACE_CITY = select(world_places.c.city).where(world_places.c.place_id == bindparam("place_id"))
_ADDRESS_CITY = select(addresses.c.city).where(func.lower(addresses.c.label) == bindparam("label"))


def _city(ctx: Ctx, location: str) -> str:
    """A ``loc`` argument (current, home/work, an address label, a place id, a city name) -> a forecast city."""
    cities = sorted(ctx.conn.execute(_WEATHER_CITIES).scalars())
    wanted = location.strip().casefold()
    profile = ctx.conn.execute(_HOME_AND_WORK_CITY).first()
    found: str | None = None
    if wanted == "current":
        require_location(ctx, "weather")
        found = profile.home_city if profile else None  # the phone is at home at the start of a task
    elif wanted in ("home", "work") and profile:
        found = profile.home_city if wanted == "home" else profile.work_city
    elif wanted.startswith("place_"):
        found = ctx.conn.execute(_PLACE_CITY, {"place_id": location}).scalar()
    else:
        found = ctx.conn.execute(_ADDRESS_CITY, {"label": wanted}).scalar()
        found = found or CITY_ALIASES.get(wanted)
        found = found or next((c for c in cities if c.casefold() == wanted), None)
        found = found or next((c for c in cities if re.search(rf"\b{re.escape(c.casefold())}\b", wanted)), None)
    if found not in cities:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"no weather data for {location!r}", field="location", known_cities=cities
        )
    assert found is not None
    return found


def _to_f(c: float) -> float:
    return round(c * 9 / 5 + 32, 1)


def _units(row: dict[str, Any], imperial: bool) -> dict[str, Any]:
    out = {k: v for k, v in row.items() if v is not None and k not in ("weather_id", "location_key")}
    if imperial:
        for key in ("temp_c", "high_c", "low_c"):
            if key in out:
                out[key.replace("_c", "_f")] = _to_f(out.pop(key))
        out["wind_mph"] = round(out.pop("wind_kph") / 1.609344)
    return out


_FORECAST = (
    select(world_weather)
    .where(
        world_weather.c.location_key == bindparam("location_key"),
        world_weather.c.date >= bindparam("first"),
        world_weather.c.date <= bindparam("last"),
    )
    .order_by(world_weather.c.date, world_weather.c.hour.is_not(None), world_weather.c.hour)
)
_FORECAST_SPAN = select(func.min(world_weather.c.date), func.max(world_weather.c.date)).where(
    world_weather.c.location_key == bindparam("location_key")
)


@tool(
    l2="12.1",
    app="weather",
    mutating=False,
    network="internet",
    errors=(ErrorType.SERVICE_DISABLED, ErrorType.PERMISSION_DENIED, ErrorType.ENTITY_NOT_FOUND),
)
def get_weather(
    ctx: Ctx,
    location: Location,
    date: Date | None = None,
    days: Annotated[int, Field(ge=1, le=10)] = 1,
    hourly: bool = False,
    units: Literal["metric", "imperial"] = "metric",
) -> dict[str, Any]:
    """Weather conditions and forecast for a place: daily high/low, rain chance, wind, humidity, air quality.

    Forecasts reach 14 days ahead and history 7 days back; hourly detail covers today and tomorrow.

    Args:
        location: A city name, "home", "work", an address label, a place id (place_912), or "current"
            (the phone's position; needs location access).
        date: First day, YYYY-MM-DD (default today).
        days: Number of days from date.
        hourly: Include hour-by-hour forecasts (where available).
        units: metric (C, km/h) or imperial (F, mph).
    """
    city = _city(ctx, location)
    first = dt.date.fromisoformat(date) if date else ctx.now.date()
    last = first + dt.timedelta(days=days - 1)
    found = rows(
        ctx.conn.execute(_FORECAST, {"location_key": city, "first": first.isoformat(), "last": last.isoformat()})
    )
    if not found:
        span = ctx.conn.execute(_FORECAST_SPAN, {"location_key": city}).one()
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no forecast for {city} on {first}",
            field="date",
            available_from=span[0],
            available_to=span[1],
        )
    imperial = units == "imperial"
    out_days = []
    for row in (r for r in found if r["hour"] is None):
        day = _units(row, imperial)
        if hourly:
            hours = [_units(r, imperial) for r in found if r["date"] == row["date"] and r["hour"] is not None]
            day["hourly"] = hours or None
        out_days.append(day)
    out: dict[str, Any] = {"location": city, "units": units, "days": out_days}
    if len(out_days) < days:
        out["note"] = f"forecast available until {out_days[-1]['date']}"
    if first == ctx.now.date():
        now_row = next((r for r in found if r["date"] == first.isoformat() and r["hour"] == ctx.now.hour), None)
        if now_row:
            out["current"] = _units(now_row, imperial)
    return out


@tool(
    l2="12.1",
    app="weather",
    mutating=False,
    network="internet",
    errors=(ErrorType.SERVICE_DISABLED, ErrorType.PERMISSION_DENIED, ErrorType.ENTITY_NOT_FOUND),
)
def get_weather_alerts(
    ctx: Ctx,
    location: Location,
    types: Annotated[list[AlertType], Field(min_length=1, max_length=6)] | None = None,
) -> dict[str, Any]:
    """Active and upcoming severe-weather and air-quality alerts for a place.

    Args:
        location: A city name, "home", "work", an address label, a place id, or "current" (needs location access).
        types: Only these alert types.
    """
    city = _city(ctx, location)
    a = world_weather_alerts.c
    q = select(world_weather_alerts).where(a.location_key == city, a.ends > ctx.now.strftime(DT_FMT))
    if types:
        q = q.where(a.type.in_(types))
    found = rows(ctx.conn.execute(q.order_by(a.starts, a.alert_id)))
    return {
        "location": city,
        "alerts": [{k: r[k] for k in ("alert_id", "type", "severity", "headline", "starts", "ends")} for r in found],
        "count": len(found),
    }


# ---- News (12.2) ------------------------------------------------------------------------------


def _words(columns: list[Column[Any]], query: str) -> list[Any]:
    """Every word of the query must appear (case-insensitively) in one of the columns."""
    return [or_(*(func.lower(c).contains(w, autoescape=True) for c in columns)) for w in query.lower().split()]


@tool(l2="12.2", app="news", mutating=False, network="internet")
def get_news_headlines(
    ctx: Ctx,
    category: NewsCategory = "top",
    query: Query | None = None,
    region: Annotated[str, Field(min_length=2, max_length=12)] | None = None,
    limit: Annotated[int, Field(ge=1, le=20)] = 5,
    since: DateTime | None = None,
) -> dict[str, Any]:
    """News headlines with summaries, newest first, by category, keywords, region or time.

    Args:
        category: top (top stories of every category) or one section; local is the user's home area.
        query: Words that must appear in the title or summary.
        region: Country code such as CN, US, GB, JP, or "global".
        limit: Maximum number of headlines.
        since: Only articles published at or after YYYY-MM-DDTHH:MM.
    """
    n = world_news.c
    q = select(world_news).where(n.published_at <= ctx.ts())
    q = q.where(n.top == 1) if category == "top" else q.where(n.category == category)
    if query:
        q = q.where(*_words([n.title, n.summary], query))
    if region:
        q = q.where(func.lower(n.region) == region.lower())
    if since:
        q = q.where(n.published_at >= since)
    found = rows(ctx.conn.execute(q.order_by(n.published_at.desc(), n.article_id).limit(limit)))
    keep = ("article_id", "title", "source", "category", "region", "published_at", "summary")
    return {"articles": [{k: r[k] for k in keep} for r in found], "count": len(found)}


_ARTICLE_TITLE = select(world_news.c.title).where(world_news.c.article_id == bindparam("article_id"))
_SAVED_FOLDER = select(saved_articles.c.folder).where(saved_articles.c.article_id == bindparam("article_id"))
_FOLDER_NAMED = select(saved_articles.c.folder).where(func.lower(saved_articles.c.folder) == bindparam("folder"))
_SAVE_ARTICLE = insert(saved_articles)


@tool(l2="12.2", app="news", mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.DUPLICATE_ENTITY))
def save_news_article(
    ctx: Ctx,
    article_id: Annotated[str, Field(min_length=1, max_length=40)],
    folder: Annotated[str, Field(min_length=1, max_length=60)] = "Read later",
) -> dict[str, Any]:
    """Bookmark a news article into a reading-list folder.

    Args:
        article_id: Id of the article, e.g. article_912.
        folder: Reading-list folder to save it in.
    """
    title = ctx.conn.execute(_ARTICLE_TITLE, {"article_id": article_id}).scalar()
    if title is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"no article {article_id!r}", field="article_id", hint="get_news_headlines"
        )
    saved = ctx.conn.execute(_SAVED_FOLDER, {"article_id": article_id}).scalar()
    if saved is not None:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY,
            f"{article_id} is already saved in {saved!r}",
            existing_id=article_id,
            folder=saved,
        )
    folder = ctx.conn.execute(_FOLDER_NAMED, {"folder": folder.lower()}).scalar() or folder
    ctx.conn.execute(
        _SAVE_ARTICLE, {"article_id": article_id, "folder": folder, "created_at": ctx.ts(), "updated_at": ctx.ts()}
    )
    return {"article_id": article_id, "title": title, "folder": folder}


# ---- Web Search & Q&A (12.3) ------------------------------------------------------------------

STOPWORDS = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "at",
        "by",
        "for",
        "from",
        "how",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "the",
        "to",
        "what",
        "when",
        "where",
        "which",
        "who",
        "with",
    }
)
FRESHNESS_DAYS = {"day": 1, "week": 7, "month": 31}


@tool(l2="12.3", app="browser", mutating=False, network="internet")
def web_search(
    ctx: Ctx,
    query: Query,
    num_results: Annotated[int, Field(ge=1, le=10)] = 5,
    site: Annotated[str, Field(min_length=3, max_length=80)] | None = None,
    freshness: Literal["any", "day", "week", "month"] = "any",
) -> dict[str, Any]:
    """Search the web; results are ranked by how well title and text match, with a snippet each.

    Args:
        query: Search words.
        num_results: Maximum number of results.
        site: Only pages of this site, e.g. "wikipedia.org".
        freshness: Only pages published within the last day, week or month.
    """
    d = world_web_docs.c
    q = select(world_web_docs).where(d.published_at <= ctx.ts())
    if site:
        q = q.where(func.lower(d.url).contains(site.lower().removeprefix("www."), autoescape=True))
    if freshness != "any":
        q = q.where(d.published_at >= (ctx.now - dt.timedelta(days=FRESHNESS_DAYS[freshness])).strftime(DT_FMT))
    terms = [t for t in re.findall(r"\w+", query.casefold()) if t not in STOPWORDS] or query.casefold().split()
    scored = []
    for doc in rows(ctx.conn.execute(q.order_by(d.published_at.desc(), d.doc_id))):  # ties: newest first
        title, body = doc["title"].casefold(), f"{doc['snippet']} {doc['content']}".casefold()
        score = sum(3 * (t in title) + (t in body) for t in terms)
        if score:
            scored.append((score, doc))
    scored.sort(key=lambda s: -s[0])  # stable: keeps the date order among equal scores
    results = [
        {k: doc[k] for k in ("doc_id", "title", "url", "snippet", "published_at")} for _, doc in scored[:num_results]
    ]
    return {"query": query, "results": results, "count": len(results)}


# ---- Translation & Dictionary (12.4) ----------------------------------------------------------


def _norm(text: str) -> str:
    """The lookup form of a phrase: case-folded, single spaces, no closing punctuation."""
    return " ".join(text.casefold().split()).rstrip(" .!?。！？")


def _detect(text: str) -> str:
    """The language of text not in the table, from its script."""
    for pattern, lang in (
        (r"[\u3040-\u30ff]", "ja"),
        (r"[\uac00-\ud7af]", "ko"),
        (r"[\u4e00-\u9fff]", "zh"),
        (r"[\u0400-\u04ff]", "ru"),
        (r"[\u0600-\u06ff]", "ar"),
        (r"[\u0900-\u097f]", "hi"),
    ):
        if re.search(pattern, text):
            return lang
    return "en"


def _translate_args(args: dict[str, Any]) -> str | None:
    """source_lang (or auto) and target_lang are supported languages: en, zh, ja, ko, es, fr, de, it, pt, ru, ar,
    hi."""
    for key in ("target_lang", "source_lang"):
        code = args.get(key)
        if code and code != "auto" and _lang(code) not in LANGUAGES:
            return f"{key}: unsupported language {code!r}; supported: {', '.join(sorted(LANGUAGES))}"
    return None


_ENGLISH_PHRASE = select(world_translations.c.text_key, world_translations.c.source_text).where(
    world_translations.c.text_key == bindparam("text_key")
)
# the English phrases with this translation; run in the two orders below
_ENGLISH_BY_TRANSLATION = select(
    world_translations.c.text_key,
    world_translations.c.source_text,
    world_translations.c.target_lang,
).where(world_translations.c.translation_key == bindparam("translation_key"))
_ENGLISH_BY_TRANSLATION_IN = _ENGLISH_BY_TRANSLATION.where(
    world_translations.c.target_lang == bindparam("target_lang")
).order_by(world_translations.c.text_key)
_ENGLISH_BY_TRANSLATION_ANY_LANG = _ENGLISH_BY_TRANSLATION.order_by(
    world_translations.c.target_lang, world_translations.c.text_key
)
_TRANSLATIONS = select(world_translations.c.formality, world_translations.c.translation).where(
    world_translations.c.text_key == bindparam("text_key"), world_translations.c.target_lang == bindparam("target_lang")
)


@tool(l2="12.4", app="translate", mutating=False, network="internet", check=_translate_args)
def translate_text(
    ctx: Ctx,
    text: Annotated[str, Field(min_length=1, max_length=2000)],
    target_lang: LangCode,
    source_lang: Annotated[str, Field(pattern=r"^(auto|[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*)$")] = "auto",
    formality: Literal["default", "formal", "informal"] = "default",
) -> dict[str, Any]:
    """Translate text between languages; text the offline phrase table lacks comes back marked as a fallback.

    Args:
        text: The text to translate.
        target_lang: Language to translate into (BCP-47, e.g. fr, zh-CN, ja).
        source_lang: Language of the text, or auto to detect it.
        formality: Register for languages that distinguish it (de, fr, es, ja, ko).
    """
    key, target = _norm(text), _lang(target_lang)
    given = _lang(source_lang) if source_lang != "auto" else None
    source = given or _detect(text)
    english: Any = None  # the table row of the English phrase this text is
    if source == "en":
        english = ctx.conn.execute(_ENGLISH_PHRASE, {"text_key": key}).first()
    if english is None:
        english = ctx.conn.execute(_ENGLISH_BY_TRANSLATION_IN, {"translation_key": key, "target_lang": source}).first()
        if english is None and given is None:  # the script guess was wrong: take any language that knows it
            english = ctx.conn.execute(_ENGLISH_BY_TRANSLATION_ANY_LANG, {"translation_key": key}).first()
        source = english.target_lang if english is not None else source
    out: dict[str, Any] = {"text": text, "source_lang": source, "target_lang": target_lang, "fallback": False}
    if source == target:
        return {**out, "translation": text, "note": "text is already in the target language"}
    if english is not None and target == "en":
        return {**out, "translation": english.source_text}
    if english is not None:
        found = rows(ctx.conn.execute(_TRANSLATIONS, {"text_key": english.text_key, "target_lang": target}))
        by_register = {r["formality"]: r["translation"] for r in found}
        if by_register:
            return {
                **out,
                "translation": by_register.get(formality, by_register.get("default", found[0]["translation"])),
            }
    return {
        **out,
        "translation": f"[{target}] {text}",
        "fallback": True,
        "note": "not in the offline phrase table: the text is returned untranslated",
    }


_DICTIONARY_ENTRY = select(world_dictionary.c.entry_json).where(
    world_dictionary.c.word == bindparam("word"), world_dictionary.c.lang == bindparam("lang")
)
_DICTIONARY_WORDS_LIKE = select(world_dictionary.c.word).where(
    world_dictionary.c.lang == bindparam("lang"), world_dictionary.c.word.like(bindparam("pattern"))
)


@tool(l2="12.4", app="translate", mutating=False, errors=(ErrorType.ENTITY_NOT_FOUND,))
def lookup_dictionary(
    ctx: Ctx,
    word: Annotated[str, Field(min_length=1, max_length=60)],
    lang: Annotated[str, Field(pattern=r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$")] = "en",
) -> dict[str, Any]:
    """Dictionary entry of a word: pronunciation, meanings with examples, and synonyms.

    Args:
        word: The word or short phrase.
        lang: Language of the word (en, zh, es, fr, de, ja).
    """
    key, code = " ".join(word.casefold().split()), _lang(lang)
    entry = ctx.conn.execute(_DICTIONARY_ENTRY, {"word": key, "lang": code}).scalar()
    if entry is None:
        near = sorted(ctx.conn.execute(_DICTIONARY_WORDS_LIKE, {"lang": code, "pattern": f"{key[:3]}%"}).scalars())
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"{word!r} is not in the {code} dictionary", field="word", suggestions=near[:5]
        )
    return {"word": key, "lang": code, **json.loads(entry)}


# ---- Calculator & Unit Conversion (12.5) ------------------------------------------------------

MAX_DIGITS = 1000  # an integer result may have at most this many digits
BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Mod: operator.mod,
}
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "sqrt": math.sqrt,
    "abs": abs,
    "round": lambda x, digits=0: round(x, _digits(digits)),
    "floor": math.floor,
    "ceil": math.ceil,
    "log": math.log,
    "ln": math.log,
    "log10": math.log10,
    "log2": math.log2,
    "exp": math.exp,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "min": min,
    "max": max,
}
CONSTANTS = {"pi": math.pi, "e": math.e}


def _digits(value: Any) -> int:
    """round()'s digit count, bounded (a huge negative count would build a huge power of ten)."""
    if not isinstance(value, int) or not -15 <= value <= 15:
        raise _CalcError("round() takes an integer number of digits between -15 and 15")
    return value


class _CalcError(ValueError):
    """An expression the calculator will not evaluate."""


def _power(base: Any, exponent: Any) -> Any:
    """``base ** exponent`` with the size of integer results bounded before computing them."""
    if (
        isinstance(base, int)
        and isinstance(exponent, int)
        and abs(base) > 1
        and exponent * math.log10(abs(base)) > MAX_DIGITS
    ):
        raise _CalcError(f"the result has more than {MAX_DIGITS} digits")
    result = base**exponent
    if isinstance(result, complex):
        raise _CalcError("the result is not a real number")
    return result


def _evaluate(node: ast.AST) -> Any:
    """Evaluate a parsed expression made only of numbers, arithmetic, pi/e and the listed functions."""
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.Name) and node.id in CONSTANTS:
        return CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        value = _evaluate(node.operand)
        return value if isinstance(node.op, ast.UAdd) else -value
    if isinstance(node, ast.BinOp) and (type(node.op) in BINARY or isinstance(node.op, ast.Pow)):
        left, right = _evaluate(node.left), _evaluate(node.right)
        result = _power(left, right) if isinstance(node.op, ast.Pow) else BINARY[type(node.op)](left, right)
        if isinstance(result, int) and result.bit_length() > MAX_DIGITS * 3.33:
            raise _CalcError(f"the result has more than {MAX_DIGITS} digits")
        return result
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in FUNCTIONS
        and not node.keywords
    ):
        return FUNCTIONS[node.func.id](*(_evaluate(a) for a in node.args))
    raise _CalcError(
        f"unsupported element {type(node).__name__}: use numbers, + - * / % ** ^, parentheses, "
        f"pi, e and {', '.join(sorted(FUNCTIONS))}"
    )


@tool(l2="12.5", app="utilities", mutating=False, errors=(ErrorType.INVALID_ARGUMENT_VALUE,))
def calculate(
    ctx: Ctx,
    expression: Annotated[str, Field(min_length=1, max_length=500)],
    precision: Annotated[int, Field(ge=0, le=10)] = 4,
) -> dict[str, Any]:
    """Evaluate an arithmetic expression exactly and safely (no code is run).

    Supports numbers, + - * / % and ** (or ^), parentheses, pi, e, and sqrt, abs, round, floor, ceil,
    log (natural, or log(x, base)), ln, log10, log2, exp, sin, cos, tan (radians), min, max.

    Args:
        expression: The expression, e.g. "(1299 * 0.85 + 40) / 3" or "sqrt(2)^2".
        precision: Decimal places of a non-integer result.
    """
    source = expression.replace("^", "**").replace("×", "*").replace("÷", "/")
    try:
        value = _evaluate(ast.parse(source.strip(), mode="eval"))
        if isinstance(value, float) and not math.isfinite(value):
            raise _CalcError("the result is not a finite number")
    except SyntaxError:
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE, f"cannot parse {expression!r}", fields=["expression"]
        ) from None
    except ZeroDivisionError:
        raise ToolError(ErrorType.INVALID_ARGUMENT_VALUE, "division by zero", fields=["expression"]) from None
    except (_CalcError, ValueError, TypeError, OverflowError, RecursionError, MemoryError) as exc:
        reason = str(exc) if isinstance(exc, _CalcError) else f"cannot evaluate: {exc or type(exc).__name__}"
        raise ToolError(ErrorType.INVALID_ARGUMENT_VALUE, reason, fields=["expression"]) from None
    if isinstance(value, float):
        value = round(value, precision)
        value = int(value) if value.is_integer() and abs(value) < 1e15 else value
    return {"expression": expression, "result": value}


# unit -> (dimension, factor to the dimension's base unit); temperature is affine and handled apart
UNITS: dict[str, tuple[str, float]] = {
    "m": ("length", 1),
    "km": ("length", 1000),
    "cm": ("length", 0.01),
    "mm": ("length", 0.001),
    "mi": ("length", 1609.344),
    "yd": ("length", 0.9144),
    "ft": ("length", 0.3048),
    "in": ("length", 0.0254),
    "nmi": ("length", 1852),
    "kg": ("mass", 1),
    "g": ("mass", 0.001),
    "mg": ("mass", 1e-6),
    "t": ("mass", 1000),
    "lb": ("mass", 0.45359237),
    "oz": ("mass", 0.028349523125),
    "st": ("mass", 6.35029318),
    "jin": ("mass", 0.5),
    "l": ("volume", 1),
    "ml": ("volume", 0.001),
    "m3": ("volume", 1000),
    "gal": ("volume", 3.785411784),
    "uk_gal": ("volume", 4.54609),
    "qt": ("volume", 0.946352946),
    "pt": ("volume", 0.473176473),
    "cup": ("volume", 0.2365882365),
    "fl_oz": ("volume", 0.0295735295625),
    "tbsp": ("volume", 0.01478676478125),
    "tsp": ("volume", 0.00492892159375),
    "m/s": ("speed", 1),
    "km/h": ("speed", 1 / 3.6),
    "mph": ("speed", 0.44704),
    "kn": ("speed", 1852 / 3600),
    "ft/s": ("speed", 0.3048),
    "bit": ("data", 0.125),
    "byte": ("data", 1),
    "kb": ("data", 1e3),
    "mb": ("data", 1e6),
    "gb": ("data", 1e9),
    "tb": ("data", 1e12),
    "kib": ("data", 1024),
    "mib": ("data", 1024**2),
    "gib": ("data", 1024**3),
    "tib": ("data", 1024**4),
    "m2": ("area", 1),
    "km2": ("area", 1e6),
    "cm2": ("area", 1e-4),
    "ha": ("area", 1e4),
    "acre": ("area", 4046.8564224),
    "ft2": ("area", 0.09290304),
    "mi2": ("area", 2589988.110336),
    "mu": ("area", 10000 / 15),
    "s": ("time", 1),
    "min": ("time", 60),
    "h": ("time", 3600),
    "day": ("time", 86400),
    "week": ("time", 604800),
    "c": ("temperature", 1),
    "f": ("temperature", 1),
    "k": ("temperature", 1),
}
UNIT_ALIASES = {
    "meter": "m",
    "metre": "m",
    "kilometer": "km",
    "kilometre": "km",
    "centimeter": "cm",
    "centimetre": "cm",
    "millimeter": "mm",
    "millimetre": "mm",
    "mile": "mi",
    "yard": "yd",
    "foot": "ft",
    "feet": "ft",
    "inch": "in",
    "inches": "in",
    "nautical mile": "nmi",
    "kilogram": "kg",
    "kilo": "kg",
    "gram": "g",
    "milligram": "mg",
    "tonne": "t",
    "ton": "t",
    "pound": "lb",
    "lbs": "lb",
    "ounce": "oz",
    "stone": "st",
    "斤": "jin",
    "liter": "l",
    "litre": "l",
    "milliliter": "ml",
    "millilitre": "ml",
    "cubic meter": "m3",
    "m³": "m3",
    "gallon": "gal",
    "us gallon": "gal",
    "imperial gallon": "uk_gal",
    "quart": "qt",
    "pint": "pt",
    "fluid ounce": "fl_oz",
    "fl oz": "fl_oz",
    "tablespoon": "tbsp",
    "teaspoon": "tsp",
    "kph": "km/h",
    "kmh": "km/h",
    "mps": "m/s",
    "knot": "kn",
    "kt": "kn",
    "bits": "bit",
    "b": "byte",
    "bytes": "byte",
    "kilobyte": "kb",
    "megabyte": "mb",
    "gigabyte": "gb",
    "terabyte": "tb",
    "square meter": "m2",
    "sqm": "m2",
    "m²": "m2",
    "sq m": "m2",
    "square kilometer": "km2",
    "km²": "km2",
    "hectare": "ha",
    "square foot": "ft2",
    "square feet": "ft2",
    "sq ft": "ft2",
    "ft²": "ft2",
    "square mile": "mi2",
    "亩": "mu",
    "second": "s",
    "sec": "s",
    "minute": "min",
    "hour": "h",
    "hr": "h",
    "days": "day",
    "weeks": "week",
    "celsius": "c",
    "°c": "c",
    "fahrenheit": "f",
    "°f": "f",
    "kelvin": "k",
}


def _unit(name: str) -> str | None:
    key = " ".join(name.casefold().split())
    key = UNIT_ALIASES.get(key, key)
    if key not in UNITS and key.endswith("s"):
        key = UNIT_ALIASES.get(key[:-1], key[:-1])
    return key if key in UNITS else None


def _conversion_args(args: dict[str, Any]) -> str | None:
    """from_unit and to_unit are known units of the same quantity; a temperature is not below absolute zero."""
    units = [_unit(args["from_unit"]), _unit(args["to_unit"])]
    for given, unit in zip((args["from_unit"], args["to_unit"]), units, strict=True):
        if unit is None:
            return f"unknown unit {given!r}"
    dims = [UNITS[u][0] for u in units if u]
    if dims[0] != dims[1]:
        return f"cannot convert {dims[0]} ({args['from_unit']}) to {dims[1]} ({args['to_unit']})"
    if dims[0] == "temperature" and _to_kelvin(args["value"], units[0] or "") < 0:
        return "the temperature is below absolute zero"
    return None


def _to_kelvin(value: float, unit: str) -> float:
    return {"c": value + 273.15, "f": (value - 32) * 5 / 9 + 273.15}.get(unit, value)


@tool(l2="12.5", app="utilities", mutating=False, check=_conversion_args)
def convert_units(
    ctx: Ctx,
    value: Annotated[float, Field(ge=-1e15, le=1e15)],
    from_unit: Annotated[str, Field(min_length=1, max_length=30)],
    to_unit: Annotated[str, Field(min_length=1, max_length=30)],
) -> dict[str, Any]:
    """Convert a quantity between units of length, mass, volume, temperature, speed, data, area or time.

    Args:
        value: The quantity to convert.
        from_unit: Its unit, e.g. km, mi, lb, kg, F, C, cup, ml, mph, GB, ha, acre.
        to_unit: The unit to convert into (same kind of quantity).
    """
    src, dst = _unit(from_unit) or "", _unit(to_unit) or ""
    dimension = UNITS[src][0]
    if dimension == "temperature":
        kelvin = _to_kelvin(value, src)
        result = {"c": kelvin - 273.15, "f": (kelvin - 273.15) * 9 / 5 + 32, "k": kelvin}[dst]
    else:
        result = value * UNITS[src][1] / UNITS[dst][1]
    rounded = float(f"{result:.6g}") if result else 0.0
    return {
        "value": value,
        "from_unit": src,
        "to_unit": dst,
        "dimension": dimension,
        "result": int(rounded) if rounded.is_integer() and abs(rounded) < 1e15 else rounded,
    }


# ---- Time Zones & Holidays (12.6) -------------------------------------------------------------


def _nth_weekday(year: int, month: int, weekday: int, n: int) -> dt.date:
    """The n-th given weekday (Mon=0) of a month; n=-1 is the last one."""
    if n > 0:
        first = dt.date(year, month, 1)
        return first + dt.timedelta(days=(weekday - first.weekday()) % 7 + 7 * (n - 1))
    last = dt.date(year + month // 12, month % 12 + 1, 1) - dt.timedelta(days=1)
    return last - dt.timedelta(days=(last.weekday() - weekday) % 7)


def _dst_window(rule: str, year: int, std_min: int) -> tuple[dt.datetime, dt.datetime]:
    """Start and end of daylight saving time in UTC (start > end: southern hemisphere)."""
    std = dt.timedelta(minutes=std_min)
    sunday = 6
    if rule == "us":
        return (
            dt.datetime.combine(_nth_weekday(year, 3, sunday, 2), dt.time(2)) - std,
            dt.datetime.combine(_nth_weekday(year, 11, sunday, 1), dt.time(1)) - std,
        )
    if rule == "eu":
        return (
            dt.datetime.combine(_nth_weekday(year, 3, sunday, -1), dt.time(1)),
            dt.datetime.combine(_nth_weekday(year, 10, sunday, -1), dt.time(1)),
        )
    start_month, start_n = (10, 1) if rule == "au" else (9, -1)
    return (
        dt.datetime.combine(_nth_weekday(year, start_month, sunday, start_n), dt.time(2)) - std,
        dt.datetime.combine(_nth_weekday(year, 4, sunday, 1), dt.time(2)) - std,
    )


def _offset(zone: dict[str, Any], utc: dt.datetime) -> int:
    """Minutes ahead of UTC in this zone at this UTC moment."""
    std = int(zone["utc_offset_min"])
    if zone["dst_rule"] == "none":
        return std
    start, end = _dst_window(zone["dst_rule"], utc.year, std)
    in_dst = start <= utc < end if start < end else (utc >= start or utc < end)
    return std + 60 * in_dst


def _to_utc(zone: dict[str, Any], local: dt.datetime) -> dt.datetime:
    for guess in (zone["utc_offset_min"] + 60, zone["utc_offset_min"]):
        utc = local - dt.timedelta(minutes=guess)
        if _offset(zone, utc) == guess:
            return utc
    return local - dt.timedelta(minutes=zone["utc_offset_min"])  # a skipped spring-forward hour


_ZONE_OF_CITY = select(world_timezones).where(func.lower(world_timezones.c.city) == bindparam("city"))
_ZONE_NAMED = (
    select(world_timezones).where(func.lower(world_timezones.c.tz) == bindparam("tz")).order_by(world_timezones.c.city)
)


def _zone_of(ctx: Ctx, location: str) -> dict[str, Any] | None:
    wanted = location.strip().casefold()
    found = ctx.conn.execute(_ZONE_OF_CITY, {"city": wanted}).first()
    found = found or ctx.conn.execute(_ZONE_NAMED, {"tz": wanted}).first()
    return dict(found._mapping) if found else None


def _fmt_offset(minutes: int) -> str:
    sign = "+" if minutes >= 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


_USER_TIMEZONE = select(user_profile.c.timezone)


@tool(l2="12.6", app="utilities", mutating=False, errors=(ErrorType.ENTITY_NOT_FOUND,))
def get_world_time(
    ctx: Ctx,
    location: Location,
    at: DateTime | None = None,
    at_is_location_time: bool = False,
) -> dict[str, Any]:
    """Current local time in a city or IANA time zone, or convert a time between it and the user's zone.

    Args:
        location: A city (Tokyo) or an IANA time zone (Asia/Tokyo).
        at: A time to convert, YYYY-MM-DDTHH:MM; by default in the user's own time zone.
        at_is_location_time: Set true when `at` is a local time at the location (converted to the user's zone).
    """
    zone = _zone_of(ctx, location)
    if zone is None:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"unknown city or time zone {location!r}", field="location")
    user_tz = ctx.conn.execute(_USER_TIMEZONE).scalar() or "UTC"
    mine = _zone_of(ctx, user_tz) or {"city": "UTC", "tz": "UTC", "utc_offset_min": 0, "dst_rule": "none"}
    moment = dt.datetime.strptime(at, DT_FMT) if at else ctx.now.replace(second=0, microsecond=0)
    utc = _to_utc(zone if at and at_is_location_time else mine, moment)
    there, here = _offset(zone, utc), _offset(mine, utc)
    local = utc + dt.timedelta(minutes=there)
    return {
        "location": zone["city"],
        "timezone": zone["tz"],
        "local_time": local.strftime(DT_FMT),
        "weekday": local.strftime("%A"),
        "utc_offset": _fmt_offset(there),
        "dst": there != zone["utc_offset_min"],
        "user_timezone": mine["tz"],
        "user_time": (utc + dt.timedelta(minutes=here)).strftime(DT_FMT),
        "hours_ahead_of_user": (there - here) / 60,
    }


_HOLIDAYS = (
    select(world_holidays.c.date, world_holidays.c.name)
    .where(
        world_holidays.c.country == bindparam("country"),
        world_holidays.c.date.like(bindparam("date_pattern")),
    )
    .order_by(world_holidays.c.date, world_holidays.c.name)
)
_HOLIDAY_COUNTRIES = select(world_holidays.c.country).distinct()
_HOLIDAY_DATES = select(world_holidays.c.date).distinct()


@tool(l2="12.6", app="utilities", mutating=False, errors=(ErrorType.ENTITY_NOT_FOUND,))
def get_holidays(
    ctx: Ctx,
    country: Annotated[str, Field(pattern=r"^[A-Za-z]{2}$")],
    year: Annotated[int, Field(ge=1900, le=2100)],
    month: Annotated[int, Field(ge=1, le=12)] | None = None,
) -> dict[str, Any]:
    """Public holidays of a country in a year (optionally one month), in date order.

    Args:
        country: ISO 3166 two-letter country code, e.g. CN, US, JP, GB.
        year: The year, e.g. 2025.
        month: Only this month (1-12).
    """
    code = country.upper()
    found = rows(ctx.conn.execute(_HOLIDAYS, {"country": code, "date_pattern": f"{year}-%"}))
    if not found:
        known = sorted(ctx.conn.execute(_HOLIDAY_COUNTRIES).scalars())
        years = sorted({d[:4] for d in ctx.conn.execute(_HOLIDAY_DATES).scalars()})
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no holiday calendar for {code} in {year}",
            field="country",
            countries=known,
            years=years,
        )
    if month:
        found = [r for r in found if int(r["date"][5:7]) == month]
    return {"country": code, "year": year, "month": month, "holidays": found, "count": len(found)}


# ---- World data -------------------------------------------------------------------------------

# city -> (January mean C, July mean C, daily range C, rainy-day chance Jan, Jul, typical AQI)
CLIMATE = {
    "Beijing": (-3, 27, 11, 0.05, 0.45, 95),
    "Shanghai": (5, 29, 7, 0.3, 0.5, 60),
    "San Francisco": (11, 17, 8, 0.4, 0.03, 30),
    "Palo Alto": (10, 20, 13, 0.35, 0.02, 28),
    "London": (5, 18, 8, 0.5, 0.4, 35),
    "Tokyo": (5, 27, 8, 0.2, 0.45, 40),
    "Berlin": (0, 19, 9, 0.4, 0.4, 30),
    "Madrid": (6, 26, 13, 0.2, 0.05, 35),
    "Seoul": (-2, 25, 9, 0.1, 0.55, 70),
    "Toronto": (-6, 22, 10, 0.4, 0.35, 30),
    "Sydney": (23, 13, 8, 0.35, 0.35, 25),
    "Mumbai": (24, 28, 6, 0.0, 0.9, 110),
}
CLEAR = ["sunny", "sunny", "partly_cloudy", "partly_cloudy", "cloudy"]


def _season(jan: float, jul: float, day: dt.date) -> float:
    """Interpolate between the January and July values along the year."""
    phase = 2 * math.pi * (day.timetuple().tm_yday - 15) / 365.25
    return (jan + jul) / 2 + (jan - jul) / 2 * math.cos(phase)


def _weather_rows(rng: random.Random, today: dt.date, home_city: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for city in sorted(CLIMATE):
        jan, jul, spread, wet_jan, wet_jul, aqi0 = CLIMATE[city]
        drift = 0.0
        for offset in range(-FORECAST_PAST_DAYS, FORECAST_DAYS + 1):
            day = today + dt.timedelta(days=offset)
            drift = 0.6 * drift + rng.gauss(0, 1.6)
            mean = _season(jan, jul, day) + drift
            rainy = rng.random() < _season(wet_jan, wet_jul, day)
            precip = rng.randint(60, 95) if rainy else rng.randint(0, 30)
            wet_morning = city == home_city and offset == 1  # tomorrow at home: rain from 06:00 (tasks rely on it)
            if wet_morning:
                rainy, precip = True, 85  # enough for a heavy-rain alert
            if rainy:
                condition = "snow" if mean < 1 else ("thunderstorm" if mean > 24 and rng.random() < 0.3 else "rain")
            else:
                condition = "fog" if city == "San Francisco" and rng.random() < 0.25 else rng.choice(CLEAR)
            high, low = round(mean + spread / 2, 1), round(mean - spread / 2, 1)
            wind, humidity = rng.randint(5, 30) + 10 * rainy, min(98, rng.randint(35, 70) + 20 * rainy)
            aqi = max(10, round(aqi0 * rng.uniform(0.5, 1.5) * (0.6 if rainy else 1)))
            out.append(
                {
                    "location_key": city,
                    "date": day.isoformat(),
                    "hour": None,
                    "condition": condition,
                    "temp_c": round(mean, 1),
                    "high_c": high,
                    "low_c": low,
                    "precip_pct": precip,
                    "wind_kph": wind,
                    "humidity_pct": humidity,
                    "aqi": aqi,
                }
            )
            if 0 <= offset < HOURLY_DAYS:
                out += _hourly(rng, out[-1], 6 if wet_morning else rng.randint(0, 18))
    for i, r in enumerate(out, start=1):
        r["weather_id"] = i
    return out


def _hourly(rng: random.Random, day: dict[str, Any], rain_from: int) -> list[dict[str, Any]]:
    """Hour-by-hour rows consistent with a day's summary: coolest near 05:00, warmest near 15:00."""
    wet = day["condition"] in ("rain", "thunderstorm", "snow")
    rain_hours = range(rain_from, rain_from + rng.randint(3, 6)) if wet else range(0)
    hours = []
    for hour in range(24):
        warmth = (1 + math.cos(2 * math.pi * (hour - 15) / 24)) / 2
        raining = hour in rain_hours
        condition = (
            day["condition"]
            if raining
            else ("clear" if hour < 6 or hour > 19 else "cloudy" if wet else day["condition"])
        )
        hours.append(
            {
                "location_key": day["location_key"],
                "date": day["date"],
                "hour": hour,
                "condition": condition,
                "temp_c": round(day["low_c"] + (day["high_c"] - day["low_c"]) * warmth, 1),
                "high_c": None,
                "low_c": None,
                "precip_pct": rng.randint(70, 95) if raining else rng.randint(0, 25 if wet else 10),
                "wind_kph": max(0, day["wind_kph"] + rng.randint(-5, 5)),
                "humidity_pct": day["humidity_pct"],
                "aqi": day["aqi"],
            }
        )
    return hours


def _alert_rows(weather: list[dict[str, Any]], today: dt.date) -> list[dict[str, Any]]:
    """Alerts derived from the daily forecast of the coming days."""
    out = []
    for day in (r for r in weather if r["hour"] is None):
        offset = (dt.date.fromisoformat(day["date"]) - today).days
        if not -1 <= offset <= 3:
            continue
        city, date = day["location_key"], day["date"]
        found = []
        if day["high_c"] >= 33:
            found.append(
                (
                    "heat",
                    "severe" if day["high_c"] >= 37 else "moderate",
                    f"High temperature warning: up to {day['high_c']:.0f} C",
                )
            )
        if day["low_c"] <= -8:
            found.append(("cold", "moderate", f"Cold wave: lows near {day['low_c']:.0f} C"))
        if day["precip_pct"] >= 80:
            kind = "typhoon" if city in ("Shanghai", "Tokyo") and date[5:7] in ("07", "08", "09") else "storm"
            found.append(
                (
                    kind,
                    "severe" if kind == "typhoon" else "moderate",
                    "Typhoon approaching: strong winds and heavy rain"
                    if kind == "typhoon"
                    else "Heavy rain and thunderstorm warning",
                )
            )
            if day["precip_pct"] >= 90:
                found.append(("flood", "minor", "Flash flooding possible in low-lying areas"))
        if day["aqi"] >= 130:
            found.append(
                (
                    "air_quality",
                    "severe" if day["aqi"] >= 200 else "moderate",
                    f"Unhealthy air quality (AQI {day['aqi']})",
                )
            )
        for kind, severity, headline in found:
            out.append(
                {
                    "location_key": city,
                    "type": kind,
                    "severity": severity,
                    "headline": headline,
                    "starts": f"{date}T06:00",
                    "ends": f"{date}T22:00",
                }
            )
    for i, r in enumerate(out, start=1):
        r["alert_id"] = f"alert_{i:03d}"
    return out


# Outlets that cover a subject worldwide; a story from one country is reported by that country's outlets
# (``locales.Country.outlets``), a story from nowhere in particular by these or ``locales.GLOBAL_OUTLETS``.
SPECIALIST_OUTLETS = {"sports": "ESPN", "entertainment": "Variety", "science": "Nature News", "tech": "The Verge"}
COMPANIES = [
    "Acme Corp",
    "Globex",
    "Initech",
    "Umbrella Labs",
    "Stark Industries",
    "Nimbus Cloud",
    "Orion Motors",
    "Helix Bio",
]
# category -> [(title template, summary template, range of {n})]; {company}, {city}, {team}, {country} filled in
NEWS: dict[str, list[tuple[str, str, tuple[int, int]]]] = {
    "world": [
        (
            "Leaders meet in {city} for climate summit",
            "Delegations from {n} countries gathered to negotiate new emission targets and a fund for adaptation.",
            (60, 190),
        ),
        (
            "Ceasefire talks resume with {country} as mediator",
            "Negotiators returned to the table after a {n}-week pause; both sides signalled cautious optimism.",
            (2, 6),
        ),
        (
            "Record heat grips southern Europe",
            "Temperatures above {n} C strained power grids and prompted health warnings in several countries.",
            (40, 46),
        ),
        (
            "Election in {country} heads to a run-off",
            "No candidate passed the 50% threshold; a second round is scheduled in {n} weeks.",
            (2, 4),
        ),
    ],
    "business": [
        (
            "{company} shares jump {n}% after earnings beat",
            "Quarterly revenue rose faster than analysts expected, driven by strong demand in Asia.",
            (4, 18),
        ),
        (
            "Central bank holds rates steady",
            "Policymakers kept the benchmark rate unchanged and signalled {n} possible cuts later in the year.",
            (1, 3),
        ),
        (
            "{company} announces {n},000 job cuts",
            "The company said the restructuring would save costs as it shifts investment to AI.",
            (2, 12),
        ),
        (
            "Oil prices fall for a {n}th straight day",
            "Rising inventories and weaker demand forecasts weighed on crude futures.",
            (4, 9),
        ),
    ],
    "tech": [
        (
            "{company} unveils a foldable phone with {n}-hour battery",
            "The device goes on sale next month; reviewers praised the hinge but questioned the price.",
            (30, 48),
        ),
        (
            "New AI model from {company} tops coding benchmarks",
            "The model solved {n}% of tasks in a popular programming benchmark, the company said.",
            (62, 91),
        ),
        (
            "Major outage hits {company} cloud services",
            "Customers reported errors for about {n} hours before service was restored.",
            (2, 9),
        ),
        (
            "Smart-home standard Matter adds support for {n} new device types",
            "Robot vacuums and EV chargers are among the newly covered categories.",
            (3, 12),
        ),
    ],
    "sports": [
        (
            "{team} win the derby {n}-1",
            "A late goal sealed the victory and moved the club to the top of the table.",
            (2, 4),
        ),
        (
            "Marathon record falls in {city}",
            "The winner finished {n} seconds under the previous course record in cool conditions.",
            (5, 80),
        ),
        ("{team} sign star striker on a {n}-year deal", "The transfer is one of the largest of the window.", (3, 5)),
        (
            "Tennis: top seed knocked out in the first round",
            "The upset came after a {n}-set battle lasting over four hours.",
            (5, 5),
        ),
    ],
    "entertainment": [
        (
            "Sci-fi sequel tops the box office with ${n}M",
            "The film beat expectations in its opening weekend.",
            (80, 240),
        ),
        ("Streaming series renewed for a {n}th season", "The show's finale drew its biggest audience yet.", (4, 8)),
        (
            "Pop star announces world tour stop in {city}",
            "Tickets go on sale next Friday; {n} dates are planned in Asia.",
            (6, 20),
        ),
        ("Film festival in {city} names its jury", "This year's lineup includes {n} debut features.", (8, 25)),
    ],
    "science": [
        (
            "Astronomers spot water vapour on a distant exoplanet",
            "The planet, {n} light-years away, orbits in its star's habitable zone.",
            (40, 700),
        ),
        (
            "Researchers map {n} new deep-sea species",
            "The expedition used autonomous submarines to survey a trench in the Pacific.",
            (12, 90),
        ),
        (
            "Fusion experiment sustains plasma for {n} seconds",
            "Scientists called it a milestone toward practical fusion power.",
            (20, 400),
        ),
        (
            "Study links sleep quality to memory in older adults",
            "Participants who slept at least {n} hours scored better on recall tests.",
            (7, 8),
        ),
    ],
    "health": [
        (
            "Flu season arrives early, doctors urge vaccination",
            "Clinics report {n}% more cases than at this point last year.",
            (15, 60),
        ),
        (
            "New guidelines lower the blood pressure target",
            "The update could affect about {n} million adults.",
            (5, 40),
        ),
        (
            "Walking {n},000 steps a day linked to longer life",
            "A large study tracked participants for ten years.",
            (6, 9),
        ),
        (
            "Hospitals in {city} expand telehealth services",
            "Patients can now book {n}-minute video visits for routine check-ups.",
            (15, 30),
        ),
    ],
    "local": [
        ("{city} metro opens new line to the airport", "Trains run every {n} minutes from 6:00 to 23:00.", (4, 10)),
        (
            "{city} farmers market moves to weekends",
            "More than {n} stalls will open on Saturday and Sunday mornings.",
            (30, 120),
        ),
        ("Road works close a main street in {city}", "Expect detours for {n} weeks; buses are rerouted.", (2, 8)),
        ("{city} announces free museum Sundays", "{n} museums take part in the scheme starting next month.", (5, 30)),
    ],
}
TEAMS = ["City FC", "United", "Rovers", "Dragons", "Tigers", "Harbor SC"]
FAR_COUNTRIES = ["Norway", "Qatar", "Brazil", "Kenya", "Indonesia", "Chile"]  # named in world news
REGIONS = ["global", "global", "US", "CN", "GB", "JP", "DE", "IN"]


def _news_rows(rng: random.Random, now: dt.datetime, home_city: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    while len(out) < 112:
        category = rng.choice(sorted(NEWS))
        title_t, summary_t, (lo, hi) = rng.choice(NEWS[category])
        fill = {
            "company": rng.choice(COMPANIES),
            "n": rng.randint(lo, hi),
            "team": rng.choice(TEAMS),
            "country": rng.choice(FAR_COUNTRIES),
            "city": home_city if category == "local" else rng.choice(sorted(CITY_CENTRES)),
        }
        # where the story happens decides its region and who reports it
        region = CITIES[str(fill["city"])].country if "{city}" in title_t else rng.choice(REGIONS)
        if region in COUNTRIES:
            source = rng.choice(COUNTRIES[region].outlets)
        else:
            specialist = (SPECIALIST_OUTLETS[category],) if category in SPECIALIST_OUTLETS else ()
            source = rng.choice(GLOBAL_OUTLETS + specialist)
        title = title_t.format(**fill)
        story = re.sub(r"\d[\d,.]*", "#", title)  # one story per template fill, whatever its figure
        if story in seen:
            continue
        seen.add(story)
        published = now - dt.timedelta(minutes=rng.randint(20, 10 * 24 * 60))
        out.append(
            {
                "title": title,
                "category": category,
                "summary": summary_t.format(**fill),
                "region": region,
                "source": source,
                "published_at": published.strftime(DT_FMT),
            }
        )
    out.sort(key=lambda r: (r["published_at"], r["title"]))
    for i, r in enumerate(out, start=1):
        r["article_id"] = f"article_{i:03d}"
        r["top"] = int(rng.random() < 0.3 or i > len(out) - 6)  # the newest stories always lead
    return out


# (site, slug, title, snippet, content, days ago); {city} is a persona city
WEB_DOCS = [
    (
        "wikipedia.org",
        "wiki/Time_zone",
        "Time zone - Wikipedia",
        "A time zone is an area which observes a uniform standard time for legal, commercial and social purposes.",
        "Most time zones are offsets of whole hours from "
        "UTC; some use 30 or 45 minutes. Daylight saving time shifts clocks by one hour in summer.",
        400,
    ),
    (
        "wikipedia.org",
        "wiki/Great_Wall_of_China",
        "Great Wall of China - Wikipedia",
        "The Great Wall of China is a "
        "series of fortifications across ancient China's northern borders, 21,196 km long in all.",
        "The best-known sections near Beijing are Badaling and Mutianyu, about 70 km from the city centre.",
        300,
    ),
    (
        "wikipedia.org",
        "wiki/Mount_Fuji",
        "Mount Fuji - Wikipedia",
        "Mount Fuji is an active stratovolcano on Honshu, Japan, 3,776 m high.",
        "The official climbing season runs from early July to early September.",
        500,
    ),
    (
        "travel.state.example",
        "passport/renew",
        "How to renew your passport",
        "Renew by mail or online if your passport was issued within the last 15 years.",
        "Routine processing takes 6-8 weeks; expedited service takes "
        "2-3 weeks for an extra fee. You need a recent photo and your old passport.",
        45,
    ),
    (
        "timeanddate.example",
        "worldclock/meeting",
        "Meeting planner across time zones",
        "Find a good time for a call between cities in different time zones.",
        "Enter the cities; the planner shows working hours that overlap.",
        90,
    ),
    (
        "healthline.example",
        "nutrition/green-tea",
        "Health benefits of green tea",
        "Green tea contains antioxidants and a small amount of caffeine.",
        "Two to three cups a day are considered safe for most adults.",
        200,
    ),
    (
        "healthline.example",
        "fitness/10000-steps",
        "Do you really need 10,000 steps a day?",
        "Benefits start well below 10,000 steps; 7,000-8,000 already lowers mortality risk.",
        "Pace matters too: brisk walking adds benefits at the same step count.",
        60,
    ),
    (
        "python.example.org",
        "downloads/release/3.13",
        "Python 3.13 release notes",
        "Python 3.13 adds an improved interactive interpreter and experimental free-threaded builds.",
        "It also includes an experimental JIT compiler and removes several deprecated modules.",
        240,
    ),
    (
        "recipes.example",
        "tomato-egg-stir-fry",
        "Tomato and egg stir-fry (10 minutes)",
        "A classic home-style dish: 4 eggs, 3 tomatoes, spring onion, a pinch of sugar.",
        "Scramble the eggs first, set aside, cook the tomatoes until soft, then fold the eggs back in.",
        120,
    ),
    (
        "recipes.example",
        "overnight-oats",
        "Easy overnight oats",
        "Oats soaked overnight in milk with fruit make a quick breakfast.",
        "Use a 1:1 ratio of oats to milk; add yoghurt, chia seeds and berries.",
        30,
    ),
    (
        "techreview.example",
        "best-robot-vacuums-2025",
        "The best robot vacuums of 2025",
        "Our picks for pet hair, mopping and small apartments.",
        "Look for self-emptying docks and room mapping; empty the bin weekly.",
        20,
    ),
    (
        "techreview.example",
        "ev-winter-range",
        "How cold weather affects EV range",
        "Range can drop 20-30% in freezing weather.",
        "Pre-conditioning the cabin while plugged in saves battery on the road.",
        100,
    ),
    (
        "support.example.com",
        "phone/battery-saver",
        "What battery saver mode turns off",
        "Battery saver limits background activity, location and visual effects.",
        "It can be scheduled to start at a battery level.",
        15,
    ),
    (
        "consumer.example",
        "flight-delay-compensation",
        "Flight delay compensation: your rights",
        "Passengers may be owed compensation for delays over 3 hours on many routes.",
        "Keep your boarding pass and receipts; claim with the airline first.",
        75,
    ),
    (
        "weather.example",
        "umbrella-or-not",
        "When should you take an umbrella?",
        "Meteorologists suggest carrying one when the chance of rain is above 40%.",
        "A chance of rain means the probability of measurable rain at any point in the area.",
        5,
    ),
    (
        "news.example",
        "world/climate-summit",
        "Climate summit opens with call for faster action",
        "Delegates gathered for two weeks of talks on emission targets.",
        "Observers expect a deal on adaptation finance.",
        1,
    ),
    (
        "finance.example",
        "personal/budget-50-30-20",
        "The 50/30/20 budgeting rule",
        "Spend 50% on needs, 30% on wants and save 20%.",
        "Track spending for a month before setting category limits.",
        180,
    ),
    (
        "language.example",
        "learn/japanese-greetings",
        "Japanese greetings for travellers",
        "Konnichiwa (hello), arigatou gozaimasu (thank you), sumimasen (excuse me).",
        "Bow slightly when greeting; use -san after names.",
        150,
    ),
    (
        "museum.example",
        "visit/{slug_city}/museums",
        "Top museums in {city}",
        "The best museums in {city}, with opening hours and ticket tips.",
        "Most museums in {city} close on Mondays; book popular exhibitions online.",
        40,
    ),
    (
        "transit.example",
        "{slug_city}/metro-hours",
        "{city} metro: hours and fares",
        "The {city} metro runs from about 5:30 to 23:00; fares depend on distance.",
        "Contactless cards and phone wallets work at the gates.",
        25,
    ),
    (
        "outdoors.example",
        "{slug_city}/hiking",
        "Best day hikes near {city}",
        "Five trails within two hours of {city}, from easy walks to steep ridges.",
        "Start early in summer and bring at least 2 litres of water.",
        70,
    ),
    (
        "food.example",
        "{slug_city}/brunch",
        "Where to eat brunch in {city} this weekend",
        "Our favourite brunch spots in {city}, with prices.",
        "Most places do not take bookings; arrive before 10:00.",
        3,
    ),
    (
        "events.example",
        "{slug_city}/this-week",
        "Things to do in {city} this week",
        "Concerts, markets and exhibitions in {city} over the next seven days.",
        "Several outdoor events may move indoors if it rains.",
        0,
    ),
]


def _web_rows(rng: random.Random, now: dt.datetime, cities: list[str]) -> list[dict[str, Any]]:
    out = []
    for site, slug, title, snippet, content, days in WEB_DOCS:
        for city in cities if "{city}" in title else [""]:
            fill = {"city": city, "slug_city": city.lower().replace(" ", "-")}
            published = now - dt.timedelta(days=days, hours=rng.randint(1, 12))
            out.append(
                {
                    "url": f"https://{site}/{slug.format(**fill)}",
                    "title": title.format(**fill),
                    "snippet": snippet.format(**fill),
                    "content": content.format(**fill),
                    "published_at": published.strftime(DT_FMT),
                }
            )
    for i, r in enumerate(out, start=1):
        r["doc_id"] = f"web_{i:03d}"
    return out


# English phrase -> {language: translation}; the "How are you?" entry has registers
PHRASES: dict[str, dict[str, str]] = {
    "Hello": {"zh": "你好", "ja": "こんにちは", "ko": "안녕하세요", "es": "Hola", "fr": "Bonjour", "de": "Hallo"},
    "Thank you": {
        "zh": "谢谢",
        "ja": "ありがとうございます",
        "ko": "감사합니다",
        "es": "Gracias",
        "fr": "Merci",
        "de": "Danke",
    },
    "Good morning": {
        "zh": "早上好",
        "ja": "おはようございます",
        "ko": "좋은 아침입니다",
        "es": "Buenos días",
        "fr": "Bonjour",
        "de": "Guten Morgen",
    },
    "Goodbye": {
        "zh": "再见",
        "ja": "さようなら",
        "ko": "안녕히 가세요",
        "es": "Adiós",
        "fr": "Au revoir",
        "de": "Auf Wiedersehen",
    },
    "Excuse me": {
        "zh": "打扰一下",
        "ja": "すみません",
        "ko": "실례합니다",
        "es": "Disculpe",
        "fr": "Excusez-moi",
        "de": "Entschuldigung",
    },
    "Where is the train station?": {
        "zh": "火车站在哪里？",
        "ja": "駅はどこですか？",
        "ko": "기차역이 어디에 있어요?",
        "es": "¿Dónde está la estación de tren?",
        "fr": "Où est la gare ?",
        "de": "Wo ist der Bahnhof?",
    },
    "Where is the bathroom?": {
        "zh": "洗手间在哪里？",
        "ja": "トイレはどこですか？",
        "ko": "화장실이 어디예요?",
        "es": "¿Dónde está el baño?",
        "fr": "Où sont les toilettes ?",
        "de": "Wo ist die Toilette?",
    },
    "How much does this cost?": {
        "zh": "这个多少钱？",
        "ja": "これはいくらですか？",
        "ko": "이거 얼마예요?",
        "es": "¿Cuánto cuesta esto?",
        "fr": "Combien ça coûte ?",
        "de": "Wie viel kostet das?",
    },
    "I would like to make a reservation.": {
        "zh": "我想预订。",
        "ja": "予約をお願いしたいです。",
        "ko": "예약하고 싶어요.",
        "es": "Me gustaría hacer una reserva.",
        "fr": "Je voudrais faire une réservation.",
        "de": "Ich möchte eine Reservierung machen.",
    },
    "Can you help me?": {
        "zh": "你能帮我吗？",
        "ja": "手伝っていただけますか？",
        "ko": "도와주실 수 있어요?",
        "es": "¿Puede ayudarme?",
        "fr": "Pouvez-vous m'aider ?",
        "de": "Können Sie mir helfen?",
    },
    "I am allergic to peanuts.": {
        "zh": "我对花生过敏。",
        "ja": "ピーナッツアレルギーがあります。",
        "ko": "저는 땅콩 알레르기가 있어요.",
        "es": "Soy alérgico a los cacahuetes.",
        "fr": "Je suis allergique aux cacahuètes.",
        "de": "Ich bin allergisch gegen Erdnüsse.",
    },
    "The bill, please.": {
        "zh": "请结账。",
        "ja": "お会計をお願いします。",
        "ko": "계산서 주세요.",
        "es": "La cuenta, por favor.",
        "fr": "L'addition, s'il vous plaît.",
        "de": "Die Rechnung, bitte.",
    },
    "I will arrive late tonight.": {
        "zh": "我今晚会晚到。",
        "ja": "今夜は遅れて到着します。",
        "ko": "오늘 밤 늦게 도착할 거예요.",
        "es": "Llegaré tarde esta noche.",
        "fr": "J'arriverai tard ce soir.",
        "de": "Ich komme heute Abend spät an.",
    },
    "Do you speak English?": {
        "zh": "你会说英语吗？",
        "ja": "英語を話せますか？",
        "ko": "영어 할 줄 아세요?",
        "es": "¿Habla inglés?",
        "fr": "Parlez-vous anglais ?",
        "de": "Sprechen Sie Englisch?",
    },
    "Happy birthday": {
        "zh": "生日快乐",
        "ja": "お誕生日おめでとうございます",
        "ko": "생일 축하합니다",
        "es": "Feliz cumpleaños",
        "fr": "Joyeux anniversaire",
        "de": "Alles Gute zum Geburtstag",
    },
    "Please call a taxi.": {
        "zh": "请帮我叫一辆出租车。",
        "ja": "タクシーを呼んでください。",
        "ko": "택시를 불러 주세요.",
        "es": "Por favor, llame a un taxi.",
        "fr": "Appelez un taxi, s'il vous plaît.",
        "de": "Bitte rufen Sie ein Taxi.",
    },
    "What time does it open?": {
        "zh": "几点开门？",
        "ja": "何時に開きますか？",
        "ko": "몇 시에 열어요?",
        "es": "¿A qué hora abre?",
        "fr": "À quelle heure ça ouvre ?",
        "de": "Wann öffnet es?",
    },
    "Water": {"zh": "水", "ja": "水", "ko": "물", "es": "Agua", "fr": "Eau", "de": "Wasser"},
    "Vegetarian": {
        "zh": "素食",
        "ja": "ベジタリアン",
        "ko": "채식주의자",
        "es": "Vegetariano",
        "fr": "Végétarien",
        "de": "Vegetarisch",
    },
    "How are you?": {
        "zh": "你好吗？",
        "ja": "お元気ですか？",
        "ko": "어떻게 지내세요?",
        "es": "¿Cómo estás?",
        "fr": "Comment allez-vous ?",
        "de": "Wie geht es dir?",
    },
    "Kung Pao chicken": {"zh": "宫保鸡丁"},
    "Mapo tofu": {"zh": "麻婆豆腐"},
    "Soup dumplings": {"zh": "小笼包"},
    "Peking duck": {"zh": "北京烤鸭"},
    "Chicken and egg rice bowl": {"ja": "親子丼"},
    "Ramen": {"ja": "ラーメン"},
}
REGISTERS = {
    ("How are you?", "es"): {"formal": "¿Cómo está usted?", "informal": "¿Qué tal?"},
    ("How are you?", "fr"): {"formal": "Comment allez-vous ?", "informal": "Comment ça va ?"},
    ("How are you?", "de"): {"formal": "Wie geht es Ihnen?", "informal": "Wie geht's?"},
}


def _translation_rows() -> list[dict[str, Any]]:
    out = []
    for english, by_lang in PHRASES.items():
        for lang, text in sorted(by_lang.items()):
            variants = {"default": text, **REGISTERS.get((english, lang), {})}
            out += [
                {
                    "text_key": _norm(english),
                    "target_lang": lang,
                    "formality": register,
                    "source_text": english,
                    "translation": value,
                    "translation_key": _norm(value),
                }
                for register, value in variants.items()
            ]
    return out


def _sense(pos: str, definition: str, example: str) -> dict[str, str]:
    return {"part_of_speech": pos, "definition": definition, "example": example}


# (word, lang, pronunciation, [(part of speech, definition, example)], synonyms)
DICTIONARY: list[tuple[str, str, str, list[tuple[str, str, str]], list[str]]] = [
    (
        "serendipity",
        "en",
        "/ˌserənˈdɪpəti/",
        [
            (
                "noun",
                "The luck of finding something good without looking for it.",
                "Meeting her at the station was pure serendipity.",
            )
        ],
        ["luck", "chance"],
    ),
    (
        "ephemeral",
        "en",
        "/ɪˈfemərəl/",
        [("adjective", "Lasting for a very short time.", "Fame on social media is often ephemeral.")],
        ["fleeting", "transient"],
    ),
    (
        "ubiquitous",
        "en",
        "/juːˈbɪkwɪtəs/",
        [("adjective", "Present or found everywhere.", "Smartphones have become ubiquitous.")],
        ["omnipresent", "pervasive"],
    ),
    (
        "itinerary",
        "en",
        "/aɪˈtɪnərəri/",
        [("noun", "A planned route or schedule of a journey.", "Our itinerary includes two days in Kyoto.")],
        ["schedule", "route"],
    ),
    (
        "reservation",
        "en",
        "/ˌrezərˈveɪʃən/",
        [
            ("noun", "An arrangement to have a table, room or seat kept for you.", "I made a reservation for 7 pm."),
            ("noun", "A doubt about something.", "She had reservations about the plan."),
        ],
        ["booking", "doubt"],
    ),
    (
        "forecast",
        "en",
        "/ˈfɔːrkæst/",
        [
            (
                "noun",
                "A statement of what is expected to happen, especially the weather.",
                "The forecast says rain tomorrow.",
            ),
            ("verb", "To predict a future event.", "Economists forecast slower growth."),
        ],
        ["prediction", "outlook"],
    ),
    (
        "commute",
        "en",
        "/kəˈmjuːt/",
        [
            ("verb", "To travel regularly between home and work.", "He commutes by train."),
            ("noun", "The regular journey to and from work.", "My commute is 40 minutes."),
        ],
        ["journey", "travel"],
    ),
    (
        "deadline",
        "en",
        "/ˈdedlaɪn/",
        [("noun", "The latest time by which something must be done.", "The deadline for the report is Friday.")],
        ["due date", "time limit"],
    ),
    (
        "agenda",
        "en",
        "/əˈdʒendə/",
        [("noun", "A list of items to be discussed at a meeting.", "The budget is first on the agenda.")],
        ["schedule", "programme"],
    ),
    (
        "resilient",
        "en",
        "/rɪˈzɪliənt/",
        [("adjective", "Able to recover quickly from difficulties.", "Children are remarkably resilient.")],
        ["tough", "hardy"],
    ),
    (
        "meticulous",
        "en",
        "/məˈtɪkjələs/",
        [("adjective", "Showing great attention to detail.", "She keeps meticulous records.")],
        ["careful", "thorough"],
    ),
    (
        "pragmatic",
        "en",
        "/præɡˈmætɪk/",
        [("adjective", "Dealing with things sensibly and realistically.", "We need a pragmatic solution.")],
        ["practical", "realistic"],
    ),
    (
        "eloquent",
        "en",
        "/ˈeləkwənt/",
        [("adjective", "Fluent and persuasive in speaking or writing.", "She gave an eloquent speech.")],
        ["articulate", "expressive"],
    ),
    (
        "candid",
        "en",
        "/ˈkændɪd/",
        [("adjective", "Truthful and straightforward; frank.", "Thank you for your candid feedback.")],
        ["frank", "honest"],
    ),
    (
        "ambiguous",
        "en",
        "/æmˈbɪɡjuəs/",
        [("adjective", "Open to more than one interpretation.", "The instructions were ambiguous.")],
        ["unclear", "vague"],
    ),
    (
        "procrastinate",
        "en",
        "/prəˈkræstɪneɪt/",
        [("verb", "To delay or postpone action.", "Stop procrastinating and start the essay.")],
        ["delay", "stall"],
    ),
    (
        "mitigate",
        "en",
        "/ˈmɪtɪɡeɪt/",
        [("verb", "To make something less severe or serious.", "Trees help mitigate the heat.")],
        ["reduce", "ease"],
    ),
    (
        "feasible",
        "en",
        "/ˈfiːzəbəl/",
        [("adjective", "Possible to do easily or conveniently.", "Is it feasible to finish by Monday?")],
        ["possible", "viable"],
    ),
    (
        "concise",
        "en",
        "/kənˈsaɪs/",
        [("adjective", "Giving a lot of information clearly in few words.", "Keep the summary concise.")],
        ["brief", "succinct"],
    ),
    (
        "diligent",
        "en",
        "/ˈdɪlɪdʒənt/",
        [("adjective", "Having or showing care in one's work.", "A diligent student.")],
        ["hard-working", "conscientious"],
    ),
    (
        "nostalgia",
        "en",
        "/nɒˈstældʒə/",
        [("noun", "A sentimental longing for the past.", "The old photos filled him with nostalgia.")],
        ["longing", "wistfulness"],
    ),
    (
        "wanderlust",
        "en",
        "/ˈwɒndəlʌst/",
        [("noun", "A strong desire to travel.", "Her wanderlust took her to 40 countries.")],
        ["restlessness"],
    ),
    (
        "jet lag",
        "en",
        "/ˈdʒet læɡ/",
        [("noun", "Tiredness after a long flight across time zones.", "I still have jet lag from the trip to Tokyo.")],
        [],
    ),
    (
        "receipt",
        "en",
        "/rɪˈsiːt/",
        [("noun", "A written statement that something has been paid for.", "Keep the receipt in case you return it.")],
        ["proof of purchase"],
    ),
    (
        "invoice",
        "en",
        "/ˈɪnvɔɪs/",
        [("noun", "A list of goods or services with the amount to pay.", "Please pay the invoice within 30 days.")],
        ["bill"],
    ),
    (
        "umbrella",
        "en",
        "/ʌmˈbrelə/",
        [("noun", "A folding canopy on a stick, used against rain.", "Take an umbrella, it's going to rain.")],
        ["parasol"],
    ),
    (
        "benevolent",
        "en",
        "/bəˈnevələnt/",
        [("adjective", "Well meaning and kindly.", "A benevolent smile.")],
        ["kind", "generous"],
    ),
    (
        "leverage",
        "en",
        "/ˈlevərɪdʒ/",
        [
            ("verb", "To use something to maximum advantage.", "Leverage your network to find a job."),
            ("noun", "Power to influence a result.", "The deal gave them leverage."),
        ],
        ["influence", "exploit"],
    ),
    ("你好", "zh", "nǐ hǎo", [("interjection", "Hello; a common greeting.", "你好，很高兴认识你。")], ["您好"]),
    ("谢谢", "zh", "xièxie", [("verb", "Thank you.", "谢谢你的帮助。")], ["多谢"]),
    ("hola", "es", "/ˈola/", [("interjection", "Hello.", "¡Hola! ¿Qué tal?")], ["buenas"]),
    ("bonjour", "fr", "/bɔ̃.ʒuʁ/", [("interjection", "Hello; good morning.", "Bonjour, madame.")], ["salut"]),
    (
        "fernweh",
        "de",
        "/ˈfɛʁnveː/",
        [("noun", "A longing for faraway places.", "Im Winter packt mich das Fernweh.")],
        ["Reiselust"],
    ),
    (
        "木漏れ日",
        "ja",
        "komorebi",
        [("noun", "Sunlight filtering through the leaves of trees.", "木漏れ日の中を散歩した。")],
        [],
    ),
]

# city, country, IANA zone, standard offset in minutes, daylight-saving rule
TIMEZONES = [
    ("Beijing", "CN", "Asia/Shanghai", 480, "none"),
    ("Shanghai", "CN", "Asia/Shanghai", 480, "none"),
    ("Hong Kong", "HK", "Asia/Hong_Kong", 480, "none"),
    ("Taipei", "TW", "Asia/Taipei", 480, "none"),
    ("Singapore", "SG", "Asia/Singapore", 480, "none"),
    ("Tokyo", "JP", "Asia/Tokyo", 540, "none"),
    ("Seoul", "KR", "Asia/Seoul", 540, "none"),
    ("Mumbai", "IN", "Asia/Kolkata", 330, "none"),
    ("New Delhi", "IN", "Asia/Kolkata", 330, "none"),
    ("Bangkok", "TH", "Asia/Bangkok", 420, "none"),
    ("Dubai", "AE", "Asia/Dubai", 240, "none"),
    ("Moscow", "RU", "Europe/Moscow", 180, "none"),
    ("Istanbul", "TR", "Europe/Istanbul", 180, "none"),
    ("London", "GB", "Europe/London", 0, "eu"),
    ("Dublin", "IE", "Europe/Dublin", 0, "eu"),
    ("Paris", "FR", "Europe/Paris", 60, "eu"),
    ("Berlin", "DE", "Europe/Berlin", 60, "eu"),
    ("Madrid", "ES", "Europe/Madrid", 60, "eu"),
    ("Rome", "IT", "Europe/Rome", 60, "eu"),
    ("Amsterdam", "NL", "Europe/Amsterdam", 60, "eu"),
    ("Zurich", "CH", "Europe/Zurich", 60, "eu"),
    ("Athens", "GR", "Europe/Athens", 120, "eu"),
    ("Johannesburg", "ZA", "Africa/Johannesburg", 120, "none"),
    ("Nairobi", "KE", "Africa/Nairobi", 180, "none"),
    ("New York", "US", "America/New_York", -300, "us"),
    ("Toronto", "CA", "America/Toronto", -300, "us"),
    ("Chicago", "US", "America/Chicago", -360, "us"),
    ("Denver", "US", "America/Denver", -420, "us"),
    ("Phoenix", "US", "America/Phoenix", -420, "none"),
    ("Los Angeles", "US", "America/Los_Angeles", -480, "us"),
    ("San Francisco", "US", "America/Los_Angeles", -480, "us"),
    ("Palo Alto", "US", "America/Los_Angeles", -480, "us"),
    ("Seattle", "US", "America/Los_Angeles", -480, "us"),
    ("Vancouver", "CA", "America/Vancouver", -480, "us"),
    ("Mexico City", "MX", "America/Mexico_City", -360, "none"),
    ("São Paulo", "BR", "America/Sao_Paulo", -180, "none"),
    ("Honolulu", "US", "Pacific/Honolulu", -600, "none"),
    ("Sydney", "AU", "Australia/Sydney", 600, "au"),
    ("Melbourne", "AU", "Australia/Melbourne", 600, "au"),
    ("Brisbane", "AU", "Australia/Brisbane", 600, "none"),
    ("Auckland", "NZ", "Pacific/Auckland", 720, "nz"),
]

HOLIDAY_YEARS = (2025, 2026)
# Lunar-calendar and astronomical dates, by year
MOVABLE = {
    2025: {
        "spring": "01-29",
        "qingming": "04-04",
        "dragon": "05-31",
        "midautumn": "10-06",
        "buddha": "05-05",
        "holi": "03-14",
        "diwali": "10-20",
        "equinox_mar": "03-20",
        "equinox_sep": "09-23",
    },
    2026: {
        "spring": "02-17",
        "qingming": "04-05",
        "dragon": "06-19",
        "midautumn": "09-25",
        "buddha": "05-24",
        "holi": "03-04",
        "diwali": "11-08",
        "equinox_mar": "03-20",
        "equinox_sep": "09-23",
    },
}


def _easter(year: int) -> dt.date:
    """Gregorian Easter Sunday (the anonymous Gregorian algorithm)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = divmod(b, 4)
    g = (8 * b + 13) // 25
    h = (19 * a + b - d - g + 15) % 30
    i, k = divmod(c, 4)
    m = (32 + 2 * e + 2 * i - h - k) % 7
    n = (a + 11 * h + 22 * m) // 451
    month, day = divmod(h + m - 7 * n + 114, 31)
    return dt.date(year, month, day + 1)


def _holidays(year: int) -> dict[str, list[tuple[dt.date, str]]]:
    """Public holidays per country (main day of multi-day festivals; no substitute days)."""
    mon, thu = 0, 3
    easter, lunar = _easter(year), MOVABLE[year]

    def on(md: str) -> dt.date:
        return dt.date.fromisoformat(f"{year}-{md}")

    def plus(days: int) -> dt.date:
        return easter + dt.timedelta(days=days)

    new_year, christmas = (on("01-01"), "New Year's Day"), (on("12-25"), "Christmas Day")
    return {
        "US": [
            new_year,
            (_nth_weekday(year, 1, mon, 3), "Martin Luther King Jr. Day"),
            (_nth_weekday(year, 2, mon, 3), "Presidents' Day"),
            (_nth_weekday(year, 5, mon, -1), "Memorial Day"),
            (on("06-19"), "Juneteenth"),
            (on("07-04"), "Independence Day"),
            (_nth_weekday(year, 9, mon, 1), "Labor Day"),
            (_nth_weekday(year, 10, mon, 2), "Columbus Day"),
            (on("11-11"), "Veterans Day"),
            (_nth_weekday(year, 11, thu, 4), "Thanksgiving Day"),
            christmas,
        ],
        "GB": [
            new_year,
            (plus(-2), "Good Friday"),
            (plus(1), "Easter Monday"),
            (_nth_weekday(year, 5, mon, 1), "Early May Bank Holiday"),
            (_nth_weekday(year, 5, mon, -1), "Spring Bank Holiday"),
            (_nth_weekday(year, 8, mon, -1), "Summer Bank Holiday"),
            christmas,
            (on("12-26"), "Boxing Day"),
        ],
        "DE": [
            new_year,
            (plus(-2), "Good Friday"),
            (plus(1), "Easter Monday"),
            (on("05-01"), "Labour Day"),
            (plus(39), "Ascension Day"),
            (plus(50), "Whit Monday"),
            (on("10-03"), "German Unity Day"),
            christmas,
            (on("12-26"), "St. Stephen's Day"),
        ],
        "FR": [
            new_year,
            (plus(1), "Easter Monday"),
            (on("05-01"), "Labour Day"),
            (on("05-08"), "Victory in Europe Day"),
            (plus(39), "Ascension Day"),
            (plus(50), "Whit Monday"),
            (on("07-14"), "Bastille Day"),
            (on("08-15"), "Assumption Day"),
            (on("11-01"), "All Saints' Day"),
            (on("11-11"), "Armistice Day"),
            christmas,
        ],
        "ES": [
            new_year,
            (on("01-06"), "Epiphany"),
            (plus(-2), "Good Friday"),
            (on("05-01"), "Labour Day"),
            (on("08-15"), "Assumption Day"),
            (on("10-12"), "National Day of Spain"),
            (on("11-01"), "All Saints' Day"),
            (on("12-06"), "Constitution Day"),
            (on("12-08"), "Immaculate Conception"),
            christmas,
        ],
        "JP": [
            new_year,
            (_nth_weekday(year, 1, mon, 2), "Coming of Age Day"),
            (on("02-11"), "National Foundation Day"),
            (on("02-23"), "Emperor's Birthday"),
            (on(lunar["equinox_mar"]), "Vernal Equinox Day"),
            (on("04-29"), "Showa Day"),
            (on("05-03"), "Constitution Memorial Day"),
            (on("05-04"), "Greenery Day"),
            (on("05-05"), "Children's Day"),
            (_nth_weekday(year, 7, mon, 3), "Marine Day"),
            (on("08-11"), "Mountain Day"),
            (_nth_weekday(year, 9, mon, 3), "Respect for the Aged Day"),
            (on(lunar["equinox_sep"]), "Autumnal Equinox Day"),
            (_nth_weekday(year, 10, mon, 2), "Sports Day"),
            (on("11-03"), "Culture Day"),
            (on("11-23"), "Labour Thanksgiving Day"),
        ],
        "CN": [
            new_year,
            (on(lunar["spring"]), "Spring Festival"),
            (on(lunar["qingming"]), "Qingming Festival"),
            (on("05-01"), "Labour Day"),
            (on(lunar["dragon"]), "Dragon Boat Festival"),
            (on(lunar["midautumn"]), "Mid-Autumn Festival"),
            (on("10-01"), "National Day"),
        ],
        "KR": [
            new_year,
            (on(lunar["spring"]), "Seollal"),
            (on("03-01"), "Independence Movement Day"),
            (on("05-05"), "Children's Day"),
            (on(lunar["buddha"]), "Buddha's Birthday"),
            (on("06-06"), "Memorial Day"),
            (on("08-15"), "Liberation Day"),
            (on(lunar["midautumn"]), "Chuseok"),
            (on("10-03"), "National Foundation Day"),
            (on("10-09"), "Hangul Day"),
            christmas,
        ],
        "CA": [
            new_year,
            (plus(-2), "Good Friday"),
            (on("05-25") - dt.timedelta(days=on("05-25").weekday() or 7), "Victoria Day"),
            (on("07-01"), "Canada Day"),
            (_nth_weekday(year, 9, mon, 1), "Labour Day"),
            (on("09-30"), "National Day for Truth and Reconciliation"),
            (_nth_weekday(year, 10, mon, 2), "Thanksgiving"),
            (on("11-11"), "Remembrance Day"),
            christmas,
            (on("12-26"), "Boxing Day"),
        ],
        "AU": [
            new_year,
            (on("01-26"), "Australia Day"),
            (plus(-2), "Good Friday"),
            (plus(1), "Easter Monday"),
            (on("04-25"), "Anzac Day"),
            (_nth_weekday(year, 6, mon, 2), "King's Birthday"),
            christmas,
            (on("12-26"), "Boxing Day"),
        ],
        "IN": [
            (on("01-26"), "Republic Day"),
            (on(lunar["holi"]), "Holi"),
            (on("08-15"), "Independence Day"),
            (on("10-02"), "Gandhi Jayanti"),
            (on(lunar["diwali"]), "Diwali"),
            christmas,
        ],
    }


@seeder
def seed_information(conn: Connection, rng: random.Random, persona: Persona) -> None:
    """Forecasts and alerts, news and the reading list, web pages, phrase and dictionary tables, zones, holidays."""
    now = dt.datetime.fromisoformat(persona.now)
    weather = _weather_rows(rng, now.date(), persona.home_city)
    conn.execute(insert(world_weather), weather)
    conn.execute(insert(world_weather_alerts), _alert_rows(weather, now.date()))
    news = _news_rows(rng, now, persona.home_city)
    conn.execute(insert(world_news), news)
    conn.execute(
        insert(saved_articles),
        [
            {
                "article_id": a["article_id"],
                "folder": folder,
                "created_at": f"{a['published_at']}:00",
                "updated_at": f"{a['published_at']}:00",
            }
            for a, folder in zip(
                rng.sample(news[:-10], 4), ("Read later", "Read later", "Work", "Read later"), strict=True
            )
        ],
    )
    cities = sorted({persona.home_city, persona.work_city, *rng.sample(sorted(CITY_CENTRES), 3)})
    conn.execute(insert(world_web_docs), _web_rows(rng, now, cities))
    conn.execute(insert(world_translations), _translation_rows())
    conn.execute(
        insert(world_dictionary),
        [
            {
                "word": word.casefold(),
                "lang": lang,
                "entry_json": json.dumps(
                    {"pronunciation": ipa, "meanings": [_sense(*s) for s in senses], "synonyms": synonyms},
                    ensure_ascii=False,
                ),
            }
            for word, lang, ipa, senses, synonyms in DICTIONARY
        ],
    )
    conn.execute(
        insert(world_timezones),
        [
            {"city": city, "country": c, "tz": tz, "utc_offset_min": offset, "dst_rule": rule}
            for city, c, tz, offset, rule in TIMEZONES
        ],
    )
    conn.execute(
        insert(world_holidays),
        sorted(
            (
                {"country": c, "date": day.isoformat(), "name": name}
                for year in HOLIDAY_YEARS
                for c, days in _holidays(year).items()
                for day, name in days
            ),
            key=lambda r: (r["country"], r["date"], r["name"]),
        ),
    )
    # "current" weather needs the weather app's LOCATION permission: granted by default.
    conn.execute(
        sqlite_insert(app_permissions)
        .values(app_id="weather", permission="LOCATION", state="granted")
        .on_conflict_do_nothing()
    )
