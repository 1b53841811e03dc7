"""Sub-agent Collaboration families for Entertainment & Media (D2) and Information & Utilities (D12): one per
level-2 category. Screen reader on gallery pictures (a shared playlist screenshot, a business card, a menu, a
receipt, a news screenshot), monitors (a rental turning free, a new podcast episode, rain, breaking news), GUI
flows of apps without an API (the e-book reading goal, camera settings, pairing a TV in the cast app) and a
voice call."""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

from sandbox.errors import ErrorType
from sandbox.generator.answers import ASKS_FACTS
from sandbox.generator.core import BuildError, Gen, act, done
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import family, told_agent
from sandbox.generator.families.basic_media import (
    MONTHS,
    music_playing,
    perm_ok,
    playback_ignore,
    tracks,
    watchable,
)
from sandbox.locales import decimals, minor_units


def labelled(g: Gen, *labels: str) -> list[dict[str, Any]]:
    """Live gallery pictures with every label and text in them."""
    return [
        p
        for p in g.rows("photos")
        if p["deleted_at"] is None and p["ocr_text"] and all(f'"{lab}"' in p["labels_json"] for lab in labels)
    ]


def day_of(p: dict[str, Any]) -> str:
    return p["taken_at"][:10]


def spoken_day(day: str) -> str:
    _, m, d = day.split("-")
    return f"{MONTHS[int(m) - 1]} {int(d)}"


def catalogue_track(g: Gen, title: str, artist: str) -> dict[str, Any]:
    found = [t for t in tracks(g, free=False) if t["title"] == title and t["artist"] == artist]
    if not found:
        raise BuildError(f"{title} by {artist} is not in the catalogue")
    return found[0]


ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")


# ---- 2.1 Music Playback: read a shared playlist screenshot, play one of its songs ------------------------------------


@family("subagent", "2.1", agent="screen_reader_agent")
def play_song_from_screenshot(g: Gen) -> Draft:
    perm_ok(g, "gallery", "PHOTOS")
    shot = g.pick(labelled(g, "screenshot", "playlist"))
    listed = json.loads(shot["fields_json"])["tracks"]
    n = g.rng.randrange(len(listed))
    t = catalogue_track(g, listed[n]["title"], listed[n]["artist"])
    query = g.say(
        "play the {o} song on the playlist screenshot Tom sent me",
        "I have a screenshot of Tom's Summer Vibes playlist in my gallery; put on its {o} track",
        "can you read the playlist in my screenshot and play song number {k} from it?",
        o=ORDINALS[n],
        k=n + 1,
    )
    return Draft(
        query=query,
        gold=[
            act("search_photos", query="screenshot playlist", media_type="screenshot"),
            act(
                "call_screen_reader_agent", source={"type": "photo", "id": shot["photo_id"]}, extract_fields=["tracks"]
            ),
            act("search_music", query=f"{t['title']} {t['artist']}", type="track"),
            act("play_music", item_id=t["track_id"]),
            done(f"Playing {t['title']} by {t['artist']}."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": {"source": {"type": "photo", "id": shot["photo_id"]}},
            "state": {
                "update": {
                    "playback_state": [
                        {"match": {"player": "music"}, "set": {"item_id": t["track_id"], "status": "playing"}}
                    ]
                },
                "insert": {"play_history": [{"item_id": t["track_id"]}]},
                "ignore_columns": playback_ignore("status"),
            },
        },
    )


# ---- 2.2 Playlists & Library: recreate the screenshot's playlist -----------------------------------------------------


@family("subagent", "2.2", agent="screen_reader_agent")
def playlist_from_screenshot(g: Gen) -> Draft:
    perm_ok(g, "gallery", "PHOTOS")
    shot = g.pick(labelled(g, "screenshot", "playlist"))
    fields = json.loads(shot["fields_json"])
    k = g.pick((3, 4, 5, 6))
    wanted = [catalogue_track(g, x["title"], x["artist"]) for x in fields["tracks"][:k]]
    name = g.pick((fields["playlist"], f"{fields['playlist']} (from Tom)", "Tom's Summer Vibes"))
    if name.lower() in {p["name"].lower() for p in g.rows("playlists")}:
        raise BuildError("playlist name taken")
    which = "all the songs" if k == len(fields["tracks"]) else f"the first {k} songs"
    query = g.say(
        "make me a playlist called '{name}' with {w} from the playlist screenshot in my gallery",
        "Tom sent a screenshot of his playlist; recreate it as '{name}' with {w}",
        "build a new playlist named {name} from {w} on that Summer Vibes screenshot",
        name=name,
        w=which,
    )
    gold = [
        act("search_photos", query="screenshot playlist", media_type="screenshot"),
        act(
            "call_screen_reader_agent",
            source={"type": "photo", "id": shot["photo_id"]},
            extract_fields=["playlist", "tracks"],
        ),
    ]
    gold += [act("search_music", query=f"{t['title']} {t['artist']}", type="track") for t in wanted]
    gold += [
        act("create_playlist", name=name, track_ids=[t["track_id"] for t in wanted]),
        done(f"Created {name} with {k} songs."),
    ]
    return Draft(
        query=query,
        gold=gold,
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": {"source": {"type": "photo", "id": shot["photo_id"]}},
            "state": {
                "insert": {
                    "playlists": [{"name": name}],
                    "playlist_tracks": [{"track_id": t["track_id"]} for t in wanted],
                }
            },
        },
    )


# ---- 2.3 Video Streaming: a monitor plays a rental once it turns free ------------------------------------------------


@family("subagent", "2.3", agent="monitor_agent")
def play_rental_when_free(g: Gen) -> Draft:
    rentals = {r["video_id"] for r in g.rows("video_rentals")}
    movies = [
        v
        for v in g.rows("world_videos")
        if v["kind"] == "movie" and v["access"] == "rent" and v["video_id"] not in rentals
    ]
    titles = [v["title"].lower() for v in g.rows("world_videos")]
    movies = [v for v in movies if sum(v["title"].lower() in t for t in titles) == 1]
    v = g.pick(movies)
    at = f"{g.date(g.pick((1, 2, 3, 5)))}T{g.pick(('08', '12', '18'))}:00"
    query = g.say(
        "play {t} — and if it still has to be rented, start it automatically as soon as it's free to watch",
        "I don't want to rent {t}. Watch for it to become free and then play it for me",
        "start {t} for me; if it's rent-only, keep an eye on it and play it once it turns free",
        t=v["title"],
    )
    condition = {
        "tool": "search_videos",
        "args": {"query": v["title"], "kind": "movie"},
        "path": "$.videos[0].access",
        "op": "eq",
        "value": "free",
    }
    return Draft(
        query=query,
        gold=[
            act("search_videos", query=v["title"], kind="movie"),
            act("play_video", video_id=v["video_id"]),
            act(
                "call_monitor_agent",
                condition=condition,
                on_trigger=[{"tool": "play_video", "args": {"video_id": v["video_id"]}}],
                description=f"Play {v['title']} once it is free",
            ),
            done(f"{v['title']} is rent-only right now; I'll start it automatically once it's free."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_monitor_agent",
            "handoff": {
                "condition": {"tool": "search_videos", "args": {"query": {"$contains": v["title"].split()[-1]}}},
                "on_trigger": [{"tool": "play_video", "args": {"video_id": v["video_id"]}}],
            },
            "state": {
                "insert": {
                    "monitors": [{"status": "triggered"}],
                    "playback_state": [{"player": "video", "item_id": v["video_id"]}],
                    "watch_history": [{"video_id": v["video_id"]}],
                }
            },
        },
        events=[
            {
                "at": at,
                "changes": {
                    "update": {"world_videos": [{"match": {"video_id": v["video_id"]}, "set": {"access": "free"}}]}
                },
            }
        ],
        recovers=(ErrorType.RESOURCE_UNAVAILABLE,),
    )


# ---- 2.4 Podcasts & Audiobooks: a monitor notifies about a new episode -----------------------------------------------


@family("subagent", "2.4", agent="monitor_agent")
def notify_new_episode(g: Gen) -> Draft:
    show = g.one("world_podcasts", {"kind": "podcast"})
    eps = g.rows("world_episodes", {"show_id": show["show_id"]})
    latest = max(e["published_at"] for e in eps)
    if latest > g.persona.now:
        raise BuildError("the show already has a future episode")
    days = g.pick((1, 2, 3, 4))
    at = f"{g.date(days)}T07:00"
    nxt = max(e["episode_no"] for e in eps) + 1
    title = g.pick(
        ("Listener questions", "A special guest", "Behind the scenes", "Season finale", "Live from the road")
    )
    query = g.say(
        "let me know when the next episode of {s} comes out",
        "notify me as soon as {s} publishes a new episode",
        "watch {s} for a new episode and ping me when it drops",
        s=show["title"],
    )
    condition = {
        "tool": "search_podcasts",
        "args": {"query": show["title"], "kind": "episode", "limit": 1},
        "path": "$.results[0].published_at",
        "op": "gt",
        "value": latest,
    }
    return Draft(
        query=query,
        gold=[
            act("search_podcasts", query=show["title"], kind="episode", limit=1),
            act(
                "call_monitor_agent",
                condition=condition,
                notify_only=True,
                description=f"New episode of {show['title']}",
            ),
            done(f"I'll tell you when {show['title']} has a new episode."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_monitor_agent",
            "handoff": {
                "condition": {"tool": "search_podcasts", "args": {"query": {"$contains": show["title"].split()[-1]}}},
                "notify_only": True,
            },
            "state": {"insert": {"monitors": [{"status": "triggered", "notify_only": 1}]}},
        },
        events=[
            {
                "at": at,
                "changes": {
                    "insert": {
                        "world_episodes": [
                            {
                                "episode_id": "episode_900",
                                "show_id": show["show_id"],
                                "title": f"#{nxt} {title}",
                                "episode_no": nxt,
                                "duration_sec": 2400,
                                "published_at": f"{at}:00",
                            }
                        ]
                    }
                },
            }
        ],
    )


# ---- 2.5 Reading & E-books: the reading goal has no API (GUI), then shelve a book ------------------------------------


@family("subagent", "2.5", agent="gui_agent")
def reading_goal_and_shelf(g: Gen) -> Draft:
    books = g.pick((12, 15, 20, 24, 25, 30, 36, 40, 50, 52))
    shelved = {r["book_id"] for r in g.rows("bookshelf")}
    titles = [b["title"].lower() for b in g.rows("world_books")]
    book = g.one("world_books", filter=lambda b: b["book_id"] not in shelved and titles.count(b["title"].lower()) == 1)
    year = g.now.year
    query = g.say(
        "set my {y} reading goal to {n} books, and add {t} to my want-to-read list",
        "I want to read {n} books this year — set that as my reading challenge — and put {t} by {a} on my "
        "want to read shelf",
        "update the reading challenge in my e-book app to {n} books for {y}; also save {t} as want to read",
        y=year,
        n=books,
        t=book["title"],
        a=book["author"],
    )
    return Draft(
        query=query,
        gold=[
            act(
                "call_gui_agent",
                app_id="ebooks",
                goal=f"Set the {year} reading goal to {books} books",
                inputs={"books": books, "year": year},
                expected_outputs=["goal"],
            ),
            act("search_ebooks", query=book["title"], author=book["author"]),
            act("add_book_to_shelf", book_id=book["book_id"], shelf="want_to_read"),
            done(f"Your {year} goal is {books} books, and {book['title']} is on your want-to-read shelf."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_gui_agent",
            "handoff": {"app_id": "ebooks"},
            "state": {
                "insert": {
                    "reading_goals": [{"year": year, "books": books}],
                    "bookshelf": [{"book_id": book["book_id"], "shelf": "want_to_read"}],
                }
            },
        },
    )


# ---- 2.6 Photos & Albums: read a photographed business card into a contact -------------------------------------------


@family("subagent", "2.6", agent="screen_reader_agent")
def contact_from_business_card(g: Gen) -> Draft:
    perm_ok(g, "gallery", "PHOTOS")
    card = g.pick(labelled(g, "business card"))
    f = json.loads(card["fields_json"])
    if any(c["name"] == f["name"] for c in g.rows("contacts")):
        raise BuildError("already a contact")
    day = day_of(card)
    with_mail = g.pick((True, False))
    extra = " with the email too" if with_mail else ""
    query = g.say(
        "save the person on the business card I photographed on {d} as a contact{e}",
        "I took a picture of a business card on {d}; add that person to my contacts{e}",
        "read the business card photo from {d} and create a contact for them{e}",
        d=spoken_day(day),
        e=extra,
    )
    args: dict[str, Any] = {"name": f["name"], "phone_number": f["phone"], "company": f["company"]}
    row: dict[str, Any] = {"name": f["name"], "phone_number": {"$phone": f["phone"]}}
    if with_mail:
        args["email"] = f["email"]
        row["email"] = f["email"]
    return Draft(
        query=query,
        gold=[
            act("search_photos", query="business card", date_from=day, date_to=day),
            act(
                "call_screen_reader_agent",
                source={"type": "photo", "id": card["photo_id"]},
                extract_fields=["name", "phone", "email", "company"],
            ),
            act("add_contact", **args),
            done(f"Saved {f['name']} ({f['company']})."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": {"source": {"type": "photo", "id": card["photo_id"]}},
            "state": {"insert": {"contacts": [row]}},
        },
    )


# ---- 2.7 Camera & Recording: a camera setting has no API (GUI), then take the photo ----------------------------------

CAMERA_ASKS = [  # (option, value, how the user says it)
    ("grid", "on", "turn on the grid lines in the camera"),
    ("shutter_sound", "off", "mute the camera shutter sound"),
    ("location_tags", "off", "stop the camera from saving location tags"),
    ("mirror_front", "on", "make the front camera mirror selfies"),
    ("hdr", "on", "switch camera HDR to always on"),
]


@family("subagent", "2.7", agent="gui_agent")
def camera_setting_then_photo(g: Gen) -> Draft:
    perm_ok(g, "camera", "CAMERA")
    option, value, ask = g.pick(CAMERA_ASKS)
    camera = "front" if option == "mirror_front" else g.pick(("rear", "front"))
    mode = g.pick(("photo", "portrait", "night"))
    shot = ("a selfie" if camera == "front" else "a photo") + ("" if mode == "photo" else f" in {mode} mode")
    query = g.say(
        "{a}, then take {s}", "please {a} and snap {s}", "{a} — it's a camera app setting — and take {s}", a=ask, s=shot
    )
    args: dict[str, Any] = {}
    if camera == "front":
        args["camera"] = "front"
    if mode != "photo":
        args["mode"] = mode
    labels = [x for x in (mode if mode != "photo" else None, "selfie" if camera == "front" else None) if x]
    photo: dict[str, Any] = {"media_type": "photo", "source": "camera"}
    if labels:
        photo["labels_json"] = {"$contains_all": labels}
    return Draft(
        query=query,
        gold=[
            act(
                "call_gui_agent",
                app_id="camera",
                goal=f"Change the camera setting: {option.replace('_', ' ')} {value}",
                inputs={"option": option, "value": value},
            ),
            act("take_photo", **args),
            done("Setting changed and photo taken."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_gui_agent",
            "handoff": {"app_id": "camera"},  # the flow reads true/yes/enable as on: the state pins the effect
            "state": {
                "update": {"camera_settings": [{"match": {"option": option}, "set": {"value": value}}]},
                "insert": {"photos": [photo]},
            },
        },
    )


# ---- 2.8 Casting & Output Devices: pairing the TV has no API (GUI in the cast app), then cast ------------------------


@family("subagent", "2.8", agent="gui_agent")
def pair_tv_then_cast(g: Gen) -> Draft:
    perm_ok(g, "cast", "NEARBY_DEVICES")
    tv = g.one("devices", filter=lambda d: not d["paired"] and d["online"])
    state = music_playing(g)
    player = g.pick(("music", "video"))
    patches: dict[str, Any] = {}
    what = "my music"
    if player == "video":
        v = g.pick(watchable(g, ("movie",)))
        patches = {
            "insert": {
                "playback_state": [
                    {
                        "player": "video",
                        "item_id": v["video_id"],
                        "context_id": None,
                        "queue_json": json.dumps([v["video_id"]]),
                        "queue_pos": 0,
                        "status": "playing",
                        "position_sec": 600,
                        "output_device_id": None,
                        "shuffle": 0,
                        "repeat": "off",
                        "speed": 1.0,
                        "subtitles": None,
                        "sleep_timer_min": None,
                        "created_at": g.persona.now,
                        "updated_at": g.persona.now,
                    }
                ]
            }
        }
        what = g.pick(("the movie", f"{v['title']}", "the film I'm watching"))
    elif state["status"] == "stopped":
        raise BuildError("music is stopped")
    query = g.say(
        "put {w} on the {tv}", "cast {w} to the {tv}", "move {w} over to the {tv}, please", w=what, tv=tv["name"]
    )
    return Draft(
        query=query,
        gold=[
            act("cast_to_device", device_id=tv["name"], player=player),
            act(
                "call_gui_agent",
                app_id="cast",
                goal=f"Pair the {tv['name']} in the cast app",
                inputs={"device_name": tv["name"]},
            ),
            act("cast_to_device", device_id=tv["device_id"], player=player),
            done(f"Paired the {tv['name']} and moved playback there."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_gui_agent",
            "handoff": {"app_id": "cast"},
            "state": {
                "update": {
                    "devices": [{"match": {"device_id": tv["device_id"]}, "set": {"paired": 1, "connected": 1}}],
                    "playback_state": [{"match": {"player": player}, "set": {"output_device_id": tv["device_id"]}}],
                }
            },
        },
        patches=patches,
        recovers=(ErrorType.UNSUPPORTED_OPERATION,),
    )


# ---- 12.1 Weather: a monitor warns about rain ------------------------------------------------------------------------


@family("subagent", "12.1", agent="monitor_agent")
def rain_watch(g: Gen) -> Draft:
    city = g.persona.home_city
    days = g.pick((1, 2, 3))
    day = g.date(days)
    row = g.rows("world_weather", {"location_key": city, "date": day})
    daily = [r for r in row if r["hour"] is None]
    if not daily:
        raise BuildError("no forecast row")
    threshold = g.pick((50, 60, 70))
    if daily[0]["precip_pct"] > threshold:
        raise BuildError("it already rains")
    query = g.say(
        "keep an eye on the forecast for {c} {w} and tell me if the chance of rain goes above {p}%",
        "warn me if {w}'s rain chance in {c} climbs over {p} percent",
        "monitor the weather for {w} in {c}; notify me once rain is more than {p}% likely",
        c=city,
        w=g.when(days).removeprefix("on "),
        p=threshold,
    )
    condition = {
        "tool": "get_weather",
        "args": {"location": city, "date": day},
        "path": "$.days[0].precip_pct",
        "op": "gt",
        "value": threshold,
    }
    return Draft(
        query=query,
        gold=[
            act("get_weather", location=city, date=day),
            act(
                "call_monitor_agent",
                condition=condition,
                notify_only=True,
                description=f"Rain above {threshold}% in {city} on {day}",
            ),
            done(f"I'll let you know if the rain chance passes {threshold}%."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_monitor_agent",
            "handoff": {
                "condition": {"tool": "get_weather", "args": {"location": {"$contains": city}, "date": day}},
                "notify_only": True,
            },
            "state": {"insert": {"monitors": [{"status": "triggered", "notify_only": 1}]}},
        },
        events=[
            {
                "at": f"{g.date(days - 1)}T20:00",
                "changes": {
                    "update": {
                        "world_weather": [
                            {
                                "match": {"location_key": city, "date": day, "hour": None},
                                "set": {"precip_pct": threshold + 20},
                            }
                        ]
                    }
                },
            }
        ],
    )


# ---- 12.2 News: a monitor watches for a story ------------------------------------------------------------------------

TOPICS = [
    ("Globex", "merger"),
    ("Umbrella Motors", "recall"),
    ("Stark Foods", "IPO"),
    ("Vandelay Industries", "lawsuit"),
    ("Hooli", "layoffs"),
    ("Pied Piper", "acquisition"),
    ("Wonka Confectionery", "strike"),
]


@family("subagent", "12.2", agent="monitor_agent")
def news_watch(g: Gen) -> Draft:
    text = " ".join(f"{n['title']} {n['summary']}" for n in g.rows("world_news")).lower()
    company, topic = g.pick([t for t in TOPICS if t[0].lower() not in text])
    days = g.pick((1, 2, 3))
    at = f"{g.date(days)}T10:00"
    query = g.say(
        "tell me when there's news about the {c} {t}",
        "alert me as soon as a headline mentions {c} and their {t}",
        "watch the news for {c} {t} stories and ping me",
        c=company,
        t=topic,
    )
    words = f"{company} {topic}"
    condition = {"tool": "get_news_headlines", "args": {"query": words}, "path": "$.count", "op": "gt", "value": 0}
    return Draft(
        query=query,
        gold=[
            act("get_news_headlines", query=words),
            act("call_monitor_agent", condition=condition, notify_only=True, description=f"News about {words}"),
            done(f"Nothing yet; I'll notify you when {company} {topic} news appears."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_monitor_agent",
            "handoff": {
                "condition": {"tool": "get_news_headlines", "args": {"query": {"$contains": company}}},
                "notify_only": True,
            },
            "state": {"insert": {"monitors": [{"status": "triggered", "notify_only": 1}]}},
        },
        events=[
            {
                "at": at,
                "changes": {
                    "insert": {
                        "world_news": [
                            {
                                "article_id": "article_900",
                                "title": f"{company} confirms {topic} talks",
                                "category": "business",
                                "region": "global",
                                "source": "Reuters",
                                "published_at": g.persona.now[:16],
                                "summary": f"{company} said on Monday that the {topic} is expected to close this year.",
                                "top": 1,
                            }
                        ]
                    }
                },
            }
        ],
    )


# ---- 12.3 Web Search & Q&A: read a news screenshot, search the web for it --------------------------------------------

# what a web page says about a screenshot's story: the sentence before its date, and how many days after the
# screenshot that date falls
WEB_FOLLOW_UP = {
    "news": ("officials confirmed it for", 20, 40),
    "shopping": ("the offer ends on", 3, 14),
    "weather": ("the weather service's warning lasts until", 1, 3),
    "calendar": ("the school's sign-up closes on", 1, 5),
    "game": ("the next season starts on", 10, 30),
}


@family("subagent", "12.3", agent="screen_reader_agent")
def search_screenshot_text(g: Gen) -> Draft:
    perm_ok(g, "gallery", "PHOTOS")
    shots = [
        p
        for p in labelled(g, "screenshot")
        if json.loads(p["fields_json"]).get("text")
        and any(k in p["labels_json"] for k in ('"news"', '"shopping"', '"weather"', '"calendar"', '"game"'))
    ]
    shot = g.pick(shots)
    label = next(lab for lab in json.loads(shot["labels_json"]) if lab != "screenshot")
    text = json.loads(shot["fields_json"])["text"]
    first = text.splitlines()[0]
    words = [w for w in first.replace(",", "").split() if len(w) > 3][:2]
    if not words:
        raise BuildError("no search words")
    query = g.say(
        "I screenshotted a {l} post on {d}; search the web for what it says",
        "look up online whatever my {l} screenshot from {d} is about",
        "read my {l} screenshot from {d} and do a web search on it",
        l=label,
        d=spoken_day(day_of(shot)),
    )
    lead, soonest, latest = WEB_FOLLOW_UP[label]
    fact = (dt.date.fromisoformat(day_of(shot)) + dt.timedelta(days=g.rng.randint(soonest, latest))).isoformat()
    said = f"{first.rstrip('.!')} — {lead} {spoken_day(fact)} {fact[:4]}."
    slug = re.sub(r"[^a-z0-9]+", "-", first.lower()).strip("-")
    page = {
        "doc_id": f"web_{len(g.rows('world_web_docs')) + 100:03d}",
        "url": f"https://{label}.example/{slug}",
        "title": first,
        "snippet": said,
        "content": said,
        "published_at": f"{day_of(shot)}T09:00",
    }
    return Draft(
        query=query,
        gold=[
            act("search_photos", query=f"screenshot {label}", date_from=day_of(shot), date_to=day_of(shot)),
            act(
                "call_screen_reader_agent",
                source={"type": "photo", "id": shot["photo_id"]},
                question="What does the screenshot say?",
            ),
            act("web_search", query=first),
            done(f"The web says: {said}"),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": {"source": {"type": "photo", "id": shot["photo_id"]}},
            "follow_up": {"tool": "web_search", "args": {"query": {"$contains_all": [w.lower() for w in words]}}},
            "state": {},
        },
        answer=[{"$date": fact}],
        patches={"insert": {"world_web_docs": [page]}},
    )


# ---- 12.4 Translation & Dictionary: translate a dish from a menu photo -----------------------------------------------

LANGS = {"zh": "Chinese", "ja": "Japanese", "fr": "French", "es": "Spanish", "de": "German", "ko": "Korean"}


@family("subagent", "12.4", agent="screen_reader_agent")
def translate_menu_dish(g: Gen) -> Draft:
    perm_ok(g, "gallery", "PHOTOS")
    menu = g.pick(labelled(g, "menu"))
    dishes = json.loads(menu["fields_json"])["specials"]
    n = g.rng.randrange(len(dishes))
    dish = dishes[n]["dish"]
    lang = g.pick(sorted(LANGS))
    query = g.say(
        "translate the {o} special on the menu I photographed into {l}",
        "what's the {o} dish on my menu photo called in {l}?",
        "read the specials from the restaurant menu picture and translate the {o} one to {l}",
        o=ORDINALS[n],
        l=LANGS[lang],
    )
    # what translate_text answers: the phrase table's default register, else the dish comes back untranslated
    found = {
        r["formality"]: r["translation"]
        for r in g.rows("world_translations", {"text_key": " ".join(dish.casefold().split()), "target_lang": lang})
    }
    said = (
        f"The {ORDINALS[n]} special, {dish}, is {found.get('default', next(iter(found.values())))} in {LANGS[lang]}."
        if found
        else f"{dish} is not in the offline phrase table, so I can't give it in {LANGS[lang]}."
    )
    return Draft(
        query=query,
        gold=[
            act("search_photos", query="menu"),
            act(
                "call_screen_reader_agent",
                source={"type": "photo", "id": menu["photo_id"]},
                extract_fields=["specials"],
            ),
            act("translate_text", text=dish, target_lang=lang),
            done(said),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": {"source": {"type": "photo", "id": menu["photo_id"]}},
            "follow_up": {
                "tool": "translate_text",
                "args": {"text": {"$contains": dish}, "target_lang": {"$regex": f"^{lang}"}},
            },
            "state": {},
        },
        tags=dict([ASKS_FACTS]),
        answer=None if found else [{"$name": dish}],
    )


# ---- 12.5 Calculator & Unit Conversion: split a receipt's total ------------------------------------------------------


@family("subagent", "12.5", agent="screen_reader_agent")
def split_receipt(g: Gen) -> Draft:
    perm_ok(g, "gallery", "PHOTOS")
    days: dict[str, list[dict[str, Any]]] = {}
    for p in labelled(g, "receipt"):
        days.setdefault(day_of(p), []).append(p)
    day, found = g.pick(sorted((d, ps) for d, ps in days.items() if len(ps) == 1))
    receipt = found[0]
    f = json.loads(receipt["fields_json"])
    n = g.rng.randint(2, 6)
    total = f"{f['total']:g}"
    query = g.say(
        "split the {m} receipt from {d} evenly between {n} of us",
        "how much does each of {n} people owe for the {m} bill I photographed on {d}?",
        "read my receipt photo from {m} on {d} and divide the total by {n}",
        m=f["merchant"],
        d=spoken_day(day),
        n=n,
    )
    return Draft(
        query=query,
        gold=[
            act("search_photos", query="receipt", date_from=day, date_to=day),
            act(
                "call_screen_reader_agent",
                source={"type": "photo", "id": receipt["photo_id"]},
                extract_fields=["total", "currency"],
            ),
            act("calculate", expression=f"{total} / {n}", precision=decimals(f["currency"])),
            done(f"Each person owes {minor_units(f['total'] / n, f['currency'])} {f['currency']}."),
        ],
        bucket="agent_behavior",
        tags=dict([ASKS_FACTS]),
        check={
            "route": "call_screen_reader_agent",
            "handoff": {"source": {"type": "photo", "id": receipt["photo_id"]}},
            "follow_up": {"tool": "calculate", "args": {"expression": {"$contains_all": [total, str(n)]}}},
            "state": {},
        },
    )


# ---- 12.6 Time Zones & Holidays: ask a shop by phone whether it opens on the next holiday ----------------------------

COUNTRY_OF = {
    "Asia/Shanghai": "CN",
    "America/Toronto": "CA",
    "Europe/Madrid": "ES",
    "Asia/Seoul": "KR",
    "Europe/Berlin": "DE",
    "America/Los_Angeles": "US",
    "Europe/London": "GB",
    "Asia/Tokyo": "JP",
}


@family("subagent", "12.6", agent="voice_agent")
def holiday_opening_call(g: Gen) -> Draft:
    code = COUNTRY_OF.get(g.persona.timezone)
    if code is None:
        raise BuildError("unknown home country")
    today = g.date(0)
    upcoming = sorted((r["date"], r["name"]) for r in g.rows("world_holidays", {"country": code}) if r["date"] > today)
    if not upcoming:
        raise BuildError("no upcoming holiday")
    date, name = upcoming[g.rng.randrange(min(3, len(upcoming)))]
    month = int(date[5:7])
    service = g.one("world_phone_services", {"handler": "inquiry"})
    shown = service["phone"]
    answers = json.loads(service["rules_json"])["answers"]
    hours = next((a for k, a in answers.items() if "open" in k.split("|")), None)
    if hours is None:
        raise BuildError(f"{service['name']} has no answer about its opening hours")
    query = g.say(
        "call {s} at {p} and ask if they're open on {h}",
        "phone {s} ({p}) to check their hours on {h}",
        "can you ring {s}, number {p}, and find out whether they open on {h}?",
        s=service["name"],
        p=shown,
        h=name,
    )
    return Draft(
        query=query,
        gold=[
            act("get_holidays", country=code, year=int(date[:4]), month=month),
            act(
                "call_voice_agent",
                callee={"phone": shown},
                objective=f"Ask whether {service['name']} is open that day, and its hours",
                facts={"date": date},
            ),
            done(f"{service['name']} says: {hours}"),
        ],
        bucket="agent_behavior",
        # the shop must hear the question and the day (its date or the holiday's name), in any handoff field
        check={
            "route": "call_voice_agent",
            "handoff": {"callee": {"phone": {"$phone": service["phone"]}}},
            "state": {
                "insert": {"subagent_jobs": [told_agent("voice_agent", "open|hour|clos", f"{date}|{re.escape(name)}")]}
            },
        },
    )
