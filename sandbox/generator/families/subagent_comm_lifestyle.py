"""Sub-agent Collaboration families for D3 Communication & Social and D13 Lifestyle & Local Services.

One family per level-2 category. Screen-reader tasks read a snapshot the draft inserts; monitor tasks
watch a read-only tool while the draft's events change the world; GUI tasks use the chat app's
group-rename flow, the social app's post-audience flow and the venue apps' ticket flow; voice tasks
phone providers that take bookings only by phone.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

from sandbox.errors import ErrorType
from sandbox.generator.core import BuildError, Gen, act, done, family
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import later, on_screen, snapshot_patch
from sandbox.generator.families.basic_communication import (
    NOTES,
    PLATFORM_NAMES,
    person,
    spam_number,
)
from sandbox.generator.families.basic_lifestyle import PAY, minute, paid, say_session

FIRST = ("Mike", "Priya", "Jonas", "Aiko", "Sofia", "Omar", "Lucia", "Tariq", "Hana", "Pavel", "Nadia", "Felix")
LAST = ("Ross", "Das", "Berg", "Tanaka", "Costa", "Haddad", "Moreno", "Aziz", "Novak", "Silva", "Quinn", "Varga")


def snapshot(g: Gen, app: str, text: str, fields: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    sid = f"snapshot_{g.rng.randint(101, 999)}"
    return sid, snapshot_patch(sid, app, text, fields)


def stamp(g: Gen, hours: int) -> str:
    return (g.now + dt.timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%S")


# ---- 3.1 screen reader: a business card becomes a contact ----------------------------------------


@family("subagent", "3.1", agent="screen_reader_agent")
def contact_from_business_card(g: Gen) -> Draft:
    name = f"{g.pick(FIRST)} {g.pick(LAST)}"
    number = f"+1 415 555 {g.rng.randint(1000, 9999)}"
    company = g.pick(("Orbit Labs", "Northwind", "Pioneer Logistics", "Summit Media"))
    title = g.pick(("Sales Director", "Architect", "Product Manager", "Consultant"))
    email = f"{name.split()[0].lower()}@{company.split()[0].lower()}.com"
    sid, patches = snapshot(
        g,
        "camera",
        f"{name}\n{title}, {company}\nTel {number}\n{email}",
        {"name": name, "phone": number, "company": company, "email": email, "title": title},
    )
    query = g.say(
        "add the person on this business card to my contacts (it's on screen, {sid})",
        "save the business card I just photographed ({sid}) as a contact",
        "make a contact from the card in screenshot {sid}",
        sid=sid,
    )
    return Draft(
        query=query,
        gold=[
            act(
                "call_screen_reader_agent",
                source={"type": "screen", "id": sid},
                extract_fields=["name", "phone", "company", "email"],
            ),
            act("add_contact", name=name, phone_number=number, company=company, email=email),
            done(f"Saved {name}."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": on_screen(sid),
            "state": {"insert": {"contacts": [{"name": name, "phone_number": {"$phone": number}}]}},
        },
        patches=patches,
    )


# ---- 3.2 monitor: reply as soon as a contact texts back ------------------------------------------


@family("subagent", "3.2", agent="monitor_agent")
def reply_when_they_text(g: Gen) -> Draft:
    c = person(g)
    if any(m["contact_id"] == c["contact_id"] and not m["is_read"] for m in g.rows("messages")):
        raise BuildError("already has unread messages")
    reply = g.pick(("Great, see you then!", "Thanks, got it.", "Perfect, talk soon.", "Okay, I'll call you later."))
    mid = f"message_{len(g.rows('messages')) + 50:03d}"
    incoming = {
        "message_id": mid,
        "channel": "sms",
        "direction": "in",
        "counterpart": c["phone_number"],
        "contact_id": c["contact_id"],
        "body": g.pick(NOTES).capitalize() + ".",
        "is_read": 0,
        "status": "received",
        "sent_at": stamp(g, 2),
        "created_at": stamp(g, 2),
        "updated_at": stamp(g, 2),
    }
    condition = {
        "tool": "search_messages",
        "args": {"contact_id": c["contact_id"], "unread_only": True},
        "path": "$.count",
        "op": "gt",
        "value": 0,
    }
    ask = g.pick(
        (
            "are we still on for tonight?",
            "did you get my email?",
            "can you send me the photos?",
            "what time works for you tomorrow?",
        )
    )
    query = g.say(
        "text {name} '{ask}' and as soon as they answer, reply '{reply}'",
        "ask {name} by SMS: {ask} When they text back, answer '{reply}'",
        "send {name} a text asking '{ask}', then watch for the answer and reply '{reply}'",
        name=c["name"],
        reply=reply,
        ask=ask,
    )
    return Draft(
        query=query,
        gold=[
            act("search_contacts", name=c["name"]),
            act("send_sms", to=[c["contact_id"]], body=ask[:1].upper() + ask[1:]),
            act(
                "call_monitor_agent",
                condition=condition,
                on_trigger=[{"tool": "send_sms", "args": {"to": [c["contact_id"]], "body": reply}}],
                description=f"Reply to {c['name']} when they text",
            ),
            done(f"I'll reply to {c['name']} as soon as they text."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_monitor_agent",
            "handoff": {"condition": {"tool": "search_messages", "args": {"contact_id": c["contact_id"]}}},
            "state": {
                "insert": {
                    "monitors": [{"status": "triggered"}],
                    "messages": [
                        {"message_id": mid},
                        {
                            "direction": "out",
                            "contact_id": c["contact_id"],
                            "body": {"$contains": ask.split()[-1].rstrip("?")},
                        },
                        {
                            "direction": "out",
                            "channel": "sms",
                            "contact_id": c["contact_id"],
                            "body": {"$contains": reply.split(",")[0].rstrip("!.")},
                        },
                    ],
                }
            },
        },
        events=[{"at": later(g, 2), "changes": {"insert": {"messages": [incoming]}}}],
    )


# ---- 3.3 screen reader: forward an address shown in a chat screenshot ------------------------------


@family("subagent", "3.3", agent="screen_reader_agent")
def forward_address_from_screenshot(g: Gen) -> Draft:
    c = person(g)
    address = f"{g.rng.randint(2, 300)} {g.pick(('Lake Road', 'Hill Street', 'Cedar Court', 'Bridge Street'))}"
    venue = g.pick(("the party", "the restaurant", "the new office", "the wedding venue"))
    sid, patches = snapshot(
        g,
        "chat",
        f"Anna: The address for {venue} is {address}\nAnna: see you at 7!",
        {"address": address, "sender": "Anna"},
    )
    query = g.say(
        "text {name} the address in the chat screenshot {sid}",
        "read the address off my screenshot {sid} and send it to {name} by SMS",
        "send {name} the address shown in {sid}",
        name=c["name"],
        sid=sid,
    )
    return Draft(
        query=query,
        gold=[
            act("call_screen_reader_agent", source={"type": "screen", "id": sid}, extract_fields=["address"]),
            act("search_contacts", name=c["name"]),
            act("send_sms", to=[c["contact_id"]], body=f"The address is {address}."),
            done("Sent."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": on_screen(sid),
            "state": {
                "insert": {
                    "messages": [{"contact_id": c["contact_id"], "direction": "out", "body": {"$contains": address}}]
                }
            },
        },
        patches=patches,
    )


# ---- 3.4 monitor: call back a missed call automatically ----------------------------------------------


@family("subagent", "3.4", agent="monitor_agent")
def call_back_when_missed(g: Gen) -> Draft:
    rel = g.pick(("mother", "father", "spouse", "boss"))
    c = g.one("contacts", {"relationship": rel})
    missed = [r for r in g.rows("call_log", {"contact_id": c["contact_id"], "type": "missed"})]
    call_id = f"call_{len(g.rows('call_log')) + 50:03d}"
    event_row = {
        "call_id": call_id,
        "number": c["phone_number"],
        "contact_id": c["contact_id"],
        "type": "missed",
        "app": "phone",
        "video": 0,
        "started_at": stamp(g, 1),
        "duration_sec": 0,
        "created_at": stamp(g, 1),
        "updated_at": stamp(g, 1),
    }
    condition = {
        "tool": "get_call_log",
        "args": {"type": "missed", "contact_id": c["contact_id"], "limit": 50},
        "path": "$.count",
        "op": "gt",
        "value": len(missed),
    }
    who = {"mother": "mom", "father": "dad", "spouse": "my partner", "boss": "my boss"}[rel]
    hours = g.pick((2, 3, 4))
    obj = "them" if rel in ("spouse", "boss") else ("her" if rel == "mother" else "him")
    query = g.say(
        "call {who} now; I'm going into a meeting after, so if {obj2} calls back and I miss it, ring {obj} "
        "back right away",
        "phone {who}, and for the next {h} hours, whenever I miss a call from {obj}, call {obj} back",
        "give {who} a ring, then keep an eye on missed calls from {obj} for {h} hours and call back automatically",
        who=who,
        h=hours,
        obj=obj,
        obj2={"her": "she", "him": "he"}.get(obj, "they"),
    )
    return Draft(
        query=query,
        gold=[
            act("search_contacts", relationship=rel),
            act("make_phone_call", to=c["contact_id"]),
            act(
                "call_monitor_agent",
                condition=condition,
                on_trigger=[{"tool": "make_phone_call", "args": {"to": c["contact_id"]}}],
                expires_at=later(g, hours),
                description=f"Call {c['name']} back after a missed call",
            ),
            done("I'll call back as soon as a call is missed."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_monitor_agent",
            "handoff": {"condition": {"tool": "get_call_log", "args": {"contact_id": c["contact_id"]}}},
            "state": {
                "insert": {
                    "monitors": [{"status": "triggered"}],
                    "call_log": [
                        {"call_id": call_id},
                        {"contact_id": c["contact_id"], "type": "outgoing"},
                        {"contact_id": c["contact_id"], "type": "outgoing"},
                    ],
                }
            },
        },
        events=[{"at": later(g, 1), "changes": {"insert": {"call_log": [event_row]}}}],
    )


# ---- 3.5 screen reader: block the sender of a scam text -------------------------------------------


@family("subagent", "3.5", agent="screen_reader_agent")
def block_scam_sender(g: Gen) -> Draft:
    number = spam_number(g)
    lure = g.pick(
        (
            "Your parcel is held at customs, pay the fee at",
            "You won a prize! Claim it at",
            "Your bank account is locked, verify at",
        )
    )
    sid, patches = snapshot(
        g,
        "messages",
        f"From: {number}\n{lure} http://bit.ly/x{g.rng.randint(100, 999)}",
        {"sender": number, "link": "http://bit.ly/x"},
    )
    query = g.say(
        "this text on my screen ({sid}) is a scam: block the sender and report it",
        "block and report whoever sent the message in screenshot {sid}",
        "the SMS in {sid} is spam; block that number and flag it",
        sid=sid,
    )
    return Draft(
        query=query,
        gold=[
            act("call_screen_reader_agent", source={"type": "screen", "id": sid}, extract_fields=["sender"]),
            act("block_number", phone_number=number, report_spam=True),
            done(f"Blocked and reported {number}."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": on_screen(sid),
            "state": {"insert": {"blocked_numbers": [{"number": {"$phone": number}, "reported_spam": 1}]}},
        },
        patches=patches,
    )


# ---- 3.6 GUI agent: rename a group chat (the chat app has no API for it) ---------------------------

NEW_GROUP_NAMES = (
    "Sunday Smashers",
    "The Clan",
    "Home Base",
    "Shuttle Squad",
    "Family HQ",
    "Court Kings",
    "Our Little Tribe",
    "Net Ninjas",
)


@family("subagent", "3.6", agent="gui_agent")
def rename_group_chat(g: Gen) -> Draft:
    grp = g.one("groups", {"is_admin": 1})
    new = g.pick(NEW_GROUP_NAMES)
    note = g.rng.random() < 0.5
    query = g.say(
        "rename the {old} group chat to {new}",
        "change the name of our {old} group to '{new}'",
        "call the {old} chat '{new}' from now on",
        old=grp["name"],
        new=new,
    )
    gold = [
        act(
            "call_gui_agent",
            app_id="chat",
            goal=f"Rename the group chat {grp['name']} to {new}",
            inputs={"group": grp["name"], "new_name": new},
            expected_outputs=["name"],
        )
    ]
    state: dict[str, Any] = {"update": {"groups": [{"match": {"group_id": grp["group_id"]}, "set": {"name": new}}]}}
    if note:
        query += " and tell everyone there"
        gold += [
            act("search_messages", query=new, groups_only=True),
            act("send_chat_message", to=grp["group_id"], text=f"I renamed this group to {new}."),
        ]
        state["insert"] = {"messages": [{"counterpart": grp["group_id"], "body": {"$contains": new}}]}
    return Draft(
        query=query,
        gold=[*gold, done(f"Renamed to {new}.")],
        bucket="agent_behavior",
        check={"route": "call_gui_agent", "handoff": {"app_id": "chat"}, "state": state},
    )


# ---- 3.7 GUI agent: change who can see one of the user's posts ------------------------------------


@family("subagent", "3.7", agent="gui_agent")
def change_post_audience(g: Gen) -> Draft:
    post = g.one("social_posts", {"is_own": 1})
    vis = g.pick([v for v in ("public", "friends", "private") if v != post["visibility"]])
    words = {"public": "public", "friends": "friends-only", "private": "private"}[vis]
    p = PLATFORM_NAMES[post["platform"]]
    query = g.say(
        "make my {p} post '{text}' {w}",
        "change the audience of my '{text}' post on {p} to {w}",
        "set my {p} post '{text}' to {w}",
        p=p,
        text=post["content"],
        w=words,
    )
    gold = [
        act("search_social_posts", platform=post["platform"], query=post["content"], own_only=True),
        act(
            "call_gui_agent",
            app_id="social",
            goal=f"Change who can see my post to {vis}",
            inputs={"platform": post["platform"], "post": post["content"], "visibility": vis},
        ),
        done(f"Your post is now {words}."),
    ]
    return Draft(
        query=query,
        gold=gold,
        bucket="agent_behavior",
        check={
            "route": "call_gui_agent",
            "handoff": {"app_id": "social"},
            "state": {
                "update": {"social_posts": [{"match": {"post_id": post["post_id"]}, "set": {"visibility": vis}}]}
            },
        },
    )


# ---- 3.8 monitor: follow an account and hear when it posts about something --------------------------

# a topic word (the monitor's search), how the user says it, and the post that announces it
WATCH_TOPICS = {
    "giveaway": ("a giveaway", "Big news: our giveaway starts this weekend!"),
    "tickets": ("tickets", "Big news: tickets go on sale this weekend!"),
    "livestream": ("a livestream", "Big news: our livestream starts this weekend!"),
    "workshop": ("a workshop", "Big news: our workshop starts this weekend!"),
    "sale": ("a sale", "Big news: our sale starts this weekend!"),
}


@family("subagent", "3.8", agent="monitor_agent")
def follow_and_watch(g: Gen) -> Draft:
    follows = {(f["platform"], f["handle"]) for f in g.rows("social_follows")}
    acc = g.one(
        "world_social_accounts",
        {"is_self": 0},
        filter=lambda a: a["contact_id"] is None and (a["platform"], a["handle"]) not in follows,
    )
    topic = g.pick(list(WATCH_TOPICS))
    said, content = WATCH_TOPICS[topic]
    pid = f"post_{len(g.rows('social_posts')) + 50:03d}"
    post = {
        "post_id": pid,
        "platform": acc["platform"],
        "author": acc["handle"],
        "content": content,
        "photo_ids_json": "[]",
        "visibility": "public",
        "location": None,
        "tags_json": "[]",
        "is_own": 0,
        "likes": 10,
        "posted_at": stamp(g, 3),
        "created_at": stamp(g, 3),
        "updated_at": stamp(g, 3),
    }
    p = PLATFORM_NAMES[acc["platform"]]
    query = g.say(
        "follow @{h} on {p} and let me know when they post about {t}",
        "start following {name} on {p}; ping me once they announce {t}",
        "follow {name} (@{h}) on {p} and watch for a post about {t}",
        h=acc["handle"],
        p=p,
        name=acc["display_name"],
        t=said,
    )
    # Only this account's posts: the forms search_social_posts takes (handle with or without @, display name).
    who = rf"^\s*(?:@?{re.escape(acc['handle'])}|{re.escape(acc['display_name'])})\s*$"
    condition = {
        "tool": "search_social_posts",
        "args": {"platform": acc["platform"], "author": acc["handle"], "query": topic},
        "path": "$.count",
        "op": "gt",
        "value": 0,
    }
    return Draft(
        query=query,
        gold=[
            act("follow_account", platform=acc["platform"], handle=acc["handle"]),
            act(
                "call_monitor_agent",
                condition=condition,
                notify_only=True,
                description=f"Tell the user when @{acc['handle']} posts about {said}",
            ),
            done(f"Following @{acc['handle']}; I'll tell you when they post about {said}."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_monitor_agent",
            "handoff": {
                "condition": {
                    "tool": "search_social_posts",
                    # any form of the word: "ticket" finds "tickets" too
                    "args": {
                        "platform": acc["platform"],
                        "author": {"$regex": who},
                        "query": {"$contains": topic.removesuffix("s")},
                    },
                }
            },
            "state": {
                "insert": {
                    "monitors": [{"status": "triggered", "notify_only": 1}],
                    "social_follows": [{"platform": acc["platform"], "handle": acc["handle"]}],
                    "social_posts": [{"post_id": pid}],
                }
            },
        },
        events=[{"at": later(g, 3), "changes": {"insert": {"social_posts": [post]}}}],
    )


# ---- 13.1 GUI agent: museum tickets sold only in the venue's own app --------------------------------


@family("subagent", "13.1", agent="gui_agent")
def museum_tickets_in_venue_app(g: Gen) -> Draft:
    ev = g.one("world_events", {"api_bookable": 0}, filter=lambda e: e["seats_left"] > 5)
    sessions = [s for s in json.loads(ev["sessions_json"]) if s > minute(g)]
    if not sessions:
        raise BuildError("no session")
    session = g.pick(sessions)
    companion = g.pick(("Lily Chen", "Tom Baker", "Alex Morgan"))
    qty = g.pick((1, 2))
    visitors = [g.persona.name] + ([companion] if qty == 2 else [])
    who = "me" if qty == 1 else f"me and {companion}"
    query = g.say(
        "get tickets to the {title} for {who} on {when}",
        "book {title}, {when}, for {who}",
        "I want to visit {venue} on {when}: tickets for {who}",
        title=ev["title"],
        who=who,
        when=say_session(session),
        venue=ev["venue"],
    )
    inputs = {"date": session[:10], "session": session[11:], "quantity": qty, "visitors": visitors}
    return Draft(
        query=query,
        gold=[
            act("search_events", query=ev["venue"], city=ev["city"]),
            act(
                "book_event_tickets",
                event_id=ev["event_id"],
                quantity=qty,
                session_time=session,
                attendee_names=visitors,
            ),
            act(
                "call_gui_agent",
                app_id=ev["booking_app_id"],
                goal=f"Reserve {qty} ticket(s) for {ev['title']}",
                inputs=inputs,
                expected_outputs=["reservation_code", "qr_code"],
            ),
            done("Reserved in the venue's app."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_gui_agent",
            "handoff": {"app_id": ev["booking_app_id"]},
            "state": {
                "insert": {
                    "event_tickets": [
                        {
                            "event_id": ev["event_id"],
                            "session_time": session,
                            "quantity": qty,
                            "source": "gui_agent",
                            "attendee_names_json": {"$contains_all": visitors},
                        }
                    ],
                    **paid(ev["venue"], "entertainment"),
                },
                "ignore_tables": PAY,
            },
        },
        recovers=(ErrorType.UNSUPPORTED_OPERATION,),
    )


# ---- 13.2 monitor: tell the user when a parcel is delivered -----------------------------------------


@family("subagent", "13.2", agent="monitor_agent")
def notify_on_delivery(g: Gen) -> Draft:
    p = g.one("world_parcels", filter=lambda r: r["status"] in ("in_transit", "out_for_delivery"))
    query = g.say(
        "let me know when parcel {n} has been delivered",
        "watch {n} and tell me once it's delivered",
        "check where {n} is and notify me the moment it arrives",
        n=p["tracking_number"],
    )
    condition = {
        "tool": "track_parcel",
        "args": {"tracking_number": p["tracking_number"]},
        "path": "$.status",
        "op": "eq",
        "value": "delivered",
    }
    return Draft(
        query=query,
        gold=[
            act("track_parcel", tracking_number=p["tracking_number"]),
            act(
                "call_monitor_agent",
                condition=condition,
                notify_only=True,
                description=f"Notify when {p['tracking_number']} is delivered",
            ),
            done("It's on its way; I'll tell you when it's delivered."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_monitor_agent",
            "handoff": {
                "condition": {
                    "tool": "track_parcel",
                    "args": {"tracking_number": p["tracking_number"]},
                    "value": {"$contains": "deliver"},
                }
            },
            "state": {"insert": {"monitors": [{"status": "triggered", "notify_only": 1}]}},
        },
        events=[
            {
                "at": later(g, 5),
                "changes": {
                    "update": {
                        "world_parcels": [
                            {"match": {"tracking_number": p["tracking_number"]}, "set": {"status": "delivered"}}
                        ]
                    }
                },
            }
        ],
    )


# ---- 13.3 / 13.4 voice agent: providers that book only by phone ----------------------------------------


def phone_only(g: Gen, service: str, day: str) -> tuple[dict[str, Any], list[str], dict[str, Any]]:
    """A home-city provider that books ``service`` by phone only, its open times on ``day`` and the phone line
    behind it. The line's rules come from the provider's listed slots (what search_local_services shows), so
    the listing and the call agree: an open slot is confirmed, a taken one gets an alternative."""
    prov = g.one(
        "world_service_providers",
        {"city": g.persona.home_city, "online_booking": 0},
        filter=lambda p: service in json.loads(p["service_types_json"]),
    )
    slots = [
        s
        for s in g.rows("world_service_slots", {"provider_id": prov["provider_id"]})
        if s["start"].startswith(day) and s["start"] > g.now.strftime("%Y-%m-%dT%H:%M")
    ]
    free = [s["start"][11:] for s in slots if s["available"]]
    if not free:
        raise BuildError(f"{prov['name']} has no open slot on {day}")
    phone = "".join(ch for ch in prov["phone"] if ch.isdigit() or ch == "+")
    rules = {
        "open": "08:00",
        "close": "19:00",
        "slots": free,
        "full": [s["start"][11:] for s in slots if not s["available"]],
    }
    return (
        prov,
        free,
        {
            "insert": {
                "world_phone_services": [
                    {
                        "phone": phone,
                        "place_id": prov["place_id"],
                        "name": prov["name"],
                        "handler": "appointment",
                        "rules_json": json.dumps(rules),
                    }
                ]
            }
        },
    )


def voice_draft(g: Gen, service: str, what: str) -> Draft:
    """Book ``service`` with a provider that takes bookings by phone only: the listing shows its phone and open
    slots, the voice agent calls."""
    days = g.rng.randint(1, 3)
    day = g.date(days)
    prov, free, patches = phone_only(g, service, day)
    time = g.pick(free)
    query = g.say(
        "book {what} with {name} {when} at {t}",
        "get {name} to do {what} {when}, {t}",
        "I need {what} from {name} {when} at {t}; please arrange it",
        what=what,
        name=prov["name"],
        when=g.when(days),
        t=time,
    )
    facts = {"date": day, "time": time, "name": g.persona.name, "notes": what}
    gold = [
        act("search_local_services", service_type=service, date=day),
        act(
            "call_voice_agent",
            callee={"phone": prov["phone"]},
            objective=f"Book {what} on {day} at {time}",
            facts=facts,
        ),
        done(f"{prov['name']} confirmed {what} {g.when(days)} at {time}."),
    ]
    return Draft(
        query=query,
        gold=gold,
        bucket="agent_behavior",
        check={
            "route": "call_voice_agent",
            "handoff": {
                "callee": {"phone": {"$phone": prov["phone"]}},
                "facts": {"date": day, "time": time},
                "objective": {
                    "$any": [{"$contains": w} for w in ("book", "appointment", "reserv", "schedul", "arrange")]
                },
            },
            "state": {
                "insert": {
                    "phone_bookings": [{"business": prov["name"], "date": day, "time": time, "source": "voice_agent"}]
                }
            },
        },
        patches=patches,
    )


@family("subagent", "13.3", agent="voice_agent")
def plumber_by_phone(g: Gen) -> Draft:
    return voice_draft(g, "plumbing", g.pick(("a plumber visit", "a leaking tap fixed", "a blocked drain cleared")))


@family("subagent", "13.4", agent="voice_agent")
def barber_by_phone(g: Gen) -> Draft:
    return voice_draft(g, "haircut", g.pick(("a haircut", "a beard trim and haircut", "a quick haircut")))


# ---- 13.5 screen reader: add a loyalty card from a photo of it ----------------------------------------


@family("subagent", "13.5", agent="screen_reader_agent")
def loyalty_card_from_screen(g: Gen) -> Draft:
    merchant = g.pick(("Decathlon Club", "Uniqlo Members", "Muji Passport", "Lush Club", "Shell ClubSmart"))
    number = f"{g.rng.randint(1000, 9999)}{g.rng.randint(1000, 9999)}{g.rng.randint(1000, 9999)}"
    points = g.rng.randint(100, 4000)
    sid, patches = snapshot(
        g,
        "camera",
        f"{merchant}\nMember no. {number}\nPoints: {points}",
        {"merchant": merchant, "card_number": number, "points": points},
    )
    query = g.say(
        "add the membership card in my screenshot {sid} to the wallet, with its points",
        "scan the loyalty card on screen ({sid}) into my wallet including the points balance",
        "save the card shown in {sid} to my wallet with its points",
        sid=sid,
    )
    return Draft(
        query=query,
        gold=[
            act(
                "call_screen_reader_agent",
                source={"type": "screen", "id": sid},
                extract_fields=["merchant", "card_number", "points"],
            ),
            act("add_membership_card", merchant=merchant, card_number=number, points=points),
            done(f"Added your {merchant} card with {points} points."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": on_screen(sid),
            "state": {
                "insert": {
                    "membership_cards": [
                        {"merchant": {"$contains": merchant.split()[0]}, "card_number": number, "points": points}
                    ]
                }
            },
        },
        patches=patches,
    )
