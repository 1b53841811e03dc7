"""Basic Tool Use families for D3 Communication & Social: contacts, messages, calls, blocking, groups, social."""

from __future__ import annotations

import json
import re
from typing import Any

from sandbox.errors import ErrorType
from sandbox.generator.core import BuildError, Gen, act, done, family
from sandbox.generator.draft import Draft

FIRST = (
    "Mike",
    "Priya",
    "Jonas",
    "Aiko",
    "Sofia",
    "Omar",
    "Chen",
    "Lucia",
    "Tariq",
    "Hana",
    "Pavel",
    "Nadia",
    "Rosa",
    "Felix",
    "Ingrid",
    "Kofi",
    "Mateo",
    "Leila",
    "Arjun",
    "Greta",
)
LAST = (
    "Ross",
    "Das",
    "Berg",
    "Tanaka",
    "Costa",
    "Haddad",
    "Wei",
    "Moreno",
    "Aziz",
    "Kim",
    "Novak",
    "Silva",
    "Lindqvist",
    "Mensah",
    "Varga",
    "Petrov",
    "Quinn",
    "Duarte",
)
ROLES = ("plumber", "dentist", "colleague", "neighbour", "tennis coach", "landlord", "tutor", "mechanic")
COMPANIES = (
    "Northwind",
    "Blue Harbor Bank",
    "Orbit Labs",
    "Greenfield School",
    "Pioneer Logistics",
    "Nova Health",
    "Summit Media",
    "Redwood Capital",
)


def new_number(g: Gen) -> str:
    return f"+1 415 555 {g.rng.randint(1000, 9999)}"


def person(g: Gen, **where: Any) -> dict[str, Any]:
    """A regular contact (not the stale 'Tom B.' duplicate nor a doctor) with a unique full name."""
    rows = g.rows("contacts")
    names = [r["name"] for r in rows]
    return g.one(
        "contacts",
        where or None,
        filter=lambda r: (
            not r["name"].startswith("Dr.")
            and not r["name"].endswith(".")
            and names.count(r["name"]) == 1
            and sum(r["name"].lower() in n.lower() for n in names) == 1
        ),
    )


def digits(number: str) -> str:
    return "".join(ch for ch in number if ch.isdigit() or ch == "+")


# ---- 3.1 Contacts Management ---------------------------------------------------------------------


@family("basic", "3.1", pattern="single_call")
def add_new_contact(g: Gen) -> Draft:
    name = f"{g.pick(FIRST)} {g.pick(LAST)}"
    number, role = new_number(g), g.pick(ROLES)
    query = g.say(
        "save my new {role} {name}, the number is {number}",
        "add {name} ({role}) to my contacts: {number}",
        "please create a contact for {name}, {number}; they're my {role}",
        name=name,
        number=number,
        role=role,
    )
    return Draft(
        query=query,
        gold=[act("add_contact", name=name, phone_number=number, relationship=role), done(f"Saved {name}.")],
        bucket="state_change",
        check={
            "insert": {
                "contacts": [
                    {"name": name, "phone_number": {"$phone": number}, "relationship": relationship_matcher(role)}
                ]
            }
        },
    )


def relationship_matcher(role: str) -> dict[str, Any]:
    """The relationship as stated, in either spelling (neighbour/neighbor)."""
    return {"$regex": role.replace("neighbour", "neighbou?r")}


@family("basic", "3.1", pattern="lookup_then_act")
def update_contact_details(g: Gen) -> Draft:
    c = person(g)
    kind = g.pick(("email", "company", "birthday"))
    if kind == "email":
        value = (
            f"{c['name'].split()[0].lower()}.{g.rng.randint(10, 99)}@{g.pick(('mail.com', 'post.net', 'inbox.org'))}"
        )
        query = g.say(
            "{name} has a new email address, {value}; update the contact",
            "change {name}'s email in my contacts to {value}",
            "please set the email of {name} to {value}",
            name=c["name"],
            value=value,
        )
    elif kind == "company":
        value = g.pick([x for x in COMPANIES if x != c["company"]])
        query = g.say(
            "{name} works at {value} now, update their contact",
            "change {name}'s employer to {value}",
            "{name} just joined {value}; please fix the company on their contact card",
            name=c["name"],
            value=value,
        )
    else:
        value = f"{g.rng.randint(1960, 2003)}-{g.rng.randint(1, 12):02d}-{g.rng.randint(1, 28):02d}"
        query = g.say(
            "save {name}'s birthday as {value}",
            "{name} was born on {value}, add that to the contact",
            "set the birthday on {name}'s contact to {value}",
            name=c["name"],
            value=value,
        )
    return Draft(
        query=query,
        gold=[
            act("search_contacts", name=c["name"]),
            act("update_contact", contact_id=c["contact_id"], **{kind: value}),
            done(f"Updated {c['name']}."),
        ],
        bucket="state_change",
        check={"update": {"contacts": [{"match": {"contact_id": c["contact_id"]}, "set": {kind: value}}]}},
    )


@family("basic", "3.1", pattern="friction", friction="duplicate_entity")
def save_number_for_existing_name(g: Gen) -> Draft:
    """Adding a name that is already saved fails as a duplicate: the existing card gets the new number."""
    c = person(g)
    number = new_number(g)
    query = g.say(
        "save {name} in my contacts with the number {number}",
        "add {name}, {number}, to my address book",
        "{name}'s number is {number} now, put it in my contacts",
        name=c["name"],
        number=number,
    )
    return Draft(
        query=query,
        gold=[
            act("add_contact", name=c["name"], phone_number=number),
            act("update_contact", contact_id=c["contact_id"], phone_number=number),
            done(f"{c['name']} was already saved, so I updated the number to {number}."),
        ],
        bucket="state_change",
        check={
            "update": {
                "contacts": [{"match": {"contact_id": c["contact_id"]}, "set": {"phone_number": {"$phone": number}}}]
            }
        },
        recovers=(ErrorType.DUPLICATE_ENTITY,),
    )


@family("basic", "3.1", pattern="lookup_then_act")
def merge_duplicate_contact(g: Gen) -> Draft:
    c = person(g, email=None)
    contacts = g.rows("contacts")
    dup_id = f"contact_{len(contacts) + 1:03d}"
    first, last = c["name"].split()[0], c["name"].split()[-1]
    dup_name = g.pick((f"{first} {last[0]}.", f"{first} ({g.pick(('work', 'old', 'new'))})"))
    email = f"{first.lower()}.{last.lower()}{g.rng.randint(1, 99)}@example.org"
    number = f"+1 628 555 {g.rng.randint(1000, 9999)}"
    stamp = g.persona.now
    query = g.say(
        "I have {name} twice in my contacts, also as '{dup}'. Merge them into {name}",
        "merge the contact '{dup}' into {name}, it's the same person",
        "clean up my contacts: '{dup}' is a duplicate of {name}, fold it in",
        name=c["name"],
        dup=dup_name,
    )
    return Draft(
        query=query,
        gold=[
            act("search_contacts", name=first),
            act("merge_contacts", primary_id=c["contact_id"], duplicate_id=dup_id),
            done(f"Merged {dup_name} into {c['name']}."),
        ],
        bucket="state_change",
        check={
            "update": {"contacts": [{"match": {"contact_id": c["contact_id"]}, "set": {"email": email}}]},
            "delete": {"contacts": [{"contact_id": dup_id}]},
            "ignore_columns": ["notes"],
        },
        patches={
            "insert": {
                "contacts": [
                    {
                        "contact_id": dup_id,
                        "name": dup_name,
                        "phone_number": digits(number),
                        "email": email,
                        "favorite": 0,
                        "created_at": stamp,
                        "updated_at": stamp,
                    }
                ]
            }
        },
    )


@family("basic", "3.1", pattern="lookup_then_act")
def delete_contact_by_name(g: Gen) -> Draft:
    c = person(g, relationship=g.pick(("classmate", "neighbor", "client", None)))
    query = g.say(
        "delete {name} from my contacts",
        "remove {name} from my address book, we're not in touch anymore",
        "I don't need {name}'s contact anymore, please delete it",
        name=c["name"],
    )
    return Draft(
        query=query,
        gold=[
            act("search_contacts", name=c["name"]),
            act("delete_contact", contact_id=c["contact_id"]),
            done(f"Deleted {c['name']}."),
        ],
        bucket="state_change",
        check={"delete": {"contacts": [{"contact_id": c["contact_id"]}]}},
    )


# ---- 3.2 Message Composition & Sending -------------------------------------------------------------

WHEN = ("7pm", "8:30", "noon", "half past six", "9 tomorrow morning", "around 5")
# What a user dictates, with the content words any wording of it keeps (an item may list alternatives),
# so "the rent has been paid" passes for "the rent is paid".
NOTE_WORDS: dict[str, list[Any]] = {
    "the keys are under the mat": ["key", "mat"],
    "dinner is at my place on Friday": ["dinner", "friday"],
    "I picked up the tickets": [{"$any": ["picked", "got", "collected", "have"]}, "ticket"],
    "the meeting moved to Thursday": ["meeting", "thursday"],
    "I'll bring the charger": ["bring", "charger"],
    "the package arrived": ["package", {"$any": ["arrived", "came", "delivered", "here"]}],
    "I'm on the train now": ["train"],
    "we're meeting at the north entrance": [{"$any": ["meet", "see you", "join", "find", "wait"]}, "north entrance"],
    "I left the umbrella in your car": ["umbrella", "car"],
    "the rent is paid": ["rent", "paid"],
}
NOTES = tuple(NOTE_WORDS)


def dictated(note: str) -> dict[str, Any]:
    """The matcher of a message body that says ``note`` in any words."""
    return {"$contains_all": NOTE_WORDS[note]}


@family("basic", "3.2", pattern="friction", friction="permission_denied")
def text_after_granting_sms(g: Gen) -> Draft:
    contact = g.one("contacts", filter=lambda r: r["relationship"] in ("friend", "colleague", "sibling"))
    first = contact["name"].split()[0]
    when = g.pick(("7pm", "8:30", "noon"))
    body = f"I'll be there by {when}."
    return Draft(
        query=g.say(
            "text {first} that I'll be there by {when}",
            "send {first} an SMS: I'll be there by {when}",
            first=first,
            when=when,
        ),
        gold=[
            act("search_contacts", name=contact["name"]),
            act("send_sms", to=[contact["contact_id"]], body=body),
            act("grant_app_permission", app_id="messages", permission="SMS"),
            act("send_sms", to=[contact["contact_id"]], body=body),
            done(f"Texted {first}."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "messages": [{"channel": "sms", "contact_id": contact["contact_id"], "body": {"$contains": when}}]
            },
            "update": {
                "app_permissions": [{"match": {"app_id": "messages", "permission": "SMS"}, "set": {"state": "granted"}}]
            },
        },
        patches={
            "update": {
                "app_permissions": [
                    {"match": {"app_id": "messages", "permission": "SMS"}, "set": {"state": "not_requested"}}
                ]
            }
        },
        recovers=(ErrorType.PERMISSION_DENIED,),
    )


@family("basic", "3.2", pattern="lookup_then_act")
def chat_message_to_contact(g: Gen) -> Draft:
    c = person(g)
    note = g.pick(NOTES)
    query = g.say(
        "message {name} on chat that {note}",
        "send {name} a chat message saying {note}",
        "let {name} know over the chat app that {note}",
        name=c["name"],
        note=note,
    )
    return Draft(
        query=query,
        gold=[
            act("search_contacts", name=c["name"]),
            act("send_chat_message", to=c["contact_id"], text=note.capitalize() + "."),
            done(f"Sent to {c['name']}."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "messages": [
                    {"channel": "chat", "contact_id": c["contact_id"], "direction": "out", "body": dictated(note)}
                ]
            }
        },
    )


@family("basic", "3.2", pattern="friction", friction="network_unavailable")
def sms_in_airplane_mode(g: Gen) -> Draft:
    c = person(g)
    when = g.pick(WHEN)
    body = f"Running late, I'll be there at {when}."
    query = g.say(
        "text {name} that I'm running late and will be there at {when}",
        "send an SMS to {name}: running late, there at {when}",
        "please let {name} know by text that I'll only make it at {when}",
        name=c["name"],
        when=when,
    )
    return Draft(
        query=query,
        gold=[
            act("search_contacts", name=c["name"]),
            act("send_sms", to=[c["contact_id"]], body=body),
            act("set_airplane_mode", enabled=False),
            act("send_sms", to=[c["contact_id"]], body=body),
            done(f"Airplane mode was on; I turned it off and texted {c['name']}."),
        ],
        bucket="state_change",
        check={
            "insert": {"messages": [{"channel": "sms", "contact_id": c["contact_id"], "body": {"$contains": when}}]},
            "update": {"device_settings": [{"match": {"key": "airplane_mode"}, "set": {"value": "0"}}]},
        },
        patches={"update": {"device_settings": [{"match": {"key": "airplane_mode"}, "set": {"value": "1"}}]}},
        recovers=(ErrorType.NETWORK_UNAVAILABLE,),
    )


@family("basic", "3.2", pattern="friction", friction="invalid_value")
def sms_to_several_people(g: Gen) -> Draft:
    """The gold first passes one recipient as a bare string (InvalidArgumentType), then as the list it must be."""
    a, b = person(g), person(g)
    if a["contact_id"] == b["contact_id"]:
        raise BuildError("same contact twice")
    note = g.pick(NOTES)
    query = g.say(
        "text both {a} and {b} that {note}",
        "send an SMS to {a} and {b}: {note}",
        "let {a} and {b} know by text message that {note}",
        a=a["name"],
        b=b["name"],
        note=note,
    )
    body = note.capitalize() + "."
    return Draft(
        query=query,
        gold=[
            act("search_contacts", name=a["name"]),
            act("search_contacts", name=b["name"]),
            act("send_sms", to=f"{a['contact_id']},{b['contact_id']}", body=body),
            act("send_sms", to=[a["contact_id"], b["contact_id"]], body=body),
            done(f"Texted {a['name']} and {b['name']}."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "messages": [
                    {"channel": "sms", "contact_id": a["contact_id"], "body": dictated(note)},
                    {"channel": "sms", "contact_id": b["contact_id"], "body": dictated(note)},
                ]
            }
        },
        recovers=(ErrorType.INVALID_ARGUMENT_TYPE,),
    )


# ---- 3.3 Message Search & Inbox ------------------------------------------------------------------


def live_messages(g: Gen, cid: str) -> list[dict[str, Any]]:
    return [m for m in g.rows("messages", {"contact_id": cid}) if m["status"] != "deleted"]


@family("basic", "3.3", pattern="lookup_then_act")
def latest_message_from(g: Gen) -> Draft:
    people = [
        p for p in g.rows("contacts") if len(live_messages(g, p["contact_id"])) >= 2 and not p["name"].endswith(".")
    ]
    if not people:
        raise BuildError("nobody with messages")
    c = g.pick(people)
    channel = g.pick(("sms", "chat", None))
    where = {"sms": "texted", "chat": "sent me on chat", None: "wrote to me"}[channel]
    query = g.say(
        "what did {name} last {where_short}?",
        "show me the most recent message {name} {where}",
        "read me {name}'s latest message{suffix}",
        "what's the last thing {name} {where}?",
        name=c["name"],
        where=where,
        where_short={"sms": "text me", "chat": "send me on chat", None: "write to me"}[channel],
        suffix={"sms": " (SMS)", "chat": " on chat", None: ""}[channel],
    )
    args: dict[str, Any] = {"contact_id": c["contact_id"], **({"channel": channel} if channel else {})}
    received = [
        m for m in live_messages(g, c["contact_id"]) if m["direction"] == "in" and channel in (None, m["channel"])
    ]
    if not received:
        raise BuildError(f"{c['name']} sent nothing on {channel or 'any channel'}")
    # search_messages' order: newest first, then by id (max keeps the first of equals)
    latest = max(sorted(received, key=lambda m: m["message_id"]), key=lambda m: m["sent_at"])
    return Draft(
        query=query,
        gold=[
            act("search_contacts", name=c["name"]),
            act("search_messages", **args, limit=5),
            done(f'{c["name"]}\'s latest message ({latest["sent_at"][:10]}): "{latest["body"]}"'),
        ],
        bucket="tool_call",
        check={"calls": [{"tool": "search_messages", "args": args}]},
        answer=[{"$name": w} for w in key_words(latest["body"])],
    )


FILLER = frozenset(
    {
        "don't",
        "forget",
        "thanks",
        "your",
        "you're",
        "have",
        "been",
        "when",
        "with",
        "that",
        "this",
        "from",
        "sorry",
        "happy",
    }
)


def key_words(text: str, n: int = 2) -> list[str]:
    """The ``n`` longest content words of a message: what a quote or a paraphrase of it keeps."""
    words = [w for w in dict.fromkeys(re.findall(r"[A-Za-z0-9']{4,}", text)) if w.lower() not in FILLER]
    return sorted(words, key=len, reverse=True)[:n] or [text]


@family("basic", "3.3", pattern="lookup_then_act")
def mark_chat_read(g: Gen) -> Draft:
    c = person(g)
    n = g.rng.randint(1, 3)
    base = len(g.rows("messages"))
    texts = g.rng.sample(NOTES, n)
    stamp = g.persona.now
    ids = [f"message_{base + i + 1:03d}" for i in range(n)]
    rows = [
        {
            "message_id": mid,
            "channel": g.pick(("sms", "chat")),
            "direction": "in",
            "counterpart": c["phone_number"],
            "contact_id": c["contact_id"],
            "body": t.capitalize() + ".",
            "is_read": 0,
            "status": "received",
            "sent_at": stamp,
            "created_at": stamp,
            "updated_at": stamp,
        }
        for mid, t in zip(ids, texts, strict=True)
    ]
    query = g.say(
        "mark {name}'s new messages as read",
        "I've seen what {name} sent, mark it all read",
        "clear the unread messages from {name}",
        "mark everything unread from {name} as read",
        name=c["name"],
    )
    return Draft(
        query=query,
        gold=[
            act("search_contacts", name=c["name"]),
            act("search_messages", contact_id=c["contact_id"], unread_only=True),
            act("mark_messages_read", message_ids=ids),
            done(f"Marked {n} message(s) from {c['name']} as read."),
        ],
        bucket="state_change",
        check={"update": {"messages": [{"match": {"message_id": m}, "set": {"is_read": 1}} for m in ids]}},
        patches={"insert": {"messages": rows}},
    )


@family("basic", "3.3", pattern="lookup_then_act")
def delete_messages_about(g: Gen) -> Draft:
    keywords = {
        "documents": "documents",
        "address": "address",
        "dinner": "dinner",
        "late": "running late",
        "birthday": "birthday",
        "meeting": "meeting",
        "parcel": "parcel",
        "rent": "rent",
    }
    people = []
    for p in g.rows("contacts"):
        msgs = live_messages(g, p["contact_id"])
        for k in keywords:
            hits = [m for m in msgs if k in m["body"].lower()]
            if hits and not p["name"].endswith("."):
                people.append((p, k, hits))
    if not people:
        raise BuildError("no messages to delete")
    c, k, hits = g.pick(people)
    ids = sorted(m["message_id"] for m in hits)
    query = g.say(
        "delete the messages with {name} about the {what}",
        "remove every message between me and {name} that mentions the {what}",
        "get rid of {name}'s messages about the {what}",
        name=c["name"],
        what=keywords[k],
    )
    return Draft(
        query=query,
        gold=[
            act("search_contacts", name=c["name"]),
            act("search_messages", contact_id=c["contact_id"], query=k),
            act("delete_messages", message_ids=ids),
            done(f"Deleted {len(ids)} message(s)."),
        ],
        bucket="state_change",
        check={"update": {"messages": [{"match": {"message_id": m}, "set": {"status": "deleted"}} for m in ids]}},
    )


# ---- 3.4 Calls & Call Log ------------------------------------------------------------------------

RELATION_WORDS = {
    "mother": ("mom", "my mother"),
    "father": ("dad", "my father"),
    "spouse": ("my wife", "my partner"),
    "boss": ("my boss", "my manager"),
    "dentist": ("my dentist",),
}


@family("basic", "3.4", pattern="lookup_then_act")
def call_contact(g: Gen) -> Draft:
    if g.rng.random() < 0.35:
        rel = g.pick(sorted(RELATION_WORDS))
        c = g.one("contacts", {"relationship": rel})
        who = g.pick(RELATION_WORDS[rel])
        lookup = act("search_contacts", relationship=rel)
    else:
        c = person(g)
        who = c["name"]
        lookup = act("search_contacts", name=c["name"])
    query = g.say(
        "call {who}",
        "please ring {who}",
        "phone {who} for me",
        "dial {who}",
        "give {who} a call",
        "can you call {who} now",
        who=who,
    )
    return Draft(
        query=query,
        gold=[lookup, act("make_phone_call", to=c["contact_id"]), done(f"Calling {c['name']}.")],
        bucket="state_change",
        check={"insert": {"call_log": [{"contact_id": c["contact_id"], "type": "outgoing", "app": "phone"}]}},
    )


@family("basic", "3.4", pattern="friction", friction="ambiguous_entity")
def call_ambiguous_first_name(g: Gen) -> Draft:
    by_first: dict[str, list[dict[str, Any]]] = {}
    for r in g.rows("contacts"):
        if not r["name"].startswith("Dr.") and not r["name"].endswith("."):
            by_first.setdefault(r["name"].split()[0], []).append(r)
    shared = {k: v for k, v in by_first.items() if 2 <= len(v) <= 3}
    if not shared:
        raise BuildError("no shared first names")
    first = g.pick(sorted(shared))
    options = shared[first]
    target = g.pick(options)
    video = g.rng.random() < 0.4
    query = (
        g.say("video call {first}", "start a video chat with {first}", first=first)
        if video
        else g.say("call {first}", "ring {first} please", "phone {first}", first=first)
    )
    names = [o["name"] for o in options]
    call = (
        act("start_video_call", to=target["contact_id"]) if video else act("make_phone_call", to=target["contact_id"])
    )
    row = {"contact_id": target["contact_id"], "type": "outgoing", "app": "chat" if video else "phone"}
    return Draft(
        query=query,
        gold=[
            act("search_contacts", name=first),
            act("ask_user", question=f"Which {first} do you mean: {' or '.join(names)}?", kind="choose", options=names),
            call,
            done(f"Calling {target['name']}."),
        ],
        bucket="agent_behavior",
        check={"follow_up": {"tool": "ask_user"}, "state": {"insert": {"call_log": [row]}}},
        script=[
            {
                "answer": f"{target['name']}, please.",
                "keywords": [f"which {first.lower()}", *[n.lower() for n in names]],
            }
        ],
    )


@family("basic", "3.4", pattern="lookup_then_act")
def video_call(g: Gen) -> Draft:
    audio = g.rng.random() < 0.4
    if g.rng.random() < 0.4:
        grp = g.one("groups")
        to, label, lookup = grp["group_id"], f"the {grp['name']} group", [group_lookup(grp)]
        query = g.say(
            "start a {kind} call with the {group} group chat",
            "{kind} call everyone in {group}",
            "set up a group {kind} call in {group}",
            kind="voice-only" if audio else "video",
            group=grp["name"],
        )
        row: dict[str, Any] = {"number": grp["group_id"], "app": "chat", "video": 0 if audio else 1}
    else:
        c = person(g)
        to, label, lookup = c["contact_id"], c["name"], [act("search_contacts", name=c["name"])]
        query = g.say(
            "{kind} call {name} on the chat app",
            "start {a} {kind} call with {name}",
            "I want to {kind} call {name}",
            kind="audio-only" if audio else "video",
            a="an" if audio else "a",
            name=c["name"],
        )
        row = {"contact_id": c["contact_id"], "app": "chat", "video": 0 if audio else 1}
    args: dict[str, Any] = {"to": to, **({"audio_only": True} if audio else {})}
    return Draft(
        query=query,
        gold=[*lookup, act("start_video_call", **args), done(f"Calling {label}.")],
        bucket="state_change",
        check={"insert": {"call_log": [{**row, "type": "outgoing"}]}},
    )


@family("basic", "3.4", pattern="lookup_then_act")
def call_back_missed(g: Gen) -> Draft:
    c = person(g)
    stamp = g.persona.now[:11] + f"{g.rng.randint(0, 8):02d}:{g.rng.randint(0, 59):02d}:00"
    n = len(g.rows("call_log"))
    call_id = f"call_{n + 1:03d}"
    query = g.say(
        "I missed a call at {t}; call them back",
        "call back whoever I missed at {t}",
        "return the call I missed at {t}",
        "someone rang at {t} and I missed it, ring them back please",
        "call back the person whose call I missed around {t}",
        t=stamp[11:16],
    )
    # a fresh missed call from the contact, newest in the log
    patch = {
        "call_id": call_id,
        "number": c["phone_number"],
        "contact_id": c["contact_id"],
        "type": "missed",
        "app": "phone",
        "video": 0,
        "started_at": stamp,
        "duration_sec": 0,
        "created_at": stamp,
        "updated_at": stamp,
    }
    return Draft(
        query=query,
        gold=[
            act("get_call_log", type="missed", limit=5),
            act("make_phone_call", to=c["contact_id"]),
            done(f"Calling back {c['name']}."),
        ],
        bucket="state_change",
        check={"insert": {"call_log": [{"contact_id": c["contact_id"], "type": "outgoing"}]}},
        patches={"insert": {"call_log": [patch]}},
    )


# ---- 3.5 Call Blocking & Spam --------------------------------------------------------------------


def spam_number(g: Gen) -> str:
    return g.pick(("+1 202 555 ", "+1 646 555 ", "+44 20 7946 ", "+86 400 820 ")) + f"{g.rng.randint(1000, 9999)}"


@family("basic", "3.5", pattern="single_call")
def block_spam_number(g: Gen) -> Draft:
    number = spam_number(g)
    spam = g.rng.random() < 0.6
    query = g.say(
        "block {number}{and_spam}",
        "stop calls and texts from {number}{and_spam}",
        "{number} keeps bothering me, block it{and_spam}",
        number=number,
        and_spam=" and report it as spam" if spam else "",
    )
    args: dict[str, Any] = {"phone_number": number, **({"report_spam": True} if spam else {})}
    return Draft(
        query=query,
        gold=[act("block_number", **args), done(f"Blocked {number}.")],
        bucket="state_change",
        check={
            "insert": {"blocked_numbers": [{"number": {"$phone": number}, **({"reported_spam": 1} if spam else {})}]}
        },
    )


@family("basic", "3.5", pattern="lookup_then_act")
def block_contact(g: Gen) -> Draft:
    c = person(g, relationship=g.pick(("client", "classmate", "neighbor", None)))
    query = g.say(
        "block {name}",
        "I don't want calls or texts from {name} anymore, block them",
        "please block {name}'s number",
        name=c["name"],
    )
    return Draft(
        query=query,
        gold=[
            act("search_contacts", name=c["name"]),
            act("block_number", phone_number=c["phone_number"]),
            done(f"Blocked {c['name']}."),
        ],
        bucket="state_change",
        check={
            "insert": {"blocked_numbers": [{"number": {"$phone": c["phone_number"]}, "contact_id": c["contact_id"]}]}
        },
    )


@family("basic", "3.5", pattern="lookup_then_act")
def block_unknown_caller(g: Gen) -> Draft:
    number = spam_number(g)
    stamp = g.persona.now[:11] + f"{g.rng.randint(0, 8):02d}:{g.rng.randint(10, 59):02d}:00"
    call_id = f"call_{len(g.rows('call_log')) + 1:03d}"
    patch = {
        "call_id": call_id,
        "number": digits(number).replace(" ", ""),
        "contact_id": None,
        "type": g.pick(("missed", "incoming")),
        "app": "phone",
        "video": 0,
        "started_at": stamp,
        "duration_sec": 0 if g.rng.random() < 0.5 else 12,
        "created_at": stamp,
        "updated_at": stamp,
    }
    spam = g.rng.random() < 0.5
    query = g.say(
        "the last number that called me was a scammer, block it{spam}",
        "block whoever called me last{spam}, it was a robocall",
        "that last call was spam; block the number{spam}",
        spam=" and report it" if spam else "",
    )
    args: dict[str, Any] = {"phone_number": patch["number"], **({"report_spam": True} if spam else {})}
    return Draft(
        query=query + g.pick(("", " Thanks.", " Ugh.", " Please.")),
        gold=[act("get_call_log", limit=3), act("block_number", **args), done("Blocked it.")],
        bucket="state_change",
        check={
            "insert": {"blocked_numbers": [{"number": {"$phone": number}, **({"reported_spam": 1} if spam else {})}]}
        },
        patches={"insert": {"call_log": [patch]}},
    )


# ---- 3.6 Group Chats -----------------------------------------------------------------------------


def group_lookup(grp: dict[str, Any]) -> dict[str, Any]:
    """The chat app's search for a group chat by its name (how the model learns its id)."""
    return act("search_messages", query=grp["name"])


GROUP_NAMES = (
    "Weekend Hike",
    "Book Club",
    "Road Trip",
    "Birthday Surprise",
    "Running Buddies",
    "Board Games",
    "Ski Trip",
    "Housewarming",
    "Karaoke Night",
    "Study Group",
    "Camping Crew",
    "Wedding Planning",
)


@family("basic", "3.6", pattern="lookup_then_act")
def create_group(g: Gen) -> Draft:
    members: list[dict[str, Any]] = []
    while len(members) < g.rng.randint(2, 3):
        c = person(g)
        if c["contact_id"] not in [m["contact_id"] for m in members]:
            members.append(c)
    name = g.pick(GROUP_NAMES)
    names = ", ".join(m["name"] for m in members[:-1]) + f" and {members[-1]['name']}"
    query = g.say(
        "create a group chat called {name} with {names}",
        "start a new group '{name}' with {names}",
        "make a chat group named {name} for me, {names}",
        name=name,
        names=names,
    )
    ids = [m["contact_id"] for m in members]
    return Draft(
        query=query,
        gold=[
            *(act("search_contacts", name=m["name"]) for m in members),
            act("create_group_chat", name=name, member_ids=ids),
            done(f"Created {name}."),
        ],
        bucket="state_change",
        check={"insert": {"groups": [{"name": name, "members_json": {"$json": {"$set": ids}}}]}},
    )


@family("basic", "3.6", pattern="lookup_then_act")
def change_group_members(g: Gen) -> Draft:
    grp = g.one("groups", {"is_admin": 1})
    members = json.loads(grp["members_json"])
    remove = g.rng.random() < 0.4 and len(members) > 2
    if remove:
        c = g.one("contacts", filter=lambda r: r["contact_id"] in members and r["contact_id"] != "contact_001")
        after = sorted(set(members) - {c["contact_id"]})
        query = g.say(
            "remove {name} from the {group} group",
            "take {name} out of the {group} chat",
            "{name} left, drop them from {group}",
            name=c["name"],
            group=grp["name"],
        )
    else:
        c = person(g)
        if c["contact_id"] in members:
            raise BuildError("already a member")
        after = sorted({*members, c["contact_id"]})
        query = g.say(
            "add {name} to the {group} group chat",
            "put {name} in the {group} group",
            "invite {name} into our {group} chat",
            name=c["name"],
            group=grp["name"],
        )
    args = {"group_id": grp["group_id"], "member_ids": [c["contact_id"]], **({"remove": True} if remove else {})}
    return Draft(
        query=query,
        gold=[
            group_lookup(grp),
            act("search_contacts", name=c["name"]),
            act("add_group_members", **args),
            done(f"{'Removed' if remove else 'Added'} {c['name']} {'from' if remove else 'to'} {grp['name']}."),
        ],
        bucket="state_change",
        check={
            "update": {
                "groups": [
                    {"match": {"group_id": grp["group_id"]}, "set": {"members_json": {"$json": {"$set": after}}}}
                ]
            }
        },
    )


@family("basic", "3.6", pattern="friction", friction="duplicate_entity")
def create_existing_group_adds(g: Gen) -> Draft:
    """The group already exists: creating it fails as a duplicate, so the new people are added to it."""
    grp = g.one("groups", {"is_admin": 1})
    members = json.loads(grp["members_json"])
    new: list[dict[str, Any]] = []
    while len(new) < 2:
        c = person(g)
        if c["contact_id"] not in members and c not in new:
            new.append(c)
    ids = [c["contact_id"] for c in new]
    query = g.say(
        "make a group chat '{group}' with {a} and {b}",
        "set up a '{group}' group with {a} and {b}",
        "I need a {group} chat that includes {a} and {b}",
        group=grp["name"],
        a=new[0]["name"],
        b=new[1]["name"],
    )
    return Draft(
        query=query,
        gold=[
            act("search_contacts", name=new[0]["name"]),
            act("search_contacts", name=new[1]["name"]),
            act("create_group_chat", name=grp["name"], member_ids=ids),
            act("add_group_members", group_id=grp["group_id"], member_ids=ids),
            done(f"{grp['name']} already existed, so I added them to it."),
        ],
        bucket="state_change",
        check={
            "update": {
                "groups": [
                    {
                        "match": {"group_id": grp["group_id"]},
                        "set": {"members_json": {"$json": {"$set": sorted({*members, *ids})}}},
                    }
                ]
            }
        },
        recovers=(ErrorType.DUPLICATE_ENTITY,),
    )


@family("basic", "3.6", pattern="lookup_then_act")
def message_group(g: Gen) -> Draft:
    grp = g.one("groups")
    note = g.pick(NOTES)
    query = g.say(
        "tell the {group} group that {note}",
        "post in the {group} chat: {note}",
        "send a message to {group} saying {note}",
        group=grp["name"],
        note=note,
    )
    return Draft(
        query=query,
        gold=[
            group_lookup(grp),
            act("send_chat_message", to=grp["group_id"], text=note.capitalize() + "."),
            done(f"Posted in {grp['name']}."),
        ],
        bucket="state_change",
        check={"insert": {"messages": [{"channel": "chat", "counterpart": grp["group_id"], "body": dictated(note)}]}},
    )


# ---- 3.7 Social Posting --------------------------------------------------------------------------

PLATFORM_NAMES = {"social": "Social", "microblog": "Microblog", "photoshare": "PhotoShare"}
POSTS = (
    "Finally finished my first half marathon",
    "Sunday brunch with the best people",
    "New plants on the balcony",
    "Trying out the new ramen place downtown",
    "First snow of the year",
    "Packing for the beach trip",
    "Just adopted a kitten",
    "Back to the gym after a long break",
    "Homemade pizza night",
    "Celebrating ten years at work today",
    "Learning to play the guitar",
    "Weekend in the mountains",
)


@family("basic", "3.7", pattern="single_call")
def post_status_update(g: Gen) -> Draft:
    platform = g.pick(sorted(PLATFORM_NAMES))
    text = g.pick(POSTS)
    visibility = g.pick(("public", "friends", "private", None))
    vis = {"public": " publicly", "friends": " for friends only", "private": " as a private post", None: ""}[visibility]
    query = g.say(
        "post on {p}{vis}: {text}",
        "share '{text}' on {p}{vis}",
        "put up a {p} post{vis} saying {text}",
        p=PLATFORM_NAMES[platform],
        vis=vis,
        text=text,
    )
    args: dict[str, Any] = {"platform": platform, "content": text, **({"visibility": visibility} if visibility else {})}
    row: dict[str, Any] = {
        "platform": platform,
        "is_own": 1,
        "content": {"$contains": text},
        **({"visibility": visibility} if visibility else {}),
    }
    return Draft(
        query=query,
        gold=[act("create_social_post", **args), done("Posted.")],
        bucket="state_change",
        check={"insert": {"social_posts": [row]}},
    )


@family("basic", "3.7", pattern="single_call")
def post_with_location_and_tags(g: Gen) -> Draft:
    platform = g.pick(sorted(PLATFORM_NAMES))
    text = g.pick(POSTS)
    place = g.pick(
        (
            f"{g.persona.home_city} Riverside",
            f"Old Town, {g.persona.home_city}",
            "Central Park",
            f"{g.persona.home_city} Botanical Garden",
            "Lakeside Cafe",
        )
    )
    tag = g.pick(("weekend", "goodtimes", "happy", "life", "adventure", "friends"))
    query = g.say(
        "post '{text}' on {p}, tag the location {place} and add #{tag}",
        "share on {p}: {text}. Location {place}, hashtag {tag}",
        "{p} post please: '{text}' at {place} with the hashtag #{tag}",
        text=text,
        p=PLATFORM_NAMES[platform],
        place=place,
        tag=tag,
    )
    return Draft(
        query=query,
        gold=[act("create_social_post", platform=platform, content=text, location=place, tags=[tag]), done("Posted.")],
        bucket="state_change",
        check={
            "insert": {
                "social_posts": [
                    {
                        "platform": platform,
                        "is_own": 1,
                        "content": {"$contains": text},
                        "location": {"$contains": place.split(",")[0]},
                        "tags_json": {"$contains": tag},
                    }
                ]
            }
        },
    )


@family("basic", "3.7", pattern="single_call")
def read_account_posts(g: Gen) -> Draft:
    acc = g.one("world_social_accounts", {"is_self": 0})
    platform = acc["platform"]
    topic = g.pick(("latest posts", "recent posts", "newest updates"))
    query = g.say(
        "what are the {topic} from {name} on {p}?",
        "show me {name}'s {topic} on {p}",
        "check {p} for {name}'s {topic}",
        topic=topic,
        name=acc["display_name"],
        p=PLATFORM_NAMES[platform],
    )
    posts = sorted(g.rows("social_posts", {"platform": platform, "author": acc["handle"]}), key=lambda p: p["post_id"])
    if not posts:
        raise BuildError(f"@{acc['handle']} has no posts on {platform}")
    newest = sorted(posts, key=lambda p: p["posted_at"], reverse=True)[:3]
    said = "; ".join(f'"{p["content"]}" ({p["posted_at"][:10]})' for p in newest)
    return Draft(
        query=query,
        gold=[
            act("search_social_posts", platform=platform, author=acc["handle"]),
            done(f"{acc['display_name']}'s latest posts on {PLATFORM_NAMES[platform]}: {said}"),
        ],
        bucket="tool_call",
        # every post the answer lists as the recent ones: naming only the newest leaves the others out
        answer=[{"$name": w} for p in newest for w in key_words(p["content"])],
        check={
            "calls": [
                {
                    "tool": "search_social_posts",
                    "args": {
                        "platform": platform,
                        "author": {"$any": [acc["handle"], f"@{acc['handle']}", acc["display_name"]]},
                    },
                }
            ]
        },
    )


# ---- 3.8 Social Engagement -----------------------------------------------------------------------


def friend_post(g: Gen, liked: bool | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    likes = {r["post_id"] for r in g.rows("social_likes")}
    accounts = {(a["platform"], a["handle"]): a for a in g.rows("world_social_accounts") if not a["is_self"]}
    posts = [
        p
        for p in g.rows("social_posts", {"is_own": 0})
        if (p["platform"], p["author"]) in accounts and (liked is None or (p["post_id"] in likes) == liked)
    ]
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for p in g.rows("social_posts", {"is_own": 0}):
        key = (p["platform"], p["author"])
        if key not in latest or p["posted_at"] > latest[key]["posted_at"]:
            latest[key] = p
    posts = [p for p in posts if latest[(p["platform"], p["author"])]["post_id"] == p["post_id"]]
    if not posts:
        raise BuildError("no suitable post")
    post = g.pick(posts)
    return post, accounts[(post["platform"], post["author"])]


@family("basic", "3.8", pattern="lookup_then_act")
def like_latest_post(g: Gen) -> Draft:
    unlike = g.rng.random() < 0.3
    post, acc = friend_post(g, liked=unlike)
    query = g.say(
        "{verb} {name}'s latest post on {p}",
        "{verb2} the newest thing {name} posted on {p}",
        "go to {p} and {verb} {name}'s most recent post",
        verb="unlike" if unlike else "like",
        verb2="take back my like on" if unlike else "give a like to",
        name=acc["display_name"],
        p=PLATFORM_NAMES[post["platform"]],
    )
    args: dict[str, Any] = {"post_id": post["post_id"], **({"unlike": True} if unlike else {})}
    check = (
        {"delete": {"social_likes": [{"post_id": post["post_id"]}]}}
        if unlike
        else {"insert": {"social_likes": [{"post_id": post["post_id"]}]}}
    )
    return Draft(
        query=query,
        gold=[
            act("search_social_posts", platform=post["platform"], author=acc["handle"], limit=5),
            act("like_post", **args),
            done("Done."),
        ],
        bucket="state_change",
        check=check,
    )


COMMENTS = (
    "Congratulations!",
    "This looks amazing",
    "Wish I was there",
    "So happy for you",
    "Great shot!",
    "Save me a slice next time",
    "Love it",
    "Count me in next time",
)


@family("basic", "3.8", pattern="lookup_then_act")
def comment_on_latest_post(g: Gen) -> Draft:
    post, acc = friend_post(g)
    text = g.pick(COMMENTS)
    query = g.say(
        "comment '{text}' on {name}'s latest {p} post",
        "reply to {name}'s newest post on {p} with: {text}",
        "leave a comment on {name}'s most recent {p} post saying {text}",
        text=text,
        name=acc["display_name"],
        p=PLATFORM_NAMES[post["platform"]],
    )
    return Draft(
        query=query,
        gold=[
            act("search_social_posts", platform=post["platform"], author=acc["handle"], limit=5),
            act("comment_on_post", post_id=post["post_id"], text=text),
            done("Commented."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "social_comments": [
                    {"post_id": post["post_id"], "text": {"$contains": text.rstrip("!")}, "reply_to_comment_id": None}
                ]
            }
        },
    )


@family("basic", "3.8", pattern="single_call")
def follow_or_unfollow(g: Gen) -> Draft:
    follows = {(f["platform"], f["handle"]) for f in g.rows("social_follows")}
    unfollow = g.rng.random() < 0.4
    acc = g.one(
        "world_social_accounts", {"is_self": 0}, filter=lambda a: ((a["platform"], a["handle"]) in follows) == unfollow
    )
    p = PLATFORM_NAMES[acc["platform"]]
    if unfollow:
        query = g.say(
            "unfollow @{h} on {p}",
            "stop following {name} on {p}",
            "I'm done with {name} on {p}, unfollow",
            h=acc["handle"],
            name=acc["display_name"],
            p=p,
        )
        check = {"delete": {"social_follows": [{"platform": acc["platform"], "handle": acc["handle"]}]}}
    else:
        query = g.say(
            "follow @{h} on {p}",
            "start following {name} (@{h}) on {p}",
            "follow {name}'s account @{h} on {p}",
            h=acc["handle"],
            name=acc["display_name"],
            p=p,
        )
        check = {"insert": {"social_follows": [{"platform": acc["platform"], "handle": acc["handle"]}]}}
    args: dict[str, Any] = {
        "platform": acc["platform"],
        "handle": acc["handle"],
        **({"unfollow": True} if unfollow else {}),
    }
    return Draft(query=query, gold=[act("follow_account", **args), done("Done.")], bucket="state_change", check=check)
