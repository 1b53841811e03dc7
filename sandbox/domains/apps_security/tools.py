"""The apps_security domain's tools: their argument types, helpers and bodies."""

from __future__ import annotations

import functools
import hashlib
import json
import posixpath
import re
import string
from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field
from sqlalchemy import (
    BindParameter,
    ColumnElement,
    Connection,
    Select,
    Table,
    and_,
    bindparam,
    case,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)

from sandbox.domains.apps_security.schema import (
    BULK_DELETE,
    CLOUD,
    FILES,
    PASSWORDS,
    SECURITY,
    STORAGE_TOTAL_GB,
    STORE,
    accounts,
    app_installs,
    backups,
    cloud_account,
    credentials,
    files,
    folders,
    linked_devices,
    notification_channels,
    world_store_apps,
)
from sandbox.domains.common import charge, payment_method, transactions
from sandbox.domains.communication.schema import contacts, messages
from sandbox.domains.productivity.schema import calendar_events
from sandbox.domains.settings.schema import APP as SETTINGS
from sandbox.errors import ErrorType, ToolError
from sandbox.executor import LIKE_ESCAPE, Ctx, like_escaped, normalise_phone, row_by_key, rows, word_values, words_match
from sandbox.schema import app_permissions, apps, device_settings
from sandbox.tooling import PERMISSIONS, Date, Phone, tool

# ---- Argument types ---------------------------------------------------------------------------

# Top-level names of the phone's operating system: a path starting with one is outside the user's storage.
SYSTEM_ROOTS = frozenset(
    {
        "acct",
        "apex",
        "bin",
        "boot",
        "cache",
        "config",
        "data",
        "dev",
        "etc",
        "lib",
        "lib64",
        "mnt",
        "odm",
        "opt",
        "proc",
        "product",
        "root",
        "sbin",
        "sdcard",
        "storage",
        "sys",
        "system",
        "tmp",
        "usr",
        "var",
        "vendor",
    }
)
STORAGE_ALIASES = ("/storage/emulated/0", "/sdcard", "~")  # other spellings of the storage root
MAX_DEPTH = 8


def _storage_path(value: str) -> str:
    """A folder path inside the user's storage as ``/A/B``; escapes above ``/`` and system paths are refused.

    Relative paths start at the root. ``..`` is resolved, but never above the root: posixpath.normpath
    alone would silently clamp ``/../etc`` to ``/etc``, so escapes are counted first.
    """
    if any(ord(ch) < 32 or ch == "\\" for ch in value):
        raise ValueError("a path may not contain backslashes or control characters")
    path = value.strip()
    for alias in STORAGE_ALIASES:
        if path == alias or path.startswith(alias + "/"):
            path = path[len(alias) :]
            break
    depth = 0
    for part in path.split("/"):
        if part == "..":
            depth -= 1
            if depth < 0:
                raise ValueError(f"{value!r} climbs above the storage root '/'")
        elif part not in ("", "."):
            depth += 1
    norm = posixpath.normpath("/" + path.lstrip("/"))
    parts = [p for p in norm.split("/") if p]
    if parts and parts[0].lower() in SYSTEM_ROOTS:
        raise ValueError(f"{norm!r} is outside the user's storage")
    if len(parts) > MAX_DEPTH or any(len(p) > 100 for p in parts):
        raise ValueError(f"at most {MAX_DEPTH} folder levels of at most 100 characters each")
    return norm


def _file_name(value: str) -> str:
    """One path segment: a name cannot move a file anywhere by itself."""
    name = value.strip()
    if name in ("", ".", "..") or "/" in name or "\\" in name or any(ord(ch) < 32 for ch in name):
        raise ValueError("a file name is one path segment: no '/', '\\', control characters, '.' or '..'")
    return name


def _site(value: str) -> str:
    """The bare domain of a site or URL: ``https://www.Amazon.com/login`` -> ``amazon.com``."""
    host = re.sub(r"^[a-z][a-z0-9+.\-]*://", "", value.strip().lower())
    host = re.split(r"[/?#:]", host, maxsplit=1)[0].removeprefix("www.")
    if not re.fullmatch(r"([a-z0-9]([a-z0-9\-]*[a-z0-9])?\.)+[a-z]{2,}", host):
        raise ValueError(f"{value!r} is not a site such as example.com")
    return host


StoragePath = Annotated[str, Field(min_length=1, max_length=500), AfterValidator(_storage_path)]
FileName = Annotated[str, Field(min_length=1, max_length=120), AfterValidator(_file_name)]
Site = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(_site)]
Ref = Annotated[str, Field(min_length=1, max_length=80)]
Query = Annotated[str, Field(min_length=1, max_length=200)]
Permission = Literal[PERMISSIONS]  # type: ignore[valid-type]  # the 13 runtime permissions, declared in sandbox.tooling
FileType = Literal["doc", "sheet", "slides", "pdf", "image", "video", "audio", "archive", "other"]
BackupCategory = Literal["photos", "contacts", "messages", "files", "calendar", "app_data"]
Categories = Annotated[list[BackupCategory], Field(min_length=1, max_length=6)]
FileIds = Annotated[list[Ref], Field(min_length=1, max_length=200)]
Channels = Annotated[list[Annotated[str, Field(min_length=1, max_length=60)]], Field(min_length=1, max_length=20)]


def _exactly_one(a: str, b: str) -> Callable[[dict[str, Any]], str | None]:
    """A cross-field check: exactly one of two arguments is given (a false boolean counts as absent)."""

    def check(args: dict[str, Any]) -> str | None:
        return None if bool(args.get(a)) != bool(args.get(b)) else f"give exactly one of {a} or {b}"

    check.__doc__ = f"Give exactly one of {a} or {b}."
    return check


# ---- Shared helpers ---------------------------------------------------------------------------


def _get(ctx: Ctx, tbl: Table, value: str, hint: str) -> dict[str, Any]:
    """The row with this id, or EntityNotFound naming the tool that lists such ids."""
    key = next(iter(tbl.primary_key.columns)).name
    row = ctx.conn.execute(row_by_key(tbl), {"key": value}).first()
    if row is None:
        raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no {key.removesuffix('_id')} {value!r}", field=key, hint=hint)
    return dict(row._mapping)


_ALL_BY_ID = {tbl: select(tbl).order_by(*tbl.primary_key.columns) for tbl in (accounts, linked_devices)}


def _resolve(ctx: Ctx, tbl: Table, ref: str, show: tuple[str, ...], field: str) -> dict[str, Any]:
    """A row by its id ``show[0]``, else by its name column ``show[1]`` (exact, then partial, case-insensitive).

    No tool lists accounts or linked devices, so both errors name the candidates (with the ``show`` columns).
    """
    key, name_col = show[0], show[1]
    everything = rows(ctx.conn.execute(_ALL_BY_ID[tbl]))
    lowered = ref.strip().lower()
    for pick in (
        lambda r: r[key] == ref,
        lambda r: r[name_col].lower() == lowered,
        lambda r: lowered in r[name_col].lower(),
    ):
        found = [r for r in everything if pick(r)]
        if len(found) == 1:
            return found[0]
        if found:
            raise ToolError(
                ErrorType.AMBIGUOUS_ENTITY,
                f"{ref!r} matches {len(found)} entries",
                field=field,
                candidates=[{k: r[k] for k in show} for r in found],
            )
    raise ToolError(
        ErrorType.ENTITY_NOT_FOUND,
        f"nothing called {ref!r}",
        field=field,
        candidates=[{k: r[k] for k in show} for r in everything],
    )


def _free_gb(ctx: Ctx) -> float:
    return float(ctx.setting("storage_free_gb") or 0)


_SET_FREE_STORAGE = update(device_settings).where(device_settings.c.key == "storage_free_gb")


def _release_storage(ctx: Ctx, delta_mb: float) -> float:
    """Add ``delta_mb`` (negative: use) to the phone's free storage; returns the new free GB."""
    free = round(_free_gb(ctx) + delta_mb / 1024, 2)
    if abs(delta_mb) >= 0.005:
        ctx.conn.execute(_SET_FREE_STORAGE, {"value": str(free)})
    return free


# ---- Apps -------------------------------------------------------------------------------------

_APP_WITH_INSTALL = (
    select(
        apps,
        app_installs.c.version,
        app_installs.c.is_system,
        app_installs.c.app_mb,
        app_installs.c.data_mb,
        app_installs.c.cache_mb,
    )
    .join_from(apps, app_installs, apps.c.app_id == app_installs.c.app_id, isouter=True)
    .where(apps.c.app_id == bindparam("app_id"))
)


def _app(ctx: Ctx, app_id: str) -> dict[str, Any] | None:
    """The phone's row for an app (installed or not), with its install details."""
    row = ctx.conn.execute(_APP_WITH_INSTALL, {"app_id": app_id}).first()
    return dict(row._mapping) if row is not None else None


def _installed_app(ctx: Ctx, app_id: str) -> dict[str, Any]:
    app = _app(ctx, app_id)
    if app is None or app["installed"] != 1:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no installed app {app_id!r}",
            field="app_id",
            hint="get_storage_usage lists installed apps",
        )
    return app


def _store_app(ctx: Ctx, app_id: str) -> dict[str, Any]:
    return _get(ctx, world_store_apps, app_id, hint="search_app_store")


_APP_PURCHASE = select(transactions.c.txn_id).where(
    transactions.c.ref_id == bindparam("app_id"),
    transactions.c.category == "apps",
    transactions.c.status == "posted",
    transactions.c.amount < 0,
)


def _owned(ctx: Ctx, app_id: str) -> bool:
    """The user paid for this app before (a posted purchase still stands), so reinstalling is free."""
    return ctx.conn.execute(_APP_PURCHASE, {"app_id": app_id}).first() is not None


STORE_KEYS = ("app_id", "name", "developer", "category", "price", "size_mb", "version", "rating")


@functools.lru_cache(maxsize=256)
def _store_search(words: int, category: bool, free_only: bool, installed_only: bool) -> Select[Any]:
    """search_app_store's statement for one combination of filters, built once (its values are bound)."""
    s = world_store_apps.c
    q = select(world_store_apps).where(*words_match([s.name, s.developer, s.category, s.description], words))
    if category:
        q = q.where(func.lower(s.category) == bindparam("category"))
    if free_only:
        q = q.where(s.price == 0)
    if installed_only:
        q = q.where(s.app_id.in_(select(apps.c.app_id).where(apps.c.installed == 1)))
    return q.order_by(s.rating.desc(), s.app_id).limit(bindparam("limit"))


def _query_or_installed(args: dict[str, Any]) -> str | None:
    """Give query, or installed_only=true to list the installed apps (optionally by category)."""
    if not args.get("query") and not args.get("installed_only"):
        return "give query, or installed_only=true to list the installed apps"
    return None


@tool(l2="4.1", app=STORE, mutating=False, network="internet", check=_query_or_installed)
def search_app_store(
    ctx: Ctx,
    query: Query | None = None,
    category: str | None = None,
    free_only: bool = False,
    installed_only: bool = False,
    limit: Annotated[int, Field(ge=1, le=100)] = 10,
) -> dict[str, Any]:
    """Search the app store, or list the apps installed on this phone: each hit's app_id is the id that
    app tools and the GUI agent (call_gui_agent) take, and it says whether the app is installed and
    whether an update is available.

    Args:
        query: Words that must all appear in the app's name, developer, category or description.
        category: Only apps of this store category, e.g. "Games", "Productivity", "Travel".
        free_only: Only free apps.
        installed_only: Only apps installed on this phone (with no query: all of them, up to limit).
        limit: Maximum number of results, best rated first.
    """
    words = word_values(query or "")
    values: dict[str, Any] = {**words, "limit": limit}
    if category:
        values["category"] = category.strip().lower()
    found = rows(ctx.conn.execute(_store_search(len(words), bool(category), free_only, installed_only), values))
    out = []
    for r in found:
        mine = _app(ctx, r["app_id"]) or {}
        installed = mine.get("installed") == 1
        out.append(
            {
                **{k: r[k] for k in STORE_KEYS},
                "installed": installed,
                "installed_version": mine["version"] if installed else None,
                "update_available": installed and mine["version"] != r["version"],
            }
        )
    return {"apps": out, "count": len(out)}


_ADD_APP = insert(apps)
_SET_APP = update(apps).where(apps.c.app_id == bindparam("match_app_id"))
_ADD_INSTALL = insert(app_installs)
_SET_INSTALL = update(app_installs).where(app_installs.c.app_id == bindparam("match_app_id"))


@tool(
    l2="4.1",
    app=STORE,
    mutating=True,
    network="internet",
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.STATE_CONFLICT,
        ErrorType.LIMIT_EXCEEDED,
        ErrorType.CONFIRMATION_REQUIRED,
    ),
)
def install_app(ctx: Ctx, app_id: Ref, confirm: bool = False) -> dict[str, Any]:
    """Install an app from the store, or update it to the latest version; paid apps are charged to the default card.

    A new install starts signed out with no runtime permissions granted.

    Args:
        app_id: Store id of the app, from search_app_store.
        confirm: Set true only after the user confirmed buying a paid app.
    """
    store = _store_app(ctx, app_id)
    mine = _app(ctx, app_id) or {}
    installed = mine.get("installed") == 1
    if installed and mine["version"] == store["version"]:
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"{store['name']} {store['version']} is installed and up to date",
            app_id=app_id,
            version=store["version"],
        )
    need_mb = store["size_mb"] - ((mine["app_mb"] or 0.0) if installed else 0.0)
    free_mb = round(_free_gb(ctx) * 1024, 1)
    if need_mb > free_mb:
        raise ToolError(
            ErrorType.LIMIT_EXCEEDED,
            f"{store['name']} needs {need_mb:.0f} MB, {free_mb:.0f} MB free",
            needed_mb=need_mb,
            free_mb=free_mb,
            hint="get_storage_usage, then clear_app_cache",
        )
    price = 0.0 if installed or _owned(ctx, app_id) else store["price"]
    if price:
        method = payment_method(ctx, None)
        if price > method["balance"]:
            raise ToolError(
                ErrorType.LIMIT_EXCEEDED,
                f"{method['nickname']} has {method['balance']:.2f} available, {price:.2f} needed",
                method_id=method["method_id"],
            )
        if not confirm:
            raise ToolError(
                ErrorType.CONFIRMATION_REQUIRED,
                f"{store['name']} costs {price:.2f}",
                price=price,
                hint="ask_user(kind=confirm), then retry with confirm=true",
            )
    txn_id = charge(ctx, price, f"App Store: {store['name']}", "apps", app_id) if price else None
    if not mine:
        ctx.conn.execute(
            _ADD_APP,
            {"app_id": app_id, "name": store["name"], "installed": 1, "logged_in": 0, "notifications_enabled": 1},
        )
    elif not installed:
        ctx.conn.execute(_SET_APP, {"match_app_id": app_id, "installed": 1})
    values = {"version": store["version"], "app_mb": store["size_mb"], "updated_at": ctx.ts()}
    if mine.get("is_system") is not None:  # installed before: kept data and cache stay
        ctx.conn.execute(_SET_INSTALL, {"match_app_id": app_id, **values})
    else:
        ctx.conn.execute(
            _ADD_INSTALL,
            {"app_id": app_id, "is_system": 0, "data_mb": 0.0, "cache_mb": 0.0, "created_at": ctx.ts(), **values},
        )
    free = _release_storage(ctx, -need_mb)
    return {
        "app_id": app_id,
        "name": store["name"],
        "action": "updated" if installed else "installed",
        "version": store["version"],
        "previous_version": mine["version"] if installed else None,
        "charged": price,
        "txn_id": txn_id,
        "storage_free_gb": free,
    }


_STORE_APP_NAME = select(world_store_apps.c.name).where(world_store_apps.c.app_id == bindparam("app_id"))
# The user's standing policy blocks outlive the app; ordinary grants and denials do not.
_DROP_PERMISSIONS = delete(app_permissions).where(
    app_permissions.c.app_id == bindparam("app_id"), app_permissions.c.state != "policy_blocked"
)


@tool(
    l2="4.1",
    app=STORE,
    mutating=True,
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.PERMISSION_DENIED,
        ErrorType.STATE_CONFLICT,
        ErrorType.CONFIRMATION_REQUIRED,
    ),
)
def uninstall_app(ctx: Ctx, app_id: Ref, keep_data: bool = False, confirm: bool = False) -> dict[str, Any]:
    """Uninstall an app: it is signed out, loses its granted permissions and, unless keep_data, its data.

    Args:
        app_id: Id of the app, e.g. shortvid.
        keep_data: Keep the app's data on the phone for a later reinstall.
        confirm: Set true only after the user confirmed the uninstall.
    """
    app = _app(ctx, app_id)
    if app is None:
        store = ctx.conn.execute(_STORE_APP_NAME, {"app_id": app_id}).scalar()
        if store is None:
            raise ToolError(ErrorType.ENTITY_NOT_FOUND, f"no app {app_id!r}", field="app_id", hint="search_app_store")
        raise ToolError(ErrorType.STATE_CONFLICT, f"{store} is not installed", app_id=app_id)
    if app["is_system"]:
        raise ToolError(
            ErrorType.PERMISSION_DENIED,
            f"{app['name']} is a system app and cannot be uninstalled",
            app_id=app_id,
            reason="system_app",
        )
    if app["installed"] != 1:
        raise ToolError(ErrorType.STATE_CONFLICT, f"{app['name']} is not installed", app_id=app_id)
    if not confirm:
        raise ToolError(
            ErrorType.CONFIRMATION_REQUIRED,
            f"uninstalling {app['name']} needs the user's confirmation",
            app_id=app_id,
            hint="ask_user(kind=confirm), then retry with confirm=true",
        )
    data = app["data_mb"] or 0.0
    freed = (app["app_mb"] or 0.0) + (app["cache_mb"] or 0.0) + (0.0 if keep_data else data)
    ctx.conn.execute(_SET_APP, {"match_app_id": app_id, "installed": 0, "logged_in": 0})
    ctx.conn.execute(
        _SET_INSTALL,
        {
            "match_app_id": app_id,
            "version": None,
            "app_mb": 0.0,
            "cache_mb": 0.0,
            "data_mb": data if keep_data else 0.0,
            "updated_at": ctx.ts(),
        },
    )
    ctx.conn.execute(_DROP_PERMISSIONS, {"app_id": app_id})
    free = _release_storage(ctx, freed)
    return {
        "app_id": app_id,
        "name": app["name"],
        "uninstalled": True,
        "kept_data_mb": data if keep_data else 0.0,
        "freed_mb": round(freed, 1),
        "storage_free_gb": free,
    }


# ---- App Permissions (4.2) --------------------------------------------------------------------

_PERMISSION_STATE = select(app_permissions.c.state).where(
    app_permissions.c.app_id == bindparam("app_id"), app_permissions.c.permission == bindparam("permission")
)


def _permission_state(ctx: Ctx, app_id: str, permission: str) -> str:
    """A permission the app has no row for was never requested (the executor's gate reads it so)."""
    return ctx.conn.execute(_PERMISSION_STATE, {"app_id": app_id, "permission": permission}).scalar() or "not_requested"


_SET_PERMISSION = update(app_permissions).where(
    app_permissions.c.app_id == bindparam("match_app_id"), app_permissions.c.permission == bindparam("match_permission")
)
_ADD_PERMISSION = insert(app_permissions)


def _set_permission(ctx: Ctx, app_id: str, permission: str, state: str) -> None:
    """Update the row, or insert it for a permission never requested (no UPSERT: see the module docstring)."""
    done = ctx.conn.execute(
        _SET_PERMISSION, {"match_app_id": app_id, "match_permission": permission, "state": state}
    ).rowcount
    if not done:
        ctx.conn.execute(_ADD_PERMISSION, {"app_id": app_id, "permission": permission, "state": state})


_APP_PERMISSIONS = (
    select(app_permissions.c.permission, app_permissions.c.state)
    .where(app_permissions.c.app_id == bindparam("app_id"))
    .order_by(app_permissions.c.permission)
)
_PERMISSION_HOLDERS = (
    select(app_permissions.c.app_id, app_permissions.c.state)
    .join_from(app_permissions, apps, apps.c.app_id == app_permissions.c.app_id)
    .where(app_permissions.c.permission == bindparam("permission"), apps.c.installed == 1)
    .order_by(app_permissions.c.app_id)
)


@tool(
    l2="4.2",
    app=SETTINGS,
    mutating=False,
    check=_exactly_one("app_id", "permission"),
    errors=(ErrorType.ENTITY_NOT_FOUND,),
)
def get_app_permissions(ctx: Ctx, app_id: Ref | None = None, permission: Permission | None = None) -> dict[str, Any]:
    """List one app's runtime permission states, or every installed app's state for one permission.

    States: granted, denied, not_requested, policy_blocked; permissions an app never asked for are omitted.

    Args:
        app_id: Id of the app, e.g. contacts, messages, maps (give this or permission).
        permission: A permission, to see which apps hold or were refused it (give this or app_id).
    """
    if app_id is not None:
        _installed_app(ctx, app_id)
        found = ctx.conn.execute(_APP_PERMISSIONS, {"app_id": app_id}).all()
        return {"app_id": app_id, "permissions": dict(found)}
    found = ctx.conn.execute(_PERMISSION_HOLDERS, {"permission": permission}).all()
    return {"permission": permission, "apps": dict(found)}


@tool(
    l2="4.2",
    app=SETTINGS,
    mutating=True,
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.STATE_CONFLICT,
        ErrorType.CONFIRMATION_REQUIRED,
        ErrorType.PERMISSION_DENIED,
    ),
)
def grant_app_permission(ctx: Ctx, app_id: Ref, permission: Permission, confirm: bool = False) -> dict[str, Any]:
    """Grant a runtime permission to an app.

    Args:
        app_id: Id of the app, e.g. contacts, messages, maps.
        permission: The permission to grant.
        confirm: Set true only after the user confirmed granting a permission they denied before.
    """
    _installed_app(ctx, app_id)
    state = _permission_state(ctx, app_id, permission)
    if state == "granted":
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"{app_id} already has {permission} granted",
            app_id=app_id,
            permission=permission,
            current=state,
        )
    if state == "policy_blocked":
        raise ToolError(
            ErrorType.PERMISSION_DENIED,
            f"the user's policy forbids giving {app_id} {permission}",
            app_id=app_id,
            permission=permission,
            reason="policy",
        )
    if state == "denied" and not confirm:
        raise ToolError(
            ErrorType.CONFIRMATION_REQUIRED,
            f"the user denied {permission} to {app_id} before",
            app_id=app_id,
            permission=permission,
            hint="ask_user(kind=confirm), then retry with confirm=true",
        )
    _set_permission(ctx, app_id, permission, "granted")
    return {"app_id": app_id, "permission": permission, "state": "granted", "previous": state}


@tool(l2="4.2", app=SETTINGS, mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT))
def revoke_app_permission(ctx: Ctx, app_id: Ref, permission: Permission) -> dict[str, Any]:
    """Revoke a runtime permission from an app (it becomes denied: granting it again needs confirmation).

    Args:
        app_id: Id of the app, e.g. contacts, messages, maps.
        permission: The permission to revoke.
    """
    _installed_app(ctx, app_id)
    state = _permission_state(ctx, app_id, permission)
    if state != "granted":
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"{app_id} does not have {permission} granted",
            app_id=app_id,
            permission=permission,
            current=state,
        )
    _set_permission(ctx, app_id, permission, "denied")
    return {"app_id": app_id, "permission": permission, "state": "denied", "previous": state}


# ---- Notification Management (4.3) ------------------------------------------------------------

_CHANNELS = (
    select(notification_channels.c.channel, notification_channels.c.enabled)
    .where(notification_channels.c.app_id == bindparam("app_id"))
    .order_by(notification_channels.c.channel)
)
_SET_CHANNELS = update(notification_channels).where(
    notification_channels.c.app_id == bindparam("match_app_id"),
    notification_channels.c.channel.in_(bindparam("match_channels", expanding=True)),
)


@tool(l2="4.3", app=SETTINGS, mutating=True, errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT))
def set_app_notifications(ctx: Ctx, app_id: Ref, enabled: bool, channels: Channels | None = None) -> dict[str, Any]:
    """Turn an app's notifications on or off, or only some of its channels (e.g. just "Promotions").

    Turning a channel on also turns the app's notifications on.

    Args:
        app_id: Id of the app, e.g. chat, shop.
        enabled: True to allow the notifications, false to silence them.
        channels: Only these notification channels of the app (names as the app calls them, any case).
    """
    app = _installed_app(ctx, app_id)
    known = {ch.lower(): (ch, on) for ch, on in ctx.conn.execute(_CHANNELS, {"app_id": app_id}).all()}
    app_flag = int(enabled) if not channels or enabled else app["notifications_enabled"]
    changed: list[str] = []
    if channels:
        missing = sorted({c for c in channels if c.strip().lower() not in known})
        if missing:
            raise ToolError(
                ErrorType.ENTITY_NOT_FOUND,
                f"{app_id} has no notification channel(s) {', '.join(missing)}",
                field="channels",
                candidates=[ch for ch, _ in known.values()],
            )
        targets = sorted({known[c.strip().lower()][0] for c in channels})
        changed = [t for t in targets if known[t.lower()][1] != int(enabled)]
        if not changed and app_flag == app["notifications_enabled"]:
            raise ToolError(
                ErrorType.STATE_CONFLICT,
                f"channel(s) {', '.join(targets)} already {'on' if enabled else 'off'}",
                app_id=app_id,
            )
        ctx.conn.execute(
            _SET_CHANNELS,
            {"match_app_id": app_id, "match_channels": changed, "enabled": int(enabled), "updated_at": ctx.ts()},
        )
    elif app_flag == app["notifications_enabled"]:
        raise ToolError(
            ErrorType.STATE_CONFLICT, f"{app_id} notifications are already {'on' if enabled else 'off'}", app_id=app_id
        )
    if app_flag != app["notifications_enabled"]:
        ctx.conn.execute(_SET_APP, {"match_app_id": app_id, "notifications_enabled": app_flag})
    after = dict(ctx.conn.execute(_CHANNELS, {"app_id": app_id}).all())
    return {
        "app_id": app_id,
        "notifications_enabled": bool(app_flag),
        "changed_channels": changed,
        "channels": {ch: bool(on) for ch, on in sorted(after.items())},
    }


# ---- Files & Folders (4.4) --------------------------------------------------------------------

FILE_KEYS = ("file_id", "name", "folder", "file_type", "size_mb", "app", "modified_at")
SCANNER = "quickscan"
"""The scanner app: what it saves is an image of a page, with no text layer, so its text is neither
previewed nor searched by ``list_files``; the screen-reader agent reads it."""


_FOLDER_NAMED = select(folders.c.path).where(func.lower(folders.c.path) == bindparam("path")).order_by(folders.c.path)


def _find_folder(ctx: Ctx, path: str) -> str | None:
    """The stored spelling of an existing folder (paths match case-insensitively)."""
    return ctx.conn.execute(_FOLDER_NAMED, {"path": path.lower()}).scalar()


def _folder(ctx: Ctx, path: str, field: str) -> str:
    found = _find_folder(ctx, path)
    if found is None:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"no folder {path!r}",
            field=field,
            hint="list_files shows subfolders; create_folder makes one",
        )
    return found


def _under(column: Any, folder: Any, prefix: Any) -> Any:
    """Folder paths strictly inside ``folder``, whose ``_prefix`` is ``prefix`` (either may be a bound
    parameter: a statement built once)."""
    return and_(column.startswith(prefix, escape=LIKE_ESCAPE), column != folder)


def _prefix(folder: str) -> str:
    """What every path inside ``folder`` starts with, escaped for LIKE."""
    return like_escaped("/" if folder == "/" else folder + "/")


def _in_folder(folder: str) -> dict[str, str]:
    """The bound values of ``_under(..., bindparam("folder"), bindparam("folder_prefix"))``."""
    return {"folder": folder, "folder_prefix": _prefix(folder)}


@functools.lru_cache(maxsize=256)
def _file_search(
    in_trash: bool, recursive: bool, words: int, file_type: bool, min_size: bool, modified_after: bool
) -> tuple[Select[Any], Select[Any]]:
    """list_files' two statements (the count and the page) for one combination of filters, built once."""
    f = files.c
    folder: BindParameter[str] = bindparam("folder")
    where: list[ColumnElement[bool]] = [f.deleted_at.is_not(None) if in_trash else f.deleted_at.is_(None)]
    where.append(
        or_(f.folder == folder, _under(f.folder, folder, bindparam("folder_prefix")))
        if recursive
        else f.folder == folder
    )
    where += words_match([f.name, case((f.app == SCANNER, ""), else_=f.content)], words)
    if file_type:
        where.append(f.file_type == bindparam("file_type"))
    if min_size:
        where.append(f.size_mb >= bindparam("min_size_mb"))
    if modified_after:
        where.append(f.modified_at >= bindparam("modified_after"))
    return (
        select(func.count()).select_from(files).where(*where),
        select(files).where(*where).order_by(f.modified_at.desc(), f.file_id).limit(bindparam("limit")),
    )


_SUBFOLDERS = (
    select(folders.c.path)
    .where(_under(folders.c.path, bindparam("folder"), bindparam("folder_prefix")))
    .order_by(folders.c.path)
)


def _file_out(r: dict[str, Any]) -> dict[str, Any]:
    out = {k: r[k] for k in FILE_KEYS}
    out["path"] = posixpath.join(r["folder"], r["name"])
    if r["deleted_at"]:
        out["deleted_at"] = r["deleted_at"]
    if r["content"] and r["app"] != SCANNER:
        out["preview"] = r["content"][:80]
    return out


@tool(l2="4.4", app=FILES, mutating=False, permissions=("STORAGE",), errors=(ErrorType.ENTITY_NOT_FOUND,))
def list_files(
    ctx: Ctx,
    folder_path: StoragePath = "/",
    query: Query | None = None,
    file_type: FileType | None = None,
    min_size_mb: Annotated[float, Field(ge=0, le=1_000_000)] | None = None,
    modified_after: Date | None = None,
    recursive: bool = True,
    in_trash: bool = False,
    limit: Annotated[int, Field(ge=1, le=100)] = 50,
) -> dict[str, Any]:
    """List or search files in a folder (and its subfolders), newest first, plus the folder's direct subfolders.
    Scans (app quickscan) are images: their text is not previewed or searched (the screen-reader agent reads it).

    Args:
        folder_path: Folder to look in, e.g. "/Documents/Work" ("/" is the whole storage).
        query: Words that must all appear in the file name or text (a scan's name only).
        file_type: Only files of this type.
        min_size_mb: Only files at least this large, in MB.
        modified_after: Only files modified on or after this day, YYYY-MM-DD.
        recursive: Include files in subfolders.
        in_trash: List files in the trash (deleted, not yet permanently) instead.
        limit: Maximum number of files to return.
    """
    folder = _folder(ctx, folder_path, "folder_path")
    words = word_values(query or "")
    values: dict[str, Any] = {
        **words,
        **_in_folder(folder),
        "file_type": file_type,
        "min_size_mb": min_size_mb,
        "modified_after": modified_after or None,
    }
    values = {k: v for k, v in values.items() if v is not None}
    count, page = _file_search(
        in_trash, recursive, len(words), bool(file_type), min_size_mb is not None, bool(modified_after)
    )
    total = ctx.conn.execute(count, values).scalar() or 0
    found = rows(ctx.conn.execute(page, {**values, "limit": limit}))
    depth = folder.count("/") + (0 if folder == "/" else 1)
    subfolders = [p for p in ctx.conn.execute(_SUBFOLDERS, _in_folder(folder)).scalars() if p.count("/") == depth]
    return {"folder": folder, "subfolders": subfolders, "files": [_file_out(r) for r in found], "count": total}


_ADD_FOLDER = insert(folders)


@tool(
    l2="4.4",
    app=FILES,
    mutating=True,
    permissions=("STORAGE",),
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.DUPLICATE_ENTITY),
)
def create_folder(ctx: Ctx, path: StoragePath, create_parents: bool = False) -> dict[str, Any]:
    """Create a folder, e.g. "/Documents/Taxes/2025".

    Args:
        path: Full path of the new folder.
        create_parents: Also create missing parent folders (otherwise a missing parent is an error).
    """
    parts = [p for p in path.split("/") if p]
    chain, current, missing_from = [], "/", None
    for i, part in enumerate(parts):
        current = posixpath.join(current, part)
        existing = _find_folder(ctx, current) if missing_from is None else None
        if existing is None and missing_from is None:
            missing_from = i
        current = existing or current
        chain.append(current)
    if missing_from is None:
        existing = chain[-1] if chain else "/"
        raise ToolError(ErrorType.DUPLICATE_ENTITY, f"folder {existing!r} already exists", existing_id=existing)
    if missing_from < len(parts) - 1 and not create_parents:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"parent folder {chain[missing_from]!r} does not exist",
            field="path",
            hint="create it first, or pass create_parents=true",
        )
    created = chain[missing_from:]
    for p in created:
        ctx.conn.execute(_ADD_FOLDER, {"path": p, "created_at": ctx.ts(), "updated_at": ctx.ts()})
    return {"path": chain[-1], "created": created}


_LIVE_FILE_NAMED = select(files.c.file_id).where(
    files.c.folder == bindparam("folder"),
    func.lower(files.c.name) == bindparam("name"),
    files.c.deleted_at.is_(None),
    files.c.file_id != bindparam("exclude"),
)


def _live_file_named(ctx: Ctx, folder: str, name: str, exclude: str) -> str | None:
    return ctx.conn.execute(_LIVE_FILE_NAMED, {"folder": folder, "name": name.lower(), "exclude": exclude}).scalar()


_SET_FILE = update(files).where(files.c.file_id == bindparam("match_file_id"))


@tool(
    l2="4.4",
    app=FILES,
    mutating=True,
    permissions=("STORAGE",),
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT, ErrorType.DUPLICATE_ENTITY),
)
def move_file(
    ctx: Ctx,
    file_id: Ref,
    destination_path: StoragePath,
    new_name: FileName | None = None,
    overwrite: bool = False,
) -> dict[str, Any]:
    """Move and/or rename a file; moving a file that is in the trash restores it to the destination.

    Args:
        file_id: Id of the file, e.g. file_942 (from list_files).
        destination_path: Folder to move it to; give its current folder to only rename it.
        new_name: New file name including extension, e.g. "Invoice_INV-2025-0412.pdf".
        overwrite: Replace a file with the same name in the destination (that file goes to the trash).
    """
    f = _get(ctx, files, file_id, hint="list_files")
    dest = _folder(ctx, destination_path, "destination_path")
    name = new_name or f["name"]
    if f["deleted_at"] is None and dest == f["folder"] and name == f["name"]:
        raise ToolError(ErrorType.STATE_CONFLICT, f"{file_id} is already {posixpath.join(dest, name)!r}")
    clash = _live_file_named(ctx, dest, name, exclude=file_id)
    if clash and not overwrite:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY,
            f"{posixpath.join(dest, name)!r} already exists: {clash}",
            existing_id=clash,
            hint="choose new_name, or pass overwrite=true",
        )
    if clash:
        ctx.conn.execute(_SET_FILE, {"match_file_id": clash, "deleted_at": ctx.ts(), "updated_at": ctx.ts()})
    ctx.conn.execute(
        _SET_FILE, {"match_file_id": file_id, "folder": dest, "name": name, "deleted_at": None, "updated_at": ctx.ts()}
    )
    return {
        "file_id": file_id,
        "path": posixpath.join(dest, name),
        "previous_path": posixpath.join(f["folder"], f["name"]),
        "restored_from_trash": f["deleted_at"] is not None,
        "replaced_file_id": clash,
    }


_FILES_BY_ID = select(files).where(files.c.file_id.in_(bindparam("file_ids", expanding=True))).order_by(files.c.file_id)
_DROP_FILES = delete(files).where(files.c.file_id.in_(bindparam("file_ids", expanding=True)))
_SET_FILES = update(files).where(files.c.file_id.in_(bindparam("match_file_ids", expanding=True)))


@tool(
    l2="4.4",
    app=FILES,
    mutating=True,
    permissions=("STORAGE",),
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT, ErrorType.CONFIRMATION_REQUIRED),
)
def delete_files(ctx: Ctx, file_ids: FileIds, permanent: bool = False, confirm: bool = False) -> dict[str, Any]:
    """Move files to the trash, or delete them permanently (frees their space; trashed files can be deleted so too).

    Args:
        file_ids: Ids of the files, e.g. ["file_912", "file_913"].
        permanent: Delete for good instead of moving to the trash.
        confirm: Set true only after the user confirmed a permanent delete or a delete of more than 10 files.
    """
    ids = sorted(set(file_ids))
    found = rows(ctx.conn.execute(_FILES_BY_ID, {"file_ids": ids}))
    missing = sorted(set(ids) - {r["file_id"] for r in found})
    if missing:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND, f"no file(s) {', '.join(missing)}", missing=missing, hint="list_files"
        )
    trashed = [r["file_id"] for r in found if r["deleted_at"]]
    if trashed and not permanent:
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"already in the trash: {', '.join(trashed)}",
            file_ids=trashed,
            hint="pass permanent=true to delete them for good",
        )
    if (permanent or len(ids) > BULK_DELETE) and not confirm:
        what = "permanently deleting" if permanent else f"deleting {len(ids)} files"
        raise ToolError(
            ErrorType.CONFIRMATION_REQUIRED,
            f"{what} needs the user's confirmation",
            count=len(ids),
            hint="ask_user(kind=confirm), then retry with confirm=true",
        )
    freed = round(sum(r["size_mb"] for r in found), 2) if permanent else 0.0
    if permanent:
        ctx.conn.execute(_DROP_FILES, {"file_ids": ids})
    else:
        ctx.conn.execute(_SET_FILES, {"match_file_ids": ids, "deleted_at": ctx.ts(), "updated_at": ctx.ts()})
    free = _release_storage(ctx, freed)
    return {"deleted": ids, "permanent": permanent, "freed_mb": freed, "storage_free_gb": free}


# ---- Cloud Backup & Sync (4.5) ----------------------------------------------------------------

MEDIA_TYPES = ("image", "video")
ROW_MB = {"contacts": 0.004, "messages": 0.002, "calendar": 0.002}  # backup size of one contact, message, event


_LIVE_FILES_MB = select(func.coalesce(func.sum(files.c.size_mb), 0.0)).where(files.c.deleted_at.is_(None))
_PHOTOS_MB = _LIVE_FILES_MB.where(files.c.file_type.in_(MEDIA_TYPES))
_OTHER_FILES_MB = _LIVE_FILES_MB.where(files.c.file_type.not_in(MEDIA_TYPES))
_ROW_COUNTS = {tbl: select(func.count()).select_from(tbl) for tbl in (contacts, messages, calendar_events)}
_APP_DATA_MB = select(func.coalesce(func.sum(app_installs.c.data_mb), 0.0)).where(app_installs.c.version.is_not(None))


def _category_sizes(conn: Connection) -> dict[str, float]:
    """What a backup of each category weighs now, in MB."""

    def total(query: Any) -> float:
        return float(conn.execute(query).scalar() or 0.0)

    def count(tbl: Table) -> int:
        return int(conn.execute(_ROW_COUNTS[tbl]).scalar() or 0)

    data = conn.execute(_APP_DATA_MB).scalar() or 0.0
    return {
        "photos": total(_PHOTOS_MB),
        "files": total(_OTHER_FILES_MB),
        "contacts": count(contacts) * ROW_MB["contacts"],
        "messages": count(messages) * ROW_MB["messages"],
        "calendar": count(calendar_events) * ROW_MB["calendar"],
        "app_data": float(data),
    }


_CLOUD_ACCOUNT = select(cloud_account).order_by(cloud_account.c.cloud_id)


def _cloud(ctx: Ctx) -> dict[str, Any]:
    row = ctx.conn.execute(_CLOUD_ACCOUNT).first()
    if row is None:
        raise ToolError(
            ErrorType.AUTHENTICATION_REQUIRED,
            "no cloud account on this phone",
            app_id=CLOUD,
            hint="only the user can add a cloud account: tell them",
        )
    return dict(row._mapping)


_ADD_BACKUP = insert(backups)
_SET_CLOUD_ACCOUNT = update(cloud_account).where(cloud_account.c.cloud_id == bindparam("match_cloud_id"))


@tool(
    l2="4.5",
    app=CLOUD,
    mutating=True,
    network="internet",
    needs_login=True,
    errors=(ErrorType.NETWORK_UNAVAILABLE, ErrorType.AUTHENTICATION_REQUIRED, ErrorType.LIMIT_EXCEEDED),
)
def backup_data(ctx: Ctx, categories: Categories, wifi_only: bool = True) -> dict[str, Any]:
    """Back up data categories from the phone to the user's cloud account.

    Args:
        categories: What to back up: photos (pictures and videos), contacts, messages, files (other files),
            calendar, app_data.
        wifi_only: Only back up over Wi-Fi (set false to allow mobile data).
    """
    if wifi_only and ctx.setting("wifi") != "1":
        raise ToolError(
            ErrorType.NETWORK_UNAVAILABLE,
            "Wi-Fi is off and wifi_only is set",
            hint="set_wifi(enabled=true), or wifi_only=false after asking the user",
        )
    account = _cloud(ctx)
    cats = sorted(set(categories))
    sizes = _category_sizes(ctx.conn)
    size_gb = round(sum(sizes[c] for c in cats) / 1024, 3)
    left = round(account["quota_gb"] - account["used_gb"], 3)
    if size_gb > left:
        raise ToolError(
            ErrorType.LIMIT_EXCEEDED,
            f"the backup needs {size_gb} GB, the cloud has {left} GB left",
            needed_gb=size_gb,
            free_gb=left,
            hint="back up fewer categories",
        )
    bid = ctx.new_id(backups)
    ctx.conn.execute(
        _ADD_BACKUP,
        {
            "backup_id": bid,
            "categories_json": json.dumps(cats),
            "size_gb": size_gb,
            "status": "completed",
            "completed_at": ctx.ts(),
            "restored_at": None,
            "created_at": ctx.ts(),
            "updated_at": ctx.ts(),
        },
    )
    used = round(account["used_gb"] + size_gb, 3)
    ctx.conn.execute(
        _SET_CLOUD_ACCOUNT, {"match_cloud_id": account["cloud_id"], "used_gb": used, "updated_at": ctx.ts()}
    )
    return {
        "backup_id": bid,
        "categories": cats,
        "size_gb": size_gb,
        "status": "completed",
        "cloud_used_gb": used,
        "cloud_quota_gb": account["quota_gb"],
    }


_SET_BACKUP = update(backups).where(backups.c.backup_id == bindparam("match_backup_id"))


@tool(
    l2="4.5",
    app=CLOUD,
    mutating=True,
    network="internet",
    needs_login=True,
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT, ErrorType.CONFIRMATION_REQUIRED),
)
def restore_backup(ctx: Ctx, backup_id: Ref, categories: Categories, confirm: bool = False) -> dict[str, Any]:
    """Restore categories from a cloud backup, overwriting the phone's current data of those categories.

    Files and photos deleted since the backup come back from the trash.

    Args:
        backup_id: Id of the backup, e.g. backup_907.
        categories: Which of the backup's categories to restore.
        confirm: Set true only after the user confirmed overwriting their current data.
    """
    b = _get(ctx, backups, backup_id, hint="backup_data returns backup ids")
    if b["status"] != "completed":
        raise ToolError(ErrorType.STATE_CONFLICT, f"{backup_id} is a {b['status']} backup", status=b["status"])
    held = json.loads(b["categories_json"])
    cats = sorted(set(categories))
    missing = [c for c in cats if c not in held]
    if missing:
        raise ToolError(
            ErrorType.ENTITY_NOT_FOUND,
            f"{backup_id} does not contain {', '.join(missing)}",
            field="categories",
            candidates=held,
        )
    if not confirm:
        raise ToolError(
            ErrorType.CONFIRMATION_REQUIRED,
            f"restoring {', '.join(cats)} overwrites the phone's data",
            hint="ask_user(kind=confirm), then retry with confirm=true",
        )
    f = files.c
    kinds = []
    if "photos" in cats:
        kinds.append(f.file_type.in_(MEDIA_TYPES))
    if "files" in cats:
        kinds.append(f.file_type.not_in(MEDIA_TYPES))
    back: list[str] = []
    if kinds:
        back = list(
            ctx.conn.execute(
                select(f.file_id)
                .where(f.deleted_at > b["completed_at"], f.created_at <= b["completed_at"], or_(*kinds))
                .order_by(f.file_id)
            ).scalars()
        )
        ctx.conn.execute(_SET_FILES, {"match_file_ids": back, "deleted_at": None, "updated_at": ctx.ts()})
    ctx.conn.execute(_SET_BACKUP, {"match_backup_id": backup_id, "restored_at": ctx.ts(), "updated_at": ctx.ts()})
    return {"backup_id": backup_id, "restored": cats, "backup_date": b["completed_at"], "files_restored": back}


# ---- Passwords & Accounts (4.6) ---------------------------------------------------------------

COMMON_PASSWORDS = frozenset(
    {
        "123456",
        "12345678",
        "123456789",
        "password",
        "password1",
        "qwerty",
        "qwerty123",
        "abc123",
        "111111",
        "iloveyou",
        "admin",
        "welcome",
        "letmein",
        "monkey",
        "dragon",
    }
)
MASK = "********"


def password_digest(secret: str) -> str:
    """What the vault stores of a password (a task check compares it with the password the user dictated)."""
    return hashlib.sha256(secret.encode()).hexdigest()[:32]


def _strength(secret: str) -> str:
    classes = sum(bool(re.search(p, secret)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[^A-Za-z0-9]"))
    if len(secret) < 8 or classes < 2 or secret.lower() in COMMON_PASSWORDS:
        return "weak"
    return "strong" if len(secret) >= 12 and classes >= 3 else "medium"


def _generated(site: str, username: str, stamp: str) -> str:
    """A strong 16-character password, a pure function of the site, the user name and the clock."""
    digest = hashlib.sha256(f"{site}\n{username}\n{stamp}".encode()).digest()
    pools = (string.ascii_uppercase, string.ascii_lowercase, string.digits, "!@#$%^&*-_")
    alphabet = "".join(pools)
    head = "".join(pool[digest[i] % len(pool)] for i, pool in enumerate(pools))
    return head + "".join(alphabet[b % len(alphabet)] for b in digest[4:16])


def _credential_fields(secret: str) -> dict[str, Any]:
    return {
        "password_hash": password_digest(secret),
        "strength": _strength(secret),
        "breached": int(secret.lower() in COMMON_PASSWORDS),
    }


_SAVED_LOGIN = select(credentials.c.credential_id).where(
    credentials.c.site == bindparam("site"), func.lower(credentials.c.username) == bindparam("username")
)
_SET_CREDENTIAL = update(credentials).where(credentials.c.credential_id == bindparam("match_credential_id"))
_ADD_CREDENTIAL = insert(credentials)


@tool(
    l2="4.6",
    app=PASSWORDS,
    mutating=True,
    needs_login=True,
    check=_exactly_one("password", "generate"),
    errors=(ErrorType.DUPLICATE_ENTITY,),
)
def save_password(
    ctx: Ctx,
    site: Site,
    username: Annotated[str, Field(min_length=1, max_length=120)],
    password: Annotated[str, Field(min_length=1, max_length=128)] | None = None,
    generate: bool = False,
    notes: Annotated[str, Field(max_length=500)] | None = None,
    overwrite: bool = False,
) -> dict[str, Any]:
    """Save a login in the password vault, or generate a strong password for it (shown once in the result).

    Args:
        site: The site or app domain, e.g. "amazon.com" (a URL is reduced to its domain).
        username: The login name or email.
        password: The password to save (give this or generate=true).
        generate: Generate a strong random password instead of giving one.
        notes: Free-text notes, e.g. security questions.
        overwrite: Replace the saved password of an existing login for this site and username.
    """
    existing = ctx.conn.execute(_SAVED_LOGIN, {"site": site, "username": username.lower()}).scalar()
    if existing and not overwrite:
        raise ToolError(
            ErrorType.DUPLICATE_ENTITY,
            f"a login for {username} on {site} is already saved: {existing}",
            existing_id=existing,
            hint="pass overwrite=true to replace its password",
        )
    secret = password or _generated(site, username, ctx.ts())
    fields = _credential_fields(secret)
    if existing:
        changes = {**fields, **({"notes": notes} if notes is not None else {})}
        ctx.conn.execute(_SET_CREDENTIAL, {"match_credential_id": existing, **changes, "updated_at": ctx.ts()})
        cid = existing
    else:
        cid = ctx.new_id(credentials)
        ctx.conn.execute(
            _ADD_CREDENTIAL,
            {
                "credential_id": cid,
                "site": site,
                "username": username,
                "notes": notes,
                "account_id": None,
                "created_at": ctx.ts(),
                "updated_at": ctx.ts(),
                **fields,
            },
        )
    out = {
        "credential_id": cid,
        "site": site,
        "username": username,
        "strength": fields["strength"],
        "breached": bool(fields["breached"]),
        "replaced": existing is not None,
    }
    return {**out, "generated_password": secret} if generate else out


_PASSWORD_HASHES = select(credentials.c.credential_id, credentials.c.password_hash).order_by(
    credentials.c.credential_id
)
_CREDENTIAL_SITES = select(credentials.c.credential_id, credentials.c.site)


@tool(l2="4.6", app=PASSWORDS, mutating=False, needs_login=True)
def search_passwords(
    ctx: Ctx,
    site: Query | None = None,
    username: Query | None = None,
    report: Literal["none", "weak", "reused", "breached"] = "none",
) -> dict[str, Any]:
    """Look up saved logins (passwords masked), or report the weak, reused or breached ones.

    Each login shows its linked account and whether that account has 2-step verification.

    Args:
        site: Part of the site's domain or name, e.g. "amazon" or "Twitter" (x.com).
        username: Part of the login name or email.
        report: none lists matching logins; weak, reused or breached lists only logins with that problem.
    """
    c, a = credentials.c, accounts.c
    q = select(credentials, a.two_factor_method).join_from(
        credentials, accounts, c.account_id == a.account_id, isouter=True
    )
    if site:
        part = site.strip().lower()
        q = q.where(
            or_(func.lower(c.site).contains(part, autoescape=True), func.lower(c.name).contains(part, autoescape=True))
        )
    if username:
        q = q.where(func.lower(c.username).contains(username.strip().lower(), autoescape=True))
    found = rows(ctx.conn.execute(q.order_by(c.site, c.username, c.credential_id)))
    sharing: dict[str, list[str]] = {}
    for cid, digest in ctx.conn.execute(_PASSWORD_HASHES):
        sharing.setdefault(digest, []).append(cid)
    sites = dict(ctx.conn.execute(_CREDENTIAL_SITES).all())
    out = []
    for r in found:
        others = [sites[o] for o in sharing[r["password_hash"]] if o != r["credential_id"]]
        problem = {
            "none": True,
            "weak": r["strength"] == "weak",
            "reused": bool(others),
            "breached": bool(r["breached"]),
        }[report]
        if problem:
            out.append(
                {
                    "credential_id": r["credential_id"],
                    "site": r["site"],
                    "username": r["username"],
                    "password": MASK,
                    "strength": r["strength"],
                    "reused_on": sorted(set(others)),
                    "breached": bool(r["breached"]),
                    "account_id": r["account_id"],
                    "two_factor": r["two_factor_method"],
                    "notes": r["notes"],
                    "updated_at": r["updated_at"],
                }
            )
    return {"report": report, "credentials": out, "count": len(out)}


# ---- Privacy & Device Security (4.7) ----------------------------------------------------------


def _phone_only_for_sms(args: dict[str, Any]) -> str | None:
    """phone_number is only for method=sms."""
    return "phone_number is only used with method=sms" if args.get("phone_number") and args["method"] != "sms" else None


_SET_ACCOUNT = update(accounts).where(accounts.c.account_id == bindparam("match_account_id"))


@tool(
    l2="4.7",
    app=SECURITY,
    mutating=True,
    network="internet",
    needs_login=True,
    check=_phone_only_for_sms,
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.AMBIGUOUS_ENTITY,
        ErrorType.STATE_CONFLICT,
        ErrorType.MISSING_REQUIRED_ARGUMENT,
    ),
)
def enable_two_factor(
    ctx: Ctx,
    account_id: Ref,
    method: Literal["sms", "authenticator", "security_key"],
    phone_number: Phone | None = None,
) -> dict[str, Any]:
    """Turn on 2-step verification for one of the user's online accounts.

    Args:
        account_id: Id of the account (e.g. account_904, see search_passwords) or its service name, e.g. "GitHub".
        method: sms (codes by text message), authenticator (an authenticator app) or security_key.
        phone_number: Phone for sms codes; needed when the account has no recovery phone on file.
    """
    acc = _resolve(ctx, accounts, account_id, ("account_id", "service", "username", "two_factor_method"), "account_id")
    if acc["two_factor_method"]:
        raise ToolError(
            ErrorType.STATE_CONFLICT,
            f"2-step verification is already on for {acc['service']} ({acc['two_factor_method']})",
            account_id=acc["account_id"],
            current=acc["two_factor_method"],
        )
    phone = normalise_phone(phone_number) if phone_number else acc["recovery_phone"]
    if method == "sms" and not phone:
        raise ToolError(
            ErrorType.MISSING_REQUIRED_ARGUMENT,
            f"{acc['service']} has no recovery phone on file",
            fields=["phone_number"],
            hint="ask the user which number should receive the codes",
        )
    ctx.conn.execute(
        _SET_ACCOUNT,
        {
            "match_account_id": acc["account_id"],
            "two_factor_method": method,
            "recovery_phone": phone,
            "updated_at": ctx.ts(),
        },
    )
    return {
        "account_id": acc["account_id"],
        "service": acc["service"],
        "username": acc["username"],
        "two_factor_method": method,
        "phone": phone if method == "sms" else None,
    }


def _message_only_for_lock(args: dict[str, Any]) -> str | None:
    """message is only shown with action=lock."""
    return "message is only shown with action=lock" if args.get("message") and args["action"] != "lock" else None


_SET_LINKED_DEVICE = update(linked_devices).where(linked_devices.c.device_id == bindparam("match_device_id"))


@tool(
    l2="4.7",
    app=SECURITY,
    mutating=True,
    network="internet",
    check=_message_only_for_lock,
    errors=(
        ErrorType.ENTITY_NOT_FOUND,
        ErrorType.AMBIGUOUS_ENTITY,
        ErrorType.RESOURCE_UNAVAILABLE,
        ErrorType.STATE_CONFLICT,
        ErrorType.CONFIRMATION_REQUIRED,
    ),
)
def find_my_device(
    ctx: Ctx,
    device_id: Ref,
    action: Literal["locate", "ring", "lock", "erase"],
    message: Annotated[str, Field(min_length=1, max_length=200)] | None = None,
    confirm: bool = False,
) -> dict[str, Any]:
    """Locate, ring, lock or erase one of the user's other devices (tablet, laptop, watch, earbuds, old phone).

    Args:
        device_id: Id of the linked device (e.g. ldevice_902) or its name, e.g. "iPad".
        action: locate (show where it is), ring (play a sound), lock (lock it remotely) or erase (wipe it for good).
        message: Text to show on the lock screen (only with action=lock).
        confirm: Set true only after the user confirmed erasing the device.
    """
    d = _resolve(ctx, linked_devices, device_id, ("device_id", "name", "kind", "online"), "device_id")
    if not d["online"]:
        raise ToolError(
            ErrorType.RESOURCE_UNAVAILABLE,
            f"{d['name']} is offline{' (erased)' if d['erased'] else ''}",
            device_id=d["device_id"],
            last_location=d["last_location"],
            last_seen_at=d["last_seen_at"],
        )
    if action == "lock" and d["locked"]:
        raise ToolError(ErrorType.STATE_CONFLICT, f"{d['name']} is already locked", device_id=d["device_id"])
    if action == "erase" and not confirm:
        raise ToolError(
            ErrorType.CONFIRMATION_REQUIRED,
            f"erasing {d['name']} deletes everything on it",
            device_id=d["device_id"],
            hint="ask_user(kind=confirm), then retry with confirm=true",
        )
    changes: dict[str, Any] = {  # type: ignore[assignment]  # each value is a dict
        "locate": {},
        "ring": {"last_rung_at": ctx.ts()},
        "lock": {"locked": 1, "lock_message": message},
        "erase": {"erased": 1, "locked": 1, "online": 0, "last_seen_at": ctx.ts()},
    }[action]
    if changes:
        ctx.conn.execute(_SET_LINKED_DEVICE, {"match_device_id": d["device_id"], **changes, "updated_at": ctx.ts()})
    return {
        "device_id": d["device_id"],
        "name": d["name"],
        "action": action,
        "location": d["last_location"],
        "locked": bool(changes.get("locked", d["locked"])),
        "erased": action == "erase",
    }


# ---- Storage & Cleanup (4.8) ------------------------------------------------------------------

FILE_GROUPS = {
    "images": ("image",),
    "videos": ("video",),
    "audio": ("audio",),
    "documents": ("doc", "sheet", "slides", "pdf"),
    "archives": ("archive",),
    "other": ("other",),
}
CACHE_SUGGESTION_MB = 200.0
LARGE_DOWNLOAD_MB = 100.0


_INSTALLED_APPS = (
    select(app_installs, apps.c.name)
    .join_from(app_installs, apps, apps.c.app_id == app_installs.c.app_id)
    .where(apps.c.installed == 1)
    .order_by(app_installs.c.app_id)
)
_LIVE_MB_BY_TYPE = (
    select(files.c.file_type, func.sum(files.c.size_mb)).where(files.c.deleted_at.is_(None)).group_by(files.c.file_type)
)
_TRASH = select(files.c.file_id, files.c.size_mb).where(files.c.deleted_at.is_not(None)).order_by(files.c.file_id)
_LARGE_DOWNLOADS = (
    select(files.c.file_id, files.c.size_mb)
    .where(
        files.c.deleted_at.is_(None),
        or_(files.c.folder == "/Downloads", _under(files.c.folder, "/Downloads", _prefix("/Downloads"))),
        files.c.size_mb >= LARGE_DOWNLOAD_MB,
    )
    .order_by(files.c.size_mb.desc(), files.c.file_id)
)


@tool(l2="4.8", app=SETTINGS, mutating=False)
def get_storage_usage(ctx: Ctx) -> dict[str, Any]:
    """Show how the phone's storage is used (apps, file kinds, trash, system) and what could be cleaned up."""
    free = _free_gb(ctx)
    used_mb = (STORAGE_TOTAL_GB - free) * 1024
    installed = rows(ctx.conn.execute(_INSTALLED_APPS))
    for a in installed:
        a["total_mb"] = round(a["app_mb"] + a["data_mb"] + a["cache_mb"], 1)
    by_type = dict(ctx.conn.execute(_LIVE_MB_BY_TYPE).all())
    trash = rows(ctx.conn.execute(_TRASH))
    mb = {
        "apps": sum(a["total_mb"] for a in installed),
        **{group: sum(by_type.get(t, 0.0) for t in types) for group, types in FILE_GROUPS.items()},
        "trash": sum(t["size_mb"] for t in trash),
    }
    mb["system_and_other"] = max(used_mb - sum(mb.values()), 0.0)
    suggestions: list[dict[str, Any]] = []
    caches = [a for a in installed if a["cache_mb"] > 0]
    if caches:
        suggestions.append(
            {"action": "clear_app_cache", "all_apps": True, "saves_mb": round(sum(a["cache_mb"] for a in caches), 1)}
        )
    suggestions += [
        {"action": "clear_app_cache", "app_id": a["app_id"], "saves_mb": a["cache_mb"]}
        for a in sorted(caches, key=lambda a: -a["cache_mb"])
        if a["cache_mb"] >= CACHE_SUGGESTION_MB
    ]
    if trash:
        suggestions.append(
            {
                "action": "delete_files",
                "permanent": True,
                "file_ids": [t["file_id"] for t in trash],
                "reason": "empty the trash",
                "saves_mb": round(mb["trash"], 1),
            }
        )
    big = rows(ctx.conn.execute(_LARGE_DOWNLOADS))
    if big:
        suggestions.append(
            {
                "action": "delete_files",
                "file_ids": [b["file_id"] for b in big],
                "reason": "large downloads",
                "saves_mb": round(sum(b["size_mb"] for b in big), 1),
            }
        )
    top = sorted(installed, key=lambda a: (-a["total_mb"], a["app_id"]))[:10]
    return {
        "total_gb": STORAGE_TOTAL_GB,
        "used_gb": round(STORAGE_TOTAL_GB - free, 2),
        "free_gb": free,
        "by_category_gb": {k: round(v / 1024, 2) for k, v in mb.items()},
        "top_apps": [{k: a[k] for k in ("app_id", "name", "app_mb", "data_mb", "cache_mb", "total_mb")} for a in top],
        "suggestions": suggestions,
    }


_APP_CACHES = (
    select(app_installs.c.app_id, app_installs.c.cache_mb)
    .join_from(app_installs, apps, apps.c.app_id == app_installs.c.app_id)
    .where(apps.c.installed == 1, app_installs.c.cache_mb > 0)
)
_SET_INSTALLS = update(app_installs).where(app_installs.c.app_id.in_(bindparam("match_app_ids", expanding=True)))


@tool(
    l2="4.8",
    app=SETTINGS,
    mutating=True,
    check=_exactly_one("app_id", "all_apps"),
    errors=(ErrorType.ENTITY_NOT_FOUND, ErrorType.STATE_CONFLICT),
)
def clear_app_cache(ctx: Ctx, app_id: Ref | None = None, all_apps: bool = False) -> dict[str, Any]:
    """Clear the cache of one installed app, or of all installed apps, to free storage (data and logins are kept).

    Args:
        app_id: Id of the app, e.g. chat (give this or all_apps=true).
        all_apps: Clear every installed app's cache.
    """
    if app_id is not None:
        app = _installed_app(ctx, app_id)
        caches = {app_id: app["cache_mb"] or 0.0}
    else:
        caches = dict(ctx.conn.execute(_APP_CACHES).all())
    cleared = {a: mb for a, mb in sorted(caches.items()) if mb > 0}
    if not cleared:
        raise ToolError(ErrorType.STATE_CONFLICT, f"the cache of {app_id or 'every app'} is already empty")
    ctx.conn.execute(_SET_INSTALLS, {"match_app_ids": list(cleared), "cache_mb": 0.0, "updated_at": ctx.ts()})
    freed = round(sum(cleared.values()), 1)
    return {"cleared_mb": cleared, "freed_mb": freed, "storage_free_gb": _release_storage(ctx, freed)}
