"""D2 Entertainment & Media: music and playlists, video, podcasts, e-books, the gallery, the camera, casting.

Playback is one ``playback_state`` row per player (music, video, podcast): what plays, where it
plays, and the queue it came from, so skipping and casting act on that row. Photos carry the
text a screen reader would see (``ocr_text``, ``fields_json``); gallery searches match labels,
places and people but never return that text, so reading a receipt still takes the
screen-reader sub-agent. Every share creates a ``share_links`` row; SMS and chat shares also
send the link as a message in the communication module's ``messages`` table.

Its modules register in this order: ``schema``, ``tools``, ``seed``."""

# isort: skip_file

from sandbox.domains.entertainment import schema  # noqa: F401
from sandbox.domains.entertainment import tools  # noqa: F401
from sandbox.domains.entertainment import seed  # noqa: F401
