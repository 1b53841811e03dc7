"""Basic Tool Use families for Entertainment & Media (D2): music, playlists, video, podcasts, e-books,
the gallery, the camera and casting."""

from __future__ import annotations

import json
from typing import Any

from sandbox.domains.entertainment.tools import VIDEO_MB_PER_SEC
from sandbox.errors import ErrorType
from sandbox.generator.core import BuildError, Gen, act, done
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import family

# playback_state columns a task does not ask about (the queue, the position...): never collateral damage.
PLAYBACK_COLUMNS = (
    "context_id",
    "queue_json",
    "queue_pos",
    "status",
    "position_sec",
    "output_device_id",
    "shuffle",
    "repeat",
    "speed",
    "subtitles",
    "sleep_timer_min",
)


def playback_ignore(*asserted: str) -> list[str]:
    return [c for c in PLAYBACK_COLUMNS if c not in asserted]


def tracks(g: Gen, *, free: bool = True) -> list[dict[str, Any]]:
    """Catalogue tracks with artist and album names; ``free``: playable on the free plan."""
    artists = {a["artist_id"]: a["name"] for a in g.rows("world_artists")}
    albums = {a["album_id"]: a["title"] for a in g.rows("world_albums")}
    out = []
    for t in g.rows("world_tracks"):
        if free and t["premium_only"]:
            continue
        out.append({**t, "artist": artists[t["artist_id"]], "album": albums[t["album_id"]]})
    return out


def unique_title(g: Gen, pool: list[dict[str, Any]], k: int = 1) -> list[dict[str, Any]]:
    """Tracks whose title (with artist) names one catalogue track, and whose title matches nothing else first."""
    every = g.rows("world_tracks")
    counts: dict[str, int] = {}
    for t in every:
        counts[t["title"].lower()] = counts.get(t["title"].lower(), 0) + 1
    fit = [t for t in pool if counts[t["title"].lower()] == 1 and len(t["title"]) > 3]
    if len(fit) < k:
        raise BuildError("not enough uniquely titled tracks")
    return g.rng.sample(fit, k)


def perm_ok(g: Gen, app: str, permission: str) -> None:
    rows = g.rows("app_permissions", {"app_id": app, "permission": permission})
    if not rows or rows[0]["state"] != "granted":
        raise BuildError(f"{app} lacks {permission} on {g.persona.persona_id}")


def music_playing(g: Gen) -> dict[str, Any]:
    state = g.rows("playback_state", {"player": "music"})
    if not state:
        raise BuildError("no music playback state")
    return state[0]


# ---- 2.1 Music Playback -------------------------------------------------------------------------------------------


@family("basic", "2.1", pattern="lookup_then_act")
def play_song_by_title(g: Gen) -> Draft:
    t = unique_title(g, tracks(g))[0]
    repeat = g.pick((None, None, "one"))
    extra = " and put it on repeat" if repeat else ""
    query = g.say(
        "play {title} by {artist}{extra}",
        "put on the song {title} by {artist}{extra}",
        "I want to hear {title} from {artist}{extra}",
        "can you play '{title}' ({artist}){extra}?",
        title=t["title"],
        artist=t["artist"],
        extra=extra,
    )
    args: dict[str, Any] = {"item_id": t["track_id"]}
    state: dict[str, Any] = {"item_id": t["track_id"], "status": "playing"}
    if repeat:
        args["repeat"] = "one"
        state["repeat"] = {"$any": ["one", "all"]}
    return Draft(
        query=query,
        gold=[
            act("search_music", query=t["title"], type="track"),
            act("play_music", **args),
            done(f"Playing {t['title']} by {t['artist']}."),
        ],
        bucket="state_change",
        check={
            "update": {"playback_state": [{"match": {"player": "music"}, "set": state}]},
            "insert": {"play_history": [{"player": "music", "item_id": t["track_id"]}]},
            "ignore_columns": playback_ignore(*state),
        },
    )


@family("basic", "2.1", pattern="lookup_then_act")
def play_album_shuffled(g: Gen) -> Draft:
    pool = tracks(g)
    free_albums = {t["album_id"] for t in pool if t["track_no"] == 1}
    albums = [a for a in g.rows("world_albums") if a["album_id"] in free_albums]
    album = g.pick(albums)
    artist = g.one("world_artists", {"artist_id": album["artist_id"]})["name"]
    shuffle = g.pick((True, False))
    how = " on shuffle" if shuffle else ""
    query = g.say(
        "play the album {album} by {artist}{how}",
        "put on the {artist} album {album}{how}",
        "start {album} from {artist}{how}, the whole album",
        album=album["title"],
        artist=artist,
        how=how,
    )
    args: dict[str, Any] = {"item_id": album["album_id"]}
    state: dict[str, Any] = {"context_id": album["album_id"], "status": "playing"}
    if shuffle:
        args["shuffle"] = True
        state["shuffle"] = 1
    return Draft(
        query=query,
        gold=[
            act("search_music", query=f"{album['title']} {artist}", type="album"),
            act("play_music", **args),
            done(f"Playing {album['title']}."),
        ],
        bucket="state_change",
        check={
            "update": {"playback_state": [{"match": {"player": "music"}, "set": state}]},
            "insert": {"play_history": [{"player": "music"}]},
            "ignore_columns": [*playback_ignore(*state), "item_id"],
        },
    )


STOP_COMPLETELY = "stop playback of my music completely"


@family("basic", "2.1", pattern="single_call")
def control_music(g: Gen) -> Draft:
    state = music_playing(g)
    queue = json.loads(state["queue_json"])
    options = ["resume", "stop", "like", "seek"]
    if state["queue_pos"] + 1 < len(queue):
        options.append("next")
    if state["queue_pos"] > 0:
        options.append("previous")
    action = g.pick(options)
    liked = g.rows("playlists", {"name": "Liked Songs"})
    if (
        action == "like"
        and liked
        and g.rows("playlist_tracks", {"playlist_id": liked[0]["playlist_id"], "track_id": state["item_id"]})
    ):
        action = "resume"
    args: dict[str, Any] = {"action": action}
    if action == "seek":
        length = g.one("world_tracks", {"track_id": state["item_id"]})["duration_sec"]
        pos = g.rng.randint(20, max(21, length - 10))
        args["position_sec"] = pos
        mmss = f"{pos // 60}:{pos % 60:02d}"
        query = g.say(
            "jump to {t} in this song",
            "skip ahead to {t} in the current track",
            "seek the music to {t}",
            "go to minute {t} of the song",
            t=mmss,
        )
        check: dict[str, Any] = {
            "update": {
                "playback_state": [
                    {"match": {"player": "music"}, "set": {"position_sec": {"$range": [pos - 2, pos + 2]}}}
                ]
            }
        }
    elif action == "like":
        query = g.pick(
            [
                "like this song",
                "save the song that's playing to my liked songs",
                "I love this track, add it to Liked Songs",
                "heart the current song",
            ]
        )
        check = {"insert": {"playlist_tracks": [{"track_id": state["item_id"]}]}, "ignore_columns": ["position"]}
    else:
        query = {
            "resume": g.pick(
                [
                    "resume my music",
                    "unpause the music",
                    "continue playing the song",
                    "keep playing where the music stopped",
                ]
            ),
            "stop": g.pick(["stop the music", STOP_COMPLETELY, "turn the music off"]),
            "next": g.pick(["skip this song", "next track please", "play the next song"]),
            "previous": g.pick(["go back to the previous song", "play the last track again", "previous song please"]),
        }[action]
        status = {"resume": "playing", "stop": "stopped", "next": "playing", "previous": "playing"}[action]
        expect: dict[str, Any] = {"status": status}
        if action == "stop" and query != STOP_COMPLETELY:  # "turn the music off" is done by pausing it too
            expect["status"] = {"$any": ["stopped", "paused"]}
        if action in ("next", "previous"):
            expect["item_id"] = queue[state["queue_pos"] + (1 if action == "next" else -1)]
        check = {
            "update": {"playback_state": [{"match": {"player": "music"}, "set": expect}]},
            "ignore_columns": [*playback_ignore(*expect), "item_id"]
            if action not in ("next", "previous")
            else playback_ignore(*expect),
        }
        if action in ("next", "previous"):
            check["insert"] = {"play_history": [{"item_id": expect["item_id"]}]}
        if action == "stop":
            check["ignore_columns"] = playback_ignore("status")
    if action == "seek":
        check["ignore_columns"] = playback_ignore("position_sec")
    # the worlds' music is paused; turning it off is asked of music that plays
    patches = (
        {"update": {"playback_state": [{"match": {"player": "music"}, "set": {"status": "playing"}}]}}
        if action == "stop"
        else {}
    )
    return Draft(
        query=query,
        gold=[act("control_playback", **args), done("Done.")],
        bucket="state_change",
        check=check,
        patches=patches,
    )


@family("basic", "2.1", pattern="friction", friction="unsupported_operation")
def play_song_with_volume(g: Gen) -> Draft:
    """The gold passes a volume the tool does not take, reads UnknownArgument, and plays without it."""
    t = unique_title(g, tracks(g))[0]
    vol = g.pick((30, 40, 50, 60, 70, 80))
    query = g.say(
        "play {title} by {artist} at {vol}% volume",
        "put on {title} ({artist}), volume {vol} percent",
        "play the song {title} by {artist} and set the volume to {vol}%",
        title=t["title"],
        artist=t["artist"],
        vol=vol,
    )
    return Draft(
        query=query,
        gold=[
            act("search_music", query=t["title"], type="track"),
            act("play_music", item_id=t["track_id"], volume=vol),
            act("play_music", item_id=t["track_id"]),
            done(f"Playing {t['title']}; I can't set the volume from the music app, so please adjust it yourself."),
        ],
        bucket="state_change",
        check={
            "update": {
                "playback_state": [
                    {"match": {"player": "music"}, "set": {"item_id": t["track_id"], "status": "playing"}}
                ]
            },
            "insert": {"play_history": [{"player": "music", "item_id": t["track_id"]}]},
            "ignore_columns": playback_ignore("status"),
        },
        recovers=(ErrorType.UNKNOWN_ARGUMENT,),
    )


# ---- 2.2 Playlists & Library ----------------------------------------------------------------------------------------

PLAYLIST_NAMES = (
    "Sunday Chill",
    "Gym Mix",
    "Late Night Drive",
    "Rainy Day",
    "Kitchen Jams",
    "Study Beats",
    "Summer 2025",
    "Throwbacks",
    "Deep Focus",
    "Party Starters",
    "Coffee Shop",
    "Commute",
)


@family("basic", "2.2", pattern="lookup_then_act")
def new_playlist_with_songs(g: Gen) -> Draft:
    a, b = unique_title(g, tracks(g, free=False), 2)
    name = g.pick(PLAYLIST_NAMES)
    public = g.pick((False, False, True))
    vis = " and make it public" if public else ""
    query = g.say(
        "create a playlist called {name} with {a} by {aa} and {b} by {ba}{vis}",
        "make me a new playlist '{name}' containing {a} ({aa}) and {b} ({ba}){vis}",
        "start a playlist named {name}: add {a} by {aa} and {b} by {ba}{vis}",
        name=name,
        a=a["title"],
        aa=a["artist"],
        b=b["title"],
        ba=b["artist"],
        vis=vis,
    )
    args: dict[str, Any] = {"name": name, "track_ids": [a["track_id"], b["track_id"]]}
    row: dict[str, Any] = {"name": name}
    if public:
        args["is_public"] = True
        row["is_public"] = 1
    return Draft(
        query=query,
        gold=[
            act("search_music", query=a["title"], type="track"),
            act("search_music", query=b["title"], type="track"),
            act("create_playlist", **args),
            done(f"Created {name}."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "playlists": [row],
                "playlist_tracks": [{"track_id": a["track_id"]}, {"track_id": b["track_id"]}],
            }
        },
    )


def user_playlist(g: Gen) -> dict[str, Any]:
    return g.one("playlists", filter=lambda p: p["name"] != "Liked Songs")


@family("basic", "2.2", pattern="lookup_then_act")
def add_song_to_playlist(g: Gen) -> Draft:
    pl = user_playlist(g)
    present = {r["track_id"] for r in g.rows("playlist_tracks", {"playlist_id": pl["playlist_id"]})}
    t = unique_title(g, [t for t in tracks(g, free=False) if t["track_id"] not in present])[0]
    query = g.say(
        "add {title} by {artist} to my {pl} playlist",
        "put the song {title} by {artist} on {pl}",
        "could you add '{title}' ({artist}) to the {pl} playlist?",
        title=t["title"],
        artist=t["artist"],
        pl=pl["name"],
    )
    return Draft(
        query=query,
        gold=[
            act("search_music", query=pl["name"], type="playlist"),
            act("search_music", query=t["title"], type="track"),
            act("add_tracks_to_playlist", playlist_id=pl["playlist_id"], track_ids=[t["track_id"]]),
            done(f"Added {t['title']} to {pl['name']}."),
        ],
        bucket="state_change",
        check={
            "insert": {"playlist_tracks": [{"playlist_id": pl["playlist_id"], "track_id": t["track_id"]}]},
            "ignore_columns": ["position"],
        },
    )


@family("basic", "2.2", pattern="lookup_then_act")
def remove_song_from_playlist(g: Gen) -> Draft:
    pl = user_playlist(g)
    inside = {r["track_id"] for r in g.rows("playlist_tracks", {"playlist_id": pl["playlist_id"]})}
    t = unique_title(g, [t for t in tracks(g, free=False) if t["track_id"] in inside])[0]
    query = g.say(
        "remove {title} from my {pl} playlist",
        "take {title} by {artist} off {pl}",
        "I'm tired of {title} by {artist}; delete it from the {pl} playlist",
        title=t["title"],
        artist=t["artist"],
        pl=pl["name"],
    )
    return Draft(
        query=query,
        gold=[
            act("search_music", query=pl["name"], type="playlist"),
            act("search_music", query=t["title"], type="track"),
            act("remove_tracks_from_playlist", playlist_id=pl["playlist_id"], track_ids=[t["track_id"]]),
            done(f"Removed {t['title']} from {pl['name']}."),
        ],
        bucket="state_change",
        check={
            "delete": {"playlist_tracks": [{"playlist_id": pl["playlist_id"], "track_id": t["track_id"]}]},
            "ignore_columns": ["position"],
        },
    )


@family("basic", "2.2", pattern="friction", friction="not_found")
def add_song_playlist_by_name(g: Gen) -> Draft:
    """The gold first passes the playlist's name as its id, gets EntityNotFound, searches and retries."""
    pl = user_playlist(g)
    present = {r["track_id"] for r in g.rows("playlist_tracks", {"playlist_id": pl["playlist_id"]})}
    t = unique_title(g, [t for t in tracks(g, free=False) if t["track_id"] not in present])[0]
    query = g.say(
        "stick {title} by {artist} onto {pl}",
        "{pl} needs {title} by {artist}, please add it",
        "append the track {title} ({artist}) to the playlist {pl}",
        title=t["title"],
        artist=t["artist"],
        pl=pl["name"],
    )
    return Draft(
        query=query,
        gold=[
            act("search_music", query=t["title"], type="track"),
            act("add_tracks_to_playlist", playlist_id=pl["name"], track_ids=[t["track_id"]]),
            act("search_music", query=pl["name"], type="playlist"),
            act("add_tracks_to_playlist", playlist_id=pl["playlist_id"], track_ids=[t["track_id"]]),
            done(f"Added {t['title']} to {pl['name']}."),
        ],
        bucket="state_change",
        check={
            "insert": {"playlist_tracks": [{"playlist_id": pl["playlist_id"], "track_id": t["track_id"]}]},
            "ignore_columns": ["position"],
        },
        recovers=(ErrorType.ENTITY_NOT_FOUND,),
    )


# ---- 2.3 Video Streaming ---------------------------------------------------------------------------------------------


def watchable(g: Gen, kinds: tuple[str, ...] = ("movie",)) -> list[dict[str, Any]]:
    plan = (g.rows("media_subscriptions", {"service": "video"}) or [{"plan": "free"}])[0]["plan"]
    ok = ("free", "subscription") if plan == "premium" else ("free",)
    titles: dict[str, int] = {}
    for v in g.rows("world_videos"):
        titles[v["title"].lower()] = titles.get(v["title"].lower(), 0) + 1
    return [
        v
        for v in g.rows("world_videos")
        if v["kind"] in kinds and v["access"] in ok and (v["kind"] == "episode" or titles[v["title"].lower()] == 1)
    ]


LANG_NAMES = {
    "zh-CN": "Chinese",
    "es-ES": "Spanish",
    "fr-FR": "French",
    "ja-JP": "Japanese",
    "ko-KR": "Korean",
    "de-DE": "German",
    "en-US": "English",
}


@family("basic", "2.3", pattern="lookup_then_act")
def play_movie(g: Gen) -> Draft:
    v = g.pick(watchable(g, ("movie", "clip")))
    subs = [s for s in json.loads(v["subtitles_json"]) if s != v["language"]]
    sub = g.pick([None, *subs]) if subs else None
    with_subs = f" with {LANG_NAMES[sub]} subtitles" if sub else ""
    query = g.say(
        "play {title}{s}",
        "I want to watch {title}{s}",
        "start the video {title}{s}",
        "put {title} on{s}",
        title=v["title"],
        s=with_subs,
    )
    args: dict[str, Any] = {"video_id": v["video_id"]}
    row: dict[str, Any] = {"player": "video", "item_id": v["video_id"], "status": "playing"}
    if sub:
        args["subtitles"] = sub
        row["subtitles"] = sub
    return Draft(
        query=query,
        gold=[act("search_videos", query=v["title"]), act("play_video", **args), done(f"Playing {v['title']}.")],
        bucket="state_change",
        check={"insert": {"playback_state": [row], "watch_history": [{"video_id": v["video_id"]}]}},
    )


@family("basic", "2.3", pattern="lookup_then_act")
def watchlist_add(g: Gen) -> Draft:
    listed = {r["video_id"] for r in g.rows("watchlist")}
    v = g.pick([v for v in watchable(g, ("movie", "series", "clip")) if v["video_id"] not in listed])
    query = g.say(
        "add {title} to my watchlist",
        "save {title} so I can watch it later",
        "put the {kind} {title} on my watch later list",
        "remember {title} for me in the video app's watchlist",
        title=v["title"],
        kind=v["kind"],
    )
    return Draft(
        query=query,
        gold=[
            act("search_videos", query=v["title"]),
            act("add_to_watchlist", video_id=v["video_id"]),
            done(f"Added {v['title']} to your watchlist."),
        ],
        bucket="state_change",
        check={"insert": {"watchlist": [{"video_id": v["video_id"]}]}},
    )


@family("basic", "2.3", pattern="lookup_then_act")
def play_series_episode(g: Gen) -> Draft:
    ep = g.pick(watchable(g, ("episode",)))
    series = g.one("world_videos", {"video_id": ep["series_id"]})
    subs = [s for s in json.loads(ep["subtitles_json"]) if s != ep["language"]]
    sub = g.pick([None, *subs]) if subs else None
    with_subs = f" with {LANG_NAMES[sub]} subtitles" if sub else ""
    query = g.say(
        "play episode {n} of {series}{s}",
        "put on {series}, episode {n}{s}",
        "I'd like to watch {series} episode {n}{s}",
        n=ep["episode_no"],
        series=series["title"],
        s=with_subs,
    )
    args: dict[str, Any] = {"video_id": ep["video_id"]}
    row: dict[str, Any] = {"player": "video", "item_id": ep["video_id"]}
    if sub:
        args["subtitles"] = sub
        row["subtitles"] = sub
    return Draft(
        query=query,
        gold=[
            act("search_videos", query=series["title"], kind="episode"),
            act("play_video", **args),
            done(f"Playing {series['title']} episode {ep['episode_no']}."),
        ],
        bucket="state_change",
        check={"insert": {"playback_state": [row], "watch_history": [{"video_id": ep["video_id"]}]}},
    )


# ---- 2.4 Podcasts & Audiobooks ---------------------------------------------------------------------------------------


@family("basic", "2.4", pattern="lookup_then_act")
def follow_podcast(g: Gen) -> Draft:
    followed = {r["show_id"] for r in g.rows("podcast_subscriptions")}
    show = g.one("world_podcasts", {"kind": "podcast"}, filter=lambda s: s["show_id"] not in followed)
    auto = g.pick((None, True, False))
    tail = {None: "", True: " and download new episodes automatically", False: " but don't auto-download episodes"}[
        auto
    ]
    query = g.say(
        "subscribe to the podcast {t}{tail}",
        "follow {t} in my podcast app{tail}",
        "I want to follow the show {t} by {p}{tail}",
        t=show["title"],
        p=show["publisher"],
        tail=tail,
    )
    args: dict[str, Any] = {"show_id": show["show_id"]}
    row: dict[str, Any] = {"show_id": show["show_id"]}
    if auto is not None:
        args["auto_download"] = auto
        row["auto_download"] = int(auto)
    return Draft(
        query=query,
        gold=[
            act("search_podcasts", query=show["title"]),
            act("subscribe_podcast", **args),
            done(f"Following {show['title']}."),
        ],
        bucket="state_change",
        check={"insert": {"podcast_subscriptions": [row]}},
    )


@family("basic", "2.4", pattern="lookup_then_act")
def play_latest_episode(g: Gen) -> Draft:
    show = g.one("world_podcasts", {"kind": "podcast"})
    eps = sorted(
        g.rows("world_episodes", {"show_id": show["show_id"]}), key=lambda e: (e["published_at"], e["episode_id"])
    )
    eps = [e for e in eps if e["published_at"] <= g.persona.now]
    if not eps:
        raise BuildError("no published episode")
    ep = eps[-1]
    speed = g.pick((None, 1.5, 1.25, 2.0, 0.75))
    tail = f" at {speed:g}x speed" if speed else ""
    query = g.say(
        "play the latest episode of {t}{tail}",
        "put on the newest {t} episode{tail}",
        "start the most recent episode of the podcast {t}{tail}",
        t=show["title"],
        tail=tail,
    )
    args: dict[str, Any] = {"episode_id": ep["episode_id"]}
    row: dict[str, Any] = {"player": "podcast", "item_id": ep["episode_id"]}
    if speed:
        args["speed"] = speed
        row["speed"] = speed
    return Draft(
        query=query,
        gold=[
            act("search_podcasts", query=show["title"], kind="episode"),
            act("play_podcast_episode", **args),
            done(f"Playing {ep['title']}."),
        ],
        bucket="state_change",
        check={
            "insert": {"playback_state": [row], "play_history": [{"player": "podcast", "item_id": ep["episode_id"]}]}
        },
    )


@family("basic", "2.4", pattern="lookup_then_act")
def audiobook_chapter_sleep(g: Gen) -> Draft:
    book = g.one("world_podcasts", {"kind": "audiobook"})
    chapters = g.rows("world_episodes", {"show_id": book["show_id"]})
    ch = g.pick(chapters)
    timer = g.pick((None, 15, 20, 30, 45, 60))
    tail = f" and stop after {timer} minutes" if timer else ""
    query = g.say(
        "play chapter {n} of the audiobook {t}{tail}",
        "continue the audiobook {t} from chapter {n}{tail}",
        "start the audiobook {t} at chapter {n}{tail}",
        n=ch["episode_no"],
        t=book["title"],
        tail=tail,
    )
    args: dict[str, Any] = {"episode_id": ch["episode_id"]}
    row: dict[str, Any] = {"player": "podcast", "item_id": ch["episode_id"]}
    if timer:
        args["sleep_timer_min"] = timer
        row["sleep_timer_min"] = timer
    return Draft(
        query=query,
        gold=[
            act("search_podcasts", query=book["title"], kind="episode", limit=20),
            act("play_podcast_episode", **args),
            done(f"Playing chapter {ch['episode_no']} of {book['title']}."),
        ],
        bucket="state_change",
        check={"insert": {"playback_state": [row], "play_history": [{"item_id": ch["episode_id"]}]}},
    )


# ---- 2.5 Reading & E-books -------------------------------------------------------------------------------------------


@family("basic", "2.5", pattern="lookup_then_act")
def want_to_read(g: Gen) -> Draft:
    shelved = {r["book_id"] for r in g.rows("bookshelf")}
    titles: dict[str, int] = {}
    for b in g.rows("world_books"):
        titles[b["title"].lower()] = titles.get(b["title"].lower(), 0) + 1
    book = g.one("world_books", filter=lambda b: b["book_id"] not in shelved and titles[b["title"].lower()] == 1)
    shelf = g.pick(("want_to_read", "want_to_read", "reading"))
    query = (
        g.say(
            "add {t} by {a} to my want-to-read shelf",
            "put {a}'s {t} on my reading wishlist",
            "I'd like to read {t} ({a}) some day; save it to my want to read list",
            t=book["title"],
            a=book["author"],
        )
        if shelf == "want_to_read"
        else g.say(
            "I just started reading {t} by {a}, put it on my currently reading shelf",
            "mark {t} ({a}) as currently reading",
            t=book["title"],
            a=book["author"],
        )
    )
    return Draft(
        query=query,
        gold=[
            act("search_ebooks", query=book["title"], author=book["author"]),
            act("add_book_to_shelf", book_id=book["book_id"], shelf=shelf),
            done(f"Shelved {book['title']}."),
        ],
        bucket="state_change",
        check={
            "insert": {"bookshelf": [{"book_id": book["book_id"], "shelf": shelf}]},
            "ignore_columns": ["progress_pct"],
        },
    )


@family("basic", "2.5", pattern="lookup_then_act")
def update_reading_progress(g: Gen) -> Draft:
    row = g.one("bookshelf", filter=lambda r: r["shelf"] in ("reading", "want_to_read"))
    book = g.one("world_books", {"book_id": row["book_id"]})
    finished = g.pick((True, False))
    if finished:
        query = g.say(
            "I finished {t}! Mark it as read",
            "move {t} to my finished shelf",
            "done with {t} by {a}, put it on the finished shelf",
            t=book["title"],
            a=book["author"],
        )
        args: dict[str, Any] = {"book_id": book["book_id"], "shelf": "finished"}
        expect: dict[str, Any] = {"shelf": "finished", "progress_pct": 100}
    else:
        pct = g.rng.choice([p for p in range(10, 100, 5) if p != row["progress_pct"]])
        query = g.say(
            "update my progress in {t} to {p}%",
            "I'm {p} percent through {t}, log that",
            "set {t} by {a} to {p}% read",
            t=book["title"],
            a=book["author"],
            p=pct,
        )
        args = {"book_id": book["book_id"], "shelf": "reading", "progress_pct": pct}
        expect = {"shelf": "reading", "progress_pct": pct}
    return Draft(
        query=query,
        gold=[
            act("search_ebooks", query=book["title"], in_library_only=True),
            act("add_book_to_shelf", **args),
            done("Updated."),
        ],
        bucket="state_change",
        check={"update": {"bookshelf": [{"match": {"book_id": book["book_id"]}, "set": expect}]}},
    )


# ---- 2.6 Photos & Albums ---------------------------------------------------------------------------------------------


def live_photos(g: Gen) -> list[dict[str, Any]]:
    return [p for p in g.rows("photos") if p["deleted_at"] is None]


def matching(
    photos: list[dict[str, Any]], word: str, date_from: str | None = None, date_to: str | None = None
) -> list[dict[str, Any]]:
    """What search_photos(query=word, date_from, date_to) finds."""
    w = word.lower()
    out = []
    for p in photos:
        hay = [p["labels_json"].lower(), (p["place"] or "").lower(), p["people_json"].lower(), p["media_type"]]
        if not all(any(part in h for h in hay) for part in w.split()):
            continue
        if date_from and p["taken_at"] < date_from:
            continue
        if date_to and p["taken_at"] >= date_to + "T99":
            continue
        out.append(p)
    return out


PHOTO_WORDS = (
    "sunset",
    "food",
    "dog",
    "cat",
    "coffee",
    "flowers",
    "mountain",
    "snow",
    "museum",
    "concert",
    "beach",
    "landmark",
    "selfie",
    "skyline",
    "bicycle",
    "noodles",
    "lake",
    "breakfast",
    "car",
    "kids",
)
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


def month_window(g: Gen, back: int) -> tuple[str, str, str]:
    """(first day, last day, month name) of the month ``back`` months before the persona's."""
    y, m = g.now.year, g.now.month - back
    while m < 1:
        y, m = y - 1, m + 12
    nxt_y, nxt_m = (y + 1, 1) if m == 12 else (y, m + 1)
    import datetime as dt

    last = dt.date(nxt_y, nxt_m, 1) - dt.timedelta(days=1)
    return f"{y}-{m:02d}-01", last.isoformat(), MONTHS[m - 1]


def photo_set(g: Gen, lo: int = 2, hi: int = 12) -> tuple[str, str, str, str, list[dict[str, Any]]]:
    """A (word, date_from, date_to, month name, photos) search with a handful of results."""
    live = live_photos(g)
    options = []
    for word in PHOTO_WORDS:
        for back in range(6):
            a, b, month = month_window(g, back)
            found = matching(live, word, a, b)
            if lo <= len(found) <= hi:
                options.append((word, a, b, month, found))
    if not options:
        raise BuildError("no photo search with a handful of results")
    return g.pick(options)


ALBUM_NAMES = ("Best of {m}", "{W} shots", "{m} {w}", "{W} collection", "My {w} photos")


@family("basic", "2.6", pattern="lookup_then_act")
def album_from_search(g: Gen) -> Draft:
    perm_ok(g, "gallery", "PHOTOS")
    word, a, b, month, found = photo_set(g)
    name = g.pick(ALBUM_NAMES).format(m=month, w=word, W=word.capitalize())
    if name.lower() in {x["name"].lower() for x in g.rows("albums")}:
        raise BuildError("album name taken")
    ids = [p["photo_id"] for p in found]
    query = g.say(
        "make an album called '{name}' with my {w} photos from {month}",
        "create a photo album {name} and put all the {w} pictures I took in {month} in it",
        "collect my {month} {w} photos into a new album named {name}",
        name=name,
        w=word,
        month=month,
    )
    return Draft(
        query=query,
        gold=[
            act("search_photos", query=word, date_from=a, date_to=b, limit=50),
            act("create_photo_album", name=name, photo_ids=ids),
            done(f"Created {name} with {len(ids)} photos."),
        ],
        bucket="state_change",
        check={"insert": {"albums": [{"name": name}], "album_photos": [{"photo_id": i} for i in ids]}},
    )


@family("basic", "2.6", pattern="cross_app")
def share_photos_with_contact(g: Gen) -> Draft:
    perm_ok(g, "gallery", "PHOTOS")
    perm_ok(g, "messages", "SMS")
    word, a, b, month, found = photo_set(g, 1, 8)
    contact = g.one(
        "contacts",
        filter=lambda c: (
            c["relationship"] in ("friend", "spouse", "sibling", "mother", "father", "colleague")
            and bool(c["phone_number"])
        ),
    )
    channel = g.pick(("sms", "chat"))
    first = contact["name"].split()[0] if not contact["name"].startswith("Dr.") else contact["name"]
    if len([c for c in g.rows("contacts") if c["name"].split()[0] == first]) > 1:
        first = contact["name"]
    how = {"sms": "by text", "chat": "on chat"}[channel]
    ids = [p["photo_id"] for p in found]
    query = g.say(
        "send {who} my {w} photos from {month} {how}",
        "share the {w} pictures I took in {month} with {who} {how}",
        "{who} wants my {month} {w} photos, send them over {how}",
        who=first,
        w=word,
        month=month,
        how=how,
    )
    return Draft(
        query=query,
        gold=[
            act("search_contacts", name=contact["name"]),
            act("search_photos", query=word, date_from=a, date_to=b, limit=50),
            act("share_photos", photo_ids=ids, channel=channel, recipients=[contact["contact_id"]]),
            done(f"Shared {len(ids)} photos with {first}."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "share_links": [{"channel": channel, "item_ids_json": {"$json": {"$set": ids}}}],
                "messages": [{"channel": channel, "contact_id": contact["contact_id"]}],
            }
        },
    )


@family("basic", "2.6", pattern="friction", friction="confirmation_required")
def delete_photos_for_good(g: Gen) -> Draft:
    perm_ok(g, "gallery", "PHOTOS")
    word, a, b, month, found = photo_set(g, 1, 6)
    ids = [p["photo_id"] for p in found]
    in_albums = [r for r in g.rows("album_photos") if r["photo_id"] in ids]
    query = g.say(
        "permanently delete my {w} photos from {month}, don't keep them in the trash",
        "delete the {w} pictures from {month} for good",
        "erase all {month} photos of {w} permanently, skipping Recently Deleted",
        w=word,
        month=month,
    )
    return Draft(
        query=query,
        gold=[
            act("search_photos", query=word, date_from=a, date_to=b, limit=50),
            act("delete_photos", photo_ids=ids, permanent=True),
            act(
                "ask_user",
                question=f"Permanently delete {len(ids)} {word} photo(s) from {month}? This cannot be undone.",
                kind="confirm",
            ),
            act("delete_photos", photo_ids=ids, permanent=True, confirm=True),
            done(f"Deleted {len(ids)} photos permanently."),
        ],
        bucket="state_change",
        check={
            "delete": {
                "photos": [{"photo_id": i} for i in ids],
                **(
                    {"album_photos": [{"photo_id": r["photo_id"], "album_id": r["album_id"]} for r in in_albums]}
                    if in_albums
                    else {}
                ),
            }
        },
        script=[{"answer": "Yes, delete them permanently.", "keywords": ["delete", "permanent", "sure", "confirm"]}],
        recovers=(ErrorType.CONFIRMATION_REQUIRED,),
    )


@family("basic", "2.6", pattern="friction", friction="permission_denied")
def add_to_album_after_grant(g: Gen) -> Draft:
    album = g.one("albums", filter=lambda a: a["name"] in ("Favorites", "Family", "Pets"))
    inside = {r["photo_id"] for r in g.rows("album_photos", {"album_id": album["album_id"]})}
    word, a, b, month, found = photo_set(g, 1, 8)
    found = [p for p in found if p["photo_id"] not in inside]
    if not found:
        raise BuildError("every photo already in the album")
    ids = [p["photo_id"] for p in found]
    query = g.say(
        "add my {w} photos from {month} to the {al} album",
        "put the {month} {w} pictures into {al}",
        "file my {w} shots from {month} under the album {al}",
        w=word,
        month=month,
        al=album["name"],
    )
    # the search must return exactly the ones to add (those already in the album are skipped by the tool anyway)
    every = [p["photo_id"] for p in matching(live_photos(g), word, a, b)]
    return Draft(
        query=query,
        gold=[
            act("search_photos", query=word, date_from=a, date_to=b, limit=50),
            act("grant_app_permission", app_id="gallery", permission="PHOTOS"),
            act("search_photos", query=word, date_from=a, date_to=b, limit=50),
            act("add_photos_to_album", album_id=album["name"], photo_ids=every),
            done(f"Added {len(ids)} photos to {album['name']}."),
        ],
        bucket="state_change",
        check={
            "insert": {"album_photos": [{"album_id": album["album_id"], "photo_id": i} for i in ids]},
            "update": {
                "app_permissions": [
                    {"match": {"app_id": "gallery", "permission": "PHOTOS"}, "set": {"state": "granted"}}
                ]
            },
        },
        patches={
            "update": {
                "app_permissions": [
                    {"match": {"app_id": "gallery", "permission": "PHOTOS"}, "set": {"state": "not_requested"}}
                ]
            }
        },
        recovers=(ErrorType.PERMISSION_DENIED,),
    )


# ---- 2.7 Camera & Recording ------------------------------------------------------------------------------------------


@family("basic", "2.7", pattern="single_call")
def snap_photo(g: Gen) -> Draft:
    perm_ok(g, "camera", "CAMERA")
    camera = g.pick(("rear", "front"))
    mode = g.pick(("photo", "portrait", "night", "document"))
    timer = g.pick((0, 3, 10))
    flash = g.pick(("auto", "on", "off"))
    bits = []
    if camera == "front":
        bits.append("with the front camera")
    if mode != "photo":
        bits.append(f"in {mode} mode")
    if timer:
        bits.append(f"with a {timer}-second timer")
    if flash != "auto":
        bits.append(f"flash {flash}")
    desc = ", ".join(bits) or "now"
    query = g.say(
        "take a photo {d}", "snap a picture {d}", "take a picture {d}, please", "camera: one shot {d}", d=desc
    )
    args: dict[str, Any] = {}
    if camera == "front":
        args["camera"] = "front"
    if mode != "photo":
        args["mode"] = mode
    if timer:
        args["timer_sec"] = timer
    if flash != "auto":
        args["flash"] = flash
    labels = [x for x in (mode if mode != "photo" else None, "selfie" if camera == "front" else None) if x]
    row: dict[str, Any] = {"media_type": "photo", "source": "camera"}
    if labels:
        row["labels_json"] = {"$contains_all": labels}
    return Draft(
        query=query,
        gold=[act("take_photo", **args), done("Photo taken.")],
        bucket="state_change",
        check={"insert": {"photos": [row]}},
    )


@family("basic", "2.7", pattern="single_call")
def record_clip(g: Gen) -> Draft:
    perm_ok(g, "camera", "CAMERA")
    perm_ok(g, "camera", "MICROPHONE")
    secs = g.pick((5, 10, 15, 20, 30, 45, 60, 90, 120))
    camera = g.pick(("rear", "front"))
    res = g.pick((None, "720p", "1080p", "4k"))
    length = f"{secs}-second" if secs < 60 or secs % 60 else f"{secs // 60}-minute"
    bits = [f"with the {camera} camera" if camera == "front" else "", f"in {res}" if res else ""]
    extra = " ".join(b for b in bits if b)
    query = g.say(
        "record a {l} video {e}", "film a {l} clip {e}", "start a {l} recording {e}", l=length, e=extra
    ).strip()
    args: dict[str, Any] = {"duration_sec": secs}
    if camera == "front":
        args["camera"] = "front"
    if res:
        args["resolution"] = res
    row: dict[str, Any] = {"media_type": "video", "duration_sec": secs, "source": "camera"}
    if res:
        row["size_mb"] = video_mb(secs, res)
    return Draft(
        query=query,
        gold=[act("record_video", **args), done("Recorded.")],
        bucket="state_change",
        check={"insert": {"photos": [row]}},
    )


def video_mb(secs: int, resolution: str) -> float:
    """The clip's size as record_video stores it: the gallery row's trace of the resolution recorded in."""
    return round(secs * VIDEO_MB_PER_SEC[resolution], 1)


@family("basic", "2.7", pattern="friction", friction="limit_exceeded")
def record_4k_low_storage(g: Gen) -> Draft:
    perm_ok(g, "camera", "CAMERA")
    perm_ok(g, "camera", "MICROPHONE")
    secs = g.pick((60, 90, 120, 150, 180))
    free_gb = round(secs * 6.0 / 1024 * g.rng.uniform(0.45, 0.8), 2)  # 4k does not fit; 1080p (2.2 MB/s) does
    if secs * 2.2 > free_gb * 1024:
        raise BuildError("1080p would not fit either")
    query = g.say("record a {s}-second 4K video", "film {s} seconds in 4k", "shoot a 4K clip, {s} seconds long", s=secs)
    return Draft(
        query=query,
        gold=[
            act("record_video", duration_sec=secs, resolution="4k"),
            act(
                "ask_user",
                question=f"There isn't enough free storage for {secs} seconds of 4K. Record it in 1080p instead?",
                kind="confirm",
            ),
            act("record_video", duration_sec=secs, resolution="1080p"),
            done("Recorded in 1080p because storage is low."),
        ],
        bucket="agent_behavior",
        check={
            "follow_up": {"tool": "ask_user"},
            # in the 1080p the user agreed to, not any other resolution that fits
            "state": {
                "insert": {
                    "photos": [{"media_type": "video", "duration_sec": secs, "size_mb": video_mb(secs, "1080p")}]
                }
            },
        },
        patches={
            "update": {"device_settings": [{"match": {"key": "storage_free_gb"}, "set": {"value": str(free_gb)}}]}
        },
        script=[{"answer": "Yes, 1080p is fine.", "keywords": ["1080", "storage", "space", "instead"]}],
        recovers=(ErrorType.LIMIT_EXCEEDED,),
    )


# ---- 2.8 Casting & Output Devices ------------------------------------------------------------------------------------


@family("basic", "2.8", pattern="single_call")
def cast_music(g: Gen) -> Draft:
    perm_ok(g, "cast", "NEARBY_DEVICES")
    state = music_playing(g)
    dev = g.one(
        "devices",
        filter=lambda d: (
            d["online"]
            and d["paired"]
            and d["device_id"] != state["output_device_id"]
            and d["connection"] != "bluetooth"
        ),
    )
    query = g.say(
        "move the music to the {d}",
        "play my music on the {d} instead",
        "cast what's playing to {d}",
        "send the song to the {d}",
        d=dev["name"],
    )
    check: dict[str, Any] = {
        "update": {"playback_state": [{"match": {"player": "music"}, "set": {"output_device_id": dev["device_id"]}}]}
    }
    if not dev["connected"]:
        check["update"]["devices"] = [{"match": {"device_id": dev["device_id"]}, "set": {"connected": 1}}]
    return Draft(
        query=query,
        gold=[
            act("cast_to_device", device_id=dev["name"], player="music"),
            done(f"Music is now on the {dev['name']}."),
        ],
        bucket="state_change",
        check=check,
    )


@family("basic", "2.8", pattern="friction", friction="service_disabled")
def cast_bluetooth_off(g: Gen) -> Draft:
    perm_ok(g, "cast", "NEARBY_DEVICES")
    dev = g.one("devices", filter=lambda d: d["online"] and d["paired"] and d["connection"] == "bluetooth")
    player = g.pick(("music", "podcast"))
    patches: dict[str, Any] = {
        "update": {
            "device_settings": [{"match": {"key": "bluetooth"}, "set": {"value": "0"}}],
            "playback_state": [{"match": {"player": "music"}, "set": {"output_device_id": None}}],
        }
    }
    what = "the music"
    if player == "podcast":
        ep = g.one("world_episodes")
        show = g.one("world_podcasts", {"show_id": ep["show_id"]})
        patches["insert"] = {
            "playback_state": [
                {
                    "player": "podcast",
                    "item_id": ep["episode_id"],
                    "context_id": ep["show_id"],
                    "queue_json": json.dumps([ep["episode_id"]]),
                    "queue_pos": 0,
                    "status": "playing",
                    "position_sec": 120,
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
        what = g.pick(
            ("the podcast", f"the {show['title'].removeprefix('The ')} episode", "the podcast that's playing")
        )
    query = g.say(
        "switch {w} over to my {d}", "I want to listen to {w} on my {d}", "move {w} to the {d}", w=what, d=dev["name"]
    )
    set_ = {"output_device_id": dev["device_id"]}
    check: dict[str, Any] = {
        "update": {
            "device_settings": [{"match": {"key": "bluetooth"}, "set": {"value": "1"}}],
            "playback_state": [{"match": {"player": player}, "set": set_}],
        }
    }
    if not dev["connected"]:
        check["update"]["devices"] = [{"match": {"device_id": dev["device_id"]}, "set": {"connected": 1}}]
    return Draft(
        query=query,
        gold=[
            act("cast_to_device", device_id=dev["name"], player=player),
            act("set_bluetooth", enabled=True),
            act("cast_to_device", device_id=dev["name"], player=player),
            done(f"Now on the {dev['name']}."),
        ],
        bucket="state_change",
        check=check,
        patches=patches,
        recovers=(ErrorType.SERVICE_DISABLED,),
    )


@family("basic", "2.8", pattern="friction", friction="changed_state")
def movie_on_tv(g: Gen) -> Draft:
    perm_ok(g, "cast", "NEARBY_DEVICES")
    v = g.pick(watchable(g, ("movie",)))
    tv = g.one("devices", filter=lambda d: d["kind"] == "tv" and d["paired"] and d["online"] and not d["connected"])
    query = g.say(
        "play {t} on the {tv}",
        "put {t} on the {tv}",
        "I want to watch {t} on the big screen ({tv})",
        t=v["title"],
        tv=tv["name"],
    )
    return Draft(
        query=query,
        gold=[
            act("search_videos", query=v["title"]),
            act("play_video", video_id=v["video_id"], output_device_id=tv["name"]),
            act("play_video", video_id=v["video_id"]),
            act("cast_to_device", device_id=tv["device_id"], player="video"),
            done(f"{v['title']} is playing on the {tv['name']}."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "playback_state": [{"player": "video", "item_id": v["video_id"], "output_device_id": tv["device_id"]}],
                "watch_history": [{"video_id": v["video_id"]}],
            },
            "update": {"devices": [{"match": {"device_id": tv["device_id"]}, "set": {"connected": 1}}]},
        },
        recovers=(ErrorType.STATE_CONFLICT,),
    )
