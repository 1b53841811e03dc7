"""The entertainment domain's tools: their argument types, helpers and bodies."""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import Field
from sqlalchemy import (
    ColumnElement,
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

from sandbox.domains.communication.schema import contacts, groups, messages
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
from sandbox.errors import ErrorType, ToolError, gui_agent_hint
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
from sandbox.schema import meta
from sandbox.tooling import EMAIL_PATTERN, PHONE_PATTERN, Date, tool

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


CAST_APP = "cast"  # casting's own app, where a TV or speaker is paired (no API for that)


@tool(
    l2="2.8",
    app=CAST_APP,
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
    if not device["paired"] and device["connection"] == "bluetooth":
        raise ToolError(
            ErrorType.UNSUPPORTED_OPERATION, f"{name} is not paired", device_id=did, hint="pair_bluetooth_device"
        )
    if not device["paired"]:
        raise ToolError(
            ErrorType.UNSUPPORTED_OPERATION,
            f"{name} is not paired; pair it in the {CAST_APP} app first",
            device_id=did,
            app_id=CAST_APP,
            hint=gui_agent_hint(CAST_APP),
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
