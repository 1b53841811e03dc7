"""The entertainment domain's tables and the fixed facts its tools and seeder share."""

from __future__ import annotations

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Integer,
    Text,
)

from sandbox.schema import USER, WORLD, stamps, table

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
