"""Basic Tool Use families for Apps, Data & Security (D4): the app store, permissions, notifications,
files, cloud backup, passwords, account security and Find My Device, storage cleanup.
"""

from __future__ import annotations

import json
import re
from typing import Any

from sandbox import facts
from sandbox.domains.apps_security.schema import STORAGE_TOTAL_GB
from sandbox.domains.apps_security.tools import password_digest
from sandbox.errors import ErrorType
from sandbox.generator.core import BuildError, Gen, act, done, family
from sandbox.generator.draft import Draft

ANY = {"$regex": "."}  # a value that changed, whatever it became
STORAGE = {"device_settings": [{"match": {"key": "storage_free_gb"}, "set": {"value": ANY}}]}
STORE_ONLY_INSTALLED = (
    "shortvid",
    "kingdom_clash",
    "office_suite",
    "quickscan",
    "lingoleap",
    "pixelcraft",
    "authenticator",
    "taxi_express",
)
FREE_STORE = {
    "zen_meditate": ("a meditation app", "meditation"),
    "run_club": ("a running tracker", "running"),
    "tile_swap": ("a tile matching puzzle game", "tile puzzle"),
    "chess_master": ("a chess game", "chess"),
    "recipe_box": ("an app to save recipes", "recipe"),
    "metro_pass": ("a metro ticket app", "metro"),
    "password_gen": ("a password generator", "password generator"),
    "photo_print": ("an app to order photo prints", "prints"),
    "file_shrink": ("a PDF compressor", "compress"),
    "news_digest": ("a daily news summary app", "news digest"),
}
PAID_STORE = ("budget_buddy", "shield_vpn", "star_chart", "radar_pro", "cam_scanner_pro", "sleep_sounds")


def storage_if(g: Gen, freed_mb: float) -> dict[str, Any]:
    """The storage_free_gb update when freeing ``freed_mb`` changes the rounded figure, else nothing."""
    free = float(g.setting("storage_free_gb") or 0)
    return dict(STORAGE) if round(free + freed_mb / 1024, 2) != free else {}


def store_app(g: Gen, app_id: str) -> dict[str, Any]:
    return g.one("world_store_apps", {"app_id": app_id})


def installed(g: Gen, app_id: str) -> bool:
    return any(r["installed"] == 1 for r in g.rows("apps", {"app_id": app_id}))


def install_changes(g: Gen, app_id: str) -> dict[str, Any]:
    """The expected diff of a fresh install (no row for the app before)."""
    return {
        "insert": {"apps": [{"app_id": app_id, "installed": 1}], "app_installs": [{"app_id": app_id}]},
        "update": dict(STORAGE),
    }


# ---- 4.1 App Installation & Removal ------------------------------------------------------------------


@family("basic", "4.1", pattern="lookup_then_act")
def install_free_app(g: Gen) -> Draft:
    app_id = g.pick(sorted(FREE_STORE))
    if installed(g, app_id):
        raise BuildError(f"{app_id} is installed")
    app = store_app(g, app_id)
    what, _ = FREE_STORE[app_id]
    query = g.say(
        "install {name} from the app store",
        "get me the {name} app",
        "download {name} onto my phone",
        "I'd like {what}; install {name}",
        name=app["name"],
        what=what,
    )
    return Draft(
        query=query,
        gold=[
            act("search_app_store", query=app["name"]),
            act("install_app", app_id=app_id),
            done(f"Installed {app['name']}."),
        ],
        bucket="state_change",
        check=install_changes(g, app_id),
    )


@family("basic", "4.1", pattern="friction", friction="confirmation_required")
def buy_paid_app(g: Gen) -> Draft:
    app_id = g.pick(PAID_STORE)
    app = store_app(g, app_id)
    method = g.one("payment_methods", {"is_default": 1})
    query = g.say(
        "install {name}",
        "get {name} from the store for me",
        "I want the {name} app on my phone",
        "download {name} by {dev}",
        name=app["name"],
        dev=app["developer"],
    )
    changes = install_changes(g, app_id)
    changes["insert"]["transactions"] = [
        {"amount": {"$approx": [-app["price"], 0.01]}, "category": "apps", "ref_id": app_id}
    ]
    changes["update"]["payment_methods"] = [
        {
            "match": {"method_id": method["method_id"]},
            "set": {"balance": {"$approx": [method["balance"] - app["price"], 0.01]}},
        }
    ]
    return Draft(
        query=query,
        gold=[
            act("search_app_store", query=app["name"]),
            act("install_app", app_id=app_id),
            act("ask_user", question=f"{app['name']} costs {app['price']:.2f}. Buy it?", kind="confirm"),
            act("install_app", app_id=app_id, confirm=True),
            done(f"Bought and installed {app['name']}."),
        ],
        bucket="state_change",
        check=changes,
        script=[
            {
                "answer": "Yes, go ahead and buy it.",
                "kind": "confirm",
                "keywords": ["buy", "cost", "pay", "price", "purchase"],
            }
        ],
        recovers=(ErrorType.CONFIRMATION_REQUIRED,),
    )


@family("basic", "4.1", pattern="friction", friction="confirmation_required")
def uninstall_with_confirmation(g: Gen) -> Draft:
    app_id = g.pick([a for a in STORE_ONLY_INSTALLED if installed(g, a)])
    app = g.one("apps", {"app_id": app_id})
    query = g.say(
        "uninstall {name}",
        "remove the {name} app from my phone",
        "delete {name}, I never use it",
        "get rid of {name}",
        name=app["name"],
    )
    perms = [
        {"app_id": app_id, "permission": p["permission"]}
        for p in g.rows("app_permissions", {"app_id": app_id})
        if p["state"] != "policy_blocked"
    ]
    check: dict[str, Any] = {
        "update": {
            "apps": [{"match": {"app_id": app_id}, "set": {"installed": 0, "logged_in": 0}}],
            "app_installs": [
                {
                    "match": {"app_id": app_id},
                    "set": {"version": None, "app_mb": 0, "cache_mb": 0, "data_mb": {"$range": [0, 1000000]}},
                }
            ],
            **STORAGE,
        }
    }
    if perms:
        check["delete"] = {"app_permissions": perms}
    return Draft(
        query=query,
        gold=[
            act("uninstall_app", app_id=app_id),
            act("ask_user", question=f"Uninstall {app['name']} and delete its data?", kind="confirm"),
            act("uninstall_app", app_id=app_id, confirm=True),
            done(f"Uninstalled {app['name']}."),
        ],
        bucket="state_change",
        check=check,
        script=[
            {"answer": "Yes, uninstall it.", "kind": "confirm", "keywords": ["uninstall", "remove", "delete", "sure"]}
        ],
        recovers=(ErrorType.CONFIRMATION_REQUIRED,),
    )


TASK_ITEMS = (
    "buy milk",
    "renew the car insurance",
    "call the landlord",
    "book a haircut",
    "return the library books",
    "pay the electricity bill",
    "water the plants",
    "pick up the dry cleaning",
)


@family("basic", "4.1", pattern="friction", friction="unsupported_operation")
def reinstall_removed_app(g: Gen) -> Draft:
    """The to-do app was uninstalled: the first call fails, the app is reinstalled, the call retried."""
    item = g.pick(TASK_ITEMS)
    lst = g.pick(("Inbox", "Groceries", "Work", "Reminders"))
    store = store_app(g, "tasks")
    mine = g.one("app_installs", {"app_id": "tasks"})
    query = g.say(
        'add "{item}" to my {lst} list',
        "put {item} on my {lst} to-do list",
        "remind me via my {lst} list to {item}",
        item=item,
        lst=lst,
    )
    update: dict[str, Any] = {"apps": [{"match": {"app_id": "tasks"}, "set": {"installed": 1}}], **STORAGE}
    if mine["version"] != store["version"]:
        update["app_installs"] = [{"match": {"app_id": "tasks"}, "set": {"version": store["version"]}}]
    return Draft(
        query=query,
        gold=[
            act("create_task", title=item.capitalize(), list_name=lst),
            act("install_app", app_id="tasks"),
            act("create_task", title=item.capitalize(), list_name=lst),
            done(f"The Tasks app was missing, so I reinstalled it and added '{item}' to {lst}."),
        ],
        bucket="state_change",
        check={"insert": {"tasks": [{"title": {"$contains": item.split()[-1]}, "list_name": lst}]}, "update": update},
        patches={"update": {"apps": [{"match": {"app_id": "tasks"}, "set": {"installed": 0}}]}},
        recovers=(ErrorType.UNSUPPORTED_OPERATION,),
    )


SYSTEM_APPS = {
    "browser": "the Browser",
    "gallery": "the Gallery app",
    "camera": "the Camera app",
    "wallet": "the Wallet app",
    "health": "the Health app",
    "clock": "the Clock app",
}


@family("basic", "4.1", pattern="friction", friction="policy_blocked")
def uninstall_system_app(g: Gen) -> Draft:
    app_id = g.pick(sorted(SYSTEM_APPS))
    said = SYSTEM_APPS[app_id]
    query = g.say(
        "uninstall {said}", "delete {said} from my phone completely", "I want {said} gone, remove it", said=said
    )
    return Draft(
        query=query,
        gold=[
            act("uninstall_app", app_id=app_id),
            act("finish", answer=f"{said} is a system app and cannot be uninstalled.", status="refused"),
        ],
        bucket="state_change",
        check={},
        recovers=(ErrorType.PERMISSION_DENIED,),
        tags={"expected": "noop"},
    )


# ---- 4.2 App Permissions ---------------------------------------------------------------------------------

PERMISSION_WORDS = {
    "LOCATION": "my location",
    "CONTACTS": "my contacts",
    "CALENDAR": "my calendar",
    "CAMERA": "the camera",
    "MICROPHONE": "the microphone",
    "PHOTOS": "my photos",
    "SMS": "my texts",
    "PHONE": "phone calls",
    "NOTIFICATIONS": "notifications",
    "ACTIVITY": "my activity data",
    "HEALTH": "my health data",
    "NEARBY_DEVICES": "nearby devices",
    "STORAGE": "my files",
}
SKIP_APPS = frozenset({"settings", "files", "assistant"})


def app_name(g: Gen, app_id: str) -> str:
    return g.one("apps", {"app_id": app_id})["name"]


def permission_row(g: Gen, state: str) -> dict[str, Any]:
    installed_ids = {r["app_id"] for r in g.rows("apps") if r["installed"] == 1}
    return g.one(
        "app_permissions",
        {"state": state},
        filter=lambda r: r["app_id"] in installed_ids and r["app_id"] not in SKIP_APPS,
    )


def perm_update(app_id: str, permission: str, state: str) -> dict[str, Any]:
    return {"app_permissions": [{"match": {"app_id": app_id, "permission": permission}, "set": {"state": state}}]}


@family("basic", "4.2", pattern="single_call")
def grant_permission(g: Gen) -> Draft:
    row = permission_row(g, "granted")
    name, what = app_name(g, row["app_id"]), PERMISSION_WORDS[row["permission"]]
    query = g.say(
        "let {app} use {what}",
        "give {app} access to {what}",
        "allow {app} to access {what}",
        "{app} keeps asking for {what}; grant it",
        app=name,
        what=what,
    )
    return Draft(
        query=query,
        gold=[
            act("grant_app_permission", app_id=row["app_id"], permission=row["permission"]),
            done(f"{name} can now use {what}."),
        ],
        bucket="state_change",
        check={"update": perm_update(row["app_id"], row["permission"], "granted")},
        patches={"update": perm_update(row["app_id"], row["permission"], "not_requested")},
    )


@family("basic", "4.2", pattern="single_call")
def revoke_permission(g: Gen) -> Draft:
    row = permission_row(g, "granted")
    name, what = app_name(g, row["app_id"]), PERMISSION_WORDS[row["permission"]]
    query = g.say(
        "take away {app}'s access to {what}",
        "stop {app} from using {what}",
        "revoke {what} permission for {app}",
        "I don't want {app} to have {what} anymore",
        app=name,
        what=what,
    )
    return Draft(
        query=query,
        gold=[
            act("revoke_app_permission", app_id=row["app_id"], permission=row["permission"]),
            done(f"{name} no longer has access to {what}."),
        ],
        bucket="state_change",
        check={"update": perm_update(row["app_id"], row["permission"], "denied")},
    )


@family("basic", "4.2", pattern="friction", friction="confirmation_required")
def regrant_denied_permission(g: Gen) -> Draft:
    row = permission_row(g, "granted")
    name, what = app_name(g, row["app_id"]), PERMISSION_WORDS[row["permission"]]
    query = g.say(
        "I changed my mind, let {app} use {what} again",
        "turn {what} access back on for {app}",
        "{app} needs {what} after all, allow it",
        app=name,
        what=what,
    )
    return Draft(
        query=query,
        gold=[
            act("grant_app_permission", app_id=row["app_id"], permission=row["permission"]),
            act("ask_user", question=f"You denied {name} {what} before. Allow it now?", kind="confirm"),
            act("grant_app_permission", app_id=row["app_id"], permission=row["permission"], confirm=True),
            done(f"{name} can use {what} again."),
        ],
        bucket="state_change",
        check={"update": perm_update(row["app_id"], row["permission"], "granted")},
        patches={"update": perm_update(row["app_id"], row["permission"], "denied")},
        script=[{"answer": "Yes, allow it.", "kind": "confirm", "keywords": ["allow", "denied", "sure", "grant"]}],
        recovers=(ErrorType.CONFIRMATION_REQUIRED,),
    )


@family("basic", "4.2", pattern="friction", friction="policy_blocked")
def policy_blocked_permission(g: Gen) -> Draft:
    row = permission_row(g, "granted")
    name, what = app_name(g, row["app_id"]), PERMISSION_WORDS[row["permission"]]
    query = g.say(
        "give {app} access to {what}",
        "grant {app} permission to use {what}",
        "let {app} have {what}",
        app=name,
        what=what,
    )
    return Draft(
        query=query,
        gold=[
            act("grant_app_permission", app_id=row["app_id"], permission=row["permission"]),
            act(
                "finish",
                answer=f"Your own rule blocks giving {name} access to {what}, so I left it off.",
                status="refused",
            ),
        ],
        bucket="state_change",
        check={},
        patches={"update": perm_update(row["app_id"], row["permission"], "policy_blocked")},
        recovers=(ErrorType.PERMISSION_DENIED,),
        tags={"expected": "noop"},
    )


@family("basic", "4.2", pattern="lookup_then_act")
def audit_permission_holders(g: Gen) -> Draft:
    perm = g.pick(("LOCATION", "MICROPHONE", "CAMERA", "CONTACTS"))
    installed_ids = {r["app_id"] for r in g.rows("apps") if r["installed"] == 1}
    row = g.one(
        "app_permissions",
        {"permission": perm, "state": "granted"},
        filter=lambda r: r["app_id"] in installed_ids and r["app_id"] not in SKIP_APPS,
    )
    name, what = app_name(g, row["app_id"]), PERMISSION_WORDS[perm]
    query = g.say(
        "which apps can use {what}? Take it away from {app}",
        "check who has {what} access and revoke it for {app}",
        "list the apps allowed {what}, then remove {app} from that list",
        what=what,
        app=name,
    )
    return Draft(
        query=query,
        gold=[
            act("get_app_permissions", permission=perm),
            act("revoke_app_permission", app_id=row["app_id"], permission=perm),
            done(f"Revoked {what} from {name}."),
        ],
        bucket="state_change",
        check={"update": perm_update(row["app_id"], perm, "denied")},
    )


# ---- 4.3 Notification Management ---------------------------------------------------------------------------


@family("basic", "4.3", pattern="single_call")
def mute_app(g: Gen) -> Draft:
    app = g.one(
        "apps",
        {"installed": 1, "notifications_enabled": 1},
        filter=lambda r: r["app_id"] not in SKIP_APPS | {"phone", "messages", "clock", "app_store"},
    )
    query = g.say(
        "turn off all notifications from {name}",
        "mute {name} notifications",
        "stop {name} from sending me notifications",
        "I don't want alerts from {name} anymore",
        name=app["name"],
    )
    return Draft(
        query=query,
        gold=[
            act("set_app_notifications", app_id=app["app_id"], enabled=False),
            done(f"{app['name']} notifications are off."),
        ],
        bucket="state_change",
        check={"update": {"apps": [{"match": {"app_id": app["app_id"]}, "set": {"notifications_enabled": 0}}]}},
    )


@family("basic", "4.3", pattern="single_call")
def toggle_channel(g: Gen) -> Draft:
    row = g.one("notification_channels")
    app = g.one("apps", {"app_id": row["app_id"]})
    if app["installed"] != 1 or not app["notifications_enabled"]:
        raise BuildError("the app is not installed or muted")
    on = not row["enabled"]
    ch = row["channel"]
    if on:
        query = g.say(
            "turn on the {ch} notifications in {name}",
            "I want {name}'s {ch} alerts again",
            "enable {ch} notifications for {name}",
            ch=ch,
            name=app["name"],
        )
    else:
        query = g.say(
            "turn off just the {ch} notifications from {name}",
            "mute {name}'s {ch} alerts but keep the rest",
            "no more {ch} notifications from {name}, please",
            ch=ch,
            name=app["name"],
        )
    return Draft(
        query=query,
        gold=[
            act("set_app_notifications", app_id=app["app_id"], enabled=on, channels=[ch]),
            done(f"{ch} notifications from {app['name']} are {'on' if on else 'off'}."),
        ],
        bucket="state_change",
        check={
            "update": {
                "notification_channels": [
                    {"match": {"app_id": app["app_id"], "channel": ch}, "set": {"enabled": int(on)}}
                ]
            }
        },
    )


# ---- 4.4 Files & Folders ------------------------------------------------------------------------------

NEW_FOLDERS = (
    "Contracts",
    "Invoices",
    "Medical",
    "Warranties",
    "Kids School",
    "Car",
    "Recipes",
    "Visa",
    "Bank Statements",
    "Insurance",
    "Travel Plans",
    "Manuals",
)


@family("basic", "4.4", pattern="single_call")
def create_folder(g: Gen) -> Draft:
    parent = g.pick(("/Documents", "/Documents/Work", "/Pictures", "/Documents/Taxes"))
    name = g.pick(NEW_FOLDERS) if parent != "/Documents/Taxes" else str(g.rng.randint(2019, 2026))
    path = f"{parent}/{name}"
    if g.rows("folders", {"path": path}):
        raise BuildError(f"{path} exists")
    query = g.say(
        "create a folder called {name} inside {parent}",
        "make a new folder {path}",
        "add {a} {name} folder under {parent}",
        a="an" if name[0] in "AEIOU" else "a",
        name=name,
        parent=parent,
        path=path,
    )
    return Draft(
        query=query,
        gold=[act("create_folder", path=path), done(f"Created {path}.")],
        bucket="state_change",
        check={"insert": {"folders": [{"path": path}]}},
    )


def live_file(g: Gen, folder: str) -> dict[str, Any]:
    return g.one("files", {"folder": folder}, filter=lambda r: r["deleted_at"] is None)


@family("basic", "4.4", pattern="lookup_then_act")
def move_download(g: Gen) -> Draft:
    f = live_file(g, "/Downloads")
    dest = g.pick(("/Documents", "/Documents/Work", "/Documents/Receipts", "/Documents/Taxes"))
    stem = f["name"].rsplit(".", 1)[0]
    query = g.say(
        "move {name} from Downloads to {dest}",
        "put the file {name} into {dest}",
        "file {name} away in {dest}",
        name=f["name"],
        dest=dest,
    )
    return Draft(
        query=query,
        gold=[
            act("list_files", folder_path="/Downloads", query=stem.split()[0].split("_")[0]),
            act("move_file", file_id=f["file_id"], destination_path=dest),
            done(f"Moved {f['name']} to {dest}."),
        ],
        bucket="state_change",
        check={"update": {"files": [{"match": {"file_id": f["file_id"]}, "set": {"folder": dest}}]}},
    )


@family("basic", "4.4", pattern="lookup_then_act")
def rename_document(g: Gen) -> Draft:
    f = live_file(g, "/Documents")
    ext = f["name"].rsplit(".", 1)[1]
    new = g.pick(("Final", "Old", "Signed", "Copy", "Archive", "2025"))
    stem = f["name"].rsplit(".", 1)[0]
    new_name = f"{stem}_{new}.{ext}"
    query = g.say(
        "rename {name} to {new_name}",
        "change the name of {name} in Documents to {new_name}",
        "call the file {name} {new_name} instead",
        name=f["name"],
        new_name=new_name,
    )
    return Draft(
        query=query,
        gold=[
            act("list_files", folder_path="/Documents", query=stem.split("_")[0]),
            act("move_file", file_id=f["file_id"], destination_path="/Documents", new_name=new_name),
            done(f"Renamed to {new_name}."),
        ],
        bucket="state_change",
        check={
            "update": {
                "files": [{"match": {"file_id": f["file_id"]}, "set": {"name": new_name, "folder": "/Documents"}}]
            }
        },
    )


@family("basic", "4.4", pattern="friction", friction="permission_denied")
def trash_after_storage_permission(g: Gen) -> Draft:
    f = live_file(g, g.pick(("/Downloads", "/Documents")))
    stem = f["name"].rsplit(".", 1)[0]
    query = g.say("delete {name}", "move {name} to the trash", "throw away the file {name}", name=f["name"])
    word = stem.split()[0].split("_")[0]
    return Draft(
        query=query,
        gold=[
            act("list_files", folder_path=f["folder"], query=word),
            act("grant_app_permission", app_id="files", permission="STORAGE"),
            act("list_files", folder_path=f["folder"], query=word),
            act("delete_files", file_ids=[f["file_id"]]),
            done(f"{f['name']} is in the trash."),
        ],
        bucket="state_change",
        check={
            "update": {
                "files": [{"match": {"file_id": f["file_id"]}, "set": {"deleted_at": ANY}}],
                **perm_update("files", "STORAGE", "granted"),
            }
        },
        patches={"update": perm_update("files", "STORAGE", "not_requested")},
        recovers=(ErrorType.PERMISSION_DENIED,),
    )


# ---- 4.5 Cloud Backup & Sync -----------------------------------------------------------------------------

CATEGORY_WORDS = {
    "contacts": "contacts",
    "messages": "messages",
    "calendar": "calendar",
    "photos": "photos",
    "files": "documents",
}


@family("basic", "4.5", pattern="single_call")
def back_up_now(g: Gen) -> Draft:
    cats = sorted(g.rng.sample(sorted(CATEGORY_WORDS), g.rng.randint(1, 3)))
    words = [CATEGORY_WORDS[c] for c in cats]
    said = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
    cloud = g.one("cloud_account")
    query = g.say(
        "back up my {said} to the cloud",
        "make a cloud backup of my {said} now",
        "save a backup of my {said}",
        said=said,
    )
    return Draft(
        query=query,
        gold=[act("backup_data", categories=cats), done(f"Backed up your {said}.")],
        bucket="state_change",
        check={
            "insert": {"backups": [{"categories_json": {"$json": {"$set": cats}}, "status": "completed"}]},
            "update": {
                "cloud_account": [
                    {
                        "match": {"cloud_id": cloud["cloud_id"]},
                        "set": {"used_gb": {"$range": [cloud["used_gb"], cloud["quota_gb"]]}},
                    }
                ]
            },
        },
    )


@family("basic", "4.5", pattern="cross_app")
def wifi_then_backup(g: Gen) -> Draft:
    """Settings and Cloud: the backup runs on Wi-Fi only, so Wi-Fi comes on first as the user asks."""
    cats = sorted(g.rng.sample(sorted(CATEGORY_WORDS), g.rng.randint(1, 2)))
    said = " and ".join(CATEGORY_WORDS[c] for c in cats)
    cloud = g.one("cloud_account")
    query = g.say(
        "I'm home now: turn the Wi-Fi back on and back up my {said}",
        "switch Wi-Fi on, then run a cloud backup of my {said}",
        "reconnect to Wi-Fi and save my {said} to the cloud",
        said=said,
    )
    return Draft(
        query=query,
        gold=[act("set_wifi", enabled=True), act("backup_data", categories=cats), done(f"Backed up your {said}.")],
        bucket="state_change",
        check={
            "insert": {"backups": [{"categories_json": {"$json": {"$set": cats}}, "status": "completed"}]},
            "update": {
                "cloud_account": [
                    {
                        "match": {"cloud_id": cloud["cloud_id"]},
                        "set": {"used_gb": {"$range": [cloud["used_gb"], cloud["quota_gb"]]}},
                    }
                ],
                "device_settings": [{"match": {"key": "wifi"}, "set": {"value": "1"}}],
            },
        },
        patches={"update": {"device_settings": [{"match": {"key": "wifi"}, "set": {"value": "0"}}]}},
    )


@family("basic", "4.5", pattern="friction", friction="confirmation_required")
def restore_from_backup(g: Gen) -> Draft:
    b = g.one("backups", {"status": "completed"})
    cats = [c for c in json.loads(b["categories_json"]) if c in ("contacts", "messages", "calendar")]
    cat = g.pick(cats)
    day = b["completed_at"][:10]
    query = g.say(
        "restore my {cat} from the backup {bid} (made on {day})",
        "bring back my {cat} from backup {bid}",
        "use backup {bid} from {day} to restore the {cat}",
        cat=cat,
        bid=b["backup_id"],
        day=day,
    )
    return Draft(
        query=query,
        gold=[
            act("restore_backup", backup_id=b["backup_id"], categories=[cat]),
            act(
                "ask_user",
                question=f"Restoring overwrites the {cat} on your phone with the {day} backup. Go ahead?",
                kind="confirm",
            ),
            act("restore_backup", backup_id=b["backup_id"], categories=[cat], confirm=True),
            done(f"Restored your {cat} from {day}."),
        ],
        bucket="state_change",
        check={"update": {"backups": [{"match": {"backup_id": b["backup_id"]}, "set": {"restored_at": ANY}}]}},
        script=[
            {
                "answer": "Yes, overwrite them.",
                "kind": "confirm",
                "keywords": ["overwrite", "restore", "go ahead", "sure"],
            }
        ],
        recovers=(ErrorType.CONFIRMATION_REQUIRED,),
    )


# ---- 4.6 Passwords & Accounts ----------------------------------------------------------------------------

NEW_SITES = (
    "etsy.com",
    "notion.so",
    "duolingo.com",
    "strava.com",
    "figma.com",
    "canva.com",
    "twitch.tv",
    "pinterest.com",
    "medium.com",
    "trello.com",
    "kayak.com",
    "ikea.com",
)
USERS = ("me@example.com", "traveler88", "quietfox", "m.hunter", "daily.runner", "pixel_pete")


@family("basic", "4.6", pattern="single_call")
def save_new_login(g: Gen) -> Draft:
    site, user = g.pick(NEW_SITES), g.pick(USERS)
    if g.rows("credentials", {"site": site}):
        raise BuildError(f"{site} already saved")
    secret = f"{g.pick(('Blue', 'Tiger', 'Lemon', 'River'))}{g.rng.randint(100, 999)}!{g.pick(('x', 'Q', 'z'))}"
    query = g.say(
        "save my {site} login: username {user}, password {pw}",
        "remember the password {pw} for {user} on {site}",
        "store my {site} account ({user}) with password {pw} in the vault",
        site=site,
        user=user,
        pw=secret,
    )
    return Draft(
        query=query,
        gold=[act("save_password", site=site, username=user, password=secret), done(f"Saved your {site} login.")],
        bucket="state_change",
        check={"insert": {"credentials": [{"site": site, "username": user, "password_hash": password_digest(secret)}]}},
    )


@family("basic", "4.6", pattern="lookup_then_act")
def strengthen_weak_password(g: Gen) -> Draft:
    cred = g.one("credentials", {"strength": "weak"})
    site = cred["site"]
    query = g.say(
        "my {site} password is weak; generate a strong one and save it",
        "replace the weak password for {site} with a generated strong one",
        "make a new secure password for my {site} login",
        site=site,
    )
    return Draft(
        query=query,
        gold=[
            act("search_passwords", site=site.split(".")[0]),
            act("save_password", site=site, username=cred["username"], generate=True, overwrite=True),
            done(f"Saved a new strong password for {site}."),
        ],
        bucket="state_change",
        check={
            "update": {
                "credentials": [
                    {
                        "match": {"credential_id": cred["credential_id"]},
                        "set": {"strength": "strong", "password_hash": ANY, "breached": 0},
                    }
                ]
            }
        },
    )


REPORT_QUESTIONS = {
    "breached": (
        "which of my passwords showed up in a data breach?",
        "have any of my saved logins been leaked?",
        "check my passwords for breaches",
    ),
    "weak": ("which of my passwords are weak?", "list my weak passwords", "do I have any weak saved passwords?"),
    "reused": (
        "which passwords am I reusing on several sites?",
        "find my reused passwords",
        "show logins that share the same password",
    ),
}


def site_names(site: str, name: str | None) -> list[str]:
    """The names a person gives a saved site: its domain, the domain's stem where it is a word ("amazon"),
    and the site's name in the vault with each of its parts ("X (Twitter)": also "Twitter")."""
    stem = site.split(".")[-2]
    parts = [p.strip() for p in re.split(r"[()/]", name or "") if len(p.strip()) > 2]
    names = [site, *([stem] if len(stem) > 2 else []), *([name] if name else []), *parts]
    unique: dict[str, str] = {}
    for n in names:
        unique.setdefault(facts.fold(n), n)  # "amazon" and "Amazon" are one name
    return list(unique.values())


@family("basic", "4.6", pattern="single_call")
def password_health_report(g: Gen) -> Draft:
    report = g.pick(sorted(REPORT_QUESTIONS))
    creds = g.rows("credentials")
    hashes = [c["password_hash"] for c in creds]
    problem = {
        "weak": lambda c: c["strength"] == "weak",
        "breached": lambda c: bool(c["breached"]),
        "reused": lambda c: hashes.count(c["password_hash"]) > 1,
    }[report]
    found = {c["site"]: c for c in creds if problem(c)}
    sites = sorted(found)
    said = f"Your {report} passwords are for {', '.join(sites)}." if sites else f"You have no {report} passwords."
    # each site named as saved ("amazon.com") or by its name in the vault ("X (Twitter)", "Twitter", "Amazon")
    answer: list[dict[str, Any]] = [
        {"$any": [{"$name": n} for n in site_names(site, found[site]["name"])]} for site in sites
    ] or [{"$none": True}]
    return Draft(
        query=g.say(*REPORT_QUESTIONS[report]),
        gold=[act("search_passwords", report=report), done(said)],
        bucket="tool_call",
        check={"calls": [{"tool": "search_passwords", "args": {"report": report}}]},
        answer=answer,
    )


# ---- 4.7 Privacy & Device Security ----------------------------------------------------------------------

METHOD_WORDS = {
    "authenticator": ("an authenticator app", "authenticator codes"),
    "security_key": ("my security key", "a hardware security key"),
    "sms": ("text message codes", "SMS codes"),
}


@family("basic", "4.7", pattern="single_call")
def turn_on_two_factor(g: Gen) -> Draft:
    services = [r["service"] for r in g.rows("accounts")]
    acc = g.one("accounts", filter=lambda r: r["two_factor_method"] is None and services.count(r["service"]) == 1)
    methods = ["authenticator", "security_key"] + (["sms"] if acc["recovery_phone"] else [])
    method = g.pick(methods)
    said = g.pick(METHOD_WORDS[method])
    query = g.say(
        "turn on 2-step verification for my {svc} account using {said}",
        "secure my {svc} account with two-factor, {said}",
        "enable 2FA on {svc} with {said}",
        svc=acc["service"],
        said=said,
    )
    return Draft(
        query=query,
        gold=[
            act("enable_two_factor", account_id=acc["service"], method=method),
            done(f"2-step verification is on for {acc['service']}."),
        ],
        bucket="state_change",
        check={
            "update": {"accounts": [{"match": {"account_id": acc["account_id"]}, "set": {"two_factor_method": method}}]}
        },
    )


@family("basic", "4.7", pattern="friction", friction="missing_argument")
def two_factor_needs_phone(g: Gen) -> Draft:
    services = [r["service"] for r in g.rows("accounts")]
    acc = g.one(
        "accounts",
        filter=lambda r: (
            r["two_factor_method"] is None and not r["recovery_phone"] and services.count(r["service"]) == 1
        ),
    )
    number = f"+1 415 555 {g.rng.randint(1000, 9999)}"
    query = g.say(
        "set up text-message 2-step verification for {svc}",
        "I want SMS codes when I log in to {svc}",
        "protect my {svc} account with two-factor by text",
        svc=acc["service"],
    )
    return Draft(
        query=query,
        gold=[
            act("enable_two_factor", account_id=acc["service"], method="sms"),
            act("ask_user", question=f"Which phone number should get the {acc['service']} codes?", slot="phone_number"),
            act("enable_two_factor", account_id=acc["service"], method="sms", phone_number=number),
            done(f"SMS 2-step verification is on for {acc['service']}."),
        ],
        bucket="state_change",
        check={
            "update": {
                "accounts": [
                    {
                        "match": {"account_id": acc["account_id"]},
                        "set": {"two_factor_method": "sms", "recovery_phone": {"$phone": number}},
                    }
                ]
            }
        },
        script=[{"answer": f"Use {number}.", "slot": "phone_number", "keywords": ["number", "phone"]}],
        recovers=(ErrorType.MISSING_REQUIRED_ARGUMENT,),
    )


@family("basic", "4.7", pattern="single_call")
def find_my_device_action(g: Gen) -> Draft:
    dev = g.one("linked_devices", {"online": 1, "locked": 0})
    name = dev["name"]
    action = g.pick(("ring", "lock", "lock"))
    if action == "ring":
        query = g.say(
            "make my {name} play a sound, I can't find it",
            "ring {name} so I can find it",
            "where did I leave {name}? Make it ring",
            name=name,
        )
        check = {
            "update": {"linked_devices": [{"match": {"device_id": dev["device_id"]}, "set": {"last_rung_at": ANY}}]}
        }
        gold = [act("find_my_device", device_id=name, action="ring")]
    else:
        msg = g.pick(("If found, please call me", "Lost device, reward if returned", "Please return to the owner"))
        query = g.say(
            'lock {name} remotely and show "{msg}"',
            "remote-lock {name} with the message: {msg}",
            'I lost {name}; lock it and display "{msg}"',
            name=name,
            msg=msg,
        )
        check = {
            "update": {
                "linked_devices": [
                    {
                        "match": {"device_id": dev["device_id"]},
                        "set": {"locked": 1, "lock_message": {"$contains": msg.split(",")[0]}},
                    }
                ]
            }
        }
        gold = [act("find_my_device", device_id=name, action="lock", message=msg)]
    return Draft(query=query, gold=[*gold, done("Done.")], bucket="state_change", check=check)


@family("basic", "4.7", pattern="friction", friction="confirmation_required")
def erase_lost_device(g: Gen) -> Draft:
    dev = g.one("linked_devices", {"online": 1})
    name = dev["name"]
    query = g.say(
        "my {name} was stolen; wipe it",
        "erase everything on {name} remotely",
        "factory-reset {name} from here, it's gone",
        name=name,
    )
    return Draft(
        query=query,
        gold=[
            act("find_my_device", device_id=name, action="erase"),
            act("ask_user", question=f"Erasing {name} deletes everything on it for good. Erase it?", kind="confirm"),
            act("find_my_device", device_id=name, action="erase", confirm=True),
            done(f"{name} is being erased."),
        ],
        bucket="state_change",
        check={
            "update": {
                "linked_devices": [
                    {
                        "match": {"device_id": dev["device_id"]},
                        "set": {"erased": 1, "locked": 1, "online": 0, "last_seen_at": ANY},
                    }
                ]
            }
        },
        script=[{"answer": "Yes, erase it.", "kind": "confirm", "keywords": ["erase", "wipe", "delete", "sure"]}],
        recovers=(ErrorType.CONFIRMATION_REQUIRED,),
    )


# ---- 4.8 Storage & Cleanup ----------------------------------------------------------------------------


@family("basic", "4.8", pattern="single_call")
def clear_one_cache(g: Gen) -> Draft:
    inst = {r["app_id"] for r in g.rows("apps") if r["installed"] == 1}
    row = g.one(
        "app_installs", filter=lambda r: r["app_id"] in inst and r["cache_mb"] > 0 and r["app_id"] not in SKIP_APPS
    )
    name = app_name(g, row["app_id"])
    query = g.say(
        "clear the cache of {name}", "empty {name}'s cache", "wipe the cached data of {name}, keep my login", name=name
    )
    return Draft(
        query=query,
        gold=[act("clear_app_cache", app_id=row["app_id"]), done(f"Cleared {name}'s cache.")],
        bucket="state_change",
        check={
            "update": {
                "app_installs": [{"match": {"app_id": row["app_id"]}, "set": {"cache_mb": 0}}],
                **storage_if(g, row["cache_mb"]),
            }
        },
    )


@family("basic", "4.8", pattern="lookup_then_act")
def free_space_biggest_cache(g: Gen) -> Draft:
    inst = {r["app_id"] for r in g.rows("apps") if r["installed"] == 1}
    caches = sorted(
        (r for r in g.rows("app_installs") if r["app_id"] in inst), key=lambda r: (-r["cache_mb"], r["app_id"])
    )
    top = caches[0]
    query = g.say(
        *(
            "my phone is almost full; clear the cache of whichever app has the biggest one",
            "find the app with the largest cache and clear it",
            "check storage and empty the biggest app cache",
            "which app wastes the most space on cache? Clear that one",
            "free up some storage by clearing the single largest app cache",
            "look at my storage and wipe the cache of the worst app",
            "clean up the top cache hog among my apps",
            "see what's eating storage and clear the largest app cache",
        )
    )
    return Draft(
        query=query,
        gold=[
            act("get_storage_usage"),
            act("clear_app_cache", app_id=top["app_id"]),
            done(f"Cleared {top['app_id']}'s cache ({top['cache_mb']:.0f} MB)."),
        ],
        bucket="state_change",
        check={"update": {"app_installs": [{"match": {"app_id": top["app_id"]}, "set": {"cache_mb": 0}}], **STORAGE}},
    )


@family("basic", "4.8", pattern="friction", friction="confirmation_required")
def empty_trash(g: Gen) -> Draft:
    trashed = [r for r in g.rows("files") if r["deleted_at"] is not None]
    if not trashed:
        raise BuildError("the trash is empty")
    pick = g.rng.random() < 0.5
    chosen = [g.pick(trashed)] if pick else trashed
    ids = sorted(r["file_id"] for r in chosen)
    if pick:
        query = g.say(
            "permanently delete {name} from the trash",
            "erase {name} in the trash for good",
            "remove {name} from the trash forever",
            name=chosen[0]["name"],
        )
    else:
        query = g.say(
            "empty the trash",
            "permanently delete everything in the trash to free space",
            "clear out the file trash for good",
        )
    return Draft(
        query=query,
        gold=[
            act("list_files", in_trash=True),
            act("delete_files", file_ids=ids, permanent=True),
            act("ask_user", question=f"Permanently delete {len(ids)} file(s)? This can't be undone.", kind="confirm"),
            act("delete_files", file_ids=ids, permanent=True, confirm=True),
            done("Deleted for good."),
        ],
        bucket="state_change",
        check={
            "delete": {"files": [{"file_id": i} for i in ids]},
            "update": storage_if(g, sum(r["size_mb"] for r in chosen)),
        },
        script=[
            {
                "answer": "Yes, delete them permanently.",
                "kind": "confirm",
                "keywords": ["delete", "permanent", "sure", "undone"],
            }
        ],
        recovers=(ErrorType.CONFIRMATION_REQUIRED,),
    )


STORAGE_QUESTIONS = {
    "how much free storage do I have?": "free",
    "what's using up my phone's storage?": "apps",
    "show me my storage breakdown": "apps",
    "which apps take the most space?": "apps",
    "how full is my phone?": "free",
    "how much space is in the trash?": "trash",
    "is my storage running low?": "free",
}


@family("basic", "4.8", pattern="single_call")
def storage_question(g: Gen) -> Draft:
    """The answer states what was asked: the free space, the biggest apps (with the free space) or the trash."""
    question = g.pick(sorted(STORAGE_QUESTIONS))
    free_gb = float(g.setting("storage_free_gb") or 0)
    said = f"You have {free_gb} GB free."
    used_gb = round(STORAGE_TOTAL_GB - free_gb, 2)  # "how full" may be answered with the space used
    answer: list[Any] = [
        {"$any": [{"$number": {"value": free_gb, "tolerance": 0.5}}, {"$number": {"value": used_gb, "tolerance": 0.5}}]}
    ]
    if STORAGE_QUESTIONS[question] == "trash":
        trash_mb = sum(r["size_mb"] for r in g.rows("files") if r["deleted_at"] is not None)
        said = f"The trash holds {trash_mb:.1f} MB." if trash_mb else "The trash is empty."
        answer = (
            [{"$any": [{"$number": round(trash_mb, 1)}, {"$number": round(trash_mb / 1024, 2)}]}]
            if trash_mb
            else [{"$none": True}]
        )
    elif STORAGE_QUESTIONS[question] == "apps":
        sizes = {i["app_id"]: i["app_mb"] + i["data_mb"] + i["cache_mb"] for i in g.rows("app_installs")}
        biggest = sorted(
            (a for a in g.rows("apps") if a["installed"] == 1 and a["app_id"] in sizes),
            key=lambda a: (-sizes[a["app_id"]], a["app_id"]),
        )[:3]
        said = (
            "The biggest apps are "
            + ", ".join(f"{a['name']} ({sizes[a['app_id']]:.0f} MB)" for a in biggest)
            + f". {said}"
        )
        answer = [{"$name": a["name"]} for a in biggest]  # the sizes may be said in MB or GB
    return Draft(
        query=g.say(question),
        gold=[act("get_storage_usage"), done(said)],
        bucket="tool_call",
        check={"calls": [{"tool": "get_storage_usage"}]},
        answer=answer,
    )
