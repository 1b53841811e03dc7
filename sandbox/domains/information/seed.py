"""The information domain's world data and its seeder, which fills the tables for a persona."""

from __future__ import annotations

import datetime as dt
import json
import math
import random
import re
from typing import Any

from sqlalchemy import Connection, insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from sandbox.domains.common import CITY_CENTRES
from sandbox.domains.information.schema import (
    DT_FMT,
    FORECAST_DAYS,
    FORECAST_PAST_DAYS,
    HOURLY_DAYS,
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
from sandbox.domains.information.tools import _norm, _nth_weekday
from sandbox.locales import CITIES, COUNTRIES, GLOBAL_OUTLETS
from sandbox.personas import Persona, seeder
from sandbox.schema import app_permissions

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
