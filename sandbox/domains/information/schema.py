"""The information domain's data model: its tables, and the constants and types its tools and seeder share."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field
from sqlalchemy import Column, Float, Integer, Text

from sandbox.schema import USER, WORLD, stamps, table

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
