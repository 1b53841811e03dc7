"""Basic Tool Use families for Information & Utilities (D12): weather, news, web search, translation and
dictionary, calculator and unit conversion, world time and holidays."""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any
from zoneinfo import ZoneInfo

from sandbox.errors import ErrorType
from sandbox.generator.core import BuildError, Gen, act, done
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import family, opened, rain_verdict

WEATHER_WORDS = ("weather", "forecast")


def weather_cities(g: Gen) -> list[str]:
    return sorted({r["location_key"] for r in g.rows("world_weather")})


CONDITION_WORDS = {
    "sunny": ("sunny", "sun", "clear"),
    "clear": ("clear", "sunny"),
    "cloudy": ("cloudy", "clouds", "overcast"),
    "partly_cloudy": ("partly cloudy", "partly sunny", "some clouds", "cloudy"),
    "rain": ("rain", "rainy", "showers"),
    "thunderstorm": ("thunderstorm", "thunderstorms", "storm", "storms"),
    "fog": ("fog", "foggy"),
    "snow": ("snow", "snowy", "snowfall"),
}


def daily(g: Gen, city: str, date: str) -> dict[str, Any]:
    """The day's forecast row get_weather reports for a city."""
    found = [r for r in g.rows("world_weather", {"location_key": city, "date": date}) if r["hour"] is None]
    if not found:
        raise BuildError(f"no forecast for {city} on {date}")
    return found[0]


def condition_said(row: dict[str, Any]) -> dict[str, Any]:
    words = CONDITION_WORDS.get(row["condition"], (row["condition"].replace("_", " "),))
    return {"$any": [{"$name": w} for w in words]}


def rain_said(row: dict[str, Any]) -> dict[str, Any]:
    """An answer's facts on "will it rain?": the sky, the chance of rain, or where the forecast is clear
    (``rain_verdict``, checked as the answer's verdict) the words of that verdict ("a good chance of rain")."""
    verdict = {"yes": [{"$name": "rain"}], "no": [{"$name": "dry"}], None: []}[rain_verdict(row)]
    return {"$any": [*condition_said(row)["$any"], {"$number": row["precip_pct"]}, *verdict]}


def degrees(celsius: float) -> dict[str, Any]:
    """A temperature stated in Celsius or Fahrenheit (the tool's own rounding either way)."""
    return {
        "$any": [
            {"$number": {"value": celsius, "tolerance": 0.6}},
            {"$number": {"value": round(celsius * 9 / 5 + 32, 1), "tolerance": 1.1}},
        ]
    }


def on_day(g: Gen, days: int) -> dict[str, Any] | str:
    """A date matcher: today may also be left to the tool's default."""
    return {"$any": [g.date(0), {"$absent": True}]} if days == 0 else g.date(days)


# ---- 12.1 Weather ---------------------------------------------------------------------------------------------------


@family("basic", "12.1", pattern="single_call")
def weather_in_city(g: Gen) -> Draft:
    city = g.pick(weather_cities(g))
    days = g.pick((0, 1, 2, 3, 4, 5, 6))
    when = g.when(days)
    imperial = g.pick((False, False, True))
    unit = " in Fahrenheit" if imperial else ""
    ask = g.pick(("weather", "rain", "forecast", "hot"))
    query = g.say(
        {
            "weather": "what's the weather in {c} {w}{u}?",
            "rain": "will it rain in {c} {w}?",
            "forecast": "give me the forecast for {c} {w}{u}",
            "hot": "how hot will it be in {c} {w}{u}?",
        }[ask],
        c=city,
        w=when,
        u=unit,
    )
    day = daily(g, city, g.date(days))
    # the facts asked: a rain question is answered by the sky or the chance of rain, heat by the high
    answer: list[Any] = {
        "rain": [rain_said(day)],
        "hot": [degrees(day["high_c"])],
    }.get(ask, [condition_said(day), degrees(day["high_c"])])
    args: dict[str, Any] = {"location": city}
    if days:
        args["date"] = g.date(days)
    expect: dict[str, Any] = {"location": {"$contains": city}, "date": on_day(g, days)}
    if imperial and "rain" not in query:
        args["units"] = "imperial"
        expect["units"] = "imperial"
    high = f"{round(day['high_c'] * 9 / 5 + 32)}°F" if imperial else f"{day['high_c']}°C"
    return Draft(
        query=query,
        gold=[
            act("get_weather", **args),
            done(
                opened(
                    rain_verdict(day) if ask == "rain" else None,
                    f"{city} {when}: {day['condition'].replace('_', ' ')}, high {high}, "
                    f"{day['precip_pct']}% chance of rain.",
                )
            ),
        ],
        bucket="tool_call",
        check={"calls": [{"tool": "get_weather", "args": expect}]},
        answer=answer,
    )


ALERT_WORDS = {"storm": "storm", "heat": "heat", "flood": "flood", "air_quality": "air quality", "cold": "cold"}


@family("basic", "12.1", pattern="single_call")
def weather_alerts(g: Gen) -> Draft:
    cities = weather_cities(g)
    home = g.persona.home_city
    city = g.pick(cities)
    kind = g.pick((None, *ALERT_WORDS))
    what = f"{ALERT_WORDS[kind]} warnings" if kind else "severe weather warnings"
    here = city == home and g.pick((True, False))
    place = "at home" if here else f"in {city}"
    query = g.say(
        "are there any {what} {p}?",
        "check for {what} {p}",
        "any active weather alerts {p}? I mean {what}",
        what=what,
        p=place,
    )
    args: dict[str, Any] = {"location": "home" if here else city}
    expect: dict[str, Any] = {"location": {"$any": ["home", {"$contains": city}]} if here else {"$contains": city}}
    if kind:
        args["types"] = [kind]
    active = [
        a
        for a in g.rows("world_weather_alerts", {"location_key": city})
        if a["ends"] > g.persona.now and (kind is None or a["type"] == kind)
    ]
    if active:
        answer = [{"$name": active[0]["headline"]} if len(active) == 1 else {"$count": len(active)}]
        text = (
            f"Yes: {active[0]['headline']} ({active[0]['severity']})."
            if len(active) == 1
            else f"There are {len(active)} alerts."
        )
    else:
        answer, text = [{"$none": True}], f"No, there are no {what} {place}."
    return Draft(
        query=query,
        gold=[act("get_weather_alerts", **args), done(text)],
        bucket="tool_call",
        check={"calls": [{"tool": "get_weather_alerts", "args": expect}]},
        answer=answer,
    )


@family("basic", "12.1", pattern="friction", friction="service_disabled")
def weather_here_location_off(g: Gen) -> Draft:
    perm = g.rows("app_permissions", {"app_id": "weather", "permission": "LOCATION"})
    if not perm or perm[0]["state"] != "granted":
        raise BuildError("weather lacks LOCATION")
    days = g.pick((0, 1, 2))
    hourly = days < 2 and g.pick((True, False))
    ask = "hour by hour " if hourly else ""
    query = g.say(
        "what's the weather {h}where I am right now{w}?",
        "check the {h}forecast for my current location{w}",
        "is it going to rain here{w}? Use my location{x}",
        h=ask,
        w="" if days == 0 else f" {g.when(days)}",
        x=", hour by hour" if hourly else "",
    )
    args: dict[str, Any] = {"location": "current"}
    if days:
        args["date"] = g.date(days)
    if hourly:
        args["hourly"] = True
    here_day = daily(g, g.rows("device_location")[0]["city"], g.date(days))
    return Draft(
        query=query,
        gold=[
            act("get_weather", **args),
            act("set_location_services", enabled=True),
            act("get_weather", **args),
            done(
                opened(
                    rain_verdict(here_day) if "rain" in query else None,
                    f"{here_day['condition'].replace('_', ' ').capitalize()}, high {here_day['high_c']}°C, "
                    f"{here_day['precip_pct']}% chance of rain. I turned location services on to check.",
                )
            ),
        ],
        bucket="tool_call",
        # the forecast needs location services on: the read comes after them (a state, not an argument, link)
        check={
            "calls": [
                {"tool": "set_location_services", "args": {"enabled": True}},
                {"tool": "get_weather", "args": {"location": "current", "date": on_day(g, days)}, "after": [0]},
            ]
        },
        answer=[rain_said(here_day) if "rain" in query else condition_said(here_day)],
        patches={"update": {"device_settings": [{"match": {"key": "location_service"}, "set": {"value": "0"}}]}},
        recovers=(ErrorType.SERVICE_DISABLED,),
    )


# ---- 12.2 News -------------------------------------------------------------------------------------------------------

SECTIONS = {
    "world": "world",
    "business": "business",
    "tech": "tech",
    "sports": "sports",
    "entertainment": "entertainment",
    "science": "science",
    "health": "health",
}
REGIONS = {"CN": "China", "US": "the US", "GB": "the UK", "JP": "Japan", "DE": "Germany", "IN": "India"}


@family("basic", "12.2", pattern="single_call")
def headlines(g: Gen) -> Draft:
    news = g.rows("world_news")
    pairs = sorted(
        {
            (n["category"], n["region"])
            for n in news
            if n["category"] in SECTIONS and n["region"] in REGIONS and n["published_at"] <= g.persona.now
        }
    )
    use_region = g.pick((True, False))
    if use_region:
        cat, region = g.pick(pairs)
    else:
        cat, region = g.pick(sorted(SECTIONS)), None
    stories = [
        a for a in news if a["category"] == cat and region in (None, a["region"]) and a["published_at"] <= g.persona.now
    ]
    n = g.pick([None, *(k for k in (3, 5, 10) if k <= len(stories))])  # never more headlines than exist
    top = f"top {n} " if n else "latest "
    where = f" from {REGIONS[region]}" if region else ""
    query = g.say(
        "show me the {t}{c} news{r}",
        "what are the {t}{c} headlines{r}?",
        "any {c} news{r}? give me the {t}stories",
        t=top,
        c=cat,
        r=where,
    )
    args: dict[str, Any] = {"category": cat}
    expect: dict[str, Any] = {"category": cat}
    if region:
        args["region"] = region
        expect["region"] = region
    if n:
        args["limit"] = n
    # the newest headline: a model listing them names it, and one naming another section's news fails
    return Draft(
        query=query,
        gold=[act("get_news_headlines", **args), done(f"The latest: {g.ref(1, 'articles[0].title')}.")],
        bucket="tool_call",
        check={"calls": [{"tool": "get_news_headlines", "args": expect}]},
    )


FOLDERS = ("Read later", "Work", "Weekend", "Research", "Interesting")


@family("basic", "12.2", pattern="lookup_then_act")
def save_article(g: Gen) -> Draft:
    saved = {r["article_id"] for r in g.rows("saved_articles")}
    art = g.one("world_news", filter=lambda n: n["article_id"] not in saved and n["published_at"] <= g.persona.now)
    folder = g.pick((None, *FOLDERS[1:]))
    into = f" in my {folder} folder" if folder else ""
    query = g.say(
        "save the article '{t}' for later{i}",
        'bookmark the news story "{t}"{i}',
        "I want to read '{t}' later, add it to my reading list{i}",
        t=art["title"],
        i=into,
    )
    args: dict[str, Any] = {"article_id": art["article_id"]}
    row: dict[str, Any] = {"article_id": art["article_id"]}
    if folder:
        args["folder"] = folder
        row["folder"] = folder
    return Draft(
        query=query,
        gold=[
            act("get_news_headlines", category=art["category"], query=art["title"], limit=10),
            act("save_news_article", **args),
            done("Saved."),
        ],
        bucket="state_change",
        check={"insert": {"saved_articles": [row]}},
    )


# ---- 12.3 Web Search & Q&A -------------------------------------------------------------------------------------------


def names(*words: str) -> dict[str, Any]:
    return {"$any": [{"$name": w} for w in words]}


QUESTIONS = [  # (question templates, gold query, words the query must hold)
    (
        ("how tall is Mount Fuji?", "look up the height of Mount Fuji", "search the web: Mount Fuji elevation"),
        "Mount Fuji height",
        ["fuji"],
    ),
    (
        ("how long is the Great Wall of China?", "find out how long the Great Wall of China is"),
        "Great Wall of China length",
        ["great wall"],
    ),
    (
        ("how do I renew my passport?", "search how to renew a passport", "what do I need to renew my passport?"),
        "how to renew passport",
        ["passport"],
    ),
    (
        ("is green tea actually healthy?", "look up the health benefits of green tea"),
        "health benefits of green tea",
        ["green tea"],
    ),
    (
        ("what's new in Python 3.13?", "search for the Python 3.13 release notes"),
        "Python 3.13 release notes",
        ["python", "3.13"],
    ),
    (
        ("do I really need 10,000 steps a day?", "search the web for whether 10000 steps a day matters"),
        "10,000 steps a day",
        ["steps"],
    ),
    (
        ("how do I make tomato and egg stir-fry?", "find a quick tomato egg stir fry recipe"),
        "tomato egg stir-fry recipe",
        ["tomato", "egg"],
    ),
    (
        ("what does battery saver mode turn off?", "search what battery saver mode disables"),
        "what battery saver mode turns off",
        ["battery saver"],
    ),
    (
        ("what are my rights if my flight is delayed?", "look up flight delay compensation rules"),
        "flight delay compensation rights",
        ["flight", "delay"],
    ),
    (
        ("how does cold weather affect EV range?", "search the web for EV range in cold weather"),
        "cold weather EV range",
        ["ev", "cold"],
    ),
    (
        ("what's the 50/30/20 budgeting rule?", "look up the 50/30/20 budget rule"),
        "50/30/20 budgeting rule",
        ["50/30/20"],
    ),
    (
        ("how do I make overnight oats?", "find an easy overnight oats recipe"),
        "easy overnight oats recipe",
        ["overnight oats"],
    ),
    (
        ("what are common Japanese greetings for travellers?", "search Japanese greetings I should know for my trip"),
        "Japanese greetings for travellers",
        ["japanese", "greeting"],
    ),
    (
        ("which robot vacuum is best this year?", "search for the best robot vacuums of 2025"),
        "best robot vacuums 2025",
        ["robot vacuum"],
    ),
]


# the fact each question asks for, as the top result's snippet states it (in the order of QUESTIONS)
ANSWERS: list[tuple[str, list[Any]]] = [
    (
        "Mount Fuji is 3,776 m high.",
        [{"$any": [{"$number": {"value": 3776, "tolerance": 1}}, {"$number": {"value": 12388, "tolerance": 15}}]}],
    ),
    (
        "The Great Wall is 21,196 km long in all.",
        [{"$any": [{"$number": {"value": 21196, "tolerance": 200}}, {"$number": {"value": 13171, "tolerance": 150}}]}],
    ),
    ("You can renew by mail or online if it was issued within the last 15 years.", [names("mail", "online")]),
    ("Green tea contains antioxidants and a little caffeine.", [names("antioxidants", "antioxidant")]),
    (
        "Python 3.13 adds an improved interactive interpreter and experimental free-threaded builds.",
        [names("interpreter", "free threaded", "free threading", "REPL")],
    ),
    (
        "Benefits start well below that: 7,000-8,000 steps already lower mortality risk.",
        [{"$any": [{"$number": 7000}, {"$number": 8000}]}],
    ),
    (
        "You need 4 eggs, 3 tomatoes, spring onion and a pinch of sugar; it takes 10 minutes.",
        [names("eggs", "egg"), names("tomatoes", "tomato")],
    ),
    ("It limits background activity, location and visual effects.", [names("background")]),
    (
        "You may be owed compensation for delays over 3 hours on many routes.",
        [{"$any": [{"$number": 3}, {"$name": "three hours"}]}, names("compensation", "compensated")],
    ),
    ("Range can drop 20-30% in freezing weather.", [{"$any": [{"$number": 20}, {"$number": 30}]}]),
    ("Spend 50% on needs, 30% on wants and save 20%.", [names("needs"), names("wants")]),
    ("Soak oats overnight in milk with fruit.", [names("milk")]),
    (
        "Konnichiwa (hello), arigatou gozaimasu (thank you), sumimasen (excuse me).",
        [names("konnichiwa", "arigatou", "arigato", "sumimasen")],
    ),
    (
        "The best picks cover pet hair, mopping and small apartments.",
        [names("pet hair", "mopping", "small apartments")],
    ),
]


@family("basic", "12.3", pattern="single_call")
def web_question(g: Gen) -> Draft:
    n = g.rng.randrange(len(QUESTIONS))
    (templates, q, words), (said, answer) = QUESTIONS[n], ANSWERS[n]
    site = g.pick((None, None, "wikipedia.org")) if "fuji" in q.lower() or "wall" in q.lower() else None
    query = g.pick(templates)
    if site:
        query = query.rstrip("?") + ", on Wikipedia"
    query = query[:1].upper() + query[1:]
    args: dict[str, Any] = {"query": q}
    expect: dict[str, Any] = {"query": {"$contains_all": words}}
    if site:
        args["site"] = site
        expect["site"] = {"$contains": "wikipedia"}
    return Draft(
        query=query,
        gold=[act("web_search", **args), done(said)],
        bucket="tool_call",
        check={"calls": [{"tool": "web_search", "args": expect}]},
        answer=answer,
    )


CITY_GUIDES = (
    ("Things to do in", "things to do in {c} this week"),
    ("Where to eat brunch in", "brunch spots in {c}"),
    ("Best day hikes near", "day hikes near {c}"),
    ("Top museums in", "top museums in {c}"),
    ("metro: hours and fares", "{c} metro hours and fares"),
)


@family("basic", "12.3", pattern="cross_app")
def web_result_to_note(g: Gen) -> Draft:
    docs = g.rows("world_web_docs")
    options = []
    for prefix, ask in CITY_GUIDES:
        for d in docs:
            if prefix in d["title"] and d["published_at"] <= g.persona.now:
                city = d["title"].replace(prefix, "").replace("this week", "").replace("metro:", "").strip(" :")
                city = city.split(" metro")[0].strip()
                options.append((d, ask.format(c=city), city))
    if not options:
        raise BuildError("no city guide pages")
    doc, search, city = g.pick(options)
    title = g.pick(("{c} ideas", "{c} plans", "Trip notes: {c}", "{c} links")).format(c=city)
    query = g.say(
        "search the web for {s} and save the top result's link in a note called '{t}'",
        "find {s} online, then put the best page's link into a new note titled {t}",
        "look up {s} and jot the first link down in a note named '{t}'",
        s=search,
        t=title,
    )
    return Draft(
        query=query,
        gold=[
            act("web_search", query=search),
            act("create_note", title=title, content=f"{doc['title']}: {doc['url']}"),
            done(f"Saved {doc['url']} in the note {title}."),
        ],
        bucket="state_change",
        check={"insert": {"notes": [{"title": title, "content": {"$contains": doc["url"]}}]}},
    )


# ---- 12.4 Translation & Dictionary -----------------------------------------------------------------------------------

TARGETS = {"fr": "French", "de": "German", "es": "Spanish", "ja": "Japanese", "ko": "Korean", "zh": "Chinese"}


@family("basic", "12.4", pattern="single_call")
def translate_phrase(g: Gen) -> Draft:
    rows = g.rows("world_translations", {"formality": "default"})
    row = g.pick(rows)
    phrase, lang = row["source_text"], row["target_lang"]
    formal = None
    if g.rows("world_translations", {"text_key": row["text_key"], "target_lang": lang, "formality": "formal"}):
        formal = g.pick((None, "formal", "informal"))
    reg = f" ({formal})" if formal else ""
    query = g.say(
        'how do you say "{p}" in {l}{r}?',
        "translate '{p}' into {l}{r}",
        'what\'s "{p}" in {l}{r}?',
        p=phrase,
        l=TARGETS[lang],
        r=reg,
    )
    args: dict[str, Any] = {"text": phrase, "target_lang": lang}
    expect: dict[str, Any] = {"text": {"$contains": row["text_key"]}, "target_lang": {"$regex": f"^{lang}"}}
    if formal:
        args["formality"] = formal
        expect["formality"] = formal
    said = g.rows(
        "world_translations", {"text_key": row["text_key"], "target_lang": lang, "formality": formal or "default"}
    )[0]["translation"]
    # a script without spaces between words is matched as a substring, others as whole words
    bare = said.rstrip(".!?。！？")
    fact = {"$contains": bare} if lang in ("ja", "zh", "ko") else {"$name": bare}
    return Draft(
        query=query,
        gold=[act("translate_text", **args), done(f"In {TARGETS[lang]}: {said}")],
        bucket="tool_call",
        check={"calls": [{"tool": "translate_text", "args": expect}]},
        answer=[fact],
    )


def entry_facts(entry: dict[str, Any], ask: str) -> tuple[str, list[Any]]:
    """A gold answer and what it must state: the synonyms, the pronunciation, or the sense (a definition's
    longest words or a synonym, since a definition is paraphrased)."""
    data = json.loads(entry["entry_json"])
    meaning = data["meanings"][0]
    synonyms = [{"$name": w} for w in data.get("synonyms", [])]
    text = f"{entry['word']} {data['pronunciation']} ({meaning['part_of_speech']}): {meaning['definition']}"
    if data.get("synonyms"):
        text += f" Synonyms: {', '.join(data['synonyms'])}."
    if ask == "synonyms" and synonyms:
        return text, [{"$any": synonyms}]
    longest = sorted(re.findall(r"[A-Za-z]+", meaning["definition"]), key=lambda w: (-len(w), w))[:2]
    sense = {"$any": [*({"$name": w} for w in longest), *synonyms]}
    if ask == "pronounce":
        return text, [{"$contains": data["pronunciation"].strip("/")}, sense]
    return text, [sense]


def english_words(g: Gen) -> list[dict[str, Any]]:
    return [r for r in g.rows("world_dictionary") if r["lang"] == "en"]


@family("basic", "12.4", pattern="single_call")
def define_word(g: Gen) -> Draft:
    entry = g.pick(english_words(g))
    word = entry["word"]
    ask = g.pick(("meaning", "meaning", "meaning", "synonyms", "pronounce"))
    query = g.say(
        *{
            "meaning": ("what does '{w}' mean?", "define {w}", 'look up the word "{w}" in the dictionary'),
            "synonyms": ("give me synonyms for {w}",),
            "pronounce": ("how do you pronounce {w} and what does it mean?",),
        }[ask],
        w=word,
    )
    text, answer = entry_facts(entry, ask)
    return Draft(
        query=query,
        gold=[act("lookup_dictionary", word=word), done(text)],
        bucket="tool_call",
        check={"calls": [{"tool": "lookup_dictionary", "args": {"word": word}}]},
        answer=answer,
    )


def misspell(g: Gen, word: str) -> str:
    """A typo after the third letter (the dictionary suggests words that share the first three)."""
    i = g.rng.randint(3, len(word) - 1)
    how = g.pick(("double", "drop", "swap"))
    if how == "double":
        return word[:i] + word[i] + word[i:]
    if how == "drop" and len(word) > 5:
        return word[:i] + word[i + 1 :]
    if i + 1 < len(word) and word[i] != word[i + 1]:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    return word[:i] + word[i] + word[i:]


@family("basic", "12.4", pattern="friction", friction="not_found")
def define_misspelled_word(g: Gen) -> Draft:
    entry = g.pick([r for r in english_words(g) if len(r["word"]) >= 6 and " " not in r["word"]])
    word = entry["word"]
    typo = misspell(g, word)
    if typo == word:
        raise BuildError("no typo")
    query = g.say("what does '{t}' mean?", "define the word {t}", 'look up "{t}" in the dictionary for me', t=typo)
    return Draft(
        query=query,
        gold=[
            act("lookup_dictionary", word=typo),
            act("lookup_dictionary", word=word),
            done(f"I think you meant '{word}'. {entry_facts(entry, 'meaning')[0]}"),
        ],
        bucket="tool_call",
        check={"calls": [{"tool": "lookup_dictionary", "args": {"word": word}}]},
        answer=[{"$name": word}, *entry_facts(entry, "meaning")[1]],
        recovers=(ErrorType.ENTITY_NOT_FOUND,),
    )


# ---- 12.5 Calculator & Unit Conversion -------------------------------------------------------------------------------


def money(g: Gen, lo: int, hi: int) -> str:
    """An amount whose text the expression keeps as written (no trailing zero)."""
    whole = g.rng.randint(lo, hi)
    cents = g.pick((0, 0, 15, 25, 35, 45, 55, 65, 75, 85, 95))
    return f"{whole}.{cents}" if cents else str(whole)


@family("basic", "12.5", pattern="single_call")
def arithmetic(g: Gen) -> Draft:
    kind = g.pick(("tip", "split", "discount", "power", "mix"))
    if kind == "tip":
        amount, pct = money(g, 20, 400), g.pick((10, 12, 15, 18, 20, 22))
        query = g.say("what's a {p}% tip on {a}?", "calculate {p} percent of {a} for the tip", a=amount, p=pct)
        expr, must = f"{amount} * {pct} / 100", [amount, str(pct)]
    elif kind == "split":
        amount, n = money(g, 60, 900), g.rng.randint(3, 9)
        query = g.say(
            "split {a} evenly between {n} people",
            "we are {n} and the bill is {a}; how much each?",
            "divide {a} by {n}",
            a=amount,
            n=n,
        )
        expr, must = f"{amount} / {n}", [amount, str(n)]
    elif kind == "discount":
        amount, pct = money(g, 30, 2000), g.pick((15, 20, 25, 30, 35, 40))
        query = g.say(
            "how much is {a} after a {p}% discount?",
            "what do I pay for a {a} item at {p} percent off?",
            a=amount,
            p=pct,
        )
        expr, must = f"{amount} * (1 - {pct} / 100)", [amount, str(pct)]
    elif kind == "power":
        base, exp = g.rng.randint(2, 19), g.rng.randint(3, 12)
        query = g.say("what is {b} to the power of {e}?", "calculate {b}^{e}", b=base, e=exp)
        expr, must = f"{base} ** {exp}", [str(base), str(exp)]
    else:
        a, b, c = g.rng.randint(12, 999), g.rng.randint(3, 99), g.rng.randint(100, 9999)
        query = g.say("what's {a} times {b} minus {c}?", "compute {a} x {b} - {c}", a=a, b=b, c=c)
        expr, must = f"{a} * {b} - {c}", [str(a), str(b), str(c)]
    return Draft(
        query=query[:1].upper() + query[1:],
        gold=[act("calculate", expression=expr), done(f"It comes to {g.ref(1, 'result')}.")],
        bucket="tool_call",
        check={"calls": [{"tool": "calculate", "args": {"expression": {"$contains_all": must}}}]},
    )


UNIT_FORMS = {  # unit -> (how the user says it, accepted spellings)
    "km": ("kilometers", r"^(km|kilomet(er|re)s?)$"),
    "mi": ("miles", r"^(mi|miles?)$"),
    "kg": ("kilograms", r"^(kg|kilos?|kilograms?)$"),
    "lb": ("pounds", r"^(lbs?|pounds?)$"),
    "C": ("degrees Celsius", r"^(c|°c|celsius|degrees? celsius)$"),
    "F": ("degrees Fahrenheit", r"^(f|°f|fahrenheit|degrees? fahrenheit)$"),
    "cup": ("cups", r"^(cups?)$"),
    "ml": ("milliliters", r"^(ml|millilit(er|re)s?)$"),
    "mph": ("mph", r"^(mph|miles? per hour)$"),
    "km/h": ("km/h", r"^(km/h|kph|kmh|kilomet(er|re)s? per hour)$"),
    "GB": ("gigabytes", r"^(gb|gigabytes?)$"),
    "MB": ("megabytes", r"^(mb|megabytes?)$"),
    "ha": ("hectares", r"^(ha|hectares?)$"),
    "acre": ("acres", r"^(acres?)$"),
    "ft": ("feet", r"^(ft|feet|foot)$"),
    "m": ("meters", r"^(m|met(er|re)s?)$"),
    "oz": ("ounces", r"^(oz|ounces?)$"),
    "g": ("grams", r"^(g|grams?)$"),
}
PAIRS = (
    ("km", "mi"),
    ("mi", "km"),
    ("kg", "lb"),
    ("lb", "kg"),
    ("C", "F"),
    ("F", "C"),
    ("cup", "ml"),
    ("mph", "km/h"),
    ("km/h", "mph"),
    ("GB", "MB"),
    ("ha", "acre"),
    ("ft", "m"),
    ("m", "ft"),
    ("oz", "g"),
)


@family("basic", "12.5", pattern="single_call")
def unit_conversion(g: Gen) -> Draft:
    src, dst = g.pick(PAIRS)
    value = g.pick((g.rng.randint(2, 250), round(g.rng.uniform(1, 99), 1)))
    if src in ("C", "F"):
        value = g.rng.randint(-10, 104)
    say_src, say_dst = UNIT_FORMS[src][0], UNIT_FORMS[dst][0]
    query = g.say(
        "convert {v} {s} to {d}", "how many {d} is {v} {s}?", "what is {v} {s} in {d}?", v=value, s=say_src, d=say_dst
    )
    return Draft(
        query=query,
        gold=[
            act("convert_units", value=value, from_unit=src, to_unit=dst),
            done(f"{value} {say_src} is {g.ref(1, 'result')} {say_dst}."),
        ],
        bucket="tool_call",
        check={
            "calls": [
                {
                    "tool": "convert_units",
                    "args": {
                        "value": {"$approx": [value, 0.001]},
                        "from_unit": {"$regex": UNIT_FORMS[src][1]},
                        "to_unit": {"$regex": UNIT_FORMS[dst][1]},
                    },
                }
            ]
        },
    )


# ---- 12.6 Time Zones & Holidays --------------------------------------------------------------------------------------


@family("basic", "12.6", pattern="single_call")
def time_in_city(g: Gen) -> Draft:
    zones = [z for z in g.rows("world_timezones") if z["tz"] != g.persona.timezone]
    z = g.pick(zones)
    convert = g.pick((False, True))
    if convert:
        days, hour = g.pick((1, 2, 3)), g.rng.randint(7, 21)
        at = f"{g.date(days)}T{hour:02d}:00"
        query = g.say(
            "what time will it be in {c} when it's {h}:00 here {w}?",
            "if I call at {h}:00 my time {w}, what time is it in {c}?",
            c=z["city"],
            h=hour,
            w=g.when(days),
        )
        args: dict[str, Any] = {"location": z["city"], "at": at}
        expect: dict[str, Any] = {
            "location": {"$any": [{"$contains": z["city"]}, z["tz"]]},
            "at": at,
            "at_is_location_time": {"$any": [False, {"$absent": True}]},
        }
    else:
        query = g.say(
            "what time is it in {c} right now?", "current local time in {c}?", "what's the time in {c}?", c=z["city"]
        )
        args = {"location": z["city"]}
        expect = {"location": {"$any": [{"$contains": z["city"]}, z["tz"]]}}
    mine = ZoneInfo(g.persona.timezone)
    moment = dt.datetime.fromisoformat(args.get("at", g.persona.now)).replace(tzinfo=mine)
    there = moment.astimezone(ZoneInfo(z["tz"]))
    return Draft(
        query=query,
        gold=[
            act("get_world_time", **args),
            done(f"It {'will be' if convert else 'is'} {there:%H:%M} on {there:%A} in {z['city']}."),
        ],
        bucket="tool_call",
        check={"calls": [{"tool": "get_world_time", "args": expect}]},
        answer=[{"$time": f"{there:%H:%M}"}],
    )


COUNTRIES = {
    "CN": "China",
    "US": "the US",
    "JP": "Japan",
    "GB": "the UK",
    "DE": "Germany",
    "FR": "France",
    "KR": "South Korea",
    "IN": "India",
    "ES": "Spain",
    "CA": "Canada",
    "AU": "Australia",
}


MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


@family("basic", "12.6", pattern="single_call")
def public_holidays(g: Gen) -> Draft:
    """One holiday's facts, never a whole calendar: a listed calendar's answer is a set of dates and
    names, which another pairing of the same dates and names would also state."""
    rows = g.rows("world_holidays")
    code = g.pick(sorted({r["country"] for r in rows} & set(COUNTRIES)))
    days = sorted((h["date"], h["name"]) for h in rows if h["country"] == code)
    country = COUNTRIES[code]
    kind = g.pick(("next", "named", "month"))
    if kind == "next":
        today = g.date(0)
        if any(d == today for d, _ in days):
            raise BuildError("today is a holiday there")
        date, name = next(((d, n) for d, n in days if d > today), (None, None))
        if date is None or sum(d == date for d, _ in days) > 1:
            raise BuildError("no single next holiday")
        query = g.say(
            "when's the next public holiday in {c}?",
            "what's the next bank holiday in {c}?",
            "what is {c}'s next national holiday, and when is it?",
            c=country,
        )
        gold = [act("get_holidays", country=code, year=y) for y in range(g.now.year, int(date[:4]) + 1)]
        calls = [
            {"tool": "get_holidays", "args": {"country": {"$regex": f"^{code}$"}, "year": y}}
            for y in range(g.now.year, int(date[:4]) + 1)
        ]
        return Draft(
            query=query,
            gold=[*gold, done(f"The next one is {name} on {date}.")],
            bucket="tool_call",
            check={"calls": calls},
            answer=[{"$name": name}, {"$date": date}],
        )
    year = g.pick(sorted({int(d[:4]) for d, _ in days}))
    if kind == "named":
        date, name = g.pick([(d, n) for d, n in days if d[:4] == str(year)])
        query = g.say(
            "when is {n} in {c} in {y}?",
            "what date is {n} in {c} in {y}?",
            "which day does {n} fall on in {c} in {y}?",
            n=name,
            c=country,
            y=year,
        )
        return Draft(
            query=query,
            gold=[act("get_holidays", country=code, year=year), done(f"{name} is on {date}.")],
            bucket="tool_call",
            check={"calls": [{"tool": "get_holidays", "args": {"country": {"$regex": f"^{code}$"}, "year": year}}]},
            answer=[{"$date": date}],
        )
    # a month with at most one holiday: a single date and name, or none
    month = g.pick([m for m in range(1, 13) if sum(d[:7] == f"{year}-{m:02d}" for d, _ in days) <= 1])
    span = f"in {MONTHS[month - 1]} {year}"
    found = [(d, n) for d, n in days if d[:7] == f"{year}-{month:02d}"]
    query = g.say(
        "are there any public holidays in {c} {s}?",
        "is there a bank holiday in {c} {s}?",
        "does {c} have a national holiday {s}?",
        c=country,
        s=span,
    )
    text = (
        f"Yes: {found[0][1]} on {found[0][0]}." if found else f"No, there are no public holidays in {country} {span}."
    )
    answer = [{"$date": found[0][0]}, {"$name": found[0][1]}] if found else [{"$none": True}]
    return Draft(
        query=query,
        gold=[act("get_holidays", country=code, year=year, month=month), done(text)],
        bucket="tool_call",
        check={"calls": [{"tool": "get_holidays", "args": {"country": {"$regex": f"^{code}$"}, "year": year}}]},
        answer=answer,
    )
