"""The apps_security domain's data model: its tables, and the constants and types its tools and seeder share."""

from __future__ import annotations

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Integer,
    Text,
)

from sandbox.schema import USER, WORLD, stamps, table

STORE, FILES, CLOUD, PASSWORDS, SECURITY = "app_store", "files", "cloud", "passwords", "security"
STORAGE_TOTAL_GB = 128.0  # the phone's capacity; free space is device_settings.storage_free_gb
BULK_DELETE = 10  # deleting more files than this at once needs confirmation

# ---- Tables -----------------------------------------------------------------------------------

world_store_apps = table(
    "world_store_apps",
    WORLD,
    Column("app_id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("developer", Text, nullable=False),
    Column("category", Text, nullable=False),
    Column("price", Float, nullable=False),  # 0 = free
    Column("size_mb", Float, nullable=False),
    Column("version", Text, nullable=False),  # the latest version
    Column("rating", Float, nullable=False),
    Column("description", Text, nullable=False),
)

app_installs = table(
    "app_installs",
    USER,
    Column("app_id", Text, ForeignKey("apps.app_id"), primary_key=True),
    Column("version", Text),  # NULL while not installed
    Column("is_system", Integer, nullable=False),  # preinstalled, cannot be uninstalled
    Column("app_mb", Float, nullable=False),
    Column("data_mb", Float, nullable=False),
    Column("cache_mb", Float, nullable=False),
    *stamps(),
    natural_key=("app_id",),
)

notification_channels = table(
    "notification_channels",
    USER,
    Column("app_id", Text, ForeignKey("apps.app_id"), primary_key=True),
    Column("channel", Text, primary_key=True),
    Column("enabled", Integer, nullable=False),
    *stamps(),
    natural_key=("app_id", "channel"),
)

folders = table(
    "folders",
    USER,
    Column("path", Text, primary_key=True),  # "/" is the storage root
    *stamps(),
    natural_key=("path",),
)

files = table(
    "files",
    USER,
    Column("file_id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("folder", Text, ForeignKey("folders.path"), nullable=False),
    Column("file_type", Text, nullable=False),  # doc | sheet | slides | pdf | image | video | audio | archive | other
    Column("size_mb", Float, nullable=False),
    Column("content", Text),  # the text of documents, for search
    Column("fields_json", Text),  # the document's labelled values (an invoice's number, issuer, total), for reading
    Column("app", Text, nullable=False),  # the app that saved it
    Column("modified_at", Text, nullable=False),
    Column("deleted_at", Text),  # set while the file is in the trash
    *stamps(),
    natural_key=("folder", "name"),
)

cloud_account = table(
    "cloud_account",
    USER,
    Column("cloud_id", Text, primary_key=True),
    Column("email", Text, nullable=False),
    Column("quota_gb", Float, nullable=False),
    Column("used_gb", Float, nullable=False),
    *stamps(),
    natural_key=("email",),
)

backups = table(
    "backups",
    USER,
    Column("backup_id", Text, primary_key=True),
    Column("categories_json", Text, nullable=False),
    Column("size_gb", Float, nullable=False),
    Column("status", Text, nullable=False),  # completed | failed
    Column("completed_at", Text, nullable=False),
    Column("restored_at", Text),
    *stamps(),
    natural_key=("completed_at",),
)

accounts = table(
    "accounts",
    USER,
    Column("account_id", Text, primary_key=True),
    Column("service", Text, nullable=False),
    Column("username", Text, nullable=False),
    Column("recovery_phone", Text),  # normalised digits
    Column("two_factor_method", Text),  # sms | authenticator | security_key; NULL = off
    *stamps(),
    natural_key=("service", "username"),
)

credentials = table(
    "credentials",
    USER,
    Column("credential_id", Text, primary_key=True),
    Column("site", Text, nullable=False),  # a bare domain, e.g. amazon.com
    Column("name", Text),  # the site's brand as people name it, e.g. "X (Twitter)" for x.com
    Column("username", Text, nullable=False),
    Column("password_hash", Text, nullable=False),  # the vault never stores or shows the password itself
    Column("strength", Text, nullable=False),  # weak | medium | strong
    Column("breached", Integer, nullable=False),  # seen in a known data breach
    Column("account_id", Text, ForeignKey("accounts.account_id")),
    Column("notes", Text),
    *stamps(),
    natural_key=("site", "username"),
    id_prefix="cred",
)

linked_devices = table(
    "linked_devices",
    USER,
    Column("device_id", Text, primary_key=True),
    Column("name", Text, nullable=False),
    Column("kind", Text, nullable=False),  # phone | tablet | laptop | watch | earbuds
    Column("online", Integer, nullable=False),
    Column("last_location", Text, nullable=False),
    Column("last_seen_at", Text, nullable=False),
    Column("locked", Integer, nullable=False),
    Column("lock_message", Text),
    Column("erased", Integer, nullable=False),
    Column("last_rung_at", Text),
    *stamps(),
    natural_key=("name",),
    id_prefix="ldevice",
)
