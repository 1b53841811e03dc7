"""D2 entertainment tools against the wang_lei world (now = 2025-06-13T09:00, a Friday).

Each tool has a success test asserting its payload and the state diff, and every declared ErrorType
has a case in ERROR_CASES: the call fails with exactly that error, changes nothing, and logs one row.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import insert, select, update

from sandbox.db import open_database, transaction
from sandbox.domains.communication.schema import contacts
from sandbox.domains.entertainment import tools as entertainment
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
    video_rentals,
    watch_history,
    watchlist,
    world_books,
    world_episodes,
    world_podcasts,
    world_tracks,
    world_videos,
)
from sandbox.domains.entertainment.seed import NOTED_BOOKS
from sandbox.errors import ErrorType
from sandbox.executor import Executor
from sandbox.schema import app_permissions, device_settings, meta
from sandbox.tooling import REGISTRY
from sandbox.world import build_world, world_image
from tests.sandbox.conftest import diff, fails, ok, prepare, query

NOW = "2025-06-13T09:00"
STEP1 = "2025-06-13T09:00:01"
D2_TOOLS = sorted(n for n, s in REGISTRY.items() if s.fn.__module__ == entertainment.__name__)


def scalar(ex: Executor, stmt: Any) -> Any:
    with transaction(ex.conn):
        return ex.conn.execute(stmt).scalar()


def setting(**values: str) -> list[Any]:
    return [update(device_settings).where(device_settings.c.key == k).values(value=v) for k, v in values.items()]


def changed(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The columns an update changed (stamps left out)."""
    return {k: after[k] for k in after if after[k] != before[k] and k not in ("updated_at", "created_at")}


def playlist_order(ex: Executor, playlist_id: str) -> list[str]:
    pt = playlist_tracks.c
    return [
        r["track_id"] for r in query(ex, select(pt.track_id).where(pt.playlist_id == playlist_id).order_by(pt.position))
    ]


# ids looked up in the world rather than hard-coded: "$name" in a case's arguments
LOOKUPS: dict[str, Any] = {
    "premium_track": select(world_tracks.c.track_id)
    .where(world_tracks.c.premium_only == 1)
    .order_by(world_tracks.c.track_id),
    "run_track": select(playlist_tracks.c.track_id)
    .where(playlist_tracks.c.playlist_id == "playlist_002")
    .order_by(playlist_tracks.c.position),
    "unrented": select(world_videos.c.video_id)
    .where(world_videos.c.access == "rent", world_videos.c.video_id.not_in(select(video_rentals.c.video_id)))
    .order_by(world_videos.c.video_id),
    "expired_rental": select(video_rentals.c.video_id).where(video_rentals.c.expires_at < NOW),
    "free_movie": select(world_videos.c.video_id)
    .where(world_videos.c.access == "free", world_videos.c.kind == "movie")
    .order_by(world_videos.c.video_id),
    "listed_video": select(watchlist.c.video_id).order_by(watchlist.c.video_id),
    "followed_show": select(podcast_subscriptions.c.show_id).order_by(podcast_subscriptions.c.show_id),
    "episode": select(world_episodes.c.episode_id).order_by(world_episodes.c.episode_id),
    "finished_book": select(bookshelf.c.book_id).where(bookshelf.c.shelf == "finished").order_by(bookshelf.c.book_id),
    "deleted_photo": select(photos.c.photo_id).where(photos.c.deleted_at.is_not(None)).order_by(photos.c.photo_id),
    "live_photo": select(photos.c.photo_id).where(photos.c.deleted_at.is_(None)).order_by(photos.c.photo_id.desc()),
    "favorite_photo": select(album_photos.c.photo_id)
    .where(album_photos.c.album_id == "photo_album_001")
    .order_by(album_photos.c.photo_id),
    "mailless_contact": select(contacts.c.contact_id).where(contacts.c.email.is_(None)).order_by(contacts.c.contact_id),
}


def resolve(ex: Executor, value: Any) -> Any:
    """Replace "$name" strings (also inside lists and dicts) with the world's id for that name."""
    if isinstance(value, str) and value.startswith("$"):
        found = scalar(ex, LOOKUPS[value[1:]])
        assert found is not None, value
        return found
    if isinstance(value, list):
        return [resolve(ex, v) for v in value]
    if isinstance(value, dict):
        return {k: resolve(ex, v) for k, v in value.items()}
    return value


# ---- the world --------------------------------------------------------------------------------


def test_world_is_deterministic_and_rich() -> None:
    assert build_world("wang_lei") == world_image("wang_lei")
    conn = open_database(world_image("wang_lei"))
    try:
        with transaction(conn):

            def count(tbl: Any, *where: Any) -> int:
                return len(conn.execute(select(tbl).where(*where)).all())

            assert count(world_tracks) >= 300 and count(world_videos) >= 60 and count(world_episodes) >= 150
            assert set(conn.execute(select(playlists.c.name)).scalars()) == {
                "Liked Songs",
                "Morning Run",
                "Focus Flow",
                "Dinner Party",
                "Road Trip",
            }
            kinds = dict(conn.execute(select(devices.c.kind, devices.c.connection)).all())
            assert set(kinds) == {"tv", "speaker", "headphones", "car", "watch"} and kinds["headphones"] == "bluetooth"
            assert 140 <= count(photos) <= 170
            assert {"photo", "video", "screenshot"} == set(conn.execute(select(photos.c.media_type)).scalars())
            assert count(photos, photos.c.deleted_at.is_not(None)) >= 3
            taken = conn.execute(select(photos.c.taken_at)).scalars().all()
            assert min(taken) < "2025-01-01" and max(taken) < NOW
            receipt = conn.execute(
                select(photos).where(photos.c.labels_json.contains('"receipt"'), photos.c.taken_at.like("2025-06-06%"))
            ).one()
            fields = json.loads(receipt.fields_json)
            assert fields["date"] == "2025-06-06" and fields["currency"] == "CNY"
            assert f"TOTAL CNY {fields['total']:.2f}" in receipt.ocr_text
            screenshot = conn.execute(select(photos).where(photos.c.labels_json.contains('"playlist"'))).one()
            for track in json.loads(screenshot.fields_json)["tracks"]:
                assert conn.execute(select(world_tracks).where(world_tracks.c.title == track["title"])).first()
            shelved = set(conn.execute(select(bookshelf.c.book_id)).scalars())
            noted = (
                conn.execute(select(world_books.c.book_id).where(world_books.c.title.in_(NOTED_BOOKS))).scalars().all()
            )
            assert len(noted) == 3 and not shelved & set(noted)
            music = conn.execute(select(playback_state).where(playback_state.c.player == "music")).one()
            assert (music.status, music.output_device_id) == ("paused", "device_003")
    finally:
        conn.close()


def test_other_world_differs() -> None:
    conn = open_database(world_image("maya_patel"))
    try:
        with transaction(conn):
            fields = [
                json.loads(f)
                for f in conn.execute(
                    select(photos.c.fields_json).where(photos.c.labels_json.contains('"receipt"'))
                ).scalars()
            ]
        assert {f["currency"] for f in fields} == {"USD"}
    finally:
        conn.close()


def test_declarations() -> None:
    assert (
        sorted(
            [
                "search_music",
                "play_music",
                "control_playback",
                "create_playlist",
                "add_tracks_to_playlist",
                "remove_tracks_from_playlist",
                "search_videos",
                "play_video",
                "add_to_watchlist",
                "search_podcasts",
                "subscribe_podcast",
                "play_podcast_episode",
                "search_ebooks",
                "add_book_to_shelf",
                "search_photos",
                "create_photo_album",
                "add_photos_to_album",
                "delete_photos",
                "share_photos",
                "take_photo",
                "record_video",
                "cast_to_device",
            ]
        )
        == D2_TOOLS
    )
    assert {n for n in D2_TOOLS if not REGISTRY[n].mutating} == {
        "search_music",
        "search_videos",
        "search_podcasts",
        "search_ebooks",
        "search_photos",
    }
    assert all(REGISTRY[n].domain == "D2" for n in D2_TOOLS)
    assert {REGISTRY[n].app for n in D2_TOOLS} == {"music", "video", "podcasts", "ebooks", "gallery", "camera", "cast"}
    assert all(REGISTRY[n].permissions == ("PHOTOS",) for n in D2_TOOLS if REGISTRY[n].app == "gallery")
    assert REGISTRY["record_video"].permissions == ("CAMERA", "MICROPHONE")
    assert REGISTRY["cast_to_device"].permissions == ("NEARBY_DEVICES",)


# ---- 2.1 Music Playback -----------------------------------------------------------------------


def test_search_music(ex: Executor) -> None:
    title = scalar(ex, select(world_tracks.c.title).where(world_tracks.c.track_id == "track_010"))
    out = ok(ex, "search_music", {"query": title.lower(), "limit": 50})
    assert out["results"][0]["title"] == title and out["music_plan"] == "free"
    assert {"track_id", "artist", "album", "premium_only"} <= set(out["results"][0])
    lists = ok(ex, "search_music", {"query": "run", "type": "playlist"})["results"]
    assert [(p["playlist_id"], p["name"], p["tracks"]) for p in lists] == [("playlist_002", "Morning Run", 18)]
    assert ok(ex, "search_music", {"query": "lin", "type": "artist"})["count"] == 2
    assert all(a["tracks"] > 0 for a in ok(ex, "search_music", {"query": "jazz", "type": "album"})["results"])
    assert diff(ex) == {}


def test_search_music_needs_the_network(ex: Executor) -> None:
    prepare(ex.conn, *setting(wifi="0", mobile_data="0"))
    fails(ex, "search_music", {"query": "golden"}, ErrorType.NETWORK_UNAVAILABLE)


def test_play_music_playlist_keeps_the_headphones(ex: Executor) -> None:
    queue = playlist_order(ex, "playlist_003")
    premium = {
        r["track_id"] for r in query(ex, select(world_tracks.c.track_id).where(world_tracks.c.premium_only == 1))
    }
    out = ok(ex, "play_music", {"item_id": "playlist_003", "repeat": "all"})
    playable = [t for t in queue if t not in premium]
    assert out["skipped_premium_only"] == [t for t in queue if t in premium]
    assert out["now_playing"]["track_id"] == playable[0] and out["queue_length"] == len(playable)
    assert out["output"] == {"device_id": "device_003", "name": "Sony WH-1000XM4", "kind": "headphones"}
    d = diff(ex)
    assert set(d) == {"playback_state", "play_history"}
    [upd] = d["playback_state"]["updated"]
    assert changed(upd["before"], upd["after"]) == {
        "item_id": playable[0],
        "context_id": "playlist_003",
        "queue_json": json.dumps(playable),
        "queue_pos": 0,
        "status": "playing",
        "position_sec": 0,
        "repeat": "all",
    }
    [hist] = d["play_history"]["inserted"]
    assert (hist["player"], hist["item_id"], hist["played_at"]) == ("music", playable[0], STEP1)


def test_play_music_shuffle_is_a_fixed_order(ex: Executor) -> None:
    first = ok(ex, "play_music", {"item_id": "album_001", "shuffle": True})
    queue = json.loads(
        query(ex, select(playback_state.c.queue_json).where(playback_state.c.player == "music"))[0]["queue_json"]
    )
    album = [
        r["track_id"]
        for r in query(
            ex,
            select(world_tracks.c.track_id, world_tracks.c.premium_only)
            .where(world_tracks.c.album_id == "album_001")
            .order_by(world_tracks.c.track_no),
        )
        if not r["premium_only"]
    ]
    assert sorted(queue) == sorted(album) and first["shuffle"] is True
    assert ok(ex, "play_music", {"item_id": "album_001", "shuffle": True})["now_playing"] == first["now_playing"]


def test_play_music_on_the_phone_when_bluetooth_is_off(ex: Executor) -> None:
    prepare(ex.conn, *setting(bluetooth="0"))
    out = ok(ex, "play_music", {"item_id": "artist_001"})
    assert out["output"]["kind"] == "phone" and out["context_id"] == "artist_001"


def test_play_music_premium_track_with_premium_plan(ex: Executor) -> None:
    prepare(
        ex.conn,
        update(media_subscriptions).where(media_subscriptions.c.service == "music").values(plan="premium"),
    )
    track = resolve(ex, "$premium_track")
    out = ok(ex, "play_music", {"item_id": track})
    assert out["now_playing"]["track_id"] == track and out["skipped_premium_only"] == []
    [upd] = diff(ex)["playback_state"]["updated"]
    assert upd["after"]["context_id"] is None


def test_control_playback_resume_pause_seek_stop(ex: Executor) -> None:
    out = ok(ex, "control_playback", {"action": "resume"})
    assert (out["status"], out["position_sec"], out["queue_position"]) == ("playing", 87, 4)
    [upd] = diff(ex)["playback_state"]["updated"]
    assert changed(upd["before"], upd["after"]) == {"status": "playing"}
    ok(ex, "control_playback", {"action": "seek", "position_sec": 30})
    ok(ex, "control_playback", {"action": "pause"})
    out = ok(ex, "control_playback", {"action": "stop"})
    assert (out["status"], out["position_sec"]) == ("stopped", 0)
    assert "play_history" not in diff(ex)


def test_control_playback_next_and_previous(ex: Executor) -> None:
    queue = json.loads(query(ex, select(playback_state.c.queue_json))[0]["queue_json"])
    out = ok(ex, "control_playback", {"action": "next"})
    assert out["now_playing"]["track_id"] == queue[4] and out["status"] == "playing"
    [upd] = diff(ex)["playback_state"]["updated"]
    assert changed(upd["before"], upd["after"]) == {
        "item_id": queue[4],
        "queue_pos": 4,
        "position_sec": 0,
        "status": "playing",
    }
    assert [h["item_id"] for h in diff(ex)["play_history"]["inserted"]] == [queue[4]]
    assert ok(ex, "control_playback", {"action": "previous"})["now_playing"]["track_id"] == queue[3]


def test_control_playback_next_wraps_with_repeat_all(ex: Executor) -> None:
    prepare(ex.conn, update(playback_state).values(queue_pos=16, repeat="all"))
    queue = json.loads(query(ex, select(playback_state.c.queue_json))[0]["queue_json"])
    assert ok(ex, "control_playback", {"action": "next"})["queue_position"] == 1
    assert diff(ex)["playback_state"]["updated"][0]["after"]["item_id"] == queue[0]


def test_control_playback_like_adds_to_liked_songs(ex: Executor) -> None:
    current = scalar(ex, select(playback_state.c.item_id))
    liked = playlist_order(ex, "playlist_001")
    ok(ex, "control_playback", {"action": "like"})
    [row] = diff(ex)["playlist_tracks"]["inserted"]
    assert (row["playlist_id"], row["track_id"], row["position"]) == ("playlist_001", current, len(liked) + 1)
    assert "playback_state" not in diff(ex)
    fails(ex, "control_playback", {"action": "like"}, ErrorType.STATE_CONFLICT)


def test_control_playback_argument_rules(ex: Executor) -> None:
    fails(ex, "control_playback", {"action": "seek"}, ErrorType.INVALID_ARGUMENT_VALUE)
    fails(ex, "control_playback", {"action": "pause", "position_sec": 3}, ErrorType.INVALID_ARGUMENT_VALUE)
    fails(ex, "control_playback", {"action": "like", "player": "video"}, ErrorType.INVALID_ARGUMENT_VALUE)


# ---- 2.2 Playlists & Library ------------------------------------------------------------------


def test_create_playlist(ex: Executor) -> None:
    out = ok(
        ex,
        "create_playlist",
        {"name": "Rainy Sunday", "description": "Slow songs", "track_ids": ["track_005", "track_002", "track_005"]},
    )
    assert out == {
        "playlist_id": "playlist_006",
        "name": "Rainy Sunday",
        "is_public": False,
        "track_ids": ["track_005", "track_002"],
    }
    d = diff(ex)
    [pl] = d["playlists"]["inserted"]
    assert (pl["name"], pl["description"], pl["is_public"], pl["created_at"]) == (
        "Rainy Sunday",
        "Slow songs",
        0,
        STEP1,
    )
    assert [(r["track_id"], r["position"]) for r in d["playlist_tracks"]["inserted"]] == [
        ("track_002", 2),
        ("track_005", 1),
    ]


def test_add_tracks_to_playlist_inserts_and_shifts(ex: Executor) -> None:
    before = playlist_order(ex, "playlist_004")
    out = ok(
        ex,
        "add_tracks_to_playlist",
        {"playlist_id": "playlist_004", "track_ids": ["track_001", before[2]], "position": 2},
    )
    assert out == {
        "playlist_id": "playlist_004",
        "added": ["track_001"],
        "skipped_already_present": [before[2]],
        "track_count": len(before) + 1,
    }
    assert playlist_order(ex, "playlist_004") == [before[0], "track_001", *before[1:]]
    d = diff(ex)["playlist_tracks"]
    assert len(d["inserted"]) == 1 and len(d["updated"]) == len(before) - 1


def test_add_tracks_to_playlist_appends_by_default(ex: Executor) -> None:
    before = playlist_order(ex, "playlist_004")
    ok(ex, "add_tracks_to_playlist", {"playlist_id": "playlist_004", "track_ids": ["track_001"]})
    d = diff(ex)
    assert [(r["track_id"], r["position"]) for r in d["playlist_tracks"]["inserted"]] == [
        ("track_001", len(before) + 1)
    ]
    assert d["playlist_tracks"]["updated"] == [] and len(d["playlists"]["updated"]) == 1


def test_remove_tracks_from_playlist(ex: Executor) -> None:
    before = playlist_order(ex, "playlist_004")
    out = ok(ex, "remove_tracks_from_playlist", {"playlist_id": "playlist_004", "track_ids": [before[0]]})
    assert out == {"playlist_id": "playlist_004", "removed": [before[0]], "track_count": len(before) - 1}
    d = diff(ex)["playlist_tracks"]
    assert [r["track_id"] for r in d["deleted"]] == [before[0]]
    assert playlist_order(ex, "playlist_004") == before[1:]
    assert sorted(u["after"]["position"] for u in d["updated"]) == list(range(1, len(before)))


# ---- 2.3 Video Streaming ----------------------------------------------------------------------


def test_search_videos(ex: Executor) -> None:
    out = ok(ex, "search_videos", {"query": "harbor"})
    assert {v["title"] for v in out["videos"]} == {"Harbor Nights", "The Glass Harbor", "The Heist at Harbor Bank"}
    assert all(v["kind"] != "episode" for v in out["videos"])
    short = ok(ex, "search_videos", {"query": "fitness", "kind": "clip", "max_duration_min": 10})["videos"]
    assert [v["title"] for v in short] == ["Desk Stretches for Office Workers"]
    japanese = ok(ex, "search_videos", {"query": "drama", "language": "ja"})["videos"]
    assert {v["language"] for v in japanese} == {"ja-JP"}
    rented = ok(ex, "search_videos", {"query": "orbit"})["videos"][0]
    assert (rented["access"], rented["rented"]) == ("rent", True)
    assert diff(ex) == {}


def test_search_videos_finds_an_episode_by_its_series_and_number(ex: Executor) -> None:
    """A user names an episode by its series ("Startup Island, episode 3"), not by its own title."""
    episodes = ok(ex, "search_videos", {"query": "Startup Island", "kind": "episode"})["videos"]
    assert [v["episode_no"] for v in episodes] == [1, 2, 3, 4, 5, 6]
    assert {v["series_title"] for v in episodes} == {"Startup Island"}
    third = ok(ex, "search_videos", {"query": "startup island episode 3", "kind": "episode"})["videos"]
    assert [(v["series_title"], v["episode_no"]) for v in third] == [("Startup Island", 3)]
    series = ok(ex, "search_videos", {"query": "Startup Island"})["videos"]
    assert [(v["kind"], v["series_title"]) for v in series] == [("series", None)]
    assert diff(ex) == {}


def test_play_video_series_resumes_at_the_first_unwatched_episode(ex: Executor) -> None:
    series = scalar(ex, select(world_videos.c.video_id).where(world_videos.c.title == "Harbor Nights"))
    episodes = [
        r["video_id"]
        for r in query(
            ex,
            select(world_videos.c.video_id)
            .where(world_videos.c.series_id == series)
            .order_by(world_videos.c.episode_no),
        )
    ]
    seen = {r["video_id"] for r in query(ex, select(watch_history.c.video_id))}
    nxt = next(e for e in episodes if e not in seen)
    out = ok(ex, "play_video", {"video_id": series, "subtitles": "ko"})
    assert out["now_playing"]["video_id"] == nxt and out["subtitles"] == "ko-KR"
    assert out["output"]["kind"] == "phone"
    d = diff(ex)
    [state] = d["playback_state"]["inserted"]
    assert (state["player"], state["item_id"], state["context_id"], state["status"], state["subtitles"]) == (
        "video",
        nxt,
        series,
        "playing",
        "ko-KR",
    )
    assert json.loads(state["queue_json"]) == episodes
    assert [(h["video_id"], h["watched_at"]) for h in d["watch_history"]["inserted"]] == [(nxt, STEP1)]


def test_play_video_rented_movie_on_a_connected_tv(ex: Executor) -> None:
    prepare(ex.conn, update(devices).where(devices.c.device_id == "device_001").values(connected=1))
    out = ok(ex, "play_video", {"video_id": "video_003", "start_sec": 600, "output_device_id": "living room"})
    assert out["output"]["device_id"] == "device_001" and out["position_sec"] == 600
    [state] = diff(ex)["playback_state"]["inserted"]
    assert (state["output_device_id"], state["context_id"]) == ("device_001", None)


def test_play_video_subscription_needs_the_plan(ex: Executor) -> None:
    prepare(
        ex.conn,
        update(media_subscriptions).where(media_subscriptions.c.service == "video").values(plan="free"),
    )
    fails(ex, "play_video", {"video_id": "video_001"}, ErrorType.RESOURCE_UNAVAILABLE)
    ok(ex, "play_video", {"video_id": resolve(ex, "$free_movie")})


def test_play_video_missing_subtitles(ex: Executor) -> None:
    payload = fails(ex, "play_video", {"video_id": "video_001", "subtitles": "zh-CN"}, ErrorType.RESOURCE_UNAVAILABLE)
    assert payload["available"] == ["en-US"]


def test_add_to_watchlist(ex: Executor) -> None:
    out = ok(ex, "add_to_watchlist", {"video_id": "video_002"})
    assert out == {"video_id": "video_002", "title": "Midnight in Chengdu", "in_watchlist": True}
    assert [r["video_id"] for r in diff(ex)["watchlist"]["inserted"]] == ["video_002"]


# ---- 2.4 Podcasts & Audiobooks ----------------------------------------------------------------


def test_search_podcasts(ex: Executor) -> None:
    shows = ok(ex, "search_podcasts", {"query": "news"})["results"]
    assert {s["title"] for s in shows} == {"China Business Brief", "World News Roundup"}
    followed = {r["show_id"] for r in query(ex, select(podcast_subscriptions.c.show_id))}
    assert all(s["followed"] == (s["show_id"] in followed) for s in shows)
    books = ok(ex, "search_podcasts", {"query": "sherlock", "kind": "audiobook"})["results"]
    assert [b["title"] for b in books] == ["The Adventures of Sherlock Holmes"] and books[0]["episodes"] == 12
    episodes = ok(ex, "search_podcasts", {"query": "chapter", "kind": "episode", "limit": 3})["results"]
    assert len(episodes) == 3 and all(e["title"].startswith("Chapter") for e in episodes)
    assert ok(ex, "search_podcasts", {"query": "poetry"})["count"] == 0
    assert diff(ex) == {}


def test_subscribe_podcast(ex: Executor) -> None:
    show = scalar(
        ex,
        select(world_podcasts.c.show_id)
        .where(world_podcasts.c.show_id.not_in(select(podcast_subscriptions.c.show_id)))
        .order_by(world_podcasts.c.show_id),
    )
    out = ok(ex, "subscribe_podcast", {"show_id": show, "auto_download": False})
    assert out["show_id"] == show and out["auto_download"] is False
    [row] = diff(ex)["podcast_subscriptions"]["inserted"]
    assert (row["show_id"], row["auto_download"]) == (show, 0)


def test_play_podcast_episode(ex: Executor) -> None:
    episode = query(ex, select(world_episodes).order_by(world_episodes.c.episode_id))[1]
    out = ok(
        ex,
        "play_podcast_episode",
        {"episode_id": episode["episode_id"], "speed": 1.5, "start_sec": 60, "sleep_timer_min": 30},
    )
    assert out["now_playing"]["episode_id"] == episode["episode_id"] and out["speed"] == 1.5
    d = diff(ex)
    [state] = d["playback_state"]["inserted"]
    assert (
        state["player"],
        state["context_id"],
        state["speed"],
        state["sleep_timer_min"],
        state["position_sec"],
        state["queue_pos"],
    ) == ("podcast", episode["show_id"], 1.5, 30, 60, 1)
    [hist] = d["play_history"]["inserted"]
    assert (hist["player"], hist["item_id"]) == ("podcast", episode["episode_id"])
    assert ok(ex, "control_playback", {"action": "pause", "player": "podcast"})["status"] == "paused"


# ---- 2.5 Reading & E-books --------------------------------------------------------------------


def test_search_ebooks(ex: Executor) -> None:
    out = ok(ex, "search_ebooks", {"query": "fiction", "author": "murakami"})
    assert {b["title"] for b in out["books"]} == {
        "Norwegian Wood",
        "Kafka on the Shore",
        "The City and Its Uncertain Walls",
    }
    mine = ok(ex, "search_ebooks", {"query": " ", "in_library_only": True, "limit": 50})["books"]
    assert len(mine) == 12 and all(b["shelf"] for b in mine)
    assert diff(ex) == {}


def test_add_book_to_shelf(ex: Executor) -> None:
    hail_mary = scalar(ex, select(world_books.c.book_id).where(world_books.c.title == "Project Hail Mary"))
    out = ok(ex, "add_book_to_shelf", {"book_id": hail_mary, "shelf": "want_to_read"})
    assert out == {
        "book_id": hail_mary,
        "title": "Project Hail Mary",
        "shelf": "want_to_read",
        "progress_pct": 0,
        "previous_shelf": None,
    }
    out = ok(ex, "add_book_to_shelf", {"book_id": hail_mary, "shelf": "reading", "progress_pct": 12})
    assert out["previous_shelf"] == "want_to_read"
    [row] = diff(ex)["bookshelf"]["inserted"]
    assert (row["shelf"], row["progress_pct"]) == ("reading", 12)
    assert ok(ex, "add_book_to_shelf", {"book_id": hail_mary, "shelf": "finished"})["progress_pct"] == 100


def test_add_book_to_shelf_progress_rules(ex: Executor) -> None:
    fails(
        ex,
        "add_book_to_shelf",
        {"book_id": "book_001", "shelf": "finished", "progress_pct": 50},
        ErrorType.INVALID_ARGUMENT_VALUE,
    )
    fails(
        ex,
        "add_book_to_shelf",
        {"book_id": "book_001", "shelf": "want_to_read", "progress_pct": 5},
        ErrorType.INVALID_ARGUMENT_VALUE,
    )


# ---- 2.6 Photos & Albums ----------------------------------------------------------------------


def test_search_photos_finds_last_fridays_receipt(ex: Executor) -> None:
    out = ok(ex, "search_photos", {"query": "receipt", "date_from": "2025-06-06", "date_to": "2025-06-06"})
    [photo] = out["photos"]
    assert photo["labels"] == ["receipt", "document"] and photo["has_text"] is True
    assert photo["taken_at"] == "2025-06-06T12:41:00" and photo["place"] == "Noodle House, Beijing"
    assert "ocr_text" not in photo and "fields_json" not in photo
    assert diff(ex) == {}


def test_search_photos_filters(ex: Executor) -> None:
    trip = ok(ex, "search_photos", {"album_id": "photo_album_004", "limit": 100})
    city = scalar(ex, select(albums.c.name).where(albums.c.album_id == "photo_album_004")).removesuffix(" trip")
    assert trip["count"] == trip["total_matches"] == 16 and all(p["place"].endswith(city) for p in trip["photos"])
    lily = ok(ex, "search_photos", {"person": "lily", "limit": 100})["photos"]
    assert lily and all("Lily Chen" in p["people"] for p in lily)
    shots = ok(ex, "search_photos", {"media_type": "screenshot", "limit": 5})
    assert shots["count"] == 5 and shots["total_matches"] > 5
    assert [p["taken_at"] for p in shots["photos"]] == sorted((p["taken_at"] for p in shots["photos"]), reverse=True)
    everything = ok(ex, "search_photos", {"date_from": "2024-01-01", "limit": 100})
    assert resolve(ex, "$deleted_photo") not in {p["photo_id"] for p in everything["photos"]}
    assert everything["total_matches"] == len(query(ex, select(photos.c.photo_id).where(photos.c.deleted_at.is_(None))))


def test_search_photos_needs_a_filter_and_the_permission(ex: Executor) -> None:
    fails(ex, "search_photos", {"limit": 5}, ErrorType.INVALID_ARGUMENT_VALUE)
    fails(ex, "search_photos", {"date_from": "2025-06-10", "date_to": "2025-06-01"}, ErrorType.INVALID_ARGUMENT_VALUE)
    prepare(ex.conn, update(app_permissions).where(app_permissions.c.app_id == "gallery").values(state="not_requested"))
    fails(ex, "search_photos", {"query": "receipt"}, ErrorType.PERMISSION_DENIED)


def test_create_photo_album(ex: Executor) -> None:
    photo = resolve(ex, "$live_photo")
    out = ok(ex, "create_photo_album", {"name": "Weekend", "photo_ids": [photo, photo], "shared": True})
    assert out == {"album_id": "photo_album_006", "name": "Weekend", "shared": True, "photo_ids": [photo]}
    d = diff(ex)
    [album] = d["albums"]["inserted"]
    assert (album["album_id"], album["name"], album["shared"]) == ("photo_album_006", "Weekend", 1)
    assert [(r["album_id"], r["photo_id"]) for r in d["album_photos"]["inserted"]] == [("photo_album_006", photo)]


def test_add_photos_to_album(ex: Executor) -> None:
    inside, outside = resolve(ex, "$favorite_photo"), resolve(ex, "$live_photo")
    out = ok(ex, "add_photos_to_album", {"album_id": "photo_album_001", "photo_ids": [outside, inside]})
    assert out == {"album_id": "photo_album_001", "added": [outside], "skipped_already_present": [inside]}
    assert [(r["album_id"], r["photo_id"]) for r in diff(ex)["album_photos"]["inserted"]] == [
        ("photo_album_001", outside)
    ]


def test_albums_are_named_by_id_or_name(ex: Executor) -> None:
    """Nothing lists the gallery's albums, so a user's album name works, and an unknown one lists them."""
    outside = resolve(ex, "$live_photo")
    out = ok(ex, "add_photos_to_album", {"album_id": "favorites", "photo_ids": [outside]})
    assert (out["album_id"], out["added"]) == ("photo_album_001", [outside])
    by_name = ok(ex, "search_photos", {"album_id": "Favorites", "limit": 100})
    assert by_name == ok(ex, "search_photos", {"album_id": "photo_album_001", "limit": 100})
    error = fails(ex, "search_photos", {"album_id": "Holidays 1999"}, ErrorType.ENTITY_NOT_FOUND)
    assert {"album_id": "photo_album_001", "name": "Favorites"} in error["albums"]


def test_delete_photos_to_recently_deleted(ex: Executor) -> None:
    photo = resolve(ex, "$favorite_photo")
    assert ok(ex, "delete_photos", {"photo_ids": [photo]}) == {"deleted": [photo], "permanent": False}
    d = diff(ex)
    assert set(d) == {"photos"}
    [upd] = d["photos"]["updated"]
    assert changed(upd["before"], upd["after"]) == {"deleted_at": STEP1}
    assert ok(ex, "search_photos", {"album_id": "photo_album_001", "limit": 100})["count"] == 14


def test_delete_photos_permanently_with_confirmation(ex: Executor) -> None:
    kept, trashed = resolve(ex, "$favorite_photo"), resolve(ex, "$deleted_photo")
    out = ok(ex, "delete_photos", {"photo_ids": [kept, trashed], "permanent": True, "confirm": True})
    assert out == {"deleted": [kept, trashed], "permanent": True}
    d = diff(ex)
    assert sorted(r["photo_id"] for r in d["photos"]["deleted"]) == sorted([kept, trashed])
    assert [(r["album_id"], r["photo_id"]) for r in d["album_photos"]["deleted"]] == [("photo_album_001", kept)]


def test_delete_many_photos_needs_confirmation(ex: Executor) -> None:
    many = [
        r["photo_id"]
        for r in query(
            ex, select(photos.c.photo_id).where(photos.c.deleted_at.is_(None)).order_by(photos.c.photo_id).limit(21)
        )
    ]
    payload = fails(ex, "delete_photos", {"photo_ids": many}, ErrorType.CONFIRMATION_REQUIRED)
    assert payload["count"] == 21
    assert len(ok(ex, "delete_photos", {"photo_ids": many, "confirm": True})["deleted"]) == 21


def test_share_photos_by_sms(ex: Executor) -> None:
    photo = resolve(ex, "$live_photo")
    lily = query(ex, select(contacts).where(contacts.c.contact_id == "contact_001"))[0]
    out = ok(
        ex,
        "share_photos",
        {
            "photo_ids": [photo],
            "channel": "sms",
            "caption": "Look at this!",
            "recipients": ["contact_001", "+86 139-0000-1234"],
        },
    )
    url = "https://gallery.example.com/s/link_002"
    assert (out["link_id"], out["url"]) == ("link_002", url)
    d = diff(ex)
    [link] = d["share_links"]["inserted"]
    assert (link["item_type"], json.loads(link["item_ids_json"]), link["channel"], link["caption"]) == (
        "photos",
        [photo],
        "sms",
        "Look at this!",
    )
    assert json.loads(link["recipients_json"]) == [lily["phone_number"], "+8613900001234"]
    sent = d["messages"]["inserted"]
    assert [(m["channel"], m["direction"], m["counterpart"], m["contact_id"], m["status"]) for m in sent] == [
        ("sms", "out", lily["phone_number"], "contact_001", "sent"),
        ("sms", "out", "+8613900001234", None, "sent"),
    ]
    assert all(m["body"] == f"Look at this!\n{url}" and m["sent_at"] == STEP1 for m in sent)


def test_share_photos_by_chat_mail_and_link(ex: Executor) -> None:
    photo = resolve(ex, "$live_photo")
    ok(ex, "share_photos", {"photo_ids": [photo], "channel": "chat", "recipients": ["group_001"]})
    [msg] = diff(ex)["messages"]["inserted"]
    assert (msg["channel"], msg["counterpart"], msg["contact_id"]) == ("chat", "group_001", None)
    email = scalar(ex, select(contacts.c.email).where(contacts.c.email.is_not(None)).order_by(contacts.c.contact_id))
    out = ok(ex, "share_photos", {"photo_ids": [photo], "channel": "mail", "recipients": [email]})
    assert out["sent"][0]["to"] == email
    assert ok(ex, "share_photos", {"photo_ids": [photo], "channel": "link"})["sent"] == []
    d = diff(ex)
    assert len(d["messages"]["inserted"]) == 1
    assert [r["channel"] for r in d["share_links"]["inserted"]] == ["chat", "mail", "link"]


def test_share_photos_recipient_rules(ex: Executor) -> None:
    photo = resolve(ex, "$live_photo")
    fails(ex, "share_photos", {"photo_ids": [photo], "channel": "sms"}, ErrorType.INVALID_ARGUMENT_VALUE)
    fails(
        ex,
        "share_photos",
        {"photo_ids": [photo], "channel": "link", "recipients": ["contact_001"]},
        ErrorType.INVALID_ARGUMENT_VALUE,
    )
    fails(
        ex,
        "share_photos",
        {"photo_ids": [photo], "channel": "mail", "recipients": ["+86 139 0000 1234"]},
        ErrorType.INVALID_ARGUMENT_VALUE,
    )
    fails(
        ex,
        "share_photos",
        {"photo_ids": [photo], "channel": "chat", "recipients": ["group_999"]},
        ErrorType.ENTITY_NOT_FOUND,
    )
    mailless = resolve(ex, "$mailless_contact")
    fails(
        ex,
        "share_photos",
        {"photo_ids": [photo], "channel": "mail", "recipients": [mailless]},
        ErrorType.ENTITY_NOT_FOUND,
    )


# ---- 2.7 Camera & Recording -------------------------------------------------------------------


def test_take_photo_captures_the_camera_frame(ex: Executor) -> None:
    frame = {
        "labels": ["sign", "parking"],
        "ocr_text": "NO PARKING 8AM-6PM",
        "fields": {"hours": "08:00-18:00"},
        "place": "Station Road, Beijing",
    }
    prepare(ex.conn, insert(meta).values(key="camera_frame", value=json.dumps(frame)))
    last = scalar(ex, select(photos.c.photo_id).order_by(photos.c.photo_id.desc()))
    out = ok(ex, "take_photo", {"mode": "document"})
    assert (out["photo_id"], out["labels"], out["has_text"], out["size_mb"]) == (
        f"photo_{int(last[6:]) + 1:03d}",
        ["document", "sign", "parking"],
        True,
        1.8,
    )
    [row] = diff(ex)["photos"]["inserted"]
    assert (
        row["media_type"],
        row["source"],
        row["taken_at"],
        row["ocr_text"],
        json.loads(row["fields_json"]),
        row["place"],
    ) == ("photo", "camera", STEP1, "NO PARKING 8AM-6PM", {"hours": "08:00-18:00"}, "Station Road, Beijing")


def test_take_photo_selfie_without_a_frame(ex: Executor) -> None:
    out = ok(ex, "take_photo", {"camera": "front", "timer_sec": 3})
    assert (out["labels"], out["size_mb"], out["has_text"], out["timer_sec"]) == (["selfie"], 2.0, False, 3)


def test_take_photo_needs_the_camera_permission(ex: Executor) -> None:
    prepare(ex.conn, update(app_permissions).where(app_permissions.c.app_id == "camera").values(state="denied"))
    fails(ex, "take_photo", {}, ErrorType.PERMISSION_DENIED)


def test_record_video(ex: Executor) -> None:
    out = ok(ex, "record_video", {"duration_sec": 20, "resolution": "4k"})
    assert (out["media_type"], out["duration_sec"], out["size_mb"]) == ("video", 20, 120.0)
    [row] = diff(ex)["photos"]["inserted"]
    assert (row["media_type"], row["duration_sec"], row["source"]) == ("video", 20, "camera")


# ---- 2.8 Casting & Output Devices -------------------------------------------------------------


def test_cast_to_device(ex: Executor) -> None:
    out = ok(ex, "cast_to_device", {"device_id": "kitchen speaker"})
    assert out["output"] == {"device_id": "device_002", "name": "Kitchen Speaker", "kind": "speaker"}
    assert out["previous_output"]["device_id"] == "device_003" and out["status"] == "paused"
    d = diff(ex)
    [dev] = d["devices"]["updated"]
    assert changed(dev["before"], dev["after"]) == {"connected": 1}
    [state] = d["playback_state"]["updated"]
    assert changed(state["before"], state["after"]) == {"output_device_id": "device_002"}
    assert ok(ex, "play_music", {"item_id": "album_002"})["output"]["device_id"] == "device_002"


def test_cast_video_to_the_tv(ex: Executor) -> None:
    ok(ex, "play_video", {"video_id": resolve(ex, "$free_movie")})
    ok(ex, "cast_to_device", {"device_id": "device_001", "player": "video"})
    assert diff(ex)["playback_state"]["inserted"][0]["output_device_id"] == "device_001"


def test_cast_unknown_device_lists_the_devices(ex: Executor) -> None:
    payload = fails(ex, "cast_to_device", {"device_id": "Toaster"}, ErrorType.ENTITY_NOT_FOUND)
    assert [c["device_id"] for c in payload["candidates"]] == [f"device_{i:03d}" for i in range(1, 7)]
    payload = fails(ex, "cast_to_device", {"device_id": "tv"}, ErrorType.AMBIGUOUS_ENTITY)
    assert [c["name"] for c in payload["candidates"]] == ["Living Room TV", "Bedroom TV"]


def test_an_unpaired_device_names_where_it_pairs(ex: Executor) -> None:
    payload = fails(ex, "cast_to_device", {"device_id": "Bedroom TV"}, ErrorType.UNSUPPORTED_OPERATION)
    assert payload["app_id"] == "cast" and payload["hint"] == "call_gui_agent(app_id='cast')"
    prepare(ex.conn, update(devices).where(devices.c.name == "Smart Watch").values(paired=0))
    payload = fails(ex, "cast_to_device", {"device_id": "Smart Watch"}, ErrorType.UNSUPPORTED_OPERATION)
    assert payload["hint"] == "pair_bluetooth_device"


# ---- declared errors ----------------------------------------------------------------------------

Prep = Callable[[], list[Any]]
NO_PREP: Prep = list

# (tool, arguments, statements run before the call, expected error)
ERROR_CASES: list[tuple[str, dict[str, Any], Prep, ErrorType]] = [
    ("play_music", {"item_id": "track_999"}, NO_PREP, ErrorType.ENTITY_NOT_FOUND),
    ("play_music", {"item_id": "album_001", "output_device_id": "TV"}, NO_PREP, ErrorType.AMBIGUOUS_ENTITY),
    ("play_music", {"item_id": "album_001", "output_device_id": "Kitchen Speaker"}, NO_PREP, ErrorType.STATE_CONFLICT),
    (
        "play_music",
        {"item_id": "playlist_001"},
        lambda: [playlist_tracks.delete().where(playlist_tracks.c.playlist_id == "playlist_001")],
        ErrorType.STATE_CONFLICT,
    ),
    ("play_music", {"item_id": "$premium_track"}, NO_PREP, ErrorType.RESOURCE_UNAVAILABLE),
    ("control_playback", {"action": "pause", "player": "video"}, NO_PREP, ErrorType.STATE_CONFLICT),
    ("control_playback", {"action": "pause"}, NO_PREP, ErrorType.STATE_CONFLICT),
    (
        "control_playback",
        {"action": "resume"},
        lambda: [update(playback_state).values(status="stopped")],
        ErrorType.STATE_CONFLICT,
    ),
    (
        "control_playback",
        {"action": "next"},
        lambda: [update(playback_state).values(queue_pos=16)],
        ErrorType.STATE_CONFLICT,
    ),
    ("control_playback", {"action": "seek", "position_sec": 86000}, NO_PREP, ErrorType.INVALID_ARGUMENT_VALUE),
    ("create_playlist", {"name": "New", "track_ids": ["track_001", "track_999"]}, NO_PREP, ErrorType.ENTITY_NOT_FOUND),
    ("create_playlist", {"name": "morning RUN"}, NO_PREP, ErrorType.DUPLICATE_ENTITY),
    (
        "add_tracks_to_playlist",
        {"playlist_id": "playlist_999", "track_ids": ["track_001"]},
        NO_PREP,
        ErrorType.ENTITY_NOT_FOUND,
    ),
    (
        "add_tracks_to_playlist",
        {"playlist_id": "playlist_002", "track_ids": ["track_999"]},
        NO_PREP,
        ErrorType.ENTITY_NOT_FOUND,
    ),
    (
        "add_tracks_to_playlist",
        {"playlist_id": "playlist_002", "track_ids": ["$run_track"]},
        NO_PREP,
        ErrorType.DUPLICATE_ENTITY,
    ),
    (
        "remove_tracks_from_playlist",
        {"playlist_id": "playlist_002", "track_ids": ["$run_track", "track_999"]},
        NO_PREP,
        ErrorType.ENTITY_NOT_FOUND,
    ),
    ("play_video", {"video_id": "video_999"}, NO_PREP, ErrorType.ENTITY_NOT_FOUND),
    ("play_video", {"video_id": "$free_movie", "output_device_id": "TV"}, NO_PREP, ErrorType.AMBIGUOUS_ENTITY),
    ("play_video", {"video_id": "$free_movie", "start_sec": 86000}, NO_PREP, ErrorType.INVALID_ARGUMENT_VALUE),
    (
        "play_video",
        {"video_id": "$free_movie", "output_device_id": "Living Room TV"},
        NO_PREP,
        ErrorType.STATE_CONFLICT,
    ),
    ("play_video", {"video_id": "$unrented"}, NO_PREP, ErrorType.RESOURCE_UNAVAILABLE),
    ("play_video", {"video_id": "$expired_rental"}, NO_PREP, ErrorType.RESOURCE_UNAVAILABLE),
    ("add_to_watchlist", {"video_id": "video_999"}, NO_PREP, ErrorType.ENTITY_NOT_FOUND),
    ("add_to_watchlist", {"video_id": "$listed_video"}, NO_PREP, ErrorType.DUPLICATE_ENTITY),
    ("subscribe_podcast", {"show_id": "show_999"}, NO_PREP, ErrorType.ENTITY_NOT_FOUND),
    ("subscribe_podcast", {"show_id": "$followed_show"}, NO_PREP, ErrorType.DUPLICATE_ENTITY),
    ("play_podcast_episode", {"episode_id": "episode_999"}, NO_PREP, ErrorType.ENTITY_NOT_FOUND),
    ("play_podcast_episode", {"episode_id": "$episode", "start_sec": 86000}, NO_PREP, ErrorType.INVALID_ARGUMENT_VALUE),
    ("add_book_to_shelf", {"book_id": "book_999", "shelf": "reading"}, NO_PREP, ErrorType.ENTITY_NOT_FOUND),
    ("add_book_to_shelf", {"book_id": "$finished_book", "shelf": "finished"}, NO_PREP, ErrorType.STATE_CONFLICT),
    ("search_photos", {"album_id": "photo_album_999"}, NO_PREP, ErrorType.ENTITY_NOT_FOUND),
    ("create_photo_album", {"name": "New", "photo_ids": ["$deleted_photo"]}, NO_PREP, ErrorType.ENTITY_NOT_FOUND),
    ("create_photo_album", {"name": "FAVORITES"}, NO_PREP, ErrorType.DUPLICATE_ENTITY),
    (
        "add_photos_to_album",
        {"album_id": "photo_album_999", "photo_ids": ["$live_photo"]},
        NO_PREP,
        ErrorType.ENTITY_NOT_FOUND,
    ),
    (
        "add_photos_to_album",
        {"album_id": "photo_album_001", "photo_ids": ["photo_999"]},
        NO_PREP,
        ErrorType.ENTITY_NOT_FOUND,
    ),
    (
        "add_photos_to_album",
        {"album_id": "photo_album_001", "photo_ids": ["$favorite_photo"]},
        NO_PREP,
        ErrorType.DUPLICATE_ENTITY,
    ),
    ("delete_photos", {"photo_ids": ["$live_photo", "photo_999"]}, NO_PREP, ErrorType.ENTITY_NOT_FOUND),
    ("delete_photos", {"photo_ids": ["$deleted_photo"]}, NO_PREP, ErrorType.STATE_CONFLICT),
    ("delete_photos", {"photo_ids": ["$live_photo"], "permanent": True}, NO_PREP, ErrorType.CONFIRMATION_REQUIRED),
    ("share_photos", {"photo_ids": ["$deleted_photo"], "channel": "link"}, NO_PREP, ErrorType.ENTITY_NOT_FOUND),
    (
        "share_photos",
        {"photo_ids": ["$live_photo"], "channel": "sms", "recipients": ["contact_999"]},
        NO_PREP,
        ErrorType.ENTITY_NOT_FOUND,
    ),
    ("take_photo", {}, lambda: setting(storage_free_gb="0.001"), ErrorType.LIMIT_EXCEEDED),
    ("record_video", {"duration_sec": 60}, lambda: setting(storage_free_gb="0.1"), ErrorType.LIMIT_EXCEEDED),
    ("cast_to_device", {"device_id": "Toaster"}, NO_PREP, ErrorType.ENTITY_NOT_FOUND),
    ("cast_to_device", {"device_id": "TV"}, NO_PREP, ErrorType.AMBIGUOUS_ENTITY),
    ("cast_to_device", {"device_id": "Smart Watch"}, lambda: setting(bluetooth="0"), ErrorType.SERVICE_DISABLED),
    ("cast_to_device", {"device_id": "Kitchen Speaker", "player": "podcast"}, NO_PREP, ErrorType.STATE_CONFLICT),
    ("cast_to_device", {"device_id": "device_003"}, NO_PREP, ErrorType.STATE_CONFLICT),
    ("cast_to_device", {"device_id": "My Car"}, NO_PREP, ErrorType.RESOURCE_UNAVAILABLE),
    ("cast_to_device", {"device_id": "Bedroom TV"}, NO_PREP, ErrorType.UNSUPPORTED_OPERATION),
]


@pytest.mark.parametrize(
    ("name", "args", "prep", "error"), ERROR_CASES, ids=[f"{c[0]}-{c[3].value}-{i}" for i, c in enumerate(ERROR_CASES)]
)
def test_declared_error_changes_nothing(
    ex: Executor,
    name: str,
    args: dict[str, Any],
    prep: Prep,
    error: ErrorType,
) -> None:
    prepare(ex.conn, *prep())
    payload = fails(ex, name, resolve(ex, args), error)
    assert payload["message"]


def test_every_declared_error_is_tested() -> None:
    declared = {(n, e) for n in D2_TOOLS for e in REGISTRY[n].errors}
    assert {(c[0], c[3]) for c in ERROR_CASES} == declared


def test_failed_play_keeps_the_history(ex: Executor) -> None:
    before = scalar(ex, select(play_history.c.history_id).order_by(play_history.c.history_id.desc()))
    fails(ex, "play_music", {"item_id": resolve(ex, "$premium_track")}, ErrorType.RESOURCE_UNAVAILABLE)
    assert scalar(ex, select(play_history.c.history_id).order_by(play_history.c.history_id.desc())) == before
