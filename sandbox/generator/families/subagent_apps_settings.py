"""Sub-agent Collaboration families for D4 Apps, Data & Security and D11 Device & System Settings:
one per level-2 category, mixing the monitor, screen-reader, voice and GUI agents.

Framework note: the build's first replay offers only the gold's own domain tools, and a monitor's
on_trigger plan may only use offered tools, so every monitor family here also calls its plan's tool
directly in the gold (a natural "do X now, and again when ..." request).
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from sandbox.errors import ErrorType
from sandbox.executor import normalise_phone
from sandbox.generator.core import BuildError, Gen, act, done, family
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import later, local_line, on_screen, screen_rows, told_agent
from sandbox.generator.families.basic_apps import installed
from sandbox.generator.families.basic_settings import setting

ANY = {"$regex": "."}
STORAGE = {"device_settings": [{"match": {"key": "storage_free_gb"}, "set": {"value": ANY}}]}


def screen_id(g: Gen) -> str:
    """The id of the screen the user shows (named in the query, as a phone's share sheet would)."""
    return f"snapshot_{g.rng.randint(101, 999)}"


# ---- 4.1 monitor: install an app the day it goes free ---------------------------------------------------


@family("subagent", "4.1", agent="monitor_agent")
def install_when_free(g: Gen) -> Draft:
    paid = g.pick(("shield_vpn", "radar_pro", "cam_scanner_pro", "budget_buddy"))
    free = g.pick(("chess_master", "zen_meditate", "run_club", "metro_pass", "recipe_box"))
    if installed(g, paid) or installed(g, free):
        raise BuildError("already installed")
    p = g.one("world_store_apps", {"app_id": paid})
    f = g.one("world_store_apps", {"app_id": free})
    query = g.say(
        "install {free} now, and watch {paid}: the moment it becomes free, install it too",
        "get me {free}; also keep an eye on {paid} and install it once it costs nothing",
        free=f["name"],
        paid=p["name"],
    )
    return Draft(
        query=query,
        gold=[
            act("install_app", app_id=free),
            act(
                "call_monitor_agent",
                condition={
                    "tool": "search_app_store",
                    "args": {"query": p["name"]},
                    "path": "$.apps[0].price",
                    "op": "eq",
                    "value": 0,
                },
                on_trigger=[{"tool": "install_app", "args": {"app_id": paid}}],
                description=f"Install {p['name']} when it is free",
            ),
            done(f"Installed {f['name']}; I'll install {p['name']} when it goes free."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_monitor_agent",
            "handoff": {"condition": {"tool": "search_app_store"}},
            "state": {
                "insert": {
                    "apps": [{"app_id": free, "installed": 1}, {"app_id": paid, "installed": 1}],
                    "app_installs": [{"app_id": free}, {"app_id": paid}],
                    "monitors": [{"status": "triggered"}],
                },
                "update": dict(STORAGE),
            },
        },
        events=[
            {
                "at": later(g, 24),
                "changes": {"update": {"world_store_apps": [{"match": {"app_id": paid}, "set": {"price": 0.0}}]}},
            }
        ],
    )


# ---- 4.2 screen reader: grant what the permission prompt on screen asks for -------------------------------

PERM_TEXT = {
    "LOCATION": "this device's location",
    "CAMERA": "take pictures and record video",
    "MICROPHONE": "record audio",
    "CONTACTS": "your contacts",
    "PHOTOS": "photos and videos",
    "NOTIFICATIONS": "send you notifications",
    "CALENDAR": "your calendar",
}


@family("subagent", "4.2", agent="screen_reader_agent")
def grant_prompt_on_screen(g: Gen) -> Draft:
    snap = screen_id(g)
    inst = {r["app_id"] for r in g.rows("apps") if r["installed"] == 1}
    row = g.one(
        "app_permissions",
        {"state": "granted"},
        filter=lambda r: (
            r["app_id"] in inst
            and r["permission"] in PERM_TEXT
            and r["app_id"] not in ("settings", "files", "assistant")
        ),
    )
    name = g.one("apps", {"app_id": row["app_id"]})["name"]
    text = f"Allow {name} to access {PERM_TEXT[row['permission']]}?\nAllow  |  Don't allow"
    query = g.say(
        "a permission prompt is on my screen ({snap}); read it and allow what it asks",
        "grant the permission the pop-up on screen {snap} is asking for",
        snap=snap,
    )
    return Draft(
        query=query,
        gold=[
            act(
                "call_screen_reader_agent",
                source={"type": "screen", "id": snap},
                extract_fields=["app_id", "permission"],
            ),
            act("grant_app_permission", app_id=row["app_id"], permission=row["permission"]),
            done(f"Allowed {name}."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": on_screen(snap),
            "state": {
                "update": {
                    "app_permissions": [
                        {
                            "match": {"app_id": row["app_id"], "permission": row["permission"]},
                            "set": {"state": "granted"},
                        }
                    ]
                }
            },
        },
        patches={
            "insert": screen_rows(
                snap, "settings", text, {"app": name, "app_id": row["app_id"], "permission": row["permission"]}
            ),
            "update": {
                "app_permissions": [
                    {
                        "match": {"app_id": row["app_id"], "permission": row["permission"]},
                        "set": {"state": "not_requested"},
                    }
                ]
            },
        },
    )


# ---- 4.3 GUI: mute one group inside the chat app (no API) ---------------------------------------------------


@family("subagent", "4.3", agent="gui_agent")
def mute_chat_group(g: Gen) -> Draft:
    group = g.one("groups")["name"]
    hours = g.pick(("8 hours", "1 week", "always"))
    moments = g.rng.random() < 0.5
    extra = " and turn off the Moments notifications" if moments else ""
    query = g.say(
        "mute the {group} group in Chat for {hours}{extra}",
        "silence the {group} chat group ({hours}){extra}",
        group=group,
        hours=hours,
        extra=extra,
    )
    gold = [
        act(
            "call_gui_agent",
            app_id="chat",
            goal=f"Mute the {group} group chat for {hours} in the group's settings",
            inputs={"setting": f"Mute group: {group}", "value": hours},
        )
    ]
    state: dict[str, Any] = {
        "insert": {
            "app_preferences": [
                {"app_id": "chat", "setting": {"$contains": group}, "value": {"$contains": hours.split()[-1]}}
            ]
        }
    }
    if moments:
        gold.insert(0, act("set_app_notifications", app_id="chat", enabled=False, channels=["Moments"]))
        chans = {r["channel"]: r["enabled"] for r in g.rows("notification_channels", {"app_id": "chat"})}
        if chans.get("Moments") != 1:
            patch = {
                "update": {
                    "notification_channels": [
                        {"match": {"app_id": "chat", "channel": "Moments"}, "set": {"enabled": 1}}
                    ]
                }
            }
        else:
            patch = {}
        state["update"] = {
            "notification_channels": [{"match": {"app_id": "chat", "channel": "Moments"}, "set": {"enabled": 0}}]
        }
    else:
        patch = {}
    return Draft(
        query=query,
        gold=[*gold, done(f"Muted {group}.")],
        bucket="agent_behavior",
        check={"route": "call_gui_agent", "handoff": {"app_id": "chat"}, "state": state},
        patches=patch,
    )


# ---- 4.4 screen reader: rename a scan after the invoice number inside it -------------------------------------


@family("subagent", "4.4", agent="screen_reader_agent")
def rename_scan_by_content(g: Gen) -> Draft:
    f = g.one("files", {"name": "scan_0001.pdf"}, filter=lambda r: r["deleted_at"] is None)
    new_name = g.pick(("Invoice_INV-88231.pdf", "INV-88231.pdf", "Dental_Invoice_INV-88231.pdf"))
    query = g.say(
        "read the scan scan_0001.pdf and rename it {new}, using the invoice number printed in it",
        "what invoice is scan_0001.pdf? Rename the file to {new} after checking the number",
        new=new_name,
    )
    return Draft(
        query=query,
        gold=[
            act("list_files", folder_path="/Downloads", query="scan"),
            act(
                "call_screen_reader_agent",
                source={"type": "file", "id": f["file_id"]},
                question="What is the invoice number?",
            ),
            act("move_file", file_id=f["file_id"], destination_path=f["folder"], new_name=new_name),
            done(f"It's Bright Smile Dental Clinic's invoice INV-88231; renamed it to {new_name}."),
        ],
        # whose invoice it is: what the scan says beyond the number the user already named
        answer=[{"$name": "Bright Smile Dental"}] if "?" in query else None,
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": {"source": {"type": "file", "id": f["file_id"]}},
            "state": {
                "update": {"files": [{"match": {"file_id": f["file_id"]}, "set": {"name": {"$contains": "INV-88231"}}}]}
            },
        },
    )


# ---- 4.5 screen reader: restore from the backup shown in the cloud app --------------------------------------


@family("subagent", "4.5", agent="screen_reader_agent")
def restore_backup_on_screen(g: Gen) -> Draft:
    snap = screen_id(g)
    done_backups = g.rows("backups", {"status": "completed"})
    b = done_backups[-1]
    cat = g.pick(("contacts", "calendar", "messages"))
    lines = "\n".join(
        f"{r['backup_id']}  {r['completed_at'][:10]}  {', '.join(json.loads(r['categories_json']))}"
        for r in reversed(done_backups[-3:])
    )
    query = g.say(
        "restore my {cat} from the newest backup listed on my screen ({snap})",
        "my cloud backups are on screen {snap}: bring back the {cat} from the latest one",
        cat=cat,
        snap=snap,
    )
    return Draft(
        query=query,
        gold=[
            act("call_screen_reader_agent", source={"type": "screen", "id": snap}, extract_fields=["latest_backup_id"]),
            act(
                "ask_user",
                question=f"Restoring replaces the {cat} on your phone with those of {b['completed_at'][:10]}. "
                "Go ahead?",
                kind="confirm",
            ),
            act("restore_backup", backup_id=b["backup_id"], categories=[cat], confirm=True),
            done(f"Restored your {cat} from {b['completed_at'][:10]}."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": on_screen(snap),
            "state": {"update": {"backups": [{"match": {"backup_id": b["backup_id"]}, "set": {"restored_at": ANY}}]}},
        },
        patches={
            "insert": screen_rows(
                snap,
                "cloud",
                f"Cloud backups (newest first)\n{lines}",
                {"latest_backup_id": b["backup_id"], "latest_date": b["completed_at"][:10]},
            )
        },
        script=[{"answer": "Yes, replace them.", "kind": "confirm", "keywords": ["restore", "replace", "overwrite"]}],
    )


# ---- 4.6 screen reader: save the login of the account just created -------------------------------------------


@family("subagent", "4.6", agent="screen_reader_agent")
def save_signup_on_screen(g: Gen) -> Draft:
    snap = screen_id(g)
    site = g.pick(("strava.com", "notion.so", "duolingo.com", "figma.com", "canva.com"))
    user = g.pick(("quietfox", "daily.runner", "m.hunter"))
    if g.rows("credentials", {"site": site}):
        raise BuildError("already saved")
    text = f"Welcome to {site.split('.')[0].title()}!\nYour account is ready.\nUsername: {user}\nSite: {site}"
    query = g.say(
        "I just signed up, see screen {snap}; save that login with a strong generated password",
        "store the new account on my screen ({snap}) in my password vault and generate a password for it",
        snap=snap,
    )
    return Draft(
        query=query,
        gold=[
            act("call_screen_reader_agent", source={"type": "screen", "id": snap}, extract_fields=["site", "username"]),
            act("save_password", site=site, username=user, generate=True),
            done(f"Saved {user} on {site} with a strong password."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": on_screen(snap),
            "state": {"insert": {"credentials": [{"site": site, "username": user, "strength": "strong"}]}},
        },
        patches={"insert": screen_rows(snap, "browser", text, {"site": site, "username": user})},
    )


# ---- 4.7 GUI: turn off ad personalisation inside an app ------------------------------------------------------

AD_APPS = {"shop": "Shop", "social": "Social", "video": "Video", "news": "News", "maps": "Maps"}


@family("subagent", "4.7", agent="gui_agent")
def disable_ad_personalisation(g: Gen) -> Draft:
    app_id = g.pick(sorted(AD_APPS))
    if not installed(g, app_id):
        raise BuildError("not installed")
    name = AD_APPS[app_id]
    query = g.say(
        "in the {name} app, turn off personalized ads",
        "stop {name} from personalizing ads for me; it's in the app's privacy settings",
        name=name,
    )
    return Draft(
        query=query,
        gold=[
            act(
                "call_gui_agent",
                app_id=app_id,
                goal=f"Turn off personalized ads in {name}'s privacy settings",
                inputs={"setting": "Personalized ads", "value": "off"},
            ),
            done(f"Personalized ads are off in {name}."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_gui_agent",
            "handoff": {"app_id": app_id},  # the flow reads false as off, a key as the label: the state pins it
            "state": {
                "insert": {"app_preferences": [{"app_id": app_id, "setting": {"$contains": "ads"}, "value": "off"}]}
            },
        },
    )


# ---- 4.8 monitor: clear every cache when storage runs low -----------------------------------------------------


@family("subagent", "4.8", agent="monitor_agent")
def clear_caches_when_low(g: Gen) -> Draft:
    inst = {r["app_id"] for r in g.rows("apps") if r["installed"] == 1}
    caches = [r for r in g.rows("app_installs") if r["app_id"] in inst and r["cache_mb"] > 0]
    first = g.pick([r for r in caches if r["app_id"] in ("chat", "shortvid", "video", "social", "browser")])
    name = g.one("apps", {"app_id": first["app_id"]})["name"]
    limit = g.pick((5, 8, 10))
    query = g.say(
        "clear {name}'s cache now, and if free storage ever drops below {n} GB, clear all app caches",
        "empty the {name} cache; after that, keep watching storage and wipe every app's cache when less "
        "than {n} GB is free",
        name=name,
        n=limit,
    )
    return Draft(
        query=query,
        gold=[
            act("clear_app_cache", app_id=first["app_id"]),
            act(
                "call_monitor_agent",
                condition={"tool": "get_storage_usage", "args": {}, "path": "$.free_gb", "op": "lt", "value": limit},
                on_trigger=[{"tool": "clear_app_cache", "args": {"all_apps": True}}],
                description=f"Clear all caches when free storage is under {limit} GB",
            ),
            done("Cleared it; I'll clear every cache if storage runs low."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_monitor_agent",
            "handoff": {"condition": {"tool": "get_storage_usage"}},
            "state": {
                "insert": {"monitors": [{"status": "triggered"}]},
                "update": {
                    "app_installs": [{"match": {"app_id": r["app_id"]}, "set": {"cache_mb": 0}} for r in caches],
                    **STORAGE,
                },
            },
        },
        events=[
            {
                "at": later(g, 48),
                "changes": {"update": {"device_settings": [setting("storage_free_gb", str(limit - 2.5))]}},
            }
        ],
    )


# ---- 11.1 voice: ask the carrier about roaming, then switch mobile data on -----------------------------------


@family("subagent", "11.1", agent="voice_agent")
def carrier_roaming_then_data(g: Gen) -> Draft:
    country = g.pick(("Japan", "Germany", "France", "Spain", "Italy"))
    answer = f"Yes, roaming data in {country} is included in your plan at no extra cost."
    topic = "roam|data|abroad|overseas|international|travel|extra|cost|charge|fee|included|free"
    carrier = local_line(g)
    query = g.say(
        "call my carrier at {p}, ask if roaming data in {c} is included; if it is, turn mobile data on",
        "phone my mobile operator ({p}) to check that {c} roaming is free, then switch my mobile data on if so",
        c=country,
        p=carrier,
    )
    return Draft(
        query=query,
        gold=[
            act(
                "call_voice_agent",
                callee={"phone": carrier},
                objective=f"Ask whether roaming data in {country} is included in my plan",
                facts={"account_holder": g.persona.name, "country": country},
            ),
            act("set_mobile_data", enabled=True),
            done("Roaming is included, so mobile data is on."),
        ],
        # what the carrier said: roaming costs nothing extra (the state holds the data switch it allows)
        answer=[
            {"$any": [{"$name": w} for w in ("included", "free", "no extra cost", "no extra charge", "no charge")]}
        ],
        bucket="agent_behavior",
        # the carrier must hear the country and the question, in whatever words and handoff fields
        check={
            "route": "call_voice_agent",
            "handoff": {"callee": {"phone": {"$phone": carrier}}},
            "state": {
                "update": {"device_settings": [setting("mobile_data", "1")]},
                "insert": {"subagent_jobs": [told_agent("voice_agent", country, topic)]},
            },
        },
        patches={
            "insert": {
                "world_phone_services": [
                    {
                        "phone": normalise_phone(carrier),
                        "place_id": None,
                        "name": "Orbit Mobile customer care",
                        "handler": "inquiry",
                        "rules_json": json.dumps({"answers": {topic: answer}}),
                    }
                ]
            },
            "update": {"device_settings": [setting("mobile_data", "0")]},
        },
    )


# ---- 11.2 GUI: pair earbuds that only pair inside their vendor's app -------------------------------------------

COMPANION = {
    "Huawei FreeBuds 5": ("freebuds_link", "FreeBuds Link", "my Huawei FreeBuds 5 earbuds"),
    "Mi Smart Band 8": ("mi_fitness", "Mi Fitness", "my Mi Smart Band 8"),
}


@family("subagent", "11.2", agent="gui_agent")
def pair_via_companion_app(g: Gen) -> Draft:
    device = g.pick(sorted(COMPANION))
    app_id, app_name, said = COMPANION[device]
    g.one("world_nearby_devices", {"name": device})
    query = g.say("pair {said} with my phone", "connect {said} over Bluetooth, it's in pairing mode", said=said)
    return Draft(
        query=query,
        gold=[
            act("pair_bluetooth_device", device_name=device, action="pair"),
            act(
                "call_gui_agent",
                app_id=app_id,
                goal=f"Pair the {device} in the {app_name} app",
                inputs={"device_name": device},
                expected_outputs=["device_id"],
            ),
            done(f"Paired {device} through {app_name}."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_gui_agent",
            "handoff": {"app_id": app_id},
            "state": {"insert": {"devices": [{"name": device, "paired": 1, "connected": 1}]}},
        },
        patches={
            "insert": {
                "apps": [
                    {"app_id": app_id, "name": app_name, "installed": 1, "logged_in": 1, "notifications_enabled": 1}
                ]
            }
        },
        recovers=(ErrorType.UNSUPPORTED_OPERATION,),
    )


# ---- 11.3 GUI: change the ringtone (no API), and the ring volume --------------------------------------------

RINGTONES = ("Marimba", "Ocean Breeze", "Classic Bell", "Morning Flute", "Retro Phone", "Chimes")


@family("subagent", "11.3", agent="gui_agent")
def change_ringtone(g: Gen) -> Draft:
    tone = g.pick(RINGTONES)
    level = g.pick((50, 80, 90, 100))
    query = g.say(
        "change my ringtone to {tone} and set the ring volume to {level}%",
        "I want {tone} as my ringtone, ring volume at {level}",
        tone=tone,
        level=level,
    )
    return Draft(
        query=query,
        gold=[
            act("set_volume", stream="ring", level=level),
            act(
                "call_gui_agent",
                app_id="settings",
                goal=f"Set the ringtone to {tone} in Sound settings",
                inputs={"setting": "Ringtone", "value": tone},
            ),
            done(f"Ringtone is {tone}, ring volume {level}%."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_gui_agent",
            "handoff": {"app_id": "settings"},
            "state": {
                "insert": {
                    "app_preferences": [
                        {"app_id": "settings", "setting": {"$contains": "ringtone"}, "value": {"$contains": tone}}
                    ]
                },
                "update": {"device_settings": [setting("volume_ring", str(level))]},
            },
        },
    )


# ---- 11.4 GUI: set the wallpaper (no API) and dark mode ---------------------------------------------------------

WALLPAPERS = ("Ocean", "Mountains", "Aurora", "Desert Dunes", "City Lights", "Forest")


@family("subagent", "11.4", agent="gui_agent")
def wallpaper_and_theme(g: Gen) -> Draft:
    paper = g.pick(WALLPAPERS)
    query = g.say("set my wallpaper to {p} and switch on dark mode", "dark mode on, and use the {p} wallpaper", p=paper)
    return Draft(
        query=query,
        gold=[
            act("set_dark_mode", enabled=True),
            act(
                "call_gui_agent",
                app_id="settings",
                goal=f"Set the wallpaper to {paper} in Wallpaper settings",
                inputs={"setting": "Wallpaper", "value": paper},
            ),
            done(f"Dark mode is on and the wallpaper is {paper}."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_gui_agent",
            "handoff": {"app_id": "settings"},
            "state": {
                "insert": {
                    "app_preferences": [
                        {"app_id": "settings", "setting": {"$contains": "wallpaper"}, "value": {"$contains": paper}}
                    ]
                },
                "update": {"device_settings": [setting("dark_mode", "1")]},
            },
        },
    )


# ---- 11.5 monitor: dim the screen when the battery runs low -----------------------------------------------------


@family("subagent", "11.5", agent="monitor_agent")
def dim_when_battery_low(g: Gen) -> Draft:
    now_level, low_level, threshold = g.pick(((50, 20, 20), (60, 30, 15), (55, 25, 20), (45, 15, 25)))
    query = g.say(
        "set brightness to {a}% now, and when the battery drops below {t}%, dim it to {b}%",
        "brightness {a} for now; once battery is under {t} percent, lower it to {b}",
        a=now_level,
        b=low_level,
        t=threshold,
    )
    return Draft(
        query=query,
        gold=[
            act("set_brightness", level=now_level),
            act(
                "call_monitor_agent",
                condition={
                    "tool": "get_device_status",
                    "args": {},
                    "path": "$.battery.battery_pct",
                    "op": "lt",
                    "value": threshold,
                },
                on_trigger=[{"tool": "set_brightness", "args": {"level": low_level}}],
                description=f"Dim to {low_level}% when battery < {threshold}%",
            ),
            done("Done; I'll dim the screen when the battery runs low."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_monitor_agent",
            "handoff": {"condition": {"tool": "get_device_status"}},
            "state": {
                "insert": {"monitors": [{"status": "triggered"}]},
                "update": {
                    "device_settings": [
                        setting("brightness", str(low_level)),
                        setting("auto_brightness", "0"),
                        setting("battery_pct", str(threshold - 5)),
                    ]
                },
            },
        },
        events=[
            {
                "at": later(g, 3),
                "changes": {"update": {"device_settings": [setting("battery_pct", str(threshold - 5))]}},
            }
        ],
    )


# ---- 11.6 screen reader: quiet the phone until the film on the ticket ends ------------------------------------


@family("subagent", "11.6", agent="screen_reader_agent")
def dnd_until_show_ends(g: Gen) -> Draft:
    snap = screen_id(g)
    start = g.now + dt.timedelta(hours=g.rng.randint(1, 3))
    start = start.replace(minute=g.pick((0, 15, 30, 45)))
    end = start + dt.timedelta(minutes=g.pick((95, 110, 125, 140)))
    until = end.strftime("%Y-%m-%dT%H:%M")
    film = g.pick(("Dune: Part Two", "Inside Out 2", "The Wild Robot", "Oppenheimer"))
    text = f"CINEMA TICKET\n{film}\nHall 4, Row F, Seat 12\nStarts {start:%Y-%m-%d %H:%M}\nEnds {end:%H:%M}"
    query = g.say(
        "turn on do not disturb until my film ends; the ticket is on screen {snap}",
        "my movie ticket is open ({snap}); silence the phone until the movie is over",
        snap=snap,
    )
    return Draft(
        query=query,
        gold=[
            act("call_screen_reader_agent", source={"type": "screen", "id": snap}, extract_fields=["ends_at"]),
            act("set_do_not_disturb", enabled=True, until=until),
            done(f"Do Not Disturb until {end:%H:%M}."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": on_screen(snap),
            "state": {"update": {"device_settings": [setting("dnd", "1"), setting("dnd_until", {"$contains": until})]}},
        },
        patches={
            "insert": screen_rows(
                snap, "tickets", text, {"film": film, "starts_at": start.strftime("%Y-%m-%dT%H:%M"), "ends_at": until}
            )
        },
    )


# ---- 11.7 screen reader: apply the language and accessibility settings from a setup note ----------------------

LANG_NAMES = {"de-DE": "German", "ja-JP": "Japanese", "es-ES": "Spanish", "fr-FR": "French", "ko-KR": "Korean"}
OPTION_NAMES = {
    "bold_text": "Bold text",
    "reduce_motion": "Reduce motion",
    "mono_audio": "Mono audio",
    "captions": "Captions",
}


@family("subagent", "11.7", agent="screen_reader_agent")
def setup_from_note_on_screen(g: Gen) -> Draft:
    snap = screen_id(g)
    code = g.pick(sorted(LANG_NAMES))
    option = g.pick(sorted(OPTION_NAMES))
    text = f"Phone setup for Grandma\nLanguage: {LANG_NAMES[code]} ({code})\n{OPTION_NAMES[option]}: ON"
    query = g.say(
        "set up my phone the way the note on screen {snap} says",
        "apply the language and accessibility settings from the setup note on my screen ({snap})",
        snap=snap,
    )
    return Draft(
        query=query,
        gold=[
            act(
                "call_screen_reader_agent",
                source={"type": "screen", "id": snap},
                extract_fields=["language_code", "accessibility_on"],
            ),
            act("set_system_language", language=code),
            act("set_accessibility_option", option=option, enabled=True),
            done(f"Language is {LANG_NAMES[code]} and {OPTION_NAMES[option]} is on."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": on_screen(snap),
            "state": {"update": {"device_settings": [setting("language", code), setting(f"a11y_{option}", "1")]}},
        },
        patches={"insert": screen_rows(snap, "notes", text, {"language_code": code, "accessibility_on": [option]})},
    )
