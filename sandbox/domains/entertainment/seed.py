"""The entertainment domain's world data and its seeder, which fills the tables for a persona."""

from __future__ import annotations

import datetime as dt
import json
import random
from collections.abc import Callable
from typing import Any

from sqlalchemy import (
    Connection,
    insert,
    select,
)

from sandbox.domains.common import CITY_CENTRES
from sandbox.domains.communication.seed import ANCHORS
from sandbox.domains.entertainment.schema import (
    album_photos,
    albums,
    bookshelf,
    devices,
    media_subscriptions,
    photos,
    play_history,
    playback_state,
    playlist_tracks,
    playlists,
    podcast_subscriptions,
    share_links,
    video_rentals,
    watch_history,
    watchlist,
    world_albums,
    world_artists,
    world_books,
    world_episodes,
    world_podcasts,
    world_tracks,
    world_videos,
)
from sandbox.domains.entertainment.tools import LIKED_SONGS, SHARE_URL
from sandbox.locales import local_money, to_step
from sandbox.personas import Persona, seeder

# ---- World data -------------------------------------------------------------------------------

ARTISTS = [  # (name, genre): a fictional catalogue
    ("Mira Chen", "pop"),
    ("Luna Vale", "pop"),
    ("Jasper Quinn", "pop"),
    ("Coral Bay", "pop"),
    ("The Rusty Anchors", "rock"),
    ("Iron Meadow", "rock"),
    ("Static Harbor", "rock"),
    ("The Night Owls", "rock"),
    ("Paper Lanterns", "indie"),
    ("Willow & Wren", "indie"),
    ("The Glass Orchard", "indie"),
    ("Fable Street", "indie"),
    ("Neon Tide", "electronic"),
    ("Pulse Theory", "electronic"),
    ("Aurora Grid", "electronic"),
    ("Miles Ferreira Trio", "jazz"),
    ("Blue Lantern Quartet", "jazz"),
    ("Ella Park", "jazz"),
    ("Vienna Chamber Strings", "classical"),
    ("Lin Yue", "classical"),
    ("Aria Ensemble", "classical"),
    ("MC Solstice", "hip-hop"),
    ("Kairo Blaze", "hip-hop"),
    ("Lyric Lane", "hip-hop"),
    ("Harbor Lights", "folk"),
    ("June & the Pines", "folk"),
    ("Zhou Xiaoyu", "c-pop"),
    ("Lin Fei", "c-pop"),
    ("Chen Qing", "c-pop"),
    ("Sleepy Fox", "lo-fi"),
    ("Rainy Window", "lo-fi"),
    ("Velvet Ray", "r&b"),
    ("Sade Monroe", "r&b"),
    ("Dust Road Ramblers", "country"),
    ("Kira Sol", "latin"),
    ("Seoul Motion", "k-pop"),
]
ADJECTIVES = [
    "Midnight",
    "Golden",
    "Silver",
    "Electric",
    "Broken",
    "Quiet",
    "Endless",
    "Paper",
    "Velvet",
    "Summer",
    "Neon",
    "Wild",
    "Lonely",
    "Crimson",
    "Falling",
    "Northern",
    "Hidden",
    "Secret",
    "Last",
    "First",
]
NOUNS = [
    "Highway",
    "Hearts",
    "Moon",
    "River",
    "Skyline",
    "Echoes",
    "Dreams",
    "Rain",
    "Fire",
    "Lights",
    "Letters",
    "Waves",
    "Garden",
    "City",
    "Sky",
    "Road",
    "Stars",
    "Shadows",
    "Ocean",
    "Morning",
    "Hour",
    "Avenue",
]
LEADS = ["Under the", "Into the", "After the", "Beyond the", "Chasing", "Only the", "All the"]
FORMS = ["Sonata", "Nocturne", "Etude", "Prelude", "Serenade", "Concerto", "Fugue", "Waltz"]
KEYS = ["C major", "D minor", "E-flat major", "G minor", "A major", "B-flat minor", "F major"]

SEED_PLAYLISTS = [  # (name, description, public, genres drawn from or None for any, size)
    (LIKED_SONGS, "Songs you liked", 0, None, 30),
    ("Morning Run", "Upbeat tracks for 5k runs", 0, {"pop", "electronic", "hip-hop", "k-pop", "latin"}, 18),
    ("Focus Flow", "Lo-fi, jazz and classical for deep work", 0, {"lo-fi", "classical", "jazz"}, 22),
    ("Dinner Party", "Warm jazz and soul for hosting friends", 1, {"jazz", "r&b", "folk"}, 15),
    ("Road Trip", "Sing-along songs for long drives", 0, {"rock", "country", "indie", "pop", "c-pop"}, 25),
]

MOVIES = [  # (title, genre, original language, access)
    ("The Last Lighthouse", "drama", "en-US", "subscription"),
    ("Midnight in Chengdu", "romance", "zh-CN", "free"),
    ("Orbit of Silence", "sci-fi", "en-US", "rent"),
    ("Paper Tigers", "comedy", "en-US", "subscription"),
    ("The Glass Harbor", "thriller", "en-US", "subscription"),
    ("Echoes of Kyoto", "drama", "ja-JP", "subscription"),
    ("Run, Rabbit, Run", "family", "en-US", "free"),
    ("Steel Horizon", "action", "en-US", "rent"),
    ("Winter's Ledger", "mystery", "en-US", "subscription"),
    ("The Baker of Montmartre", "romance", "fr-FR", "rent"),
    ("Seoul Night Express", "action", "ko-KR", "subscription"),
    ("Little Cloud", "animation", "en-US", "free"),
    ("Beneath the Dunes", "adventure", "en-US", "subscription"),
    ("The Quiet Algorithm", "sci-fi", "en-US", "rent"),
    ("Grandma's Kitchen", "documentary", "zh-CN", "free"),
    ("Ocean Between Us", "romance", "en-US", "subscription"),
    ("Ten Thousand Lanterns", "drama", "zh-CN", "subscription"),
    ("The Heist at Harbor Bank", "thriller", "en-US", "rent"),
    ("Mountain Song", "documentary", "en-US", "free"),
    ("Galaxy Runners", "animation", "en-US", "subscription"),
    ("Shadows over Madrid", "thriller", "es-ES", "rent"),
    ("The Great Noodle Race", "comedy", "zh-CN", "subscription"),
    ("Last Train to Osaka", "drama", "ja-JP", "rent"),
    ("Iron Petals", "action", "zh-CN", "subscription"),
    ("A Summer in Lisbon", "romance", "en-US", "subscription"),
    ("Dark Matter Diaries", "sci-fi", "en-US", "subscription"),
    ("The Chess Prodigy", "drama", "en-US", "rent"),
    ("Wild Coast", "documentary", "en-US", "free"),
    ("Robot Pals", "animation", "en-US", "subscription"),
    ("The Forgotten Sonata", "drama", "en-US", "subscription"),
    ("Night Shift", "comedy", "en-US", "subscription"),
    ("Frozen Frontier", "adventure", "en-US", "rent"),
    ("Codebreakers", "thriller", "en-US", "subscription"),
    ("Harvest Moon Festival", "family", "zh-CN", "free"),
    ("Neon Samurai", "action", "ja-JP", "subscription"),
    ("The Long Way Home", "drama", "en-US", "subscription"),
]
SERIES = [  # (title, genre, language, episodes, minutes per episode)
    ("Harbor Nights", "crime", "en-US", 8, 48),
    ("Startup Island", "comedy", "en-US", 6, 26),
    ("The Jade Palace", "historical", "zh-CN", 8, 45),
    ("Stellar Drift", "sci-fi", "en-US", 6, 52),
    ("Family Table", "reality", "en-US", 5, 40),
    ("Mystery at Maple Lane", "mystery", "en-US", 6, 44),
]
EPISODE_TITLES = [
    "The Offer",
    "Crossroads",
    "Low Tide",
    "Second Chances",
    "The Reveal",
    "Storm Warning",
    "Homecoming",
    "Old Friends",
    "Point of No Return",
]
CLIPS = [  # (title, genre, minutes)
    ("15-Minute Morning Yoga", "fitness", 15),
    ("How to Fold Dumplings", "cooking", 8),
    ("Top 10 Hidden Beaches", "travel", 12),
    ("Learn Guitar Chords in 10 Minutes", "education", 10),
    ("Cat vs Cucumber Compilation", "comedy", 4),
    ("Quick Home Workout, No Equipment", "fitness", 20),
    ("Making Hand-Pulled Noodles", "cooking", 11),
    ("Tiny House Tour", "lifestyle", 14),
    ("Beginner Watercolor Tutorial", "education", 18),
    ("Steel Horizon Official Trailer", "trailer", 2),
    ("Desk Stretches for Office Workers", "fitness", 6),
    ("City Lights Timelapse", "travel", 3),
]
SUBTITLE_LANGUAGES = ["zh-CN", "es-ES", "fr-FR", "ja-JP", "ko-KR", "de-DE"]

SHOWS = [  # (title, publisher, category, days between episodes)
    ("The Morning Byte", "TechWave Media", "technology", 1),
    ("Money Matters Weekly", "Ledger Audio", "business", 7),
    ("History Unboxed", "Archive Sound", "history", 7),
    ("Mindful Minutes", "Calm Collective", "health", 3),
    ("Startup Stories", "Founders Radio", "business", 7),
    ("Science After Dark", "Lab Notes Studio", "science", 7),
    ("The Language Lab", "Polyglot Pod", "education", 7),
    ("True Crime Files", "Night Desk", "true crime", 14),
    ("Football Talk Daily", "Pitchside", "sports", 1),
    ("The Food Show", "Kitchen Table Audio", "food", 7),
    ("Parenting Unfiltered", "Home Base Media", "family", 14),
    ("Pixel & Pen", "Studio North", "design", 14),
    ("Travel Tales", "Wanderlust Audio", "travel", 7),
    ("China Business Brief", "Eastward Media", "news", 1),
    ("The Comedy Hour", "Laugh Track", "comedy", 7),
    ("World News Roundup", "Global Desk", "news", 1),
]
AUDIOBOOKS = [  # (title, narrator, chapters)
    ("Pride and Prejudice", "Read by Emma Hart", 10),
    ("The Adventures of Sherlock Holmes", "Read by Paul Reed", 12),
    ("The Art of War", "Read by David Lee", 6),
    ("Treasure Island", "Read by Sam Cole", 9),
    ("Frankenstein", "Read by Anna Byrne", 8),
    ("Journey to the West (Abridged)", "Read by Chen Hao", 10),
]
TOPICS = [
    "Why sleep matters",
    "The future of electric cars",
    "Inside the chip shortage",
    "Saving your first 10k",
    "How cities fight heat",
    "The science of habits",
    "Remote work, three years on",
    "What AI can't do yet",
    "The history of tea",
    "Learning a language at 40",
    "Small business survival",
    "The art of negotiation",
    "Coffee economics",
    "Building a morning routine",
    "Space tourism",
    "The housing market explained",
    "How vaccines are made",
    "Stories from the night train",
    "Cooking with what you have",
    "Burnout",
    "The rise of e-sports",
    "Inside a Michelin kitchen",
    "Debt, explained",
    "Ancient trade routes",
]

BOOKS = [  # (title, author, genre, year, pages)
    ("Project Hail Mary", "Andy Weir", "science fiction", 2021, 476),
    ("The Martian", "Andy Weir", "science fiction", 2014, 369),
    ("The Three-Body Problem", "Liu Cixin", "science fiction", 2008, 400),
    ("The Dark Forest", "Liu Cixin", "science fiction", 2008, 512),
    ("Death's End", "Liu Cixin", "science fiction", 2010, 604),
    ("Atomic Habits", "James Clear", "self-help", 2018, 320),
    ("Deep Work", "Cal Newport", "self-help", 2016, 296),
    ("Thinking, Fast and Slow", "Daniel Kahneman", "psychology", 2011, 499),
    ("Sapiens", "Yuval Noah Harari", "history", 2011, 443),
    ("Educated", "Tara Westover", "memoir", 2018, 334),
    ("Klara and the Sun", "Kazuo Ishiguro", "literary fiction", 2021, 303),
    ("Never Let Me Go", "Kazuo Ishiguro", "literary fiction", 2005, 288),
    ("The Remains of the Day", "Kazuo Ishiguro", "literary fiction", 1989, 258),
    ("Norwegian Wood", "Haruki Murakami", "literary fiction", 1987, 296),
    ("Kafka on the Shore", "Haruki Murakami", "literary fiction", 2002, 505),
    ("The City and Its Uncertain Walls", "Haruki Murakami", "literary fiction", 2023, 464),
    ("1984", "George Orwell", "classics", 1949, 328),
    ("Animal Farm", "George Orwell", "classics", 1945, 112),
    ("Pride and Prejudice", "Jane Austen", "classics", 1813, 432),
    ("The Great Gatsby", "F. Scott Fitzgerald", "classics", 1925, 180),
    ("To Kill a Mockingbird", "Harper Lee", "classics", 1960, 281),
    ("Dune", "Frank Herbert", "science fiction", 1965, 617),
    ("Foundation", "Isaac Asimov", "science fiction", 1951, 255),
    ("The Hobbit", "J.R.R. Tolkien", "fantasy", 1937, 310),
    ("The Psychology of Money", "Morgan Housel", "finance", 2020, 256),
    ("Outliers", "Malcolm Gladwell", "psychology", 2008, 309),
    ("Range", "David Epstein", "self-help", 2019, 339),
    ("The Midnight Library", "Matt Haig", "fiction", 2020, 288),
    ("Tomorrow, and Tomorrow, and Tomorrow", "Gabrielle Zevin", "fiction", 2022, 416),
    ("Lessons in Chemistry", "Bonnie Garmus", "fiction", 2022, 400),
    ("Demon Copperhead", "Barbara Kingsolver", "fiction", 2022, 548),
    ("Where the Crawdads Sing", "Delia Owens", "fiction", 2018, 384),
    ("The Silent Patient", "Alex Michaelides", "thriller", 2019, 336),
    ("Gone Girl", "Gillian Flynn", "thriller", 2012, 432),
    ("The Alchemist", "Paulo Coelho", "fiction", 1988, 208),
    ("Little Women", "Louisa May Alcott", "classics", 1868, 449),
    ("Crime and Punishment", "Fyodor Dostoevsky", "classics", 1866, 671),
    ("One Hundred Years of Solitude", "Gabriel Garcia Marquez", "classics", 1967, 417),
    ("Brave New World", "Aldous Huxley", "classics", 1932, 311),
    ("The Road", "Cormac McCarthy", "fiction", 2006, 287),
    ("Station Eleven", "Emily St. John Mandel", "fiction", 2014, 333),
    ("Shogun", "James Clavell", "historical fiction", 1975, 1152),
    ("The Body Keeps the Score", "Bessel van der Kolk", "psychology", 2014, 464),
    ("Factfulness", "Hans Rosling", "nonfiction", 2018, 342),
    ("Becoming", "Michelle Obama", "memoir", 2018, 448),
    ("Steve Jobs", "Walter Isaacson", "biography", 2011, 656),
]
NOTED_BOOKS = {"Project Hail Mary", "The Three-Body Problem", "Atomic Habits"}  # in a note of books to read

SCENES = [  # (labels, has people, fixed spot or None for any)
    (["food", "dinner"], False, None),
    (["sunset", "sky"], False, None),
    (["dog", "pet"], False, "Riverside Park"),
    (["cat", "pet"], False, "Home"),
    (["coffee", "cafe"], False, None),
    (["birthday", "cake", "party"], True, "Home"),
    (["mountain", "hiking", "landscape"], True, "West Hills"),
    (["city", "skyline", "night"], False, "Downtown"),
    (["flowers", "garden"], False, "Botanical Garden"),
    (["selfie"], True, None),
    (["family", "portrait"], True, "Home"),
    (["concert", "music", "crowd"], False, "Arena"),
    (["bicycle", "street"], False, "Old Town"),
    (["noodles", "food"], False, "Night Market"),
    (["snow", "winter"], False, "Lakeside Trail"),
    (["museum", "art"], False, "City Museum"),
    (["lake", "landscape"], True, "Lakeside Trail"),
    (["car"], False, "Home"),
    (["kids", "playground"], True, "Riverside Park"),
    (["breakfast", "food"], False, "Home"),
]
HOME_SPOTS = [
    "Home",
    "Riverside Park",
    "Old Town",
    "City Museum",
    "Lakeside Trail",
    "Downtown",
    "Night Market",
    "Office",
]
TRIP_SCENES = [
    ["landmark", "travel"],
    ["street food", "food"],
    ["hotel", "travel"],
    ["museum", "art"],
    ["skyline", "city"],
    ["selfie", "travel"],
    ["beach", "sea"],
    ["temple", "travel"],
]
TRIP_SPOTS = ["City Centre", "Old Quarter", "Harbour", "Art Museum", "Night Market", "Grand Hotel"]

MERCHANTS = [  # (name, items with a price in CNY)
    (
        "Noodle House",
        [
            ("Beef noodle soup", 38.0),
            ("Pork dumplings (10 pcs)", 28.0),
            ("Cucumber salad", 16.0),
            ("Iced lemon tea", 12.0),
        ],
    ),
    ("Green Leaf Cafe", [("Latte", 32.0), ("Americano", 28.0), ("Blueberry muffin", 18.0), ("Croissant", 16.0)]),
    (
        "FreshMart Supermarket",
        [
            ("Milk 1L", 12.5),
            ("Eggs (12 pcs)", 18.9),
            ("Whole wheat bread", 9.9),
            ("Apples 1kg", 15.8),
            ("Coffee beans 500g", 68.0),
            ("Olive oil", 59.0),
        ],
    ),
    ("City Pharmacy", [("Vitamin C 100 tabs", 45.0), ("Plasters", 15.0), ("Cold relief capsules", 36.0)]),
    (
        "Golden Dragon Restaurant",
        [("Peking duck (half)", 168.0), ("Kung pao chicken", 58.0), ("Fried rice", 32.0), ("Beer", 18.0)],
    ),
    ("Sunny Books", [("Notebook A5", 25.0), ("Paperback novel", 59.0), ("Gel pens (3 pack)", 15.0)]),
    ("QuickFix Hardware", [("LED bulb", 22.0), ("Screwdriver set", 49.0), ("Duct tape", 12.0)]),
]
SCREENSHOT_SNIPPETS = [  # (labels, text on screen)
    (["screenshot", "social media"], "Liked by tom.baker and 120 others\nWhat a view!"),
    (["screenshot", "news"], "Metro line 4 extension opens next month"),
    (["screenshot", "game"], "LEVEL 42 COMPLETE\nScore 18,420"),
    (["screenshot", "weather"], "Tomorrow: thunderstorms, 24°C / 31°C"),
    (["screenshot", "settings"], "Storage almost full: 2.1 GB left"),
    (["screenshot", "social media"], "Happy anniversary to my favourite person!"),
    (["screenshot", "shopping"], "Price drop! Wireless earbuds now 30% off"),
    (["screenshot", "calendar"], "Reminder: parent-teacher meeting Thursday 16:00"),
]


def _title(rng: random.Random, genre: str, used: set[str]) -> str:
    """A song or album title not used yet by this artist."""
    while True:
        if genre == "classical":
            title = f"{rng.choice(FORMS)} No. {rng.randint(1, 12)} in {rng.choice(KEYS)}"
        else:
            roll, noun = rng.random(), rng.choice(NOUNS)
            title = (
                f"{rng.choice(ADJECTIVES)} {noun}"
                if roll < 0.6
                else noun
                if roll < 0.75
                else f"{rng.choice(LEADS)} {noun}"
                if roll < 0.9
                else f"{rng.choice(ADJECTIVES)} {noun} (Acoustic)"
            )
        if title not in used:
            used.add(title)
            return title


def _ts(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def _day(now: dt.datetime, days_back: int, hhmm: str) -> dt.datetime:
    """That time of day, ``days_back`` days before now."""
    return dt.datetime.combine(now.date() - dt.timedelta(days=days_back), dt.time.fromisoformat(hhmm))


def _moment(rng: random.Random, now: dt.datetime, days: int) -> dt.datetime:
    """A daytime moment within the last ``days`` days (never today, so never after now)."""
    day = now.date() - dt.timedelta(days=rng.randint(1, days))
    return dt.datetime.combine(day, dt.time(rng.randint(8, 21), rng.randint(0, 59), rng.randint(0, 59)))


Play = tuple[str, str, str]  # (player, item id, played at)


def _seed_music(conn: Connection, rng: random.Random, now: dt.datetime, stamp: str) -> list[Play]:
    """The catalogue, the playlists and the paused music player; returns the music listening history."""
    artist_rows: list[dict[str, Any]] = []
    album_rows: list[dict[str, Any]] = []
    track_rows: list[dict[str, Any]] = []
    for i, (name, genre) in enumerate(ARTISTS, start=1):
        artist_id, used = f"artist_{i:03d}", set[str]()
        artist_rows.append({"artist_id": artist_id, "name": name, "genre": genre})
        for _ in range(rng.choice([1, 1, 2, 2])):
            album_id = f"album_{len(album_rows) + 1:03d}"
            album_rows.append(
                {
                    "album_id": album_id,
                    "title": _title(rng, genre, used),
                    "artist_id": artist_id,
                    "year": rng.randint(2008, now.year),
                }
            )
            for no in range(1, rng.randint(4, 8) + 1):
                long = genre == "classical"
                track_rows.append(
                    {
                        "track_id": f"track_{len(track_rows) + 1:03d}",
                        "title": _title(rng, genre, used),
                        "artist_id": artist_id,
                        "album_id": album_id,
                        "track_no": no,
                        "duration_sec": rng.randint(240, 720) if long else rng.randint(140, 330),
                        "genre": genre,
                        "premium_only": int(rng.random() < 0.1),
                    }
                )
    conn.execute(insert(world_artists), artist_rows)
    conn.execute(insert(world_albums), album_rows)
    conn.execute(insert(world_tracks), track_rows)

    list_rows, entries = [], []
    for i, (name, description, public, genres, size) in enumerate(SEED_PLAYLISTS, start=1):
        pid = f"playlist_{i:03d}"
        list_rows.append(
            {
                "playlist_id": pid,
                "name": name,
                "description": description,
                "is_public": public,
                "created_at": stamp,
                "updated_at": stamp,
            }
        )
        pool = [t["track_id"] for t in track_rows if genres is None or t["genre"] in genres]
        entries += [
            {"playlist_id": pid, "track_id": tid, "position": n, "created_at": stamp, "updated_at": stamp}
            for n, tid in enumerate(rng.sample(pool, min(size, len(pool))), start=1)
        ]
    conn.execute(insert(playlists), list_rows)
    conn.execute(insert(playlist_tracks), entries)

    run = [e["track_id"] for e in entries if e["playlist_id"] == "playlist_002"]
    premium = {t["track_id"] for t in track_rows if t["premium_only"]}
    free = [t for t in run if t not in premium]
    conn.execute(
        insert(playback_state).values(
            player="music",
            item_id=free[3],
            context_id="playlist_002",
            queue_json=json.dumps(free),
            queue_pos=3,
            status="paused",
            position_sec=87,
            output_device_id="device_003",
            shuffle=0,
            repeat="off",
            speed=1.0,
            subtitles=None,
            sleep_timer_min=None,
            created_at=stamp,
            updated_at=stamp,
        )
    )
    favourites = [e["track_id"] for e in entries]
    plays = [
        (
            "music",
            rng.choice(favourites) if rng.random() < 0.7 else rng.choice(track_rows)["track_id"],
            _ts(_moment(rng, now, 30)),
        )
        for _ in range(140)
    ]
    return [*plays, ("music", free[3], _ts(now - dt.timedelta(hours=14)))]


def _seed_video(conn: Connection, rng: random.Random, now: dt.datetime, stamp: str) -> None:
    video_rows: list[dict[str, Any]] = []

    def add(
        title: str,
        kind: str,
        genre: str,
        minutes: int,
        language: str,
        access: str,
        subtitles: list[str],
        series_id: str | None = None,
        episode_no: int | None = None,
        year: int | None = None,
    ) -> str:
        vid = f"video_{len(video_rows) + 1:03d}"
        video_rows.append(
            {
                "video_id": vid,
                "title": title,
                "kind": kind,
                "genre": genre,
                "duration_min": minutes,
                "language": language,
                "access": access,
                "year": year or rng.randint(1998, now.year),
                "rating": round(rng.uniform(5.5, 9.3), 1),
                "series_id": series_id,
                "episode_no": episode_no,
                "subtitles_json": json.dumps(subtitles),
            }
        )
        return vid

    def subs(language: str) -> list[str]:
        return sorted({"en-US", language, *rng.sample(SUBTITLE_LANGUAGES, rng.randint(0, 3))})

    movies = [
        add(title, "movie", genre, rng.randint(85, 165), language, access, subs(language))
        for title, genre, language, access in MOVIES
    ]
    series_eps: list[list[str]] = []
    for title, genre, language, episodes, minutes in SERIES:
        languages, year = subs(language), rng.randint(2015, now.year)
        sid = add(title, "series", genre, minutes, language, "subscription", languages, year=year)
        names = ["Pilot", *rng.sample(EPISODE_TITLES, episodes - 2), "Finale"]
        series_eps.append(
            [
                add(
                    name,
                    "episode",
                    genre,
                    minutes + rng.randint(-4, 4),
                    language,
                    "subscription",
                    languages,
                    sid,
                    n,
                    year,
                )
                for n, name in enumerate(names, start=1)
            ]
        )
    clips = [
        add(title, "clip", genre, minutes, "en-US", "free", ["en-US"], year=now.year) for title, genre, minutes in CLIPS
    ]
    conn.execute(insert(world_videos), video_rows)

    rent = [m for m, (*_, access) in zip(movies, MOVIES) if access == "rent"]
    conn.execute(
        insert(video_rentals),
        [
            {
                "video_id": rent[0],
                "rented_at": _ts(now - dt.timedelta(days=1)),
                "expires_at": _ts(now + dt.timedelta(days=1)),
                "created_at": stamp,
                "updated_at": stamp,
            },
            {
                "video_id": rent[1],
                "rented_at": _ts(now - dt.timedelta(days=12)),
                "expires_at": _ts(now - dt.timedelta(days=10)),
                "created_at": stamp,
                "updated_at": stamp,
            },
        ],
    )
    conn.execute(
        insert(media_subscriptions),
        [
            {"service": "music", "plan": "free", "renews_on": None, "created_at": stamp, "updated_at": stamp},
            {
                "service": "video",
                "plan": "premium",
                "renews_on": (now + dt.timedelta(days=12)).date().isoformat(),
                "created_at": stamp,
                "updated_at": stamp,
            },
        ],
    )
    picks = rng.sample([m for m in movies if m not in rent] + [e[0] for e in series_eps], 6)
    conn.execute(insert(watchlist), [{"video_id": v, "created_at": stamp, "updated_at": stamp} for v in sorted(picks)])

    watched = []
    for eps, seen in ((series_eps[0], 3), (series_eps[2], 5), (series_eps[3], 1)):
        first = _moment(rng, now, 40)
        watched += [(eps[k], _ts(first + dt.timedelta(days=k, hours=1))) for k in range(seen)]
    watchable = [m for m in movies if m not in rent] + clips
    watched += [(rng.choice(watchable), _ts(_moment(rng, now, 90))) for _ in range(14)]
    watched.append((rent[1], _ts(now - dt.timedelta(days=11))))
    conn.execute(
        insert(watch_history),
        [
            {"history_id": f"watch_{n:03d}", "video_id": v, "watched_at": at, "created_at": at, "updated_at": at}
            for n, (v, at) in enumerate(sorted(watched, key=lambda w: w[1]), start=1)
        ],
    )


def _seed_podcasts(conn: Connection, rng: random.Random, now: dt.datetime, stamp: str) -> list[Play]:
    """Shows, audiobooks and followed shows; returns the podcast listening history."""
    show_rows: list[dict[str, Any]] = []
    episode_rows: list[dict[str, Any]] = []
    for i, (title, publisher, category, every) in enumerate(SHOWS, start=1):
        sid = f"show_{i:03d}"
        show_rows.append(
            {"show_id": sid, "title": title, "publisher": publisher, "category": category, "kind": "podcast"}
        )
        count, base = rng.randint(6, 10), rng.randint(20, 300)
        latest = now - dt.timedelta(days=rng.randint(0, every), hours=rng.randint(2, 12))
        for k in range(count):
            n = base + count - 1 - k
            episode_rows.append(
                {
                    "episode_id": "",
                    "show_id": sid,
                    "title": f"#{n} {rng.choice(TOPICS)}",
                    "episode_no": n,
                    "duration_sec": rng.randint(600, 1300) if every == 1 else rng.randint(1500, 4200),
                    "published_at": _ts(latest - dt.timedelta(days=every * k)),
                }
            )
    for j, (title, narrator, chapters) in enumerate(AUDIOBOOKS, start=len(SHOWS) + 1):
        sid = f"show_{j:03d}"
        show_rows.append(
            {"show_id": sid, "title": title, "publisher": narrator, "category": "audiobook", "kind": "audiobook"}
        )
        released = _ts(now - dt.timedelta(days=rng.randint(300, 900)))
        episode_rows += [
            {
                "episode_id": "",
                "show_id": sid,
                "title": f"Chapter {k}",
                "episode_no": k,
                "duration_sec": rng.randint(1500, 3600),
                "published_at": released,
            }
            for k in range(1, chapters + 1)
        ]
    episode_rows.sort(key=lambda e: (e["show_id"], e["episode_no"]))
    for n, e in enumerate(episode_rows, start=1):
        e["episode_id"] = f"episode_{n:03d}"
    conn.execute(insert(world_podcasts), show_rows)
    conn.execute(insert(world_episodes), episode_rows)
    followed = sorted(rng.sample([s["show_id"] for s in show_rows if s["kind"] == "podcast"], 5))
    conn.execute(
        insert(podcast_subscriptions),
        [
            {"show_id": s, "auto_download": int(rng.random() < 0.8), "created_at": stamp, "updated_at": stamp}
            for s in followed
        ],
    )
    heard = [e for e in episode_rows if e["show_id"] in followed and e["published_at"] < _ts(now)]
    plays: list[Play] = []
    for e in rng.sample(heard, min(24, len(heard))):
        at = dt.datetime.fromisoformat(e["published_at"]) + dt.timedelta(hours=rng.randint(1, 30))
        plays.append(("podcast", e["episode_id"], _ts(min(at, now - dt.timedelta(minutes=30)))))
    return plays


def _seed_books(conn: Connection, rng: random.Random, stamp: str) -> None:
    conn.execute(
        insert(world_books),
        [
            {"book_id": f"book_{i:03d}", "title": t, "author": a, "genre": g, "year": y, "pages": p}
            for i, (t, a, g, y, p) in enumerate(BOOKS, start=1)
        ],
    )
    candidates = [f"book_{i:03d}" for i, b in enumerate(BOOKS, start=1) if b[0] not in NOTED_BOOKS]
    chosen = rng.sample(candidates, 12)
    shelves = ["reading"] * 3 + ["finished"] * 5 + ["want_to_read"] * 4
    conn.execute(
        insert(bookshelf),
        sorted(
            (
                {
                    "book_id": b,
                    "shelf": s,
                    "progress_pct": {"finished": 100, "want_to_read": 0}.get(s, rng.randint(8, 85)),
                    "created_at": stamp,
                    "updated_at": stamp,
                }
                for b, s in zip(chosen, shelves)
            ),
            key=lambda r: r["book_id"],  # type: ignore[arg-type, return-value]  # a str
        ),
    )


def _receipt(
    rng: random.Random, when: dt.datetime, merchant: tuple[str, list[tuple[str, float]]], city: str, currency: str
) -> tuple[str, dict[str, Any]]:
    """The printed text of a till receipt and its fields."""
    name, menu = merchant

    # yuan prices as printed in China; elsewhere the same meal at a fifth of the figure in dollars
    def local(yuan: float) -> float:
        return yuan if currency == "CNY" else local_money(yuan * 0.2, currency)

    items: list[dict[str, Any]] = [
        {"name": item, "qty": rng.randint(1, 2), "price": local(price)}
        for item, price in rng.sample(menu, rng.randint(2, min(4, len(menu))))
    ]
    total = to_step(sum(i["qty"] * i["price"] for i in items), currency)
    lines = [name.upper(), f"{rng.randint(1, 200)} Market Street, {city}", when.strftime("%Y-%m-%d %H:%M")]
    lines += [f"{i['name']} x{i['qty']}  {i['qty'] * i['price']:.2f}" for i in items]
    lines += [f"TOTAL {currency} {total:.2f}", f"PAID BY CARD ****{rng.randint(1000, 9999)}", "THANK YOU!"]
    fields = {
        "merchant": name,
        "date": when.date().isoformat(),
        "time": when.strftime("%H:%M"),
        "items": items,
        "total": total,
        "currency": currency,
    }
    return "\n".join(lines), fields


def _documents(
    rng: random.Random, now: dt.datetime, persona: Persona, trip: tuple[str, dt.datetime], tracks: list[tuple[str, str]]
) -> list[tuple[dt.datetime, str, str, list[str], str, dict[str, Any]]]:
    """Pictures with text in them: (when, media type, source, labels, text, fields)."""
    city, trip_start = trip
    ahead = (now + dt.timedelta(days=10)).date().isoformat()
    sessions = [
        {
            "title": "Keynote: The Next Decade of AI",
            "start": f"{ahead}T09:30",
            "end": f"{ahead}T10:30",
            "room": "Hall A",
        },
        {
            "title": "Scaling Databases in Practice",
            "start": f"{ahead}T11:00",
            "end": f"{ahead}T11:45",
            "room": "Room 201",
        },
        {
            "title": "Panel: Remote Teams That Work",
            "start": f"{ahead}T14:00",
            "end": f"{ahead}T15:00",
            "room": "Hall B",
        },
    ]
    flight = {
        "passenger": persona.name.upper(),
        "flight": "MU5106" if persona.timezone == "Asia/Shanghai" else "UA857",
        "from": persona.home_city,
        "to": city,
        "date": trip_start.date().isoformat(),
        "boarding_time": "08:25",
        "gate": "C12",
        "seat": "32A",
    }
    card_a = {
        "name": "Henry Zhao",
        "title": "Sales Director",
        "company": "Brightline Logistics",
        "phone": "+86 139 5521 0876",
        "email": "henry.zhao@brightline.example.com",
    }
    card_b = {
        "name": "Olivia Grant",
        "title": "UX Researcher",
        "company": "Northwind Studio",
        "phone": "+1 415 555 0199",
        "email": "olivia@northwind.example.com",
    }
    medicine = {
        "name": "Amoxicillin 500 mg",
        "dosage": "1 capsule",
        "frequency": "3 times daily",
        "with_food": True,
        "days": 7,
    }
    docs: list[tuple[dt.datetime, str, str, list[str], str, dict[str, Any]]] = [
        (
            _day(now, 2, "10:12"),
            "screenshot",
            "screenshot",
            ["screenshot", "schedule", "conference"],
            f"TechConf 2025 Day 1 {ahead}\n"
            + "\n".join(f"{s['start'][11:]}-{s['end'][11:]} {s['title']} ({s['room']})" for s in sessions),
            {"event": "TechConf 2025", "date": ahead, "sessions": sessions},
        ),
        (
            trip_start - dt.timedelta(hours=14, minutes=22),
            "screenshot",
            "screenshot",
            ["screenshot", "boarding pass", "travel"],
            f"BOARDING PASS\n{flight['passenger']}\n{flight['flight']} {persona.home_city} -> {city}\n"
            f"{flight['date']} BOARDING {flight['boarding_time']} GATE {flight['gate']} SEAT {flight['seat']}",
            flight,
        ),
        (
            _day(now, 4, "21:40"),
            "screenshot",
            "screenshot",
            ["screenshot", "music", "playlist"],
            "Summer Vibes (shared by Tom Baker)\n" + "\n".join(f"{n}. {t} - {a}" for n, (t, a) in enumerate(tracks, 1)),
            {"playlist": "Summer Vibes", "tracks": [{"title": t, "artist": a} for t, a in tracks]},
        ),
        (
            _day(now, 1, "22:05"),
            "screenshot",
            "screenshot",
            ["screenshot", "chat"],
            "Lily Chen: Can you pick up the cake at 6 tomorrow? It's under my name.\nMe: Sure, which bakery?\n"
            "Lily Chen: Sweet Crumb on Station Road",
            {"app": "chat", "from": "Lily Chen", "bakery": "Sweet Crumb", "address": "Station Road", "time": "18:00"},
        ),
        (
            _day(now, 6, "19:48"),
            "screenshot",
            "screenshot",
            ["screenshot", "shopping", "order"],
            "Order #A7731-2290 confirmed\nWireless charger x1\nEstimated delivery: "
            f"{(now + dt.timedelta(days=2)).date().isoformat()}",
            {
                "order_number": "A7731-2290",
                "item": "Wireless charger",
                "delivery_date": (now + dt.timedelta(days=2)).date().isoformat(),
            },
        ),
        (
            _day(now, 20, "13:27"),
            "screenshot",
            "screenshot",
            ["screenshot", "wifi"],
            "Green Leaf Cafe guest Wi-Fi\nNetwork: GreenLeaf-Guest\nPassword: latte2025",
            {"network": "GreenLeaf-Guest", "password": "latte2025"},
        ),
        (
            _day(now, 9, "15:03"),
            "screenshot",
            "screenshot",
            ["screenshot", "ticket", "concert"],
            f"E-TICKET  Neon Tide Live\n{(now + dt.timedelta(days=23)).date().isoformat()} 19:30\n"
            f"{persona.home_city} Arena  Section B  Row 12  Seat 8",
            {
                "event": "Neon Tide Live",
                "date": (now + dt.timedelta(days=23)).date().isoformat(),
                "time": "19:30",
                "venue": f"{persona.home_city} Arena",
                "section": "B",
                "row": "12",
                "seat": "8",
            },
        ),
        (
            _day(now, 33, "20:16"),
            "screenshot",
            "screenshot",
            ["screenshot", "recipe", "food"],
            "Tomato egg noodles (2 servings)\n200 g noodles, 3 eggs, 3 tomatoes, 1 spring onion, soy sauce, sugar",
            {
                "recipe": "Tomato egg noodles",
                "servings": 2,
                "ingredients": ["200 g noodles", "3 eggs", "3 tomatoes", "1 spring onion", "soy sauce", "sugar"],
            },
        ),
        (_day(now, 15, "11:54"), "photo", "camera", ["business card", "document"], "\n".join(card_a.values()), card_a),
        (_day(now, 48, "16:30"), "photo", "camera", ["business card", "document"], "\n".join(card_b.values()), card_b),
        (
            _day(now, 3, "14:22"),
            "photo",
            "camera",
            ["whiteboard", "document", "office"],
            "Q3 ROADMAP\n1. Launch new dashboard (July)\n2. Migrate billing DB (Aug)\n3. Hire 2 engineers\n"
            "Owner: Alex Morgan",
            {
                "title": "Q3 roadmap",
                "items": ["Launch new dashboard (July)", "Migrate billing DB (Aug)", "Hire 2 engineers"],
                "owner": "Alex Morgan",
            },
        ),
        (
            _day(now, 17, "17:45"),
            "photo",
            "camera",
            ["whiteboard", "document", "office"],
            "SPRINT 14 RETRO\nGood: faster reviews\nImprove: flaky tests\nAction: Tom to fix CI by Friday",
            {"title": "Sprint 14 retro", "actions": ["Tom to fix CI by Friday"]},
        ),
        (
            _day(now, 1, "09:18"),
            "photo",
            "camera",
            ["sign", "parking", "street"],
            "2 HOUR PARKING\n8AM - 6PM MON - SAT\nNO PARKING 6PM - 8AM\nTOW AWAY ZONE",
            {"max_stay": "2 hours", "hours": "08:00-18:00", "days": "Mon-Sat", "no_parking": "18:00-08:00"},
        ),
        (
            _day(now, 5, "18:33"),
            "photo",
            "camera",
            ["medicine", "package", "document"],
            "Amoxicillin Capsules 500 mg\nTake 1 capsule 3 times daily with food for 7 days",
            medicine,
        ),
        (
            _day(now, 26, "12:50"),
            "photo",
            "camera",
            ["menu", "restaurant", "document"],
            "TODAY'S SPECIALS\nMapo tofu 42\nSweet and sour fish 88\nMango pudding 22",
            {
                "specials": [
                    {"dish": "Mapo tofu", "price": 42},
                    {"dish": "Sweet and sour fish", "price": 88},
                    {"dish": "Mango pudding", "price": 22},
                ]
            },
        ),
        (
            _day(now, 12, "20:41"),
            "photo",
            "camera",
            ["poster", "event"],
            f"JAZZ IN THE PARK\nFree concert\n{(now + dt.timedelta(days=16)).date().isoformat()} 18:00\nRiverside Park",
            {
                "event": "Jazz in the Park",
                "date": (now + dt.timedelta(days=16)).date().isoformat(),
                "time": "18:00",
                "venue": "Riverside Park",
                "price": 0,
            },
        ),
    ]
    docs += [
        (_moment(rng, now, 150), "screenshot", "screenshot", labels, text, {"text": text})
        for labels, text in SCREENSHOT_SNIPPETS
    ]
    return docs


def _seed_photos(conn: Connection, rng: random.Random, persona: Persona, now: dt.datetime, stamp: str) -> None:
    home = persona.home_city
    currency = persona.currency
    people = [name for name, rel in ANCHORS if rel in ("spouse", "mother", "father", "friend")]
    entries: list[dict[str, Any]] = []

    def add(
        when: dt.datetime,
        media_type: str,
        labels: list[str],
        place: str | None,
        who: list[str],
        size: float,
        source: str = "camera",
        text: str | None = None,
        fields: dict[str, Any] | None = None,
        seconds: int | None = None,
    ) -> None:
        entries.append(
            {
                "media_type": media_type,
                "taken_at": _ts(when),
                "place": place,
                "people_json": json.dumps(who),
                "labels_json": json.dumps(labels),
                "ocr_text": text,
                "fields_json": json.dumps(fields) if fields is not None else None,
                "size_mb": size,
                "duration_sec": seconds,
                "source": source,
                "deleted_at": None,
            }
        )

    def scene() -> tuple[list[str], str, list[str]]:
        labels, social, spot = rng.choice(SCENES)
        who = rng.sample(people, rng.randint(1, 2)) if social else []
        return labels, f"{spot or rng.choice(HOME_SPOTS)}, {home}", who

    for _ in range(86):
        labels, place, who = scene()
        add(_moment(rng, now, 180), "photo", labels, place, who, round(rng.uniform(2.4, 5.6), 1))
    for _ in range(9):
        labels, place, who = scene()
        seconds = rng.randint(5, 90)
        add(_moment(rng, now, 180), "video", labels, place, who, round(seconds * 2.2, 1), seconds=seconds)
    city = rng.choice(sorted(c for c in CITY_CENTRES if c not in (home, persona.work_city)))
    trip_start = dt.datetime.combine(now.date() - dt.timedelta(days=rng.randint(40, 70)), dt.time(9, 0))
    for _ in range(16):
        when = trip_start + dt.timedelta(days=rng.randint(0, 3), hours=rng.randint(2, 12), minutes=rng.randint(0, 59))
        who = [people[0]] if rng.random() < 0.4 else []
        add(
            when,
            "photo",
            rng.choice(TRIP_SCENES),
            f"{rng.choice(TRIP_SPOTS)}, {city}",
            who,
            round(rng.uniform(2.4, 5.6), 1),
        )
    for labels in (["wallpaper"], ["wallpaper"], ["meme"], ["meme"], ["infographic"]):
        add(_moment(rng, now, 170), "photo", labels, None, [], round(rng.uniform(0.2, 1.8), 1), source="download")
    tracks = [
        (r.title, r.name)
        for r in conn.execute(
            select(world_tracks.c.title, world_artists.c.name)
            .join_from(world_tracks, world_artists, world_tracks.c.artist_id == world_artists.c.artist_id)
            .where(world_tracks.c.premium_only == 0)
            .order_by(world_tracks.c.track_id)
        )
    ]
    for when, media_type, source, labels, text, fields in _documents(
        rng, now, persona, (city, trip_start), rng.sample(tracks, 6)
    ):
        add(
            when,
            media_type,
            labels,
            None if source == "screenshot" else home,
            [],
            round(rng.uniform(0.3, 1.5) if source == "screenshot" else rng.uniform(1.5, 3.5), 1),
            source=source,
            text=text,
            fields=fields,
        )
    last_friday = now.date() - dt.timedelta(days=(now.weekday() - 4) % 7 or 7)
    receipt_days = sorted(
        {
            last_friday,
            now.date() - dt.timedelta(days=7),
            *(now.date() - dt.timedelta(days=rng.randint(2, 120)) for _ in range(10)),
        }
    )
    for i, day in enumerate(receipt_days):
        when = dt.datetime.combine(
            day, dt.time(12, 41) if day == last_friday else dt.time(rng.randint(9, 20), rng.randint(0, 59))
        )
        merchant = MERCHANTS[0] if day == last_friday else MERCHANTS[i % len(MERCHANTS)]
        text, fields = _receipt(rng, when, merchant, home, currency)
        add(
            when,
            "photo",
            ["receipt", "document"],
            f"{merchant[0]}, {home}",
            [],
            round(rng.uniform(1.2, 2.6), 1),
            text=text,
            fields=fields,
        )

    entries.sort(key=lambda e: (e["taken_at"], e["labels_json"]))
    for n, e in enumerate(entries, start=1):
        e.update(photo_id=f"photo_{n:03d}", created_at=e["taken_at"], updated_at=e["taken_at"])
    camera = [e for e in entries if e["source"] == "camera" and e["ocr_text"] is None and e["media_type"] == "photo"]
    for e in rng.sample([e for e in camera if e["taken_at"] > _ts(now - dt.timedelta(days=25))], 4):
        e["deleted_at"] = e["updated_at"] = _ts(
            min(dt.datetime.fromisoformat(e["taken_at"]) + dt.timedelta(days=2), now - dt.timedelta(hours=3))
        )
        e["labels_json"] = json.dumps([*json.loads(e["labels_json"]), "blurry"])
    conn.execute(insert(photos), entries)

    live = [e for e in entries if e["deleted_at"] is None]

    def having(pred: Callable[[dict[str, Any]], bool]) -> list[str]:
        return [e["photo_id"] for e in live if pred(e)]

    receipts = having(lambda e: "receipt" in e["labels_json"])
    members = {
        "photo_album_001": sorted(rng.sample([e["photo_id"] for e in camera if e["deleted_at"] is None], 15)),
        "photo_album_002": having(
            lambda e: any(p in e["people_json"] for p in people[1:3]) or "family" in e["labels_json"]
        ),
        "photo_album_003": receipts[:-2],  # the newest receipts are not filed yet
        "photo_album_004": having(lambda e: (e["place"] or "").endswith(city)),
        "photo_album_005": having(lambda e: '"pet"' in e["labels_json"]),
    }
    names = {
        "photo_album_001": ("Favorites", 0),
        "photo_album_002": ("Family", 1),
        "photo_album_003": ("Receipts", 0),
        "photo_album_004": (f"{city} trip", 0),
        "photo_album_005": ("Pets", 0),
    }
    conn.execute(
        insert(albums),
        [
            {"album_id": a, "name": n, "shared": s, "created_at": stamp, "updated_at": stamp}
            for a, (n, s) in names.items()
        ],
    )
    conn.execute(
        insert(album_photos),
        [
            {"album_id": a, "photo_id": p, "created_at": stamp, "updated_at": stamp}
            for a, ids in members.items()
            for p in ids
        ],
    )
    conn.execute(
        insert(share_links).values(
            link_id="link_001",
            item_type="album",
            item_ids_json=json.dumps(["photo_album_004"]),
            url=SHARE_URL + "link_001",
            channel="link",
            recipients_json="[]",
            caption=f"Our {city} trip",
            created_at=stamp,
            updated_at=stamp,
        )
    )


SEED_DEVICES = [  # (name, kind, connection, paired, connected, online)
    ("Living Room TV", "tv", "cast", 1, 0, 1),
    ("Kitchen Speaker", "speaker", "wifi", 1, 0, 1),
    ("Sony WH-1000XM4", "headphones", "bluetooth", 1, 1, 1),
    ("My Car", "car", "bluetooth", 1, 0, 0),
    ("Bedroom TV", "tv", "cast", 0, 0, 1),
    ("Smart Watch", "watch", "bluetooth", 1, 1, 1),
]


@seeder
def seed_entertainment(conn: Connection, rng: random.Random, persona: Persona) -> None:
    """A fictional music, video and podcast catalogue, real books, and months of the user's media life."""
    now, stamp = dt.datetime.fromisoformat(persona.now), persona.now
    conn.execute(
        insert(devices),
        [
            {
                "device_id": f"device_{i:03d}",
                "name": n,
                "kind": k,
                "connection": c,
                "paired": p,
                "connected": cn,
                "online": o,
                "created_at": stamp,
                "updated_at": stamp,
            }
            for i, (n, k, c, p, cn, o) in enumerate(SEED_DEVICES, start=1)
        ],
    )
    plays = _seed_music(conn, rng, now, stamp)
    _seed_video(conn, rng, now, stamp)
    plays += _seed_podcasts(conn, rng, now, stamp)
    conn.execute(
        insert(play_history),
        [
            {
                "history_id": f"play_{n:03d}",
                "player": player,
                "item_id": item,
                "played_at": at,
                "created_at": at,
                "updated_at": at,
            }
            for n, (player, item, at) in enumerate(sorted(plays, key=lambda p: p[2]), start=1)
        ],
    )
    _seed_books(conn, rng, stamp)
    _seed_photos(conn, rng, persona, now, stamp)
