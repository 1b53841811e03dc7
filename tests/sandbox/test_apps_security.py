"""D4 Apps, Data & Security against the wang_lei world (now = 2025-06-13T09:00, free storage 41.5 GB).

Every tool has a success test asserting its payload and state diff, and every declared ErrorType has a
case that fails with exactly that error, changes nothing and adds one log row. Hostile file paths are
refused before any tool body runs.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import Executable, delete, select, update

from sandbox.db import open_database, transaction
from sandbox.domains.apps_security import tools as apps_security
from sandbox.domains.apps_security.schema import (
    accounts,
    app_installs,
    backups,
    cloud_account,
    credentials,
    files,
    folders,
    linked_devices,
    world_store_apps,
)
from sandbox.domains.common import payment_methods
from sandbox.errors import ErrorType
from sandbox.executor import Executor
from sandbox.schema import app_permissions, apps, device_settings
from sandbox.tooling import REGISTRY
from sandbox.world import build_world, world_image
from tests.sandbox.conftest import diff, diff_of, fails, ok, prepare, query

D4_TOOLS = sorted(n for n, s in REGISTRY.items() if s.fn.__module__ == apps_security.__name__)
CATALOG_D4 = {  # catalog section 4, D4: tool -> L2
    "search_app_store": "4.1",
    "install_app": "4.1",
    "uninstall_app": "4.1",
    "get_app_permissions": "4.2",
    "grant_app_permission": "4.2",
    "revoke_app_permission": "4.2",
    "set_app_notifications": "4.3",
    "list_files": "4.4",
    "create_folder": "4.4",
    "move_file": "4.4",
    "delete_files": "4.4",
    "backup_data": "4.5",
    "restore_backup": "4.5",
    "save_password": "4.6",
    "search_passwords": "4.6",
    "enable_two_factor": "4.7",
    "find_my_device": "4.7",
    "get_storage_usage": "4.8",
    "clear_app_cache": "4.8",
}
FREE_GB = 41.5


# ---- helpers ----------------------------------------------------------------------------------


def setting(key: str, value: str) -> Executable:
    return update(device_settings).where(device_settings.c.key == key).values(value=value)


def free_after(ex: Executor) -> float:
    [row] = [u["after"] for u in diff(ex)["device_settings"]["updated"] if u["after"]["key"] == "storage_free_gb"]
    return float(row["value"])


def updated(ex: Executor, table: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    return [(u["before"], u["after"]) for u in diff(ex)[table]["updated"]]


# ---- declarations and the world ---------------------------------------------------------------


def test_declarations() -> None:
    assert {n: REGISTRY[n].l2 for n in D4_TOOLS} == CATALOG_D4
    assert {n for n in D4_TOOLS if not REGISTRY[n].mutating} == {
        "search_app_store",
        "get_app_permissions",
        "list_files",
        "search_passwords",
        "get_storage_usage",
    }
    assert {n for n in D4_TOOLS if REGISTRY[n].app == "files"} == {
        "list_files",
        "create_folder",
        "move_file",
        "delete_files",
    }
    assert all(REGISTRY[n].permissions == (("STORAGE",) if REGISTRY[n].app == "files" else ()) for n in D4_TOOLS)
    assert {n for n in D4_TOOLS if REGISTRY[n].needs_login} == {
        "backup_data",
        "restore_backup",
        "save_password",
        "search_passwords",
        "enable_two_factor",
    }
    assert len(REGISTRY["grant_app_permission"].parameters["properties"]["permission"]["enum"]) == 13
    for name in D4_TOOLS:
        assert all(arg["description"] for arg in REGISTRY[name].parameters["properties"].values()), name


def test_world_is_deterministic_and_seeded_as_promised() -> None:
    assert build_world("maya_patel") == world_image("maya_patel")
    conn = open_database(world_image("wang_lei"))
    try:
        with transaction(conn):
            every = [dict(r._mapping) for r in conn.execute(select(files))]
            assert 90 <= len(every) <= 130
            tops = {f["folder"].split("/")[1] for f in every}
            assert tops == {"Documents", "Downloads", "Pictures", "Music"}
            assert 3 <= sum(1 for f in every if f["deleted_at"]) <= 10
            folder_rows = set(conn.execute(select(folders.c.path)).scalars())
            assert {f["folder"] for f in every} <= folder_rows and "/" in folder_rows
            creds = [dict(r._mapping) for r in conn.execute(select(credentials))]
            hashes = [c["password_hash"] for c in creds]
            assert len(creds) >= 20 and len(set(hashes)) < len(hashes)  # some reused
            assert {"weak", "medium", "strong"} == {c["strength"] for c in creds}
            assert any(c["breached"] for c in creds)
            assert len(conn.execute(select(accounts)).all()) >= 10
            assert {r.online for r in conn.execute(select(linked_devices))} == {0, 1}
            statuses = set(conn.execute(select(backups.c.status)).scalars())
            assert statuses == {"completed", "failed"}
            store = set(conn.execute(select(world_store_apps.c.app_id)).scalars())
            phone_apps = set(conn.execute(select(apps.c.app_id)).scalars())
            assert phone_apps < store and len(store - phone_apps) >= 10  # store-only apps exist
            assert set(conn.execute(select(app_installs.c.app_id)).scalars()) == phone_apps
            [cloud] = conn.execute(select(cloud_account)).all()
            done = conn.execute(select(backups.c.size_gb).where(backups.c.status == "completed")).scalars()
            assert sum(done) <= cloud.used_gb < cloud.quota_gb
    finally:
        conn.close()


# ---- 4.1 App Installation & Removal -----------------------------------------------------------


def test_search_app_store(ex: Executor) -> None:
    prepare(ex.conn, update(app_installs).where(app_installs.c.app_id == "quickscan").values(version="0.0.1"))
    out = ok(ex, "search_app_store", {"query": "scan"})
    hits = {a["app_id"]: a for a in out["apps"]}
    assert {"quickscan", "cam_scanner_pro"} <= set(hits)
    assert hits["quickscan"]["installed"] and hits["quickscan"]["update_available"]
    assert hits["quickscan"]["installed_version"] == "0.0.1"
    assert not hits["cam_scanner_pro"]["installed"] and hits["cam_scanner_pro"]["price"] == 5.99
    ratings = [a["rating"] for a in out["apps"]]
    assert ratings == sorted(ratings, reverse=True)
    free = ok(ex, "search_app_store", {"query": "scan", "free_only": True, "category": "productivity"})
    assert "cam_scanner_pro" not in {a["app_id"] for a in free["apps"]}
    assert {a["category"] for a in free["apps"]} == {"Productivity"}
    assert diff(ex) == {}


def test_search_app_store_lists_the_installed_apps_ids(ex: Executor) -> None:
    """The ids app tools and the GUI agent take are found by listing the installed apps, also narrowed by words."""
    every = ok(ex, "search_app_store", {"installed_only": True, "limit": 100})["apps"]
    installed = {r["app_id"] for r in query(ex, select(apps.c.app_id).where(apps.c.installed == 1))}
    assert {a["app_id"] for a in every} == installed and all(a["installed"] for a in every)
    assert "shmuseum" in installed and "cam_scanner_pro" not in installed
    museums = ok(ex, "search_app_store", {"query": "museum", "installed_only": True})["apps"]
    assert "shmuseum" in {a["app_id"] for a in museums} and all(a["installed"] for a in museums)
    fails(ex, "search_app_store", {"category": "Games"}, ErrorType.INVALID_ARGUMENT_VALUE)
    assert diff(ex) == {}


def test_install_free_app(ex: Executor) -> None:
    out = ok(ex, "install_app", {"app_id": "zen_meditate"})
    assert (out["action"], out["charged"], out["previous_version"]) == ("installed", 0.0, None)
    d = diff(ex)
    assert set(d) == {"apps", "app_installs", "device_settings"}
    assert d["apps"]["inserted"] == [
        {"app_id": "zen_meditate", "name": "Zen Meditation", "installed": 1, "logged_in": 0, "notifications_enabled": 1}
    ]
    [row] = d["app_installs"]["inserted"]
    assert (row["version"], row["app_mb"], row["data_mb"], row["cache_mb"], row["is_system"]) == (
        out["version"],
        120.0,
        0.0,
        0.0,
        0,
    )
    assert free_after(ex) == out["storage_free_gb"] == round(FREE_GB - 120 / 1024, 2)


def test_install_app_updates_an_old_version(ex: Executor) -> None:
    prepare(ex.conn, update(app_installs).where(app_installs.c.app_id == "chat").values(version="0.0.1"))
    out = ok(ex, "install_app", {"app_id": "chat"})
    assert (out["action"], out["previous_version"]) == ("updated", "0.0.1")
    d = diff(ex)
    assert set(d) == {"app_installs"}  # same size: storage unchanged, data and cache kept
    [(before, after)] = updated(ex, "app_installs")
    assert {k for k in after if after[k] != before[k]} == {"version", "updated_at"}


def test_install_paid_app_charges_once(ex: Executor) -> None:
    out = ok(ex, "install_app", {"app_id": "budget_buddy", "confirm": True})
    assert out["charged"] == 2.99 and out["txn_id"]
    [txn] = diff(ex)["transactions"]["inserted"]
    assert (txn["amount"], txn["ref_id"], txn["category"], txn["method_id"]) == (
        -2.99,
        "budget_buddy",
        "apps",
        "pm_002",
    )
    ok(ex, "uninstall_app", {"app_id": "budget_buddy", "confirm": True})
    again = ok(ex, "install_app", {"app_id": "budget_buddy"})  # owned: free, no confirmation
    assert again["charged"] == 0.0 and len(diff(ex)["transactions"]["inserted"]) == 1


def test_uninstall_app(ex: Executor) -> None:
    prepare(
        ex.conn,
        update(app_permissions)
        .where(app_permissions.c.app_id == "shortvid", app_permissions.c.permission == "LOCATION")
        .values(state="policy_blocked"),
    )
    out = ok(ex, "uninstall_app", {"app_id": "shortvid", "confirm": True})
    assert out["freed_mb"] == 310 + 420 + 1850 and out["kept_data_mb"] == 0.0
    d = diff(ex)
    [(_before, after)] = updated(ex, "apps")
    assert (after["installed"], after["logged_in"]) == (0, 0)
    [(_, inst)] = updated(ex, "app_installs")
    assert (inst["version"], inst["app_mb"], inst["data_mb"], inst["cache_mb"]) == (None, 0.0, 0.0, 0.0)
    assert {r["permission"] for r in d["app_permissions"]["deleted"]} == {
        "CAMERA",
        "MICROPHONE",
        "CONTACTS",
        "NOTIFICATIONS",
    }
    assert free_after(ex) == round(FREE_GB + 2580 / 1024, 2)


def test_uninstall_app_keeping_data_then_reinstall(ex: Executor) -> None:
    out = ok(ex, "uninstall_app", {"app_id": "taxi_express", "keep_data": True, "confirm": True})
    assert out["kept_data_mb"] > 0
    ok(ex, "install_app", {"app_id": "taxi_express"})
    [(before, after)] = updated(ex, "app_installs")
    assert after["data_mb"] == before["data_mb"] and after["cache_mb"] == 0.0
    assert ok(ex, "get_app_permissions", {"app_id": "taxi_express"})["permissions"] == {}  # start not requested
    assert [a["logged_in"] for _, a in updated(ex, "apps")] == [0]


# ---- 4.2 App Permissions ----------------------------------------------------------------------


def perm(app_id: str, permission: str, state: str) -> Executable:
    return (
        update(app_permissions)
        .where(app_permissions.c.app_id == app_id, app_permissions.c.permission == permission)
        .values(state=state)
    )


def test_get_app_permissions(ex: Executor) -> None:
    assert ok(ex, "get_app_permissions", {"app_id": "contacts"}) == {
        "app_id": "contacts",
        "permissions": {"CONTACTS": "granted"},
    }
    prepare(ex.conn, update(apps).where(apps.c.app_id == "pixelcraft").values(installed=0))
    out = ok(ex, "get_app_permissions", {"permission": "LOCATION"})
    assert out["permission"] == "LOCATION"
    assert {"kingdom_clash": "granted", "shortvid": "denied", "taxi_express": "granted"}.items() <= out["apps"].items()
    assert "pixelcraft" not in out["apps"]  # not installed
    assert diff(ex) == {}


@pytest.mark.parametrize("before", ["not_requested", "denied"])
def test_grant_app_permission(ex: Executor, before: str) -> None:
    prepare(ex.conn, perm("contacts", "CONTACTS", before))
    payload = ok(ex, "grant_app_permission", {"app_id": "contacts", "permission": "CONTACTS", "confirm": True})
    assert payload == {"app_id": "contacts", "permission": "CONTACTS", "state": "granted", "previous": before}
    [(_, after)] = updated(ex, "app_permissions")
    assert after["state"] == "granted"


def test_grant_app_permission_never_requested_inserts_the_row(ex: Executor) -> None:
    ok(ex, "grant_app_permission", {"app_id": "clock", "permission": "HEALTH"})
    d = diff(ex)
    assert set(d) == {"app_permissions"}
    assert d["app_permissions"]["inserted"] == [{"app_id": "clock", "permission": "HEALTH", "state": "granted"}]


def test_revoke_app_permission(ex: Executor) -> None:
    ok(ex, "revoke_app_permission", {"app_id": "messages", "permission": "SMS"})
    assert [a["state"] for _, a in updated(ex, "app_permissions")] == ["denied"]
    assert set(diff(ex)) == {"app_permissions"}


def test_revoke_then_grant_again_in_one_episode(ex: Executor) -> None:
    ok(ex, "revoke_app_permission", {"app_id": "messages", "permission": "SMS"})
    ok(ex, "grant_app_permission", {"app_id": "messages", "permission": "SMS", "confirm": True})
    assert diff(ex) == {} and ex.internal_errors == []


def test_grant_policy_blocked_reason(ex: Executor) -> None:
    prepare(ex.conn, perm("contacts", "CONTACTS", "policy_blocked"))
    env = ex.call("grant_app_permission", {"app_id": "contacts", "permission": "CONTACTS"})
    assert env["Payload"]["reason"] == "policy"


def test_permission_gate_opens_after_grant(ex: Executor) -> None:
    prepare(ex.conn, perm("contacts", "CONTACTS", "not_requested"))
    new = {"name": "Nora Quinn", "phone_number": "+86 139 1234 5678"}
    env = ex.call("add_contact", new)
    assert env["ErrorType"] == "PermissionDenied"
    assert env["Payload"]["app_id"] == "contacts" and env["Payload"]["permission"] == "CONTACTS"
    assert env["Payload"]["reason"] == "app_permission"
    assert diff_of(ex.conn) == {}
    ex.step = 2
    ok(ex, "grant_app_permission", {"app_id": "contacts", "permission": "CONTACTS"})
    assert ok(ex, "add_contact", new)["name"] == "Nora Quinn"


# ---- 4.3 Notification Management --------------------------------------------------------------


def test_set_app_notifications_for_the_whole_app(ex: Executor) -> None:
    out = ok(ex, "set_app_notifications", {"app_id": "chat", "enabled": False})
    assert out["notifications_enabled"] is False and out["channels"]["Moments"] is False
    assert set(diff(ex)) == {"apps"}
    [(_, after)] = updated(ex, "apps")
    assert (after["app_id"], after["notifications_enabled"]) == ("chat", 0)


def test_set_app_notifications_for_one_channel(ex: Executor) -> None:
    out = ok(ex, "set_app_notifications", {"app_id": "shop", "enabled": False, "channels": ["promotions"]})
    assert out["changed_channels"] == ["Promotions"] and out["notifications_enabled"] is True
    assert set(diff(ex)) == {"notification_channels"}
    [(_, after)] = updated(ex, "notification_channels")
    assert (after["app_id"], after["channel"], after["enabled"]) == ("shop", "Promotions", 0)


def test_enabling_a_channel_unmutes_the_app(ex: Executor) -> None:
    out = ok(ex, "set_app_notifications", {"app_id": "kingdom_clash", "enabled": True, "channels": ["Events"]})
    assert out["changed_channels"] == [] and out["notifications_enabled"] is True
    assert set(diff(ex)) == {"apps"}


# ---- 4.4 Files & Folders ----------------------------------------------------------------------


def test_list_files_in_a_folder(ex: Executor) -> None:
    out = ok(ex, "list_files", {"folder_path": "documents/WORK"})
    assert out["folder"] == "/Documents/Work" and out["subfolders"] == []
    assert out["count"] == 8 and {f["folder"] for f in out["files"]} == {"/Documents/Work"}
    stamps = [f["modified_at"] for f in out["files"]]
    assert stamps == sorted(stamps, reverse=True)
    root = ok(ex, "list_files", {"recursive": False})
    assert root["subfolders"] == ["/Documents", "/Downloads", "/Music", "/Pictures"] and root["files"] == []
    assert diff(ex) == {}


def test_list_files_filters(ex: Executor) -> None:
    invoices = ok(ex, "list_files", {"query": "invoice"})
    assert "invoice_INV-2025-0412.pdf" in {f["name"] for f in invoices["files"]}
    assert any("INV-2025-0412" in f.get("preview", "") for f in invoices["files"])
    # a scan is an image: its text is for the screen reader, neither searched nor previewed
    assert "scan_0001.pdf" not in {f["name"] for f in invoices["files"]}
    downloads = ok(ex, "list_files", {"folder_path": "/Downloads", "recursive": False, "limit": 100})
    (scan,) = [f for f in downloads["files"] if f["name"] == "scan_0001.pdf"]
    assert scan["app"] == "quickscan" and "preview" not in scan
    videos = ok(ex, "list_files", {"folder_path": "/Pictures", "file_type": "video", "min_size_mb": 500})
    assert videos["count"] >= 1 and all(f["size_mb"] >= 500 and f["name"].startswith("VID_") for f in videos["files"])
    recent = ok(ex, "list_files", {"modified_after": "2025-06-01", "limit": 100})
    assert recent["files"] and all(f["modified_at"] >= "2025-06-01" for f in recent["files"])
    trash = ok(ex, "list_files", {"in_trash": True})
    assert trash["count"] >= 3 and all(f["deleted_at"] for f in trash["files"])
    aliased = ok(ex, "list_files", {"folder_path": "/sdcard/Documents/../Music", "recursive": False})
    assert aliased["folder"] == "/Music" and aliased["subfolders"] == ["/Music/Recordings"]


def test_create_folder(ex: Executor) -> None:
    out = ok(ex, "create_folder", {"path": "documents/./Taxes/2025/"})
    assert out == {"path": "/Documents/Taxes/2025", "created": ["/Documents/Taxes/2025"]}
    assert [r["path"] for r in diff(ex)["folders"]["inserted"]] == ["/Documents/Taxes/2025"]


def test_create_folder_with_parents(ex: Executor) -> None:
    out = ok(ex, "create_folder", {"path": "/Projects/Alpha/Specs", "create_parents": True})
    assert out["created"] == ["/Projects", "/Projects/Alpha", "/Projects/Alpha/Specs"]
    assert len(diff(ex)["folders"]["inserted"]) == 3
    assert ok(ex, "list_files", {"folder_path": "/projects", "recursive": False})["subfolders"] == ["/Projects/Alpha"]


def file_row(ex: Executor, name: str) -> dict[str, Any]:
    [row] = query(ex, select(files).where(files.c.name == name))
    return row


def test_move_and_rename_file(ex: Executor) -> None:
    scan = file_row(ex, "scan_0001.pdf")
    out = ok(
        ex,
        "move_file",
        {"file_id": scan["file_id"], "destination_path": "/Documents/Receipts", "new_name": "Invoice_INV-88231.pdf"},
    )
    assert out["path"] == "/Documents/Receipts/Invoice_INV-88231.pdf"
    assert out["previous_path"] == "/Downloads/scan_0001.pdf" and out["replaced_file_id"] is None
    [(before, after)] = updated(ex, "files")
    assert {k for k in after if after[k] != before[k]} == {"folder", "name", "updated_at"}
    assert set(diff(ex)) == {"files"}


def test_move_file_restores_from_trash(ex: Executor) -> None:
    [gone] = query(ex, select(files).where(files.c.deleted_at.is_not(None)).order_by(files.c.file_id).limit(1))
    out = ok(ex, "move_file", {"file_id": gone["file_id"], "destination_path": gone["folder"]})
    assert out["restored_from_trash"] is True
    [(_, after)] = updated(ex, "files")
    assert after["deleted_at"] is None


def test_move_file_overwrite_trashes_the_other(ex: Executor) -> None:
    copy, original = file_row(ex, "conference_agenda (1).pdf"), file_row(ex, "conference_agenda.pdf")
    out = ok(
        ex,
        "move_file",
        {
            "file_id": copy["file_id"],
            "destination_path": "/Downloads",
            "new_name": "Conference_Agenda.pdf",
            "overwrite": True,
        },
    )
    assert out["replaced_file_id"] == original["file_id"]
    after = {a["file_id"]: a for _, a in updated(ex, "files")}
    assert after[original["file_id"]]["deleted_at"] and after[copy["file_id"]]["name"] == "Conference_Agenda.pdf"


def test_delete_files_to_trash(ex: Executor) -> None:
    ids = [file_row(ex, n)["file_id"] for n in ("restaurant_menu.pdf", "boarding_pass.pdf")]
    out = ok(ex, "delete_files", {"file_ids": ids + ids[:1]})
    assert out == {"deleted": sorted(ids), "permanent": False, "freed_mb": 0.0, "storage_free_gb": FREE_GB}
    assert set(diff(ex)) == {"files"} and all(a["deleted_at"] for _, a in updated(ex, "files"))


def test_delete_files_permanently(ex: Executor) -> None:
    big = file_row(ex, "photos_2024.zip")
    [trashed] = query(ex, select(files).where(files.c.deleted_at.is_not(None)).order_by(files.c.file_id).limit(1))
    out = ok(ex, "delete_files", {"file_ids": [big["file_id"], trashed["file_id"]], "permanent": True, "confirm": True})
    assert out["freed_mb"] == round(big["size_mb"] + trashed["size_mb"], 2)
    assert {r["file_id"] for r in diff(ex)["files"]["deleted"]} == {big["file_id"], trashed["file_id"]}
    assert free_after(ex) == round(FREE_GB + out["freed_mb"] / 1024, 2)


def test_bulk_delete_with_confirmation(ex: Executor) -> None:
    shots = [
        r["file_id"]
        for r in query(
            ex, select(files.c.file_id).where(files.c.folder == "/Pictures/Camera", files.c.deleted_at.is_(None))
        )
    ][:11]
    assert len(shots) == 11
    ok(ex, "delete_files", {"file_ids": shots, "confirm": True})
    assert len(updated(ex, "files")) == 11


# ---- 4.5 Cloud Backup & Sync ------------------------------------------------------------------


def test_backup_data(ex: Executor) -> None:
    media = query(
        ex, select(files.c.size_mb).where(files.c.deleted_at.is_(None), files.c.file_type.in_(["image", "video"]))
    )
    [cloud] = query(ex, select(cloud_account))
    out = ok(ex, "backup_data", {"categories": ["photos", "contacts", "photos"]})
    size = round((sum(r["size_mb"] for r in media) + 100 * 0.004) / 1024, 3)
    assert out == {
        "backup_id": "backup_009",
        "categories": ["contacts", "photos"],
        "size_gb": size,
        "status": "completed",
        "cloud_used_gb": round(cloud["used_gb"] + size, 3),
        "cloud_quota_gb": cloud["quota_gb"],
    }
    d = diff(ex)
    assert set(d) == {"backups", "cloud_account"}
    assert json.loads(d["backups"]["inserted"][0]["categories_json"]) == ["contacts", "photos"]


def test_backup_over_mobile_data_when_allowed(ex: Executor) -> None:
    prepare(ex.conn, setting("wifi", "0"))
    assert ok(ex, "backup_data", {"categories": ["contacts"], "wifi_only": False})["status"] == "completed"


def test_restore_backup(ex: Executor) -> None:
    [b] = query(ex, select(backups).where(backups.c.backup_id == "backup_007"))
    f = files.c
    expected = [
        r["file_id"]
        for r in query(
            ex,
            select(f.file_id)
            .where(
                f.deleted_at > b["completed_at"], f.created_at <= b["completed_at"], f.file_type.in_(["image", "video"])
            )
            .order_by(f.file_id),
        )
    ]
    assert expected, "the world should have a photo trashed after backup_007"
    out = ok(ex, "restore_backup", {"backup_id": "backup_007", "categories": ["photos"], "confirm": True})
    assert out["files_restored"] == expected and out["restored"] == ["photos"]
    assert {a["file_id"] for _, a in updated(ex, "files")} == set(expected)
    [(_, after)] = updated(ex, "backups")
    assert after["restored_at"] == "2025-06-13T09:00:01"


# ---- 4.6 Passwords & Accounts -----------------------------------------------------------------


def test_save_password(ex: Executor) -> None:
    out = ok(
        ex,
        "save_password",
        {"site": "https://www.Example-Shop.com/login?next=/", "username": "wang.lei", "password": "Tr0ub4dor&3-horse"},
    )
    assert out == {
        "credential_id": "cred_026",
        "site": "example-shop.com",
        "username": "wang.lei",
        "strength": "strong",
        "breached": False,
        "replaced": False,
    }
    [row] = diff(ex)["credentials"]["inserted"]
    assert row["password_hash"] == apps_security.password_digest("Tr0ub4dor&3-horse")
    assert "Tr0ub4dor" not in json.dumps(row)


def test_save_password_generated_and_overwrite(ex: Executor) -> None:
    out = ok(
        ex,
        "save_password",
        {"site": "google.com", "username": "WANG.LEI@example.com", "generate": True, "overwrite": True},
    )
    assert out["replaced"] and out["credential_id"] == "cred_001" and out["strength"] == "strong"
    secret = out["generated_password"]
    assert len(secret) == 16
    [(_, after)] = updated(ex, "credentials")
    assert after["password_hash"] == apps_security.password_digest(secret)


def test_save_password_weak_and_common(ex: Executor) -> None:
    assert ok(ex, "save_password", {"site": "forum.example.org", "username": "wl", "password": "password1"}) | {
        "credential_id": None
    } == {
        "credential_id": None,
        "site": "forum.example.org",
        "username": "wl",
        "strength": "weak",
        "breached": True,
        "replaced": False,
    }


def test_search_passwords(ex: Executor) -> None:
    out = ok(ex, "search_passwords", {"site": "amazon"})
    [amazon] = out["credentials"]
    assert amazon["site"] == "amazon.com" and amazon["password"] == "********" and amazon["account_id"]
    assert "password_hash" not in amazon
    breached = ok(ex, "search_passwords", {"report": "breached"})
    assert {"dropbox.com", "linkedin.com", "facebook.com", "adobe.com"} == {c["site"] for c in breached["credentials"]}
    reused = ok(ex, "search_passwords", {"report": "reused"})["credentials"]
    assert reused and all(c["reused_on"] for c in reused)
    weak = ok(ex, "search_passwords", {"report": "weak"})["credentials"]
    assert weak and all(c["strength"] == "weak" for c in weak)
    assert diff(ex) == {}


# ---- 4.7 Privacy & Device Security ------------------------------------------------------------


def test_enable_two_factor(ex: Executor) -> None:
    out = ok(ex, "enable_two_factor", {"account_id": "github", "method": "authenticator"})
    assert out == {
        "account_id": "account_005",
        "service": "GitHub",
        "username": "wang.lei-dev",
        "two_factor_method": "authenticator",
        "phone": None,
    }
    [(before, after)] = updated(ex, "accounts")
    assert {k for k in after if after[k] != before[k]} == {"two_factor_method", "updated_at"}


def test_enable_two_factor_by_sms_with_a_new_phone(ex: Executor) -> None:
    out = ok(
        ex, "enable_two_factor", {"account_id": "account_008", "method": "sms", "phone_number": "+86 139 0000 2222"}
    )
    assert out["phone"] == "+8613900002222"
    [(_, after)] = updated(ex, "accounts")
    assert (after["two_factor_method"], after["recovery_phone"]) == ("sms", "+8613900002222")


def test_find_my_device_locate_changes_nothing(ex: Executor) -> None:
    out = ok(ex, "find_my_device", {"device_id": "ldevice_001", "action": "locate"})
    assert out["location"].startswith("Home") and diff(ex) == {}


def test_find_my_device_ring_lock_erase(ex: Executor) -> None:
    ok(ex, "find_my_device", {"device_id": "galaxy watch", "action": "ring"})
    out = ok(ex, "find_my_device", {"device_id": "Family iPad", "action": "lock", "message": "Call 138 0000 1111"})
    assert out["locked"] is True
    ok(ex, "find_my_device", {"device_id": "ldevice_001", "action": "erase", "confirm": True})
    after = {a["device_id"]: a for _, a in updated(ex, "linked_devices")}
    assert after["ldevice_003"]["last_rung_at"] == "2025-06-13T09:00:01"
    assert (after["ldevice_006"]["locked"], after["ldevice_006"]["lock_message"]) == (1, "Call 138 0000 1111")
    assert (after["ldevice_001"]["erased"], after["ldevice_001"]["online"], after["ldevice_001"]["locked"]) == (1, 0, 1)
    payload = fails(
        ex, "find_my_device", {"device_id": "ldevice_001", "action": "locate"}, ErrorType.RESOURCE_UNAVAILABLE
    )  # an erased device is gone
    assert "erased" in payload["message"]


# ---- 4.8 Storage & Cleanup --------------------------------------------------------------------


def test_get_storage_usage(ex: Executor) -> None:
    out = ok(ex, "get_storage_usage", {})
    assert (out["total_gb"], out["free_gb"], out["used_gb"]) == (128.0, FREE_GB, 86.5)
    assert abs(sum(out["by_category_gb"].values()) - out["used_gb"]) < 0.1
    assert out["top_apps"][0]["app_id"] == "chat"
    actions = [(s["action"], s.get("app_id"), s.get("all_apps")) for s in out["suggestions"]]
    assert ("clear_app_cache", None, True) in actions and ("clear_app_cache", "chat", None) in actions
    assert any(s.get("reason") == "empty the trash" for s in out["suggestions"])
    assert diff(ex) == {}


def test_clear_app_cache_for_one_app(ex: Executor) -> None:
    out = ok(ex, "clear_app_cache", {"app_id": "chat"})
    assert out["cleared_mb"] == {"chat": 2300.0} and out["storage_free_gb"] == round(FREE_GB + 2300 / 1024, 2)
    [(_, after)] = updated(ex, "app_installs")
    assert after["cache_mb"] == 0.0
    assert set(diff(ex)) == {"app_installs", "device_settings"}


def test_clear_app_cache_for_all_apps(ex: Executor) -> None:
    prepare(ex.conn, update(apps).where(apps.c.app_id == "shortvid").values(installed=0))
    out = ok(ex, "clear_app_cache", {"all_apps": True})
    assert "shortvid" not in out["cleared_mb"] and "chat" in out["cleared_mb"]
    assert {a["app_id"] for _, a in updated(ex, "app_installs")} == set(out["cleared_mb"])
    assert free_after(ex) == round(FREE_GB + out["freed_mb"] / 1024, 2)


# ---- declared errors --------------------------------------------------------------------------

NO_CACHE = update(app_installs).values(cache_mb=0.0)

# (tool, arguments, statements run before, expected error)
ERROR_CASES: list[tuple[str, dict[str, Any], list[Executable], ErrorType]] = [
    ("install_app", {"app_id": "no_such_app"}, [], ErrorType.ENTITY_NOT_FOUND),
    (
        "install_app",
        {"app_id": "budget_buddy", "confirm": True},
        [update(payment_methods).values(is_default=0)],
        ErrorType.ENTITY_NOT_FOUND,
    ),
    ("install_app", {"app_id": "chat"}, [], ErrorType.STATE_CONFLICT),
    (
        "install_app",
        {"app_id": "budget_buddy", "confirm": True},
        [update(payment_methods).where(payment_methods.c.method_id == "pm_002").values(status="frozen")],
        ErrorType.STATE_CONFLICT,
    ),
    ("install_app", {"app_id": "run_club"}, [setting("storage_free_gb", "0.1")], ErrorType.LIMIT_EXCEEDED),
    (
        "install_app",
        {"app_id": "kingdom_clash"},
        [
            update(app_installs).where(app_installs.c.app_id == "kingdom_clash").values(version="0.1.0", app_mb=100.0),
            setting("storage_free_gb", "0.5"),
        ],
        ErrorType.LIMIT_EXCEEDED,
    ),
    (
        "install_app",
        {"app_id": "budget_buddy", "confirm": True},
        [update(payment_methods).values(balance=1.0)],
        ErrorType.LIMIT_EXCEEDED,
    ),
    ("install_app", {"app_id": "budget_buddy"}, [], ErrorType.CONFIRMATION_REQUIRED),
    ("uninstall_app", {"app_id": "no_such_app", "confirm": True}, [], ErrorType.ENTITY_NOT_FOUND),
    ("uninstall_app", {"app_id": "settings", "confirm": True}, [], ErrorType.PERMISSION_DENIED),
    ("uninstall_app", {"app_id": "budget_buddy", "confirm": True}, [], ErrorType.STATE_CONFLICT),
    (
        "uninstall_app",
        {"app_id": "chat", "confirm": True},
        [update(apps).where(apps.c.app_id == "chat").values(installed=0)],
        ErrorType.STATE_CONFLICT,
    ),
    ("uninstall_app", {"app_id": "shortvid"}, [], ErrorType.CONFIRMATION_REQUIRED),
    ("get_app_permissions", {"app_id": "no_such_app"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("grant_app_permission", {"app_id": "no_such_app", "permission": "CAMERA"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("grant_app_permission", {"app_id": "contacts", "permission": "CONTACTS"}, [], ErrorType.STATE_CONFLICT),
    (
        "grant_app_permission",
        {"app_id": "contacts", "permission": "CONTACTS"},
        [perm("contacts", "CONTACTS", "denied")],
        ErrorType.CONFIRMATION_REQUIRED,
    ),
    (
        "grant_app_permission",
        {"app_id": "contacts", "permission": "CONTACTS", "confirm": True},
        [perm("contacts", "CONTACTS", "policy_blocked")],
        ErrorType.PERMISSION_DENIED,
    ),
    ("revoke_app_permission", {"app_id": "no_such_app", "permission": "SMS"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("revoke_app_permission", {"app_id": "clock", "permission": "HEALTH"}, [], ErrorType.STATE_CONFLICT),
    ("set_app_notifications", {"app_id": "no_such_app", "enabled": False}, [], ErrorType.ENTITY_NOT_FOUND),
    (
        "set_app_notifications",
        {"app_id": "chat", "enabled": False, "channels": ["Spam"]},
        [],
        ErrorType.ENTITY_NOT_FOUND,
    ),
    ("set_app_notifications", {"app_id": "chat", "enabled": True}, [], ErrorType.STATE_CONFLICT),
    (
        "set_app_notifications",
        {"app_id": "chat", "enabled": False, "channels": ["moments"]},
        [],
        ErrorType.STATE_CONFLICT,
    ),
    ("list_files", {"folder_path": "/Documents/Nope"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("create_folder", {"path": "/Documents/New/Sub"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("create_folder", {"path": "/DOCUMENTS/work"}, [], ErrorType.DUPLICATE_ENTITY),
    ("create_folder", {"path": "/"}, [], ErrorType.DUPLICATE_ENTITY),
    ("move_file", {"file_id": "file_999", "destination_path": "/Documents"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("move_file", {"file_id": "file_001", "destination_path": "/Nowhere"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("move_file", {"file_id": "file_001", "destination_path": "/Documents/Work"}, [], ErrorType.STATE_CONFLICT),
    (
        "move_file",
        {"file_id": "file_001", "destination_path": "/Documents/Work", "new_name": "project_plan.XLSX"},
        [],
        ErrorType.DUPLICATE_ENTITY,
    ),
    ("delete_files", {"file_ids": ["file_001", "file_999"]}, [], ErrorType.ENTITY_NOT_FOUND),
    (
        "delete_files",
        {"file_ids": ["file_001"]},
        [update(files).where(files.c.file_id == "file_001").values(deleted_at="2025-06-01T10:00:00")],
        ErrorType.STATE_CONFLICT,
    ),
    ("delete_files", {"file_ids": ["file_001"], "permanent": True}, [], ErrorType.CONFIRMATION_REQUIRED),
    (
        "delete_files",
        {"file_ids": [f"file_{i:03d}" for i in range(1, 12)]},
        [update(files).values(deleted_at=None)],
        ErrorType.CONFIRMATION_REQUIRED,
    ),
    ("backup_data", {"categories": ["contacts"]}, [setting("wifi", "0")], ErrorType.NETWORK_UNAVAILABLE),
    ("backup_data", {"categories": ["contacts"]}, [delete(cloud_account)], ErrorType.AUTHENTICATION_REQUIRED),
    (
        "backup_data",
        {"categories": ["photos", "contacts", "messages", "files", "calendar", "app_data"]},
        [],
        ErrorType.LIMIT_EXCEEDED,
    ),
    (
        "restore_backup",
        {"backup_id": "backup_999", "categories": ["photos"], "confirm": True},
        [],
        ErrorType.ENTITY_NOT_FOUND,
    ),
    (
        "restore_backup",
        {"backup_id": "backup_007", "categories": ["app_data"], "confirm": True},
        [],
        ErrorType.ENTITY_NOT_FOUND,
    ),
    (
        "restore_backup",
        {"backup_id": "backup_005", "categories": ["photos"], "confirm": True},
        [],
        ErrorType.STATE_CONFLICT,
    ),
    ("restore_backup", {"backup_id": "backup_007", "categories": ["photos"]}, [], ErrorType.CONFIRMATION_REQUIRED),
    (
        "save_password",
        {"site": "Google.com", "username": "wang.lei@example.com", "password": "x"},
        [],
        ErrorType.DUPLICATE_ENTITY,
    ),
    ("enable_two_factor", {"account_id": "Yahoo", "method": "authenticator"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("enable_two_factor", {"account_id": "google", "method": "authenticator"}, [], ErrorType.AMBIGUOUS_ENTITY),
    ("enable_two_factor", {"account_id": "account_001", "method": "authenticator"}, [], ErrorType.STATE_CONFLICT),
    ("enable_two_factor", {"account_id": "GitHub", "method": "sms"}, [], ErrorType.MISSING_REQUIRED_ARGUMENT),
    ("find_my_device", {"device_id": "Surface", "action": "ring"}, [], ErrorType.ENTITY_NOT_FOUND),
    ("find_my_device", {"device_id": "ipad", "action": "ring"}, [], ErrorType.AMBIGUOUS_ENTITY),
    ("find_my_device", {"device_id": "ldevice_004", "action": "locate"}, [], ErrorType.RESOURCE_UNAVAILABLE),
    ("find_my_device", {"device_id": "ldevice_002", "action": "lock"}, [], ErrorType.STATE_CONFLICT),
    ("find_my_device", {"device_id": "ldevice_001", "action": "erase"}, [], ErrorType.CONFIRMATION_REQUIRED),
    ("clear_app_cache", {"app_id": "no_such_app"}, [], ErrorType.ENTITY_NOT_FOUND),
    (
        "clear_app_cache",
        {"app_id": "tasks"},
        [NO_CACHE.where(app_installs.c.app_id == "tasks")],
        ErrorType.STATE_CONFLICT,
    ),
    ("clear_app_cache", {"all_apps": True}, [NO_CACHE], ErrorType.STATE_CONFLICT),
]


@pytest.mark.parametrize(
    ("name", "args", "before", "error"),
    ERROR_CASES,
    ids=[f"{c[0]}-{c[3].value}-{i}" for i, c in enumerate(ERROR_CASES)],
)
def test_declared_error_changes_nothing(
    ex: Executor,
    name: str,
    args: dict[str, Any],
    before: list[Executable],
    error: ErrorType,
) -> None:
    prepare(ex.conn, *before)
    payload = fails(ex, name, args, error)
    assert payload["message"]


def test_every_declared_error_is_tested() -> None:
    declared = {(n, e) for n in D4_TOOLS for e in REGISTRY[n].errors}
    assert {(c[0], c[3]) for c in ERROR_CASES} == declared


def test_errors_name_what_to_do(ex: Executor) -> None:
    assert (
        fails(ex, "uninstall_app", {"app_id": "settings", "confirm": True}, ErrorType.PERMISSION_DENIED)["reason"]
        == "system_app"
    )
    assert fails(ex, "create_folder", {"path": "/documents"}, ErrorType.DUPLICATE_ENTITY)["existing_id"] == "/Documents"
    candidates = fails(ex, "enable_two_factor", {"account_id": "google", "method": "sms"}, ErrorType.AMBIGUOUS_ENTITY)[
        "candidates"
    ]
    assert [c["username"] for c in candidates] == ["wang.lei@gmail.com", "wang.lei.work@gmail.com"]
    assert fails(
        ex, "enable_two_factor", {"account_id": "GitHub", "method": "sms"}, ErrorType.MISSING_REQUIRED_ARGUMENT
    )["fields"] == ["phone_number"]
    offline = fails(ex, "find_my_device", {"device_id": "old phone", "action": "ring"}, ErrorType.RESOURCE_UNAVAILABLE)
    assert offline["last_location"].startswith("Sunny Cafe")
    assert fails(ex, "install_app", {"app_id": "shield_vpn"}, ErrorType.CONFIRMATION_REQUIRED)["price"] == 4.99


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("get_app_permissions", {}),
        ("get_app_permissions", {"app_id": "chat", "permission": "CAMERA"}),
        ("clear_app_cache", {}),
        ("clear_app_cache", {"app_id": "chat", "all_apps": True}),
        ("save_password", {"site": "a.com", "username": "u"}),
        ("save_password", {"site": "a.com", "username": "u", "password": "p", "generate": True}),
        ("save_password", {"site": "not a site", "username": "u", "password": "p"}),
        (
            "enable_two_factor",
            {"account_id": "account_005", "method": "authenticator", "phone_number": "+86 139 0000 2222"},
        ),
        ("find_my_device", {"device_id": "ldevice_001", "action": "ring", "message": "hi"}),
    ],
)
def test_cross_field_rules(ex: Executor, name: str, args: dict[str, Any]) -> None:
    fails(ex, name, args, ErrorType.INVALID_ARGUMENT_VALUE)


# ---- hostile paths ----------------------------------------------------------------------------

HOSTILE_PATHS = [
    "../../etc/passwd",
    "/../etc",
    "..",
    "/etc/passwd",
    "Documents/../../..",
    "/system/app",
    "/data/data/com.bank",
    "/storage/emulated/0/../../data",
    "/sdcard/../etc",
    "..\\..\\windows",
    "/Documents/\x00evil",
    "/proc/self/environ",
    "/a/b/c/d/e/f/g/h/i",
]


@pytest.mark.faults
@pytest.mark.parametrize("path", HOSTILE_PATHS)
def test_hostile_paths_are_refused_before_anything_runs(ex: Executor, path: str) -> None:
    for name, args in (
        ("list_files", {"folder_path": path}),
        ("create_folder", {"path": path, "create_parents": True}),
        ("move_file", {"file_id": "file_001", "destination_path": path}),
    ):
        payload = fails(ex, name, args, ErrorType.INVALID_ARGUMENT_VALUE)
        assert payload["fields"] == [
            "destination_path" if name == "move_file" else "folder_path" if name == "list_files" else "path"
        ]


@pytest.mark.faults
@pytest.mark.parametrize("new_name", ["../evil.sh", "a/b.txt", "..", ".", "c:\\x.txt", "bad\nname"])
def test_hostile_file_names_are_refused(ex: Executor, new_name: str) -> None:
    fails(
        ex,
        "move_file",
        {"file_id": "file_001", "destination_path": "/Documents", "new_name": new_name},
        ErrorType.INVALID_ARGUMENT_VALUE,
    )


def test_dot_segments_inside_storage_are_fine(ex: Executor) -> None:
    out = ok(ex, "create_folder", {"path": "Documents/./Taxes/../Receipts/2025"})
    assert out["path"] == "/Documents/Receipts/2025"


# ---- the executor's gates ---------------------------------------------------------------------


def signed_out(app_id: str) -> Executable:
    return update(apps).where(apps.c.app_id == app_id).values(logged_in=0)


@pytest.mark.parametrize(
    ("name", "args", "before", "error"),
    [
        ("backup_data", {"categories": ["contacts"]}, [signed_out("cloud")], ErrorType.AUTHENTICATION_REQUIRED),
        (
            "restore_backup",
            {"backup_id": "backup_007", "categories": ["photos"], "confirm": True},
            [signed_out("cloud")],
            ErrorType.AUTHENTICATION_REQUIRED,
        ),
        ("search_passwords", {}, [signed_out("passwords")], ErrorType.AUTHENTICATION_REQUIRED),
        (
            "save_password",
            {"site": "a.com", "username": "u", "password": "p"},
            [signed_out("passwords")],
            ErrorType.AUTHENTICATION_REQUIRED,
        ),
        ("list_files", {}, [perm("files", "STORAGE", "denied")], ErrorType.PERMISSION_DENIED),
        (
            "search_app_store",
            {"query": "maps"},
            [setting("airplane_mode", "1"), setting("wifi", "0")],
            ErrorType.NETWORK_UNAVAILABLE,
        ),
        (
            "find_my_device",
            {"device_id": "ldevice_001", "action": "locate"},
            [setting("wifi", "0"), setting("mobile_data", "0")],
            ErrorType.NETWORK_UNAVAILABLE,
        ),
    ],
)
def test_gates(ex: Executor, name: str, args: dict[str, Any], before: list[Executable], error: ErrorType) -> None:
    prepare(ex.conn, *before)
    fails(ex, name, args, error)
