"""The information domain's tools: their argument types, helpers and bodies."""

from __future__ import annotations

import ast
import datetime as dt
import json
import math
import operator
import re
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import Column, bindparam, func, insert, or_, select

from sandbox.domains.common import addresses, world_places
from sandbox.domains.information.schema import (
    DT_FMT,
    LANGUAGES,
    AlertType,
    LangCode,
    Location,
    NewsCategory,
    Query,
    _lang,
    saved_articles,
    world_dictionary,
    world_holidays,
    world_news,
    world_timezones,
    world_translations,
    world_weather,
    world_weather_alerts,
    world_web_docs,
)
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import Ctx, rows
from sandbox.schema import app_permissions, user_profile
from sandbox.tooling import Date, DateTime, tool

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
