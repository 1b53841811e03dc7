"""D2 Entertainment & Media: music and playlists, video, podcasts, e-books, the gallery, the camera, casting.

Playback is one ``playback_state`` row per player (music, video, podcast): what plays, where it
plays, and the queue it came from, so skipping and casting act on that row. Photos carry the
text a screen reader would see (``ocr_text``, ``fields_json``); gallery searches match labels,
places and people but never return that text, so reading a receipt still takes the
screen-reader sub-agent. Every share creates a ``share_links`` row; SMS and chat shares also
send the link as a message in the communication module's ``messages`` table.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import json
import random
import re
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import (
    Column,
    ColumnElement,
    Connection,
    Float,
    ForeignKey,
    Integer,
    Select,
    Table,
    Text,
    bindparam,
    cast,
    func,
    insert,
    literal,
    or_,
    select,
    update,
)

from sandbox.domains.common import CITY_CENTRES
from sandbox.domains.communication import ANCHORS, contacts, groups, messages
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import (
    Ctx,
    contains_bound,
    like_escaped,
    normalise_phone,
    row_by_key,
    rows,
    word_values,
    words_match,
)
from sandbox.locales import local_money, to_step
from sandbox.personas import Persona, seeder
from sandbox.schema import USER, WORLD, meta, stamps, table
from sandbox.tooling import EMAIL_PATTERN, PHONE_PATTERN, Date, tool

# ---- Tables -----------------------------------------------------------------------------------

world_artists = table(
    "world_artists",
    WORLD,
    Column("artist_id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("genre", Text, nullable=False),
    natural_key=("name",),
)

world_albums = table(
    "world_albums",
    WORLD,
    Column("album_id", Text, primary_key=True),
    Column("title", Text, nullable=False),
    Column("artist_id", Text, ForeignKey("world_artists.artist_id"), nullable=False),
    Column("year", Integer, nullable=False),
    natural_key=("artist_id", "title"),
)

world_tracks = table(
    "world_tracks",
    WORLD,
    Column("track_id", Text, primary_key=True),
    Column("title", Text, nullable=False),
    Column("artist_id", Text, ForeignKey("world_artists.artist_id"), nullable=False),
    Column("album_id", Text, ForeignKey("world_albums.album_id"), nullable=False),
    Column("track_no", Integer, nullable=False),
    Column("duration_sec", Integer, nullable=False),
    Column("genre", Text, nullable=False),
    Column("premium_only", Integer, nullable=False),  # playable only with a premium music plan
    natural_key=("album_id", "track_no"),
)

playlists = table(
    "playlists",
    USER,
    Column("playlist_id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("description", Text),
    Column("is_public", Integer, nullable=False),
    *stamps(),
    natural_key=("name",),
)

playlist_tracks = table(
    "playlist_tracks",
    USER,
    Column("playlist_id", Text, ForeignKey("playlists.playlist_id"), primary_key=True),
    Column("track_id", Text, ForeignKey("world_tracks.track_id"), primary_key=True),
    Column("position", Integer, nullable=False),  # 1..n, contiguous
    *stamps(),
    natural_key=("playlist_id", "track_id"),
)

playback_state = table(
    "playback_state",
    USER,
    Column("player", Text, primary_key=True),  # music | video | podcast
    Column("item_id", Text),  # the track, video or episode now loaded
    Column("context_id", Text),  # the album, artist, playlist, series or show it was started from
    Column("queue_json", Text, nullable=False),
    Column("queue_pos", Integer, nullable=False),
    Column("status", Text, nullable=False),  # playing | paused | stopped
    Column("position_sec", Integer, nullable=False),
    Column("output_device_id", Text),  # null = the phone itself
    Column("shuffle", Integer, nullable=False),
    Column("repeat", Text, nullable=False),  # off | one | all
    Column("speed", Float, nullable=False),
    Column("subtitles", Text),
    Column("sleep_timer_min", Integer),
    *stamps(),
    natural_key=("player",),
)

play_history = table(
    "play_history",
    USER,
    Column("history_id", Text, primary_key=True),
    Column("player", Text, nullable=False),  # music | podcast
    Column("item_id", Text, nullable=False),
    Column("played_at", Text, nullable=False),
    *stamps(),
    id_prefix="play",
)

world_videos = table(
    "world_videos",
    WORLD,
    Column("video_id", Text, primary_key=True),
    Column("title", Text, nullable=False),
    Column("kind", Text, nullable=False),  # movie | series | episode | clip
    Column("genre", Text, nullable=False),
    Column("duration_min", Integer, nullable=False),
    Column("language", Text, nullable=False),
    Column("access", Text, nullable=False),  # free | subscription | rent
    Column("year", Integer, nullable=False),
    Column("rating", Float),
    Column("series_id", Text),
    Column("episode_no", Integer),  # set on episodes
    Column("subtitles_json", Text, nullable=False),  # BCP-47 tags available
    natural_key=("title", "series_id"),
)

watch_history = table(
    "watch_history",
    USER,
    Column("history_id", Text, primary_key=True),
    Column("video_id", Text, nullable=False),
    Column("watched_at", Text, nullable=False),
    *stamps(),
    id_prefix="watch",
)

watchlist = table(
    "watchlist",
    USER,
    Column("video_id", Text, ForeignKey("world_videos.video_id"), primary_key=True),
    *stamps(),
    natural_key=("video_id",),
)

video_rentals = table(
    "video_rentals",
    USER,
    Column("video_id", Text, ForeignKey("world_videos.video_id"), primary_key=True),
    Column("rented_at", Text, nullable=False),
    Column("expires_at", Text, nullable=False),
    *stamps(),
    natural_key=("video_id",),
)

media_subscriptions = table(
    "media_subscriptions",
    USER,
    Column("service", Text, primary_key=True),  # music | video
    Column("plan", Text, nullable=False),  # free | premium
    Column("renews_on", Text),
    *stamps(),
    natural_key=("service",),
)

world_podcasts = table(
    "world_podcasts",
    WORLD,
    Column("show_id", Text, primary_key=True),
    Column("title", Text, nullable=False),
    Column("publisher", Text, nullable=False),
    Column("category", Text, nullable=False),
    Column("kind", Text, nullable=False),  # podcast | audiobook
    natural_key=("title",),
)

world_episodes = table(
    "world_episodes",
    WORLD,
    Column("episode_id", Text, primary_key=True),
    Column("show_id", Text, ForeignKey("world_podcasts.show_id"), nullable=False),
    Column("title", Text, nullable=False),
    Column("episode_no", Integer, nullable=False),
    Column("duration_sec", Integer, nullable=False),
    Column("published_at", Text, nullable=False),
    natural_key=("show_id", "episode_no"),
)

podcast_subscriptions = table(
    "podcast_subscriptions",
    USER,
    Column("show_id", Text, ForeignKey("world_podcasts.show_id"), primary_key=True),
    Column("auto_download", Integer, nullable=False),
    *stamps(),
    natural_key=("show_id",),
)

world_books = table(
    "world_books",
    WORLD,
    Column("book_id", Text, primary_key=True),
    Column("title", Text, nullable=False),
    Column("author", Text, nullable=False),
    Column("genre", Text, nullable=False),
    Column("year", Integer, nullable=False),
    Column("pages", Integer, nullable=False),
    natural_key=("title", "author"),
)

bookshelf = table(
    "bookshelf",
    USER,
    Column("book_id", Text, ForeignKey("world_books.book_id"), primary_key=True),
    Column("shelf", Text, nullable=False),  # want_to_read | reading | finished
    Column("progress_pct", Integer, nullable=False),
    *stamps(),
    natural_key=("book_id",),
)

photos = table(
    "photos",
    USER,
    Column("photo_id", Text, primary_key=True),
    Column("media_type", Text, nullable=False),  # photo | video | screenshot
    Column("taken_at", Text, nullable=False),  # YYYY-MM-DDTHH:MM:SS
    Column("place", Text),  # "Riverside Park, Beijing"
    Column("people_json", Text, nullable=False),  # names recognised in the picture
    Column("labels_json", Text, nullable=False),  # what the gallery recognised: receipt, beach, dog, ...
    Column("ocr_text", Text),  # text in the picture: only the screen-reader sub-agent reads it
    Column("fields_json", Text),  # structured fields of that text (receipt total, boarding gate, ...)
    Column("size_mb", Float, nullable=False),
    Column("duration_sec", Integer),  # videos only
    Column("source", Text, nullable=False),  # camera | screenshot | download | snapshot
    Column("deleted_at", Text),  # set while in Recently Deleted
    *stamps(),
    natural_key=("taken_at", "media_type"),
)

albums = table(
    "albums",
    USER,
    Column("album_id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("shared", Integer, nullable=False),
    *stamps(),
    natural_key=("name",),
    id_prefix="photo_album",  # music albums own the album_ prefix
)

album_photos = table(
    "album_photos",
    USER,
    Column("album_id", Text, ForeignKey("albums.album_id"), primary_key=True),
    Column("photo_id", Text, ForeignKey("photos.photo_id"), primary_key=True),
    *stamps(),
    natural_key=("album_id", "photo_id"),
)

share_links = table(
    "share_links",
    USER,
    Column("link_id", Text, primary_key=True),
    Column("item_type", Text, nullable=False),  # photos | album
    Column("item_ids_json", Text, nullable=False),
    Column("url", Text, nullable=False),
    Column("channel", Text, nullable=False),  # sms | chat | mail | link
    Column("recipients_json", Text, nullable=False),  # resolved phone numbers, group ids or emails
    Column("caption", Text),
    *stamps(),
)

devices = table(
    "devices",
    USER,
    Column("device_id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("kind", Text, nullable=False),  # tv | speaker | headphones | car | watch
    Column("connection", Text, nullable=False),  # bluetooth | wifi | cast
    Column("paired", Integer, nullable=False),
    Column("connected", Integer, nullable=False),
    Column("online", Integer, nullable=False),
    *stamps(),
    natural_key=("name",),
)

# ---- Argument types ---------------------------------------------------------------------------

Query = Annotated[str, Field(min_length=1, max_length=200)]
Limit = Annotated[int, Field(ge=1, le=50)]
Name = Annotated[str, Field(min_length=1, max_length=80)]
Ref = Annotated[str, Field(min_length=1, max_length=80)]
Seconds = Annotated[int, Field(ge=0, le=86400)]
TrackIds = Annotated[list[Ref], Field(min_length=1, max_length=100)]
PhotoIds = Annotated[list[Ref], Field(min_length=1, max_length=500)]
Player = Literal["music", "video", "podcast"]
Language = Annotated[str, Field(pattern=r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$")]
MusicItem = Annotated[str, Field(pattern=r"^(track|album|artist|playlist)_\w+$")]

LIKED_SONGS = "Liked Songs"
SHARE_URL = "https://gallery.example.com/s/"
PHOTO_MB = {"photo": 3.4, "portrait": 4.2, "night": 5.1, "document": 1.8}  # rear camera; front is 60 %
VIDEO_MB_PER_SEC = {"720p": 1.0, "1080p": 2.2, "4k": 6.0}


def _get(ctx: Ctx, tbl: Table, value: str, hint: str) -> dict[str, Any]:
    """The row with this id, or EntityNotFound naming the tool that finds such ids."""
    key = next(iter(tbl.primary_key.columns)).name
    row = ctx.conn.execute(row_by_key(tbl), {"key": value}).first()
    if row is None:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no {key.removesuffix('_id')} {value!r}", field=key, hint=hint)
    return dict(row._mapping)


def _one_of(*names: str) -> Callable[[dict[str, Any]], str | None]:
    def check(args: dict[str, Any]) -> str | None:
        return None if any(args.get(n) is not None for n in names) else f"give at least one of {', '.join(names)}"

    return check


_MEDIA_PLAN = select(media_subscriptions.c.plan).where(media_subscriptions.c.service == bindparam("service"))


def _plan(ctx: Ctx, service: str) -> str:
    plan = ctx.conn.execute(_MEDIA_PLAN, {"service": service}).scalar()
    return plan or "free"


# ---- Output devices and the players -----------------------------------------------------------

DEVICE_KEYS = ("device_id", "name", "kind", "connection", "connected", "online")
_DEVICES = select(devices).order_by(devices.c.device_id)


def _device(ctx: Ctx, ref: str) -> dict[str, Any]:
    """A device by id, exact name, or a unique part of its name (case-insensitive)."""
    every = rows(ctx.conn.execute(_DEVICES))
    lowered = ref.lower()
    found = (
        [d for d in every if d["device_id"] == ref]
        or [d for d in every if d["name"].lower() == lowered]
        or [d for d in every if lowered in d["name"].lower()]
    )
    if len(found) == 1:
        return found[0]
    listed = [{k: d[k] for k in DEVICE_KEYS} for d in (found or every)]
    if found:
        raise ToolError(ErrorType.AMBIGUOUS_ENTITY, f"{len(found)} devices match {ref!r}", candidates=listed)
    raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no output device {ref!r}", field="device_id", candidates=listed)


def _usable(ctx: Ctx, device: dict[str, Any]) -> bool:
    """Audio can go there now: paired, connected, online, and Bluetooth on for Bluetooth devices."""
    bt_ok = device["connection"] != "bluetooth" or ctx.setting("bluetooth") == "1"
    return bool(device["paired"] and device["connected"] and device["online"] and bt_ok)


_PLAYER_STATE = select(playback_state).where(playback_state.c.player == bindparam("player"))


def _player(ctx: Ctx, player: str) -> dict[str, Any] | None:
    row = ctx.conn.execute(_PLAYER_STATE, {"player": player}).first()
    return dict(row._mapping) if row else None


_DEVICE = select(devices).where(devices.c.device_id == bindparam("device_id"))


def _output(ctx: Ctx, player: str, device: dict[str, Any] | None) -> str | None:
    """Where a new playback goes: the named device (which must be usable), else where this player
    already played if that device is still usable, else the phone (null)."""
    if device is not None:
        if not _usable(ctx, device):
            raise ToolError(
                ErrorType.STATE_CONFLICT,
                f"{device['name']} is not connected",
                device_id=device["device_id"],
                online=bool(device["online"]),
                hint="start playback on the phone, then cast_to_device",
            )
        return str(device["device_id"])
    current = _player(ctx, player)
    if current and current["output_device_id"]:
        row = ctx.conn.execute(_DEVICE, {"device_id": current["output_device_id"]}).first()
        if row is not None and _usable(ctx, dict(row._mapping)):
            return str(row.device_id)
    return None


_DEVICE_BRIEF = select(devices.c.device_id, devices.c.name, devices.c.kind).where(
    devices.c.device_id == bindparam("device_id")
)


def _output_brief(ctx: Ctx, device_id: str | None) -> dict[str, Any]:
    if device_id is None:
        return {"device_id": None, "name": "This phone", "kind": "phone"}
    row = ctx.conn.execute(_DEVICE_BRIEF, {"device_id": device_id}).first()
    return dict(row._mapping) if row else {"device_id": device_id}


_ADD_PLAYER_STATE = insert(playback_state)
_SET_PLAYER_STATE = update(playback_state).where(playback_state.c.player == bindparam("match_player"))


def _start(ctx: Ctx, player: str, queue: list[str], pos: int, context_id: str | None, **values: Any) -> None:
    """Load ``queue[pos]`` on the player, playing, and record it in the history."""
    state = {
        "item_id": queue[pos],
        "context_id": context_id,
        "queue_json": json.dumps(queue),
        "queue_pos": pos,
        "status": "playing",
        "position_sec": 0,
        "output_device_id": None,
        "shuffle": 0,
        "repeat": "off",
        "speed": 1.0,
        "subtitles": None,
        "sleep_timer_min": None,
        **values,
        "updated_at": ctx.ts(),
    }
    if _player(ctx, player) is None:
        ctx.conn.execute(_ADD_PLAYER_STATE, {"player": player, "created_at": ctx.ts(), **state})
    else:
        ctx.conn.execute(_SET_PLAYER_STATE, {"match_player": player, **state})
    _record_play(ctx, player, queue[pos])


_ADD_WATCH = insert(watch_history)
_ADD_PLAY = insert(play_history)


def _record_play(ctx: Ctx, player: str, item_id: str) -> None:
    if player == "video":
        ctx.conn.execute(
            _ADD_WATCH,
            {
                "history_id": ctx.new_id(watch_history),
                "video_id": item_id,
                "watched_at": ctx.ts(),
                "created_at": ctx.ts(),
                "updated_at": ctx.ts(),
            },
        )
    else:
        ctx.conn.execute(
            _ADD_PLAY,
            {
                "history_id": ctx.new_id(play_history),
                "player": player,
                "item_id": item_id,
                "played_at": ctx.ts(),
                "created_at": ctx.ts(),
                "updated_at": ctx.ts(),
            },
        )


# Tracks with their artist and album names; the lookups below and search_music add a filter and an order.
_TRACKS = (
    select(
        world_tracks.c.track_id,
        world_tracks.c.title,
        world_artists.c.name.label("artist"),
        world_albums.c.title.label("album"),
        world_tracks.c.duration_sec,
        world_tracks.c.genre,
        world_tracks.c.premium_only,
    )
    .join_from(world_tracks, world_artists, world_tracks.c.artist_id == world_artists.c.artist_id)
    .join(world_albums, world_tracks.c.album_id == world_albums.c.album_id)
)
_TRACK = _TRACKS.where(world_tracks.c.track_id == bindparam("track_id"))
_TRACKS_IN = _TRACKS.where(world_tracks.c.track_id.in_(bindparam("track_ids", expanding=True))).order_by(
    world_tracks.c.track_id
)
_ALBUM_TRACKS = _TRACKS.where(world_tracks.c.album_id == bindparam("album_id")).order_by(world_tracks.c.track_no)
_ARTIST_TRACKS = _TRACKS.where(world_tracks.c.artist_id == bindparam("artist_id")).order_by(
    world_tracks.c.album_id, world_tracks.c.track_no
)


def _track_rows(ctx: Ctx, statement: Select[Any], values: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The tracks a ``_TRACKS`` statement selects, with premium_only as a bool."""
    found = rows(ctx.conn.execute(statement, values))
    for r in found:
        r["premium_only"] = bool(r["premium_only"])
    return found


_EPISODE_PLAYING = (
    select(
        world_episodes.c.episode_id,
        world_episodes.c.title,
        world_podcasts.c.title.label("show"),
        world_episodes.c.duration_sec,
    )
    .join_from(world_episodes, world_podcasts, world_episodes.c.show_id == world_podcasts.c.show_id)
    .where(world_episodes.c.episode_id == bindparam("episode_id"))
)


def _now_playing(ctx: Ctx, player: str, item_id: str) -> dict[str, Any]:
    """A short description of what a player has loaded, plus its length in seconds."""
    if player == "music":
        return _track_rows(ctx, _TRACK, {"track_id": item_id})[0]
    if player == "video":
        v = _get(ctx, world_videos, item_id, "search_videos")
        return {
            "video_id": item_id,
            "title": v["title"],
            "kind": v["kind"],
            "series_id": v["series_id"],
            "episode_no": v["episode_no"],
            "duration_sec": v["duration_min"] * 60,
        }
    row = ctx.conn.execute(_EPISODE_PLAYING, {"episode_id": item_id}).one()
    return dict(row._mapping)


# ---- Music Playback (2.1) ---------------------------------------------------------------------


@tool(l2="2.1", app="music", mutating=False, network="internet")
def search_music(
    ctx: Ctx,
    query: Query,
    type: Literal["track", "album", "artist", "playlist"] = "track",
    limit: Limit = 10,
) -> dict[str, Any]:
    """Search the music catalogue (tracks, albums, artists) or the user's own playlists.

    Args:
        query: Words to look for in titles, artist names, album titles or genres (case-insensitive).
        type: What to search for; "playlist" searches the user's playlists.
        limit: Maximum number of results.
    """
    words = word_values(query)
    statement = _music_search(type, len(words))
    if type == "track":
        found = _track_rows(ctx, statement, words)
        exact = [r for r in found if r["title"].lower() == query.lower()]
        found = (exact + [r for r in found if r not in exact])[:limit]
    else:
        found = rows(ctx.conn.execute(statement, {**words, "limit": limit}))
    return {"type": type, "results": found, "count": len(found), "music_plan": _plan(ctx, "music")}


@functools.lru_cache(maxsize=256)
def _music_search(kind: str, words: int) -> Select[Any]:
    """search_music's statement for one kind of result and number of query words, built once."""
    t, a, al, p = world_tracks.c, world_artists.c, world_albums.c, playlists.c
    if kind == "track":
        return _TRACKS.where(*words_match([t.title, a.name, al.title, t.genre], words)).order_by(t.track_id)
    if kind == "album":
        return (
            select(al.album_id, al.title, a.name.label("artist"), al.year, func.count(t.track_id).label("tracks"))
            .join_from(world_albums, world_artists, al.artist_id == a.artist_id)
            .join(world_tracks, t.album_id == al.album_id)
            .where(*words_match([al.title, a.name, a.genre], words))
            .group_by(al.album_id)
            .order_by(al.title, al.album_id)
            .limit(bindparam("limit"))
        )
    if kind == "artist":
        return (
            select(a.artist_id, a.name, a.genre)
            .where(*words_match([a.name, a.genre], words))
            .order_by(a.name, a.artist_id)
            .limit(bindparam("limit"))
        )
    pt = playlist_tracks.c
    return (
        select(p.playlist_id, p.name, p.description, p.is_public, func.count(pt.track_id).label("tracks"))
        .outerjoin_from(playlists, playlist_tracks, pt.playlist_id == p.playlist_id)
        .where(*words_match([p.name, p.description], words))
        .group_by(p.playlist_id)
        .order_by(p.name, p.playlist_id)
        .limit(bindparam("limit"))
    )


def _music_queue(ctx: Ctx, item_id: str) -> list[dict[str, Any]]:
    """The tracks an item stands for: one track, an album in order, an artist's tracks, a playlist."""
    kind = item_id.split("_", 1)[0]
    if kind == "track":
        _get(ctx, world_tracks, item_id, "search_music")
        return _track_rows(ctx, _TRACK, {"track_id": item_id})
    if kind == "album":
        _get(ctx, world_albums, item_id, "search_music")
        return _track_rows(ctx, _ALBUM_TRACKS, {"album_id": item_id})
    if kind == "artist":
        _get(ctx, world_artists, item_id, "search_music")
        return _track_rows(ctx, _ARTIST_TRACKS, {"artist_id": item_id})
    _get(ctx, playlists, item_id, "search_music")
    order = _placed(ctx, item_id)
    return sorted(_track_rows(ctx, _TRACKS_IN, {"track_ids": list(order)}), key=lambda r: order[r["track_id"]])


def _shuffled(item_id: str, queue: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A fixed shuffle: a function of the item and its tracks only."""
    return sorted(queue, key=lambda r: hashlib.sha256(f"{item_id}:{r['track_id']}".encode()).hexdigest())


@tool(
    l2="2.1",
    app="music",
    mutating=True,
    network="internet",
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.AMBIGUOUS_ENTITY,
        ErrorType.STATE_CONFLICT,
        ErrorType.RESOURCE_UNAVAILABLE,
    ),
)
def play_music(
    ctx: Ctx,
    item_id: MusicItem,
    shuffle: bool = False,
    repeat: Literal["off", "one", "all"] = "off",
    output_device_id: Ref | None = None,
) -> dict[str, Any]:
    """Play a track, an album, an artist's tracks or a playlist on the phone or a connected output device.

    Args:
        item_id: What to play: a track_, album_, artist_ or playlist_ id from search_music.
        shuffle: Play the tracks in shuffled order.
        repeat: Repeat nothing, the current track, or the whole queue.
        output_device_id: Output device id (device_903) or name, e.g. "Kitchen Speaker"; it must be connected.
            Default: where music already plays if still connected, else the phone.
    """
    queue = _music_queue(ctx, item_id)
    device = _device(ctx, output_device_id) if output_device_id else None
    if not queue:
        raise ToolError(ErrorType.STATE_CONFLICT, f"{item_id} has no tracks", hint="add_tracks_to_playlist")
    output = _output(ctx, "music", device)
    premium = _plan(ctx, "music") == "premium"
    playable = [r for r in queue if premium or not r["premium_only"]]
    skipped = [r["track_id"] for r in queue if r not in playable]
    if not playable:
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE,
            f"{item_id} needs a premium music plan",
            premium_only=skipped,
            music_plan=_plan(ctx, "music"),
        )
    if shuffle:
        playable = _shuffled(item_id, playable)
    ids = [r["track_id"] for r in playable]
    _start(
        ctx,
        "music",
        ids,
        0,
        None if item_id.startswith("track_") else item_id,
        output_device_id=output,
        shuffle=int(shuffle),
        repeat=repeat,
    )
    return {
        "player": "music",
        "status": "playing",
        "now_playing": playable[0],
        "context_id": item_id,
        "queue_length": len(ids),
        "skipped_premium_only": skipped,
        "shuffle": shuffle,
        "repeat": repeat,
        "output": _output_brief(ctx, output),
    }


def _playback_args(args: dict[str, Any]) -> str | None:
    """position_sec is given with action=seek and only then; only music (player=music) can be liked."""
    if (args["action"] == "seek") != ("position_sec" in args):
        return "position_sec is required for seek and only for seek"
    if args["action"] == "like" and args.get("player", "music") != "music":
        return "only music tracks can be liked"
    return None


_LIKED_SONGS_ID = select(playlists.c.playlist_id).where(playlists.c.name == LIKED_SONGS)
_ADD_PLAYLIST = insert(playlists)


def _like(ctx: Ctx, track_id: str) -> None:
    """Add the track to the Liked Songs playlist (created when missing)."""
    pid = ctx.conn.execute(_LIKED_SONGS_ID).scalar()
    if pid is None:
        pid = ctx.new_id(playlists)
        ctx.conn.execute(
            _ADD_PLAYLIST,
            {
                "playlist_id": pid,
                "name": LIKED_SONGS,
                "description": "Songs you liked",
                "is_public": 0,
                "created_at": ctx.ts(),
                "updated_at": ctx.ts(),
            },
        )
    if _placed(ctx, pid).get(track_id):
        raise ToolError(ErrorType.STATE_CONFLICT, f"{track_id} is already in {LIKED_SONGS}", playlist_id=pid)
    _insert_tracks(ctx, pid, [track_id], None)


@tool(
    l2="2.1",
    app="music",
    mutating=True,
    check=_playback_args,
    errors=(ErrorType.STATE_CONFLICT, ErrorType.INVALID_ARGUMENT_VALUE),
)
def control_playback(
    ctx: Ctx,
    action: Literal["pause", "resume", "next", "previous", "stop", "seek", "like"],
    position_sec: Seconds | None = None,
    player: Player = "music",
) -> dict[str, Any]:
    """Pause, resume, skip, go back, stop, seek or like on the active music, video or podcast player.

    Args:
        action: What to do; "like" saves the current track to Liked Songs (music only).
        position_sec: Where to seek to, in seconds from the start (seek only).
        player: Which player to control.
    """
    state = _player(ctx, player)
    if state is None or state["status"] == "stopped":
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"nothing is playing on the {player} player",
            hint={"music": "play_music", "video": "play_video", "podcast": "play_podcast_episode"}[player],
        )
    if (action, state["status"]) in (("pause", "paused"), ("resume", "playing")):
        raise ToolError(ErrorType.STATE_CONFLICT, f"the {player} player is already {state['status']}")
    queue, pos = json.loads(state["queue_json"]), state["queue_pos"]
    changes: dict[str, Any] = {}
    if action in ("pause", "resume", "stop"):
        changes = {"status": {"pause": "paused", "resume": "playing", "stop": "stopped"}[action]}
        if action == "stop":
            changes["position_sec"] = 0
    elif action == "seek":
        length = _now_playing(ctx, player, state["item_id"])["duration_sec"]
        if position_sec is not None and position_sec > length:
            raise ToolError(
                ErrorType.INVALID_ARGUMENT_VALUE,
                f"position {position_sec}s is past the end ({length}s)",
                field="position_sec",
            )
        changes = {"position_sec": position_sec}
    elif action == "like":
        _like(ctx, state["item_id"])
    else:
        if not queue:
            raise ToolError(ErrorType.STATE_CONFLICT, f"nothing is queued on the {player} player")
        if action == "next":
            if pos + 1 >= len(queue) and state["repeat"] != "all":
                raise ToolError(ErrorType.STATE_CONFLICT, "this is the last item of the queue", queue_length=len(queue))
            pos = (pos + 1) % len(queue)
        else:
            pos = max(pos - 1, 0)
        changes = {"item_id": queue[pos], "queue_pos": pos, "position_sec": 0, "status": "playing"}
        _record_play(ctx, player, queue[pos])
    if changes:
        ctx.conn.execute(_SET_PLAYER_STATE, {"match_player": player, **changes, "updated_at": ctx.ts()})
    after = {**state, **changes}
    return {
        "player": player,
        "action": action,
        "status": after["status"],
        "position_sec": after["position_sec"],
        "now_playing": _now_playing(ctx, player, after["item_id"]),
        "queue_position": pos + 1,
        "queue_length": len(queue),
    }


# ---- Playlists & Library (2.2) ----------------------------------------------------------------

_KNOWN_TRACK_IDS = select(world_tracks.c.track_id).where(
    world_tracks.c.track_id.in_(bindparam("track_ids", expanding=True))
)


def _known_tracks(ctx: Ctx, track_ids: list[str]) -> list[str]:
    """The ids in first-seen order without repeats; EntityNotFound when any is not a catalogue track."""
    unique = list(dict.fromkeys(track_ids))
    known = set(ctx.conn.execute(_KNOWN_TRACK_IDS, {"track_ids": unique}).scalars())
    missing = [t for t in unique if t not in known]
    if missing:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"no track(s) {', '.join(missing)}", missing=missing, hint="search_music"
        )
    return unique


_PLAYLIST_POSITIONS = select(playlist_tracks.c.track_id, playlist_tracks.c.position).where(
    playlist_tracks.c.playlist_id == bindparam("playlist_id")
)


def _placed(ctx: Ctx, playlist_id: str) -> dict[str, int]:
    """track id -> position in the playlist."""
    return dict(ctx.conn.execute(_PLAYLIST_POSITIONS, {"playlist_id": playlist_id}).all())


_SET_TRACK_POSITION = update(playlist_tracks).where(
    playlist_tracks.c.playlist_id == bindparam("match_playlist_id"),
    playlist_tracks.c.track_id == bindparam("match_track_id"),
)


def _renumber(ctx: Ctx, playlist_id: str, order: list[str], before: dict[str, int]) -> None:
    """Give the tracks positions 1..n in ``order``, writing only the positions that change."""
    for i, tid in enumerate(order, start=1):
        if tid in before and before[tid] != i:
            ctx.conn.execute(
                _SET_TRACK_POSITION,
                {"match_playlist_id": playlist_id, "match_track_id": tid, "position": i, "updated_at": ctx.ts()},
            )


_ADD_PLAYLIST_TRACK = insert(playlist_tracks)
_TOUCH_PLAYLIST = update(playlists).where(playlists.c.playlist_id == bindparam("match_playlist_id"))


def _insert_tracks(ctx: Ctx, playlist_id: str, new: list[str], position: int | None) -> None:
    """Insert tracks at a 1-based position (default: the end), shifting the ones after it."""
    before = _placed(ctx, playlist_id)
    order = sorted(before, key=before.__getitem__)
    at = len(order) if position is None else min(position - 1, len(order))
    order[at:at] = new
    _renumber(ctx, playlist_id, order, before)
    for tid in new:
        ctx.conn.execute(
            _ADD_PLAYLIST_TRACK,
            {
                "playlist_id": playlist_id,
                "track_id": tid,
                "position": order.index(tid) + 1,
                "created_at": ctx.ts(),
                "updated_at": ctx.ts(),
            },
        )
    ctx.conn.execute(_TOUCH_PLAYLIST, {"match_playlist_id": playlist_id, "updated_at": ctx.ts()})


_PLAYLIST_NAMED = select(playlists.c.playlist_id).where(func.lower(playlists.c.name) == bindparam("name"))


@tool(l2="2.2", app="music", mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.DUPLICATE_ENTITY))
def create_playlist(
    ctx: Ctx,
    name: Name,
    description: Annotated[str, Field(max_length=300)] | None = None,
    is_public: bool = False,
    track_ids: Annotated[list[Ref], Field(max_length=100)] | None = None,
) -> dict[str, Any]:
    """Create a music playlist, optionally filled with tracks.

    Args:
        name: Name of the playlist (must differ from the user's other playlists).
        description: Short description.
        is_public: Make the playlist visible on the user's public profile.
        track_ids: Tracks to start with, in order, e.g. ["track_912", "track_940"].
    """
    tracks = _known_tracks(ctx, track_ids or [])
    existing = ctx.conn.execute(_PLAYLIST_NAMED, {"name": name.lower()}).scalar()
    if existing:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY, f"a playlist named {name!r} exists: {existing}", existing_id=existing
        )
    pid = ctx.new_id(playlists)
    ctx.conn.execute(
        _ADD_PLAYLIST,
        {
            "playlist_id": pid,
            "name": name,
            "description": description,
            "is_public": int(is_public),
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    if tracks:
        _insert_tracks(ctx, pid, tracks, None)
    return {"playlist_id": pid, "name": name, "is_public": is_public, "track_ids": tracks}


@tool(l2="2.2", app="music", mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.DUPLICATE_ENTITY))
def add_tracks_to_playlist(
    ctx: Ctx,
    playlist_id: Ref,
    track_ids: TrackIds,
    position: Annotated[int, Field(ge=1, le=10000)] | None = None,
) -> dict[str, Any]:
    """Add tracks to a playlist; tracks already in it are skipped.

    Args:
        playlist_id: Id of the playlist, e.g. playlist_902.
        track_ids: Tracks to add, in order.
        position: 1-based position to insert them at (default: the end).
    """
    _get(ctx, playlists, playlist_id, "search_music")
    tracks = _known_tracks(ctx, track_ids)
    present = _placed(ctx, playlist_id)
    new = [t for t in tracks if t not in present]
    if not new:
        raise ToolError(ErrorType.DUPLICATE_ENTITY, "every track is already in the playlist", existing_ids=tracks)
    _insert_tracks(ctx, playlist_id, new, position)
    return {
        "playlist_id": playlist_id,
        "added": new,
        "skipped_already_present": [t for t in tracks if t in present],
        "track_count": len(present) + len(new),
    }


_REMOVE_PLAYLIST_TRACKS = playlist_tracks.delete().where(
    playlist_tracks.c.playlist_id == bindparam("playlist_id"),
    playlist_tracks.c.track_id.in_(bindparam("track_ids", expanding=True)),
)


@tool(l2="2.2", app="music", mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND,))
def remove_tracks_from_playlist(ctx: Ctx, playlist_id: Ref, track_ids: TrackIds) -> dict[str, Any]:
    """Remove tracks from a playlist (the rest close up).

    Args:
        playlist_id: Id of the playlist, e.g. playlist_902.
        track_ids: Tracks to remove; each must be in the playlist.
    """
    _get(ctx, playlists, playlist_id, "search_music")
    present = _placed(ctx, playlist_id)
    gone = list(dict.fromkeys(track_ids))
    missing = [t for t in gone if t not in present]
    if missing:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"not in {playlist_id}: {', '.join(missing)}", missing=missing)
    ctx.conn.execute(_REMOVE_PLAYLIST_TRACKS, {"playlist_id": playlist_id, "track_ids": gone})
    _renumber(ctx, playlist_id, sorted((t for t in present if t not in gone), key=present.__getitem__), present)
    ctx.conn.execute(_TOUCH_PLAYLIST, {"match_playlist_id": playlist_id, "updated_at": ctx.ts()})
    return {"playlist_id": playlist_id, "removed": gone, "track_count": len(present) - len(gone)}


# ---- Video Streaming (2.3) --------------------------------------------------------------------

_IN_WATCHLIST = select(watchlist.c.video_id).where(watchlist.c.video_id == bindparam("video_id"))


def _video_out(ctx: Ctx, v: dict[str, Any]) -> dict[str, Any]:
    vid = v["video_id"]
    listed = ctx.conn.execute(_IN_WATCHLIST, {"video_id": vid}).first()
    keep = (
        "video_id",
        "title",
        "kind",
        "genre",
        "duration_min",
        "language",
        "access",
        "year",
        "rating",
        "series_id",
        "series_title",
        "episode_no",
    )
    return {
        **{k: v[k] for k in keep},
        "subtitles": json.loads(v["subtitles_json"]),
        "in_watchlist": bool(listed),
        "rented": _rented(ctx, v["series_id"] or vid),
    }


_RENTAL_EXPIRY = select(video_rentals.c.expires_at).where(video_rentals.c.video_id == bindparam("video_id"))


def _rented(ctx: Ctx, video_id: str) -> bool:
    expires = ctx.conn.execute(_RENTAL_EXPIRY, {"video_id": video_id}).scalar()
    return bool(expires and expires > ctx.ts())


@tool(l2="2.3", app="video", mutating=False, network="internet")
def search_videos(
    ctx: Ctx,
    query: Query,
    kind: Literal["movie", "series", "episode", "clip"] | None = None,
    genre: Annotated[str, Field(min_length=1, max_length=40)] | None = None,
    max_duration_min: Annotated[int, Field(ge=1, le=1000)] | None = None,
    language: Language | None = None,
    limit: Limit = 10,
) -> dict[str, Any]:
    """Search the video catalogue: movies, series, episodes and short clips.

    Args:
        query: Words to look for in titles or genres (case-insensitive); an episode also matches its series'
            title and "episode N", e.g. "Harbor Nights episode 3".
        kind: Only this kind; episodes are listed only when kind is "episode".
        genre: Only this genre, e.g. "comedy".
        max_duration_min: Only videos at most this long, in minutes.
        language: Only videos in this original language, BCP-47 (e.g. "ja" or "ja-JP").
        limit: Maximum number of results.
    """
    words = word_values(query)
    values: dict[str, Any] = {**words, "kind": kind or "episode", "limit": limit}
    if genre:
        values["genre"] = genre.lower()
    if max_duration_min:
        values["max_duration_min"] = max_duration_min
    if language:
        values["language"], values["language_pattern"] = language.lower(), f"{language.lower()}-%"
    q = _video_search(len(words), bool(kind), bool(genre), bool(max_duration_min), bool(language))
    found = rows(ctx.conn.execute(q, values))
    return {"videos": [_video_out(ctx, r) for r in found], "count": len(found), "video_plan": _plan(ctx, "video")}


@functools.lru_cache(maxsize=256)
def _video_search(words: int, kind: bool, genre: bool, max_duration: bool, language: bool) -> Select[Any]:
    """search_videos' statement for one combination of filters, built once (its values are bound)."""
    v, series = world_videos.c, world_videos.alias("series").c
    # an episode's own title ("Pilot") is not what a user types: its series' title and "episode N" match too
    label = literal("episode ") + cast(v.episode_no, Text)
    q = (
        select(world_videos, series.title.label("series_title"))
        .select_from(world_videos.outerjoin(series.video_id.table, series.video_id == v.series_id))
        .where(*words_match([v.title, v.genre, series.title, label], words))
    )
    q = q.where(v.kind == bindparam("kind")) if kind else q.where(v.kind != bindparam("kind"))
    if genre:
        q = q.where(func.lower(v.genre) == bindparam("genre"))
    if max_duration:
        q = q.where(v.duration_min <= bindparam("max_duration_min"))
    if language:
        q = q.where(
            or_(
                func.lower(v.language) == bindparam("language"),
                func.lower(v.language).like(bindparam("language_pattern")),
            )
        )
    return q.order_by(func.coalesce(series.title, v.title), v.episode_no, v.video_id).limit(bindparam("limit"))


def _subtitle(available: list[str], wanted: str) -> str | None:
    """The available track for a BCP-47 tag ("zh" finds "zh-CN"), or None."""
    w = wanted.lower()
    return next((a for a in available if a.lower() == w or a.lower().startswith(w + "-")), None)


_SERIES_EPISODES = (
    select(world_videos.c.video_id)
    .where(world_videos.c.series_id == bindparam("series_id"))
    .order_by(world_videos.c.episode_no)
)
_WATCHED_AMONG = select(watch_history.c.video_id).where(
    watch_history.c.video_id.in_(bindparam("video_ids", expanding=True))
)


@tool(
    l2="2.3",
    app="video",
    mutating=True,
    network="internet",
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.AMBIGUOUS_ENTITY,
        ErrorType.INVALID_ARGUMENT_VALUE,
        ErrorType.STATE_CONFLICT,
        ErrorType.RESOURCE_UNAVAILABLE,
    ),
)
def play_video(
    ctx: Ctx,
    video_id: Ref,
    start_sec: Seconds = 0,
    subtitles: Language | None = None,
    output_device_id: Ref | None = None,
) -> dict[str, Any]:
    """Play a movie, episode or clip on the phone or a connected TV; a series starts at its first unwatched episode.

    Args:
        video_id: Id of the video from search_videos, e.g. video_914.
        start_sec: Where to start, in seconds from the beginning.
        subtitles: Subtitle language, BCP-47 (e.g. "en-US", "zh-CN"); default none.
        output_device_id: Output device id (device_901) or name, e.g. "Living Room TV"; it must be connected.
    """
    video = _get(ctx, world_videos, video_id, "search_videos")
    device = _device(ctx, output_device_id) if output_device_id else None
    queue = [video_id]
    if video["kind"] in ("series", "episode"):
        series = video["series_id"] or video_id
        queue = list(ctx.conn.execute(_SERIES_EPISODES, {"series_id": series}).scalars())
        if not queue:
            raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"{video_id} has no episodes", field="video_id")
        if video["kind"] == "series":
            seen = set(ctx.conn.execute(_WATCHED_AMONG, {"video_ids": queue}).scalars())
            video_id = next((e for e in queue if e not in seen), queue[0])
            video = _get(ctx, world_videos, video_id, "search_videos")
    if start_sec >= video["duration_min"] * 60:
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE,
            f"start_sec is past the end ({video['duration_min']} min)",
            field="start_sec",
        )
    output = _output(ctx, "video", device)
    owner = video["series_id"] or video_id
    if video["access"] == "rent" and not _rented(ctx, owner):
        raise ToolError(ErrorType.RESOURCE_UNAVAILABLE, f"{video['title']!r} must be rented first", access="rent")
    if video["access"] == "subscription" and _plan(ctx, "video") != "premium":
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE, f"{video['title']!r} needs a video subscription", access="subscription"
        )
    track = None
    if subtitles:
        available = json.loads(video["subtitles_json"])
        track = _subtitle(available, subtitles)
        if track is None:
            raise ToolError(
                ErrorType.RESOURCE_UNAVAILABLE, f"no {subtitles} subtitles for {video['title']!r}", available=available
            )
    _start(
        ctx,
        "video",
        queue,
        queue.index(video_id),
        owner if owner != video_id else None,
        position_sec=start_sec,
        output_device_id=output,
        subtitles=track,
    )
    return {
        "player": "video",
        "status": "playing",
        "now_playing": _now_playing(ctx, "video", video_id),
        "position_sec": start_sec,
        "subtitles": track,
        "output": _output_brief(ctx, output),
    }


_ADD_TO_WATCHLIST = insert(watchlist)


@tool(l2="2.3", app="video", mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.DUPLICATE_ENTITY))
def add_to_watchlist(ctx: Ctx, video_id: Ref) -> dict[str, Any]:
    """Save a movie, series or clip to the watchlist.

    Args:
        video_id: Id of the video, e.g. video_914.
    """
    video = _get(ctx, world_videos, video_id, "search_videos")
    if ctx.conn.execute(_IN_WATCHLIST, {"video_id": video_id}).first():
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY, f"{video['title']!r} is already in the watchlist", existing_id=video_id
        )
    ctx.conn.execute(_ADD_TO_WATCHLIST, {"video_id": video_id, "created_at": ctx.ts(), "updated_at": ctx.ts()})
    return {"video_id": video_id, "title": video["title"], "in_watchlist": True}


# ---- Podcasts & Audiobooks (2.4) --------------------------------------------------------------


@tool(l2="2.4", app="podcasts", mutating=False, network="internet")
def search_podcasts(
    ctx: Ctx,
    query: Query,
    kind: Literal["show", "episode", "audiobook"] = "show",
    limit: Limit = 10,
) -> dict[str, Any]:
    """Search podcast shows, podcast episodes (newest first) or audiobooks (whose chapters are episodes).

    Args:
        query: Words to look for in titles, publishers or categories (case-insensitive).
        kind: What to search for.
        limit: Maximum number of results.
    """
    words = word_values(query)
    values = {**words, "limit": limit}
    if kind == "episode":
        found = rows(ctx.conn.execute(_podcast_search(True, len(words)), values))
        return {"kind": kind, "results": found, "count": len(found)}
    values["show_kind"] = "audiobook" if kind == "audiobook" else "podcast"
    found = rows(ctx.conn.execute(_podcast_search(False, len(words)), values))
    for r in found:
        r["followed"] = r["followed"] is not None
    return {"kind": kind, "results": found, "count": len(found)}


@functools.lru_cache(maxsize=128)
def _podcast_search(episodes: bool, words: int) -> Select[Any]:
    """search_podcasts' statement for episodes or shows and one number of query words, built once."""
    p, e, s = world_podcasts.c, world_episodes.c, podcast_subscriptions.c
    if episodes:
        return (
            select(
                e.episode_id, e.title, e.show_id, p.title.label("show"), e.episode_no, e.duration_sec, e.published_at
            )
            .join_from(world_episodes, world_podcasts, e.show_id == p.show_id)
            .where(*words_match([e.title, p.title], words))
            .order_by(e.published_at.desc(), e.episode_id)
            .limit(bindparam("limit"))
        )
    return (
        select(
            p.show_id,
            p.title,
            p.publisher,
            p.category,
            func.count(e.episode_id).label("episodes"),
            func.max(e.published_at).label("latest_episode_at"),
            s.show_id.label("followed"),
        )
        .outerjoin_from(world_podcasts, world_episodes, e.show_id == p.show_id)
        .outerjoin(podcast_subscriptions, s.show_id == p.show_id)
        .where(p.kind == bindparam("show_kind"), *words_match([p.title, p.publisher, p.category], words))
        .group_by(p.show_id)
        .order_by(p.title, p.show_id)
        .limit(bindparam("limit"))
    )


_FOLLOWED_SHOW = select(podcast_subscriptions.c.show_id).where(podcast_subscriptions.c.show_id == bindparam("show_id"))
_FOLLOW_SHOW = insert(podcast_subscriptions)


@tool(l2="2.4", app="podcasts", mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.DUPLICATE_ENTITY))
def subscribe_podcast(ctx: Ctx, show_id: Ref, auto_download: bool = True) -> dict[str, Any]:
    """Follow a podcast show so new episodes appear in the library (and download automatically).

    Args:
        show_id: Id of the show, e.g. show_904.
        auto_download: Download new episodes automatically.
    """
    show = _get(ctx, world_podcasts, show_id, "search_podcasts")
    if ctx.conn.execute(_FOLLOWED_SHOW, {"show_id": show_id}).first():
        raise ToolError(ErrorType.DUPLICATE_ENTITY, f"already following {show['title']!r}", existing_id=show_id)
    ctx.conn.execute(
        _FOLLOW_SHOW,
        {"show_id": show_id, "auto_download": int(auto_download), "created_at": ctx.ts(), "updated_at": ctx.ts()},
    )
    return {"show_id": show_id, "title": show["title"], "auto_download": auto_download}


_SHOW_EPISODES = (
    select(world_episodes.c.episode_id)
    .where(world_episodes.c.show_id == bindparam("show_id"))
    .order_by(world_episodes.c.episode_no)
)


@tool(
    l2="2.4",
    app="podcasts",
    mutating=True,
    network="internet",
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.INVALID_ARGUMENT_VALUE),
)
def play_podcast_episode(
    ctx: Ctx,
    episode_id: Ref,
    speed: Annotated[float, Field(ge=0.5, le=3.0)] = 1.0,
    start_sec: Seconds = 0,
    sleep_timer_min: Annotated[int, Field(ge=1, le=180)] | None = None,
) -> dict[str, Any]:
    """Play a podcast episode or audiobook chapter; the rest of the show follows in order.

    Args:
        episode_id: Id of the episode or chapter, e.g. episode_931.
        speed: Playback speed, 0.5 to 3.0.
        start_sec: Where to start, in seconds from the beginning.
        sleep_timer_min: Stop playing after this many minutes.
    """
    episode = _get(ctx, world_episodes, episode_id, "search_podcasts")
    if start_sec >= episode["duration_sec"]:
        raise ToolError(
            ErrorType.INVALID_ARGUMENT_VALUE,
            f"start_sec is past the end ({episode['duration_sec']}s)",
            field="start_sec",
        )
    queue = list(ctx.conn.execute(_SHOW_EPISODES, {"show_id": episode["show_id"]}).scalars())
    output = _output(ctx, "podcast", None)
    _start(
        ctx,
        "podcast",
        queue,
        queue.index(episode_id),
        episode["show_id"],
        position_sec=start_sec,
        output_device_id=output,
        speed=round(speed, 2),
        sleep_timer_min=sleep_timer_min,
    )
    return {
        "player": "podcast",
        "status": "playing",
        "now_playing": _now_playing(ctx, "podcast", episode_id),
        "position_sec": start_sec,
        "speed": round(speed, 2),
        "sleep_timer_min": sleep_timer_min,
        "output": _output_brief(ctx, output),
    }


# ---- Reading & E-books (2.5) ------------------------------------------------------------------


@tool(l2="2.5", app="ebooks", mutating=False)
def search_ebooks(
    ctx: Ctx,
    query: Query,
    author: Annotated[str, Field(min_length=1, max_length=80)] | None = None,
    in_library_only: bool = False,
    limit: Limit = 10,
) -> dict[str, Any]:
    """Search the e-book store and the user's own shelves by title or author.

    Args:
        query: Words to look for in titles, authors or genres (case-insensitive).
        author: Only books whose author contains this text.
        in_library_only: Only books on one of the user's shelves.
        limit: Maximum number of results.
    """
    words = word_values(query)
    values: dict[str, Any] = {**words, "limit": limit}
    if author:
        values["author"] = like_escaped(author.lower())
    found = rows(ctx.conn.execute(_ebook_search(len(words), bool(author), in_library_only), values))
    return {"books": found, "count": len(found)}


@functools.lru_cache(maxsize=256)
def _ebook_search(words: int, author: bool, in_library_only: bool) -> Select[Any]:
    """search_ebooks' statement for one combination of filters, built once (its values are bound)."""
    b, s = world_books.c, bookshelf.c
    q = (
        select(b.book_id, b.title, b.author, b.genre, b.year, b.pages, s.shelf, s.progress_pct)
        .outerjoin_from(world_books, bookshelf, s.book_id == b.book_id)
        .where(*words_match([b.title, b.author, b.genre], words))
    )
    if author:
        q = q.where(contains_bound(func.lower(b.author), "author"))
    if in_library_only:
        q = q.where(s.shelf.is_not(None))
    return q.order_by(b.title, b.book_id).limit(bindparam("limit"))


Shelf = Literal["want_to_read", "reading", "finished"]


def _shelf_progress(args: dict[str, Any]) -> str | None:
    """A book on want_to_read has no progress_pct above 0; a finished book has progress_pct 100."""
    pct = args.get("progress_pct")
    if pct is not None and args["shelf"] == "want_to_read" and pct > 0:
        return "a book on want_to_read has no reading progress"
    if pct is not None and args["shelf"] == "finished" and pct < 100:
        return "a finished book has progress 100"
    return None


_SHELVED_BOOK = select(bookshelf).where(bookshelf.c.book_id == bindparam("book_id"))
_SET_SHELVED_BOOK = update(bookshelf).where(bookshelf.c.book_id == bindparam("match_book_id"))
_SHELVE_BOOK = insert(bookshelf)


@tool(
    l2="2.5",
    app="ebooks",
    mutating=True,
    check=_shelf_progress,
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT),
)
def add_book_to_shelf(
    ctx: Ctx,
    book_id: Ref,
    shelf: Shelf,
    progress_pct: Annotated[int, Field(ge=0, le=100)] | None = None,
) -> dict[str, Any]:
    """Put a book on a shelf (want to read, reading, finished) and/or update its reading progress.

    Args:
        book_id: Id of the book from search_ebooks, e.g. book_907.
        shelf: The shelf to put it on.
        progress_pct: Reading progress in percent (finished means 100, want_to_read means 0).
    """
    book = _get(ctx, world_books, book_id, "search_ebooks")
    row = ctx.conn.execute(_SHELVED_BOOK, {"book_id": book_id}).first()
    before = dict(row._mapping) if row else None
    kept = before["progress_pct"] if before and before["progress_pct"] < 100 else 0
    default = {"finished": 100, "want_to_read": 0}.get(shelf, kept)
    progress = progress_pct if progress_pct is not None else default
    if before and before["shelf"] == shelf and before["progress_pct"] == progress:
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"{book['title']!r} is already on {shelf} at {progress}%",
            shelf=shelf,
            progress_pct=progress,
        )
    if before:
        ctx.conn.execute(
            _SET_SHELVED_BOOK,
            {"match_book_id": book_id, "shelf": shelf, "progress_pct": progress, "updated_at": ctx.ts()},
        )
    else:
        ctx.conn.execute(
            _SHELVE_BOOK,
            {
                "book_id": book_id,
                "shelf": shelf,
                "progress_pct": progress,
                "created_at": ctx.ts(),
                "updated_at": ctx.ts(),
            },
        )
    return {
        "book_id": book_id,
        "title": book["title"],
        "shelf": shelf,
        "progress_pct": progress,
        "previous_shelf": before["shelf"] if before else None,
    }


# ---- Photos & Albums (2.6) --------------------------------------------------------------------


def _photo_out(p: dict[str, Any]) -> dict[str, Any]:
    """What the gallery shows about a photo (the text inside it is for the screen reader)."""
    return {
        "photo_id": p["photo_id"],
        "media_type": p["media_type"],
        "taken_at": p["taken_at"],
        "place": p["place"],
        "people": json.loads(p["people_json"]),
        "labels": json.loads(p["labels_json"]),
        "source": p["source"],
        "size_mb": p["size_mb"],
        "duration_sec": p["duration_sec"],
        "has_text": bool(p["ocr_text"]),
    }


def _photo_filters(args: dict[str, Any]) -> str | None:
    """Give at least one of query, album_id, date_from, date_to, place, person, media_type; date_to is not before
    date_from."""
    if args.get("date_from") and args.get("date_to") and args["date_to"] < args["date_from"]:
        return "date_to is before date_from"
    return _one_of("query", "album_id", "date_from", "date_to", "place", "person", "media_type")(args)


@tool(
    l2="2.6",
    app="gallery",
    mutating=False,
    permissions=("PHOTOS",),
    check=_photo_filters,
    errors=(ErrorType.ENTITY_NOT_FOUND,),
)
def search_photos(
    ctx: Ctx,
    query: Query | None = None,
    album_id: Ref | None = None,
    date_from: Date | None = None,
    date_to: Date | None = None,
    place: Query | None = None,
    person: Query | None = None,
    media_type: Literal["photo", "video", "screenshot"] | None = None,
    limit: Annotated[int, Field(ge=1, le=100)] = 20,
) -> dict[str, Any]:
    """Search the gallery (not Recently Deleted) by what is pictured, album, date, place, person or type, newest first.

    Args:
        query: Words describing the picture, e.g. "receipt", "beach sunset" (matched against recognised
            labels, places and people, not against text inside the picture).
        album_id: Only photos in this gallery album: its id (photo_album_902) or its name, e.g. "Favorites".
        date_from: Taken on or after this day, YYYY-MM-DD.
        date_to: Taken on or before this day, YYYY-MM-DD.
        place: Part of the place name, e.g. a city.
        person: Part of the name of someone in the picture.
        media_type: Only photos, videos or screenshots.
        limit: Maximum number of results.
    """
    if album_id:
        album_id = _album(ctx, album_id)["album_id"]
    words = word_values(query or "")
    values: dict[str, Any] = {
        **words,
        "album_id": album_id,
        "date_from": date_from,
        "date_to": date_to + "T99" if date_to else None,
        "place": like_escaped(place.lower()) if place else None,
        "person": like_escaped(person.lower()) if person else None,
        "media_type": media_type,
    }
    values = {k: v for k, v in values.items() if v is not None}
    count, listing = _photo_search(
        len(words), bool(album_id), bool(date_from), bool(date_to), bool(place), bool(person), bool(media_type)
    )
    total = ctx.conn.execute(count, values).scalar()
    found = rows(ctx.conn.execute(listing, {**values, "limit": limit}))
    return {"photos": [_photo_out(r) for r in found], "count": len(found), "total_matches": total}


@functools.lru_cache(maxsize=256)
def _photo_search(
    words: int, album: bool, date_from: bool, date_to: bool, place: bool, person: bool, media_type: bool
) -> tuple[Select[Any], Select[Any]]:
    """search_photos' two statements (the count and the page) for one combination of filters, built once."""
    p = photos.c
    conditions: list[ColumnElement[bool]] = [p.deleted_at.is_(None)]
    if album:
        conditions.append(
            p.photo_id.in_(select(album_photos.c.photo_id).where(album_photos.c.album_id == bindparam("album_id")))
        )
    conditions += words_match([p.labels_json, p.place, p.people_json, p.media_type], words)
    if date_from:
        conditions.append(p.taken_at >= bindparam("date_from"))
    if date_to:
        conditions.append(p.taken_at < bindparam("date_to"))
    if place:
        conditions.append(contains_bound(func.lower(p.place), "place"))
    if person:
        conditions.append(contains_bound(func.lower(p.people_json), "person"))
    if media_type:
        conditions.append(p.media_type == bindparam("media_type"))
    return (
        select(func.count()).select_from(photos).where(*conditions),
        select(photos).where(*conditions).order_by(p.taken_at.desc(), p.photo_id).limit(bindparam("limit")),
    )


_ALBUMS = select(albums.c.album_id, albums.c.name).order_by(albums.c.album_id)


def _album(ctx: Ctx, ref: str) -> dict[str, Any]:
    """A gallery album by id or name (case-insensitive), as the gallery's album list shows them; EntityNotFound
    lists the albums, since no other tool does."""
    every = rows(ctx.conn.execute(_ALBUMS))
    found = next((a for a in every if a["album_id"] == ref or a["name"].lower() == ref.strip().lower()), None)
    if found is None:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no gallery album {ref!r}", field="album_id", albums=every)
    return found


_LIVE_PHOTO_IDS = select(photos.c.photo_id).where(
    photos.c.photo_id.in_(bindparam("photo_ids", expanding=True)), photos.c.deleted_at.is_(None)
)


def _live_photos(ctx: Ctx, photo_ids: list[str]) -> list[str]:
    """The ids without repeats; EntityNotFound for unknown photos and those in Recently Deleted."""
    unique = list(dict.fromkeys(photo_ids))
    live = set(ctx.conn.execute(_LIVE_PHOTO_IDS, {"photo_ids": unique}).scalars())
    missing = [p for p in unique if p not in live]
    if missing:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no photo(s) {', '.join(missing)} in the gallery",
            missing=missing,
            hint="search_photos",
        )
    return unique


_FILE_PHOTO = insert(album_photos)


def _album_add(ctx: Ctx, album_id: str, photo_ids: list[str]) -> None:
    for p in photo_ids:
        ctx.conn.execute(
            _FILE_PHOTO, {"album_id": album_id, "photo_id": p, "created_at": ctx.ts(), "updated_at": ctx.ts()}
        )


_ALBUM_NAMED = select(albums.c.album_id).where(func.lower(albums.c.name) == bindparam("name"))
_ADD_ALBUM = insert(albums)


@tool(
    l2="2.6",
    app="gallery",
    mutating=True,
    permissions=("PHOTOS",),
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.DUPLICATE_ENTITY),
)
def create_photo_album(
    ctx: Ctx,
    name: Name,
    photo_ids: Annotated[list[Ref], Field(max_length=500)] | None = None,
    shared: bool = False,
) -> dict[str, Any]:
    """Create a gallery album, optionally with photos in it.

    Args:
        name: Name of the album (must differ from the other albums).
        photo_ids: Photos to put in it, e.g. ["photo_912", "photo_913"].
        shared: Make it a shared album that invited people can see.
    """
    chosen = _live_photos(ctx, photo_ids or [])
    existing = ctx.conn.execute(_ALBUM_NAMED, {"name": name.lower()}).scalar()
    if existing:
        raise ToolError(ErrorType.DUPLICATE_ENTITY, f"an album named {name!r} exists: {existing}", existing_id=existing)
    aid = ctx.new_id(albums)
    ctx.conn.execute(
        _ADD_ALBUM,
        {"album_id": aid, "name": name, "shared": int(shared), "created_at": ctx.ts(), "updated_at": ctx.ts()},
    )
    if chosen:
        _album_add(ctx, aid, chosen)
    return {"album_id": aid, "name": name, "shared": shared, "photo_ids": chosen}


_ALBUM_PHOTO_IDS = select(album_photos.c.photo_id).where(album_photos.c.album_id == bindparam("album_id"))
_TOUCH_ALBUM = update(albums).where(albums.c.album_id == bindparam("match_album_id"))


@tool(
    l2="2.6",
    app="gallery",
    mutating=True,
    permissions=("PHOTOS",),
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.DUPLICATE_ENTITY),
)
def add_photos_to_album(ctx: Ctx, album_id: Ref, photo_ids: PhotoIds) -> dict[str, Any]:
    """Add photos to a gallery album; photos already in it are skipped.

    Args:
        album_id: The gallery album: its id (photo_album_902) or its name, e.g. "Favorites".
        photo_ids: Photos to add.
    """
    album = _album(ctx, album_id)
    album_id = album["album_id"]
    chosen = _live_photos(ctx, photo_ids)
    present = set(ctx.conn.execute(_ALBUM_PHOTO_IDS, {"album_id": album_id}).scalars())
    new = [p for p in chosen if p not in present]
    if not new:
        raise ToolError(ErrorType.DUPLICATE_ENTITY, f"every photo is already in {album['name']!r}", existing_ids=chosen)
    _album_add(ctx, album_id, new)
    ctx.conn.execute(_TOUCH_ALBUM, {"match_album_id": album_id, "updated_at": ctx.ts()})
    return {"album_id": album_id, "added": new, "skipped_already_present": [p for p in chosen if p in present]}


BULK_DELETE = 20  # more photos than this at once needs confirm=true
_PHOTOS_DELETED_AT = select(photos.c.photo_id, photos.c.deleted_at).where(
    photos.c.photo_id.in_(bindparam("photo_ids", expanding=True))
)
_UNFILE_PHOTOS = album_photos.delete().where(album_photos.c.photo_id.in_(bindparam("photo_ids", expanding=True)))
_DROP_PHOTOS = photos.delete().where(photos.c.photo_id.in_(bindparam("photo_ids", expanding=True)))
_TRASH_PHOTOS = update(photos).where(photos.c.photo_id.in_(bindparam("match_photo_ids", expanding=True)))


@tool(
    l2="2.6",
    app="gallery",
    mutating=True,
    permissions=("PHOTOS",),
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT, ErrorType.CONFIRMATION_REQUIRED),
)
def delete_photos(ctx: Ctx, photo_ids: PhotoIds, permanent: bool = False, confirm: bool = False) -> dict[str, Any]:
    """Move photos to Recently Deleted, or delete them permanently (also from Recently Deleted).

    Args:
        photo_ids: Photos to delete.
        permanent: Delete for good instead of moving to Recently Deleted.
        confirm: Set true only after the user confirmed; needed for permanent deletes and for more than 20 photos.
    """
    unique = list(dict.fromkeys(photo_ids))
    found = {r.photo_id: r.deleted_at for r in ctx.conn.execute(_PHOTOS_DELETED_AT, {"photo_ids": unique})}
    missing = [p for p in unique if p not in found]
    if missing:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"no photo(s) {', '.join(missing)}", missing=missing, hint="search_photos"
        )
    trashed = [p for p in unique if found[p]]
    if trashed and not permanent:
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"already in Recently Deleted: {', '.join(trashed)}",
            already_deleted=trashed,
            hint="pass permanent=true to delete them for good",
        )
    if (permanent or len(unique) > BULK_DELETE) and not confirm:
        what = "permanently delete" if permanent else "delete"
        raise ToolError(
            ErrorType.CONFIRMATION_REQUIRED,
            f"{what} {len(unique)} photo(s)? Ask the user first",
            count=len(unique),
            permanent=permanent,
            hint="ask_user(kind=confirm), then confirm=true",
        )
    if permanent:
        ctx.conn.execute(_UNFILE_PHOTOS, {"photo_ids": unique})
        ctx.conn.execute(_DROP_PHOTOS, {"photo_ids": unique})
    else:
        ctx.conn.execute(_TRASH_PHOTOS, {"match_photo_ids": unique, "deleted_at": ctx.ts(), "updated_at": ctx.ts()})
    return {"deleted": unique, "permanent": permanent}


Channel = Literal["sms", "chat", "mail", "link"]
# channel -> (id prefixes, pattern of a literal address, what a recipient may be)
RECIPIENT_FORMS: dict[str, tuple[tuple[str, ...], str | None, str]] = {
    "sms": (("contact_",), PHONE_PATTERN, "a contact id or a phone number"),
    "chat": (("contact_", "group_"), None, "a contact id or a group chat id"),
    "mail": (("contact_",), EMAIL_PATTERN, "a contact id or an email address"),
}


def _share_args(args: dict[str, Any]) -> str | None:
    """channel=link takes no recipients; every other channel needs them: for sms a contact id or a phone number,
    for chat a contact id or a group chat id, for mail a contact id or an email address."""
    channel, recipients = args["channel"], args.get("recipients") or []
    if channel == "link":
        return "a link share has no recipients" if recipients else None
    if not recipients:
        return f"recipients are required for channel {channel}"
    prefixes, pattern, allowed = RECIPIENT_FORMS[channel]
    for ref in recipients:
        if not ref.startswith(prefixes) and not (pattern and re.match(pattern, ref)):
            return f"recipient {ref!r} must be {allowed} for channel {channel}"
    return None


_GROUP_ID = select(groups.c.group_id).where(groups.c.group_id == bindparam("group_id"))
_CONTACT = select(contacts).where(contacts.c.contact_id == bindparam("contact_id"))
_CONTACT_ID_BY_EMAIL = select(contacts.c.contact_id).where(func.lower(contacts.c.email) == bindparam("email"))
_CONTACT_ID_BY_PHONE = select(contacts.c.contact_id).where(contacts.c.phone_number == bindparam("phone_number"))


def _recipient(ctx: Ctx, channel: str, ref: str) -> tuple[str, str | None]:
    """A recipient as (phone number, group id or email address; contact id)."""
    if ref.startswith("group_"):
        if ctx.conn.execute(_GROUP_ID, {"group_id": ref}).first() is None:
            raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no group chat {ref!r}", field="recipients")
        return ref, None
    if ref.startswith("contact_"):
        c = ctx.conn.execute(_CONTACT, {"contact_id": ref}).first()
        if c is None:
            raise ToolError(
                ErrorType.ENTITY_NOT_FOUND, f"no contact {ref!r}", field="recipients", hint="search_contacts"
            )
        if channel == "mail":
            if not c.email:
                raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"{c.name} has no email address", field="recipients")
            return c.email, ref
        return normalise_phone(c.phone_number), ref
    if channel == "mail":
        return ref, ctx.conn.execute(_CONTACT_ID_BY_EMAIL, {"email": ref.lower()}).scalar()
    number = normalise_phone(ref)
    return number, ctx.conn.execute(_CONTACT_ID_BY_PHONE, {"phone_number": number}).scalar()


_ADD_SHARE_LINK = insert(share_links)
_SEND_MESSAGE = insert(messages)


@tool(
    l2="2.6",
    app="gallery",
    mutating=True,
    permissions=("PHOTOS",),
    network="internet",
    check=_share_args,
    errors=(ErrorType.ENTITY_NOT_FOUND,),
)
def share_photos(
    ctx: Ctx,
    photo_ids: Annotated[list[Ref], Field(min_length=1, max_length=100)],
    channel: Channel,
    recipients: Annotated[list[Ref], Field(max_length=20)] | None = None,
    caption: Annotated[str, Field(min_length=1, max_length=500)] | None = None,
) -> dict[str, Any]:
    """Share photos as a gallery link, sent by SMS, chat or mail, or just created to copy.

    Args:
        photo_ids: Photos to share.
        channel: How to send the link; "link" only creates it.
        recipients: Who gets it (not for link): for sms a contact id or phone number; for chat a contact id or
            group chat id (group_901); for mail a contact id or email address.
        caption: Text sent with the link.
    """
    chosen = _live_photos(ctx, photo_ids)
    targets = [_recipient(ctx, channel, r) for r in dict.fromkeys(recipients or [])]
    link_id = ctx.new_id(share_links)
    url = SHARE_URL + link_id
    ctx.conn.execute(
        _ADD_SHARE_LINK,
        {
            "link_id": link_id,
            "item_type": "photos",
            "item_ids_json": json.dumps(chosen),
            "url": url,
            "channel": channel,
            "recipients_json": json.dumps([t for t, _ in targets]),
            "caption": caption,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    sent = []
    if channel in ("sms", "chat"):
        body = f"{caption}\n{url}" if caption else url
        for counterpart, cid in targets:
            mid = ctx.new_id(messages)
            ctx.conn.execute(
                _SEND_MESSAGE,
                {
                    "message_id": mid,
                    "channel": channel,
                    "direction": "out",
                    "counterpart": counterpart,
                    "contact_id": cid,
                    "body": body,
                    "is_read": 1,
                    "status": "sent",
                    "sent_at": ctx.ts(),
                    "created_at": ctx.ts(),
                    "updated_at": ctx.ts(),
                },
            )
            sent.append({"message_id": mid, "to": counterpart, "contact_id": cid})
    else:
        sent = [{"to": t, "contact_id": cid} for t, cid in targets]
    return {"link_id": link_id, "url": url, "channel": channel, "photo_ids": chosen, "sent": sent}


# ---- Camera & Recording (2.7) -----------------------------------------------------------------

_CAMERA_FRAME = select(meta.c.value).where(meta.c.key == "camera_frame")


def _camera_frame(ctx: Ctx) -> dict[str, Any]:
    """What the camera sees: the task's ``camera_frame`` fixture (a JSON object in meta), else nothing."""
    raw = ctx.conn.execute(_CAMERA_FRAME).scalar()
    return json.loads(raw) if raw else {}


_ADD_PHOTO = insert(photos)


def _capture(ctx: Ctx, media_type: str, size_mb: float, labels: list[str], duration_sec: int | None) -> dict[str, Any]:
    """Store a capture in the gallery, or LimitExceeded when the phone's free storage is too small."""
    free_gb = float(ctx.setting("storage_free_gb") or 0)
    if size_mb > free_gb * 1024:
        raise ToolError(
            ErrorType.LIMIT_EXCEEDED,
            f"not enough storage: {size_mb} MB needed, {free_gb} GB free",
            storage_free_gb=free_gb,
            hint="delete photos or free up space",
        )
    frame = _camera_frame(ctx)
    fields = frame.get("fields")
    row = {
        "photo_id": ctx.new_id(photos),
        "media_type": media_type,
        "taken_at": ctx.ts(),
        "place": frame.get("place"),
        "people_json": json.dumps(frame.get("people", [])),
        "labels_json": json.dumps(list(dict.fromkeys([*labels, *frame.get("labels", [])]))),
        "ocr_text": frame.get("ocr_text"),
        "fields_json": json.dumps(fields) if fields is not None else None,
        "size_mb": size_mb,
        "duration_sec": duration_sec,
        "source": "camera",
        "deleted_at": None,
        "created_at": ctx.ts(),
        "updated_at": ctx.ts(),
    }
    ctx.conn.execute(_ADD_PHOTO, row)
    return _photo_out(row)


@tool(l2="2.7", app="camera", mutating=True, permissions=("CAMERA",), errors=(ErrorType.LIMIT_EXCEEDED,))
def take_photo(
    ctx: Ctx,
    camera: Literal["rear", "front"] = "rear",
    mode: Literal["photo", "portrait", "night", "document"] = "photo",
    timer_sec: Literal[0, 3, 10] = 0,
    flash: Literal["auto", "on", "off"] = "auto",
) -> dict[str, Any]:
    """Take a photo with the phone camera and save it to the gallery.

    Args:
        camera: Which camera to use.
        mode: Camera mode; "document" is for paper, signs and receipts.
        timer_sec: Self-timer delay in seconds.
        flash: Flash setting.
    """
    size = round(PHOTO_MB[mode] * (0.6 if camera == "front" else 1.0), 1)
    labels = [m for m in (mode if mode != "photo" else "", "selfie" if camera == "front" else "") if m]
    photo = _capture(ctx, "photo", size, labels, None)
    return {**photo, "camera": camera, "mode": mode, "timer_sec": timer_sec, "flash": flash}


@tool(l2="2.7", app="camera", mutating=True, permissions=("CAMERA", "MICROPHONE"), errors=(ErrorType.LIMIT_EXCEEDED,))
def record_video(
    ctx: Ctx,
    duration_sec: Annotated[int, Field(ge=1, le=600)],
    camera: Literal["rear", "front"] = "rear",
    resolution: Literal["720p", "1080p", "4k"] = "1080p",
) -> dict[str, Any]:
    """Record a video clip with sound and save it to the gallery.

    Args:
        duration_sec: Length of the recording in seconds.
        camera: Which camera to use.
        resolution: Video resolution.
    """
    size = round(duration_sec * VIDEO_MB_PER_SEC[resolution], 1)
    video = _capture(ctx, "video", size, ["selfie"] if camera == "front" else [], duration_sec)
    return {**video, "camera": camera, "resolution": resolution}


# ---- Casting & Output Devices (2.8) -----------------------------------------------------------

_SET_DEVICE = update(devices).where(devices.c.device_id == bindparam("match_device_id"))


@tool(
    l2="2.8",
    app="cast",
    mutating=True,
    permissions=("NEARBY_DEVICES",),
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.AMBIGUOUS_ENTITY,
        ErrorType.SERVICE_DISABLED,
        ErrorType.STATE_CONFLICT,
        ErrorType.RESOURCE_UNAVAILABLE,
        ErrorType.UNSUPPORTED_OPERATION,
    ),
)
def cast_to_device(ctx: Ctx, device_id: Ref, player: Player = "music") -> dict[str, Any]:
    """Move what a player is playing to a TV, speaker, headphones, car or watch (connecting to it).

    Args:
        device_id: Device id (device_901) or name, e.g. "Living Room TV"; unknown names list the devices.
        player: Which player's playback to move.
    """
    device = _device(ctx, device_id)
    name, did = device["name"], device["device_id"]
    if device["connection"] == "bluetooth" and ctx.setting("bluetooth") != "1":
        raise ToolError(
            ErrorType.SERVICE_DISABLED,
            f"Bluetooth is off, needed for {name}",
            service="bluetooth",
            hint="set_bluetooth",
        )
    state = _player(ctx, player)
    if state is None or state["status"] == "stopped":
        raise ToolError(ErrorType.STATE_CONFLICT, f"nothing is playing on the {player} player")
    if state["output_device_id"] == did:
        raise ToolError(ErrorType.STATE_CONFLICT, f"the {player} player already plays on {name}")
    if not device["online"]:
        raise ToolError(ErrorType.RESOURCE_UNAVAILABLE, f"{name} is offline or out of range", device_id=did)
    if not device["paired"]:
        raise ToolError(
            ErrorType.UNSUPPORTED_OPERATION,
            f"{name} is not paired; pair it in its vendor app first",
            device_id=did,
            hint="call_gui_agent",
        )
    if not device["connected"]:
        ctx.conn.execute(_SET_DEVICE, {"match_device_id": did, "connected": 1, "updated_at": ctx.ts()})
    ctx.conn.execute(_SET_PLAYER_STATE, {"match_player": player, "output_device_id": did, "updated_at": ctx.ts()})
    return {
        "player": player,
        "status": state["status"],
        "now_playing": _now_playing(ctx, player, state["item_id"]),
        "output": _output_brief(ctx, did),
        "previous_output": _output_brief(ctx, state["output_device_id"]),
    }


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

