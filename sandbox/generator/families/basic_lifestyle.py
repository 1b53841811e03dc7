"""Basic Tool Use families for D13 Lifestyle & Local Services: tickets, parcels, local services, loyalty cards."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from sandbox.errors import ErrorType
from sandbox.generator.core import BuildError, Gen, act, done, family
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import opened

PAY = ["payment_methods"]  # balances move with every charge; the transactions rows are checked instead
CATEGORY_WORDS = {
    "concert": "concerts",
    "exhibition": "exhibitions",
    "museum": "museums",
    "sports": "sports events",
    "theater": "shows at the theatre",
    "family": "family outings",
    "festival": "festivals",
}


def paid(merchant: str | None, category: str) -> dict[str, Any]:
    """The transaction row a booking the user asked for posts (any payment method may pay it)."""
    row: dict[str, Any] = {"category": category, "status": "posted"}
    if merchant:
        row["merchant"] = merchant
    return {"transactions": [row]}


def minute(g: Gen) -> str:
    return g.now.strftime("%Y-%m-%dT%H:%M")


def say_session(session: str) -> str:
    day = dt.datetime.strptime(session, "%Y-%m-%dT%H:%M")
    return f"{day:%A} {day:%Y-%m-%d} at {session[11:]}"


def bookable_event(g: Gen, quantity: int) -> tuple[dict[str, Any], str]:
    held = {t["event_id"] for t in g.rows("event_tickets")}
    balance = next(m["balance"] for m in g.rows("payment_methods") if m["is_default"])
    ev = g.one(
        "world_events",
        {"city": g.persona.home_city, "api_bookable": 1, "realname_required": 0},
        filter=lambda e: (
            e["seats_left"] >= quantity + 5 and e["event_id"] not in held and 0 < e["price"] * quantity < balance
        ),
    )
    sessions = [s for s in json.loads(ev["sessions_json"]) if s > minute(g)]
    if not sessions:
        raise BuildError("no upcoming session")
    return ev, g.pick(sessions)


# ---- 13.1 Events & Attraction Tickets ------------------------------------------------------------


@family("basic", "13.1", pattern="lookup_then_act")
def buy_event_tickets(g: Gen) -> Draft:
    qty = g.rng.randint(1, 4)
    ev, session = bookable_event(g, qty)
    query = g.say(
        "buy {n} ticket(s) for {title} on {when}",
        "get me {n} tickets to {title}, the {when} session",
        "book {n} seat(s) for {title} ({when})",
        n=qty,
        title=ev["title"],
        when=say_session(session),
    )
    # a seated event's section is the user's choice: the request names it (the cheapest, the tool's default)
    sections: dict[str, float] = json.loads(ev["sections_json"])
    ticket: dict[str, Any] = {"event_id": ev["event_id"], "quantity": qty, "session_time": session, "status": "booked"}
    if sections:
        query += ", the cheapest seats"
        ticket["seat_section"] = min(sections, key=lambda s: (sections[s], s))
    return Draft(
        query=query,
        gold=[
            act("search_events", query=ev["title"], city=ev["city"]),
            act("book_event_tickets", event_id=ev["event_id"], quantity=qty, session_time=session),
            done(f"Booked {qty} ticket(s) for {ev['title']}."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "event_tickets": [ticket],
                **paid(ev["venue"], "entertainment"),
            },
            "ignore_tables": PAY,
        },
    )


def events_on(g: Gen, city: str, category: str, date_from: str, date_to: str) -> list[dict[str, Any]]:
    """What search_events(city, category, date_from, date_to) lists, in its order (first session, id)."""
    now, found = minute(g), []
    for ev in g.rows("world_events", {"city": city, "category": category}):
        sessions = [s for s in json.loads(ev["sessions_json"]) if s >= now and date_from <= s[:10] <= date_to]
        if sessions:
            found.append((sessions[0], ev["event_id"], ev))
    return [ev for *_, ev in sorted(found, key=lambda f: (f[0], f[1]))]


@family("basic", "13.1", pattern="single_call")
def find_events(g: Gen) -> Draft:
    cities = sorted({e["city"] for e in g.rows("world_events")})
    city = g.pick(cities)
    category = g.pick(sorted(CATEGORY_WORDS))
    days = g.rng.choice((7, 14, 30))
    query = g.say(
        "what {what} are on in {city} in the next {days} days?",
        "find {what} in {city} before {end}",
        "any {what} in {city} between {start} and {end}?",
        what=CATEGORY_WORDS[category],
        city=city,
        days=days,
        start=g.date(0),
        end=g.date(days),
    )
    found = events_on(g, city, category, g.date(0), g.date(days))
    # the window determines the list: every event in it is part of the answer
    answer = (
        f"In {city}: " + "; ".join(f"{e['title']} at {e['venue']}" for e in found) + "."
        if found
        else f"There are no {CATEGORY_WORDS[category]} in {city} in that period."
    )
    return Draft(
        query=query,
        gold=[
            act("search_events", city=city, category=category, date_from=g.date(0), date_to=g.date(days)),
            done(answer),
        ],
        bucket="tool_call",
        check={
            "calls": [
                {
                    "tool": "search_events",
                    "args": {"city": city, "category": category, "date_to": {"$any": [g.date(days - 1), g.date(days)]}},
                }
            ]
        },
        answer=[{"$name": e["title"]} for e in found] or [{"$none": True}],
    )


@family("basic", "13.1", pattern="friction", friction="missing_argument")
def realname_tickets_need_names(g: Gen) -> Draft:
    ev = g.one("world_events", {"api_bookable": 1, "realname_required": 1})
    sessions = [s for s in json.loads(ev["sessions_json"]) if s > minute(g)]
    session = g.pick(sessions)
    companion = g.pick(("Lily Chen", "Tom Baker", "Alex Morgan", "Zhang Min", "Wang Jun"))
    names = [g.persona.name, companion]
    query = g.say(
        "get two tickets for {title}, {when}, for me and {c}",
        "book {title} for {c} and me on {when}",
        "reserve 2 entries to {title} on {when}: one for me, one for {c}",
        title=ev["title"],
        when=say_session(session),
        c=companion.split()[0],
    )
    return Draft(
        query=query,
        gold=[
            act("search_events", query=ev["title"], city=ev["city"]),
            act("book_event_tickets", event_id=ev["event_id"], quantity=2, session_time=session),
            act(
                "ask_user",
                question=f"{ev['title']} needs every visitor's full name. What is {companion.split()[0]}'s full name?",
                slot="attendee_names",
            ),
            act("book_event_tickets", event_id=ev["event_id"], quantity=2, session_time=session, attendee_names=names),
            done("Booked two real-name tickets."),
        ],
        bucket="agent_behavior",
        check={
            "follow_up": {"tool": "ask_user"},
            "state": {
                "insert": {
                    "event_tickets": [
                        {
                            "event_id": ev["event_id"],
                            "quantity": 2,
                            "session_time": session,
                            "attendee_names_json": {"$json": {"$set": names}},
                        }
                    ],
                    **(paid(ev["venue"], "entertainment") if ev["price"] else {}),
                },
                "ignore_tables": PAY,
            },
        },
        script=[
            {
                "answer": f"{companion}, and mine is {g.persona.name}.",
                "slot": "attendee_names",
                "keywords": ["name", "visitor"],
            }
        ],
        recovers=(ErrorType.MISSING_REQUIRED_ARGUMENT,),
    )


# ---- 13.2 Parcels & Courier -----------------------------------------------------------------------

# a parcel status -> the words a model may report it with
STATUS_WORDS = {
    "in_transit": ("in transit", "on its way", "on the way"),
    "out_for_delivery": ("out for delivery",),
    "delivered": ("delivered",),
    "exception": ("exception", "problem", "issue", "delayed"),
    "ready_for_pickup": ("ready for pickup", "ready to pick up", "ready for collection", "pickup point"),
    "returned_to_sender": ("returned to sender", "returned", "sent back"),
}


# "has it arrived yet?" by the parcel's status (one at a pickup point has arrived there, not home: no verdict)
ARRIVED = {"delivered": "yes", "in_transit": "no", "out_for_delivery": "no"}


@family("basic", "13.2", pattern="single_call")
def track_a_parcel(g: Gen) -> Draft:
    p = g.one("world_parcels")
    number = p["tracking_number"]
    shown = g.pick((number, " ".join(number[i : i + 4] for i in range(0, len(number), 4))))
    query = g.say(
        "where is my parcel {n}?",
        "track {n} for me",
        "what's the status of the {sender} package, tracking number {n}?",
        "has parcel {n} arrived yet?",
        n=shown,
        sender=p["sender"],
    )
    return Draft(
        query=query,
        gold=[
            act("track_parcel", tracking_number=number),
            done(
                opened(
                    ARRIVED.get(p["status"]) if query.endswith("arrived yet?") else None,
                    f"Your parcel from {p['sender']} is {p['status'].replace('_', ' ')}.",
                )
            ),
        ],
        bucket="tool_call",
        answer=[{"$any": [{"$name": w} for w in STATUS_WORDS[p["status"]]]}],
        check={
            "calls": [
                {"tool": "track_parcel", "args": {"tracking_number": {"$regex": "^" + r"[\s-]*".join(number) + "$"}}}
            ]
        },
    )


SIZES = {
    "document": "an envelope of documents",
    "small": "a small box",
    "medium": "a medium box",
    "large": "a large box",
}
STREETS = (
    "12 Lake Road",
    "48 Hill Street",
    "7 Station Square",
    "150 River Avenue",
    "33 Orchard Lane",
    "9 Harbour View",
    "21 Cedar Court",
    "64 Bridge Street",
)


@family("basic", "13.2", pattern="cross_app")
def courier_to_contact(g: Gen) -> Draft:
    c = g.one(
        "contacts",
        filter=lambda r: (
            r["relationship"] in ("mother", "father", "friend", "colleague", "spouse") and not r["name"].endswith(".")
        ),
    )
    size = g.pick(sorted(SIZES))
    street = f"{g.pick(STREETS)}, {g.pick(sorted({e['city'] for e in g.rows('world_events')}))}"
    day = g.date(1)
    start = g.pick(("09:00", "10:00", "13:00", "15:00"))
    end = f"{int(start[:2]) + 2:02d}:00"
    from_work = g.rng.random() < 0.3
    address = g.one("addresses", {"label": "Work" if from_work else "Home"})
    query = g.say(
        "send {size} to {name} at {street}; have a courier pick it up from my {where} tomorrow between {s} and {e}",
        "book a courier pickup at my {where} tomorrow {s}-{e} for {size} going to {name}, {street}",
        "I need {size} delivered to {name} ({street}). Courier pickup from {where}, tomorrow {s} to {e}",
        size=SIZES[size],
        name=c["name"],
        street=street,
        where=address["label"].lower(),
        s=start,
        e=end,
    )
    recipient = {"name": c["name"], "phone": c["phone_number"], "address": street}
    return Draft(
        query=query,
        gold=[
            act("search_contacts", name=c["name"]),
            act(
                "schedule_courier_pickup",
                pickup_address_id=address["label"],
                recipient=recipient,
                package_size=size,
                pickup_window={"start": f"{day}T{start}", "end": f"{day}T{end}"},
            ),
            done(f"A courier will pick it up tomorrow {start}-{end}."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "courier_orders": [
                    {
                        "pickup_address_id": address["address_id"],
                        "package_size": size,
                        "window_start": f"{day}T{start}",
                        "recipient_json": {
                            "$json": {
                                "name": {"$contains": c["name"].split()[-1]},
                                "phone": {"$phone": c["phone_number"]},
                                "address": {"$contains": street.split(",")[0]},
                            }
                        },
                    }
                ],
                **paid(None, "courier"),
            },
            "ignore_tables": PAY,
        },
    )


# ---- 13.3 Home & Repair Services ------------------------------------------------------------------

HOME = {
    "cleaning": "a cleaner",
    "plumbing": "a plumber",
    "electrician": "an electrician",
    "appliance_repair": "someone to repair an appliance",
    "moving": "movers",
    "laundry": "a laundry pickup",
}


def providers_free(g: Gen, service: str, day: str, rating: float | None) -> list[dict[str, Any]]:
    """What search_local_services(service, date=day, min_rating) lists in the home city, best rated first."""
    open_days = {
        (s["provider_id"])
        for s in g.rows("world_service_slots", {"available": 1})
        if s["start"] > minute(g) and s["start"][:10] == day
    }
    found = [
        p
        for p in g.rows("world_service_providers", {"city": g.persona.home_city})
        if service in json.loads(p["price_json"])
        and p["provider_id"] in open_days
        and (rating is None or p["rating"] >= rating)
    ]
    return sorted(found, key=lambda p: (-p["rating"], p["provider_id"]))


@family("basic", "13.3", pattern="single_call")
def find_home_service(g: Gen) -> Draft:
    service = g.pick(sorted(HOME))
    day = g.rng.randint(1, 3)
    rating = g.pick((None, 4.0, 4.5))
    query = g.say(
        "find me {who} who can come {when}{r}",
        "I need {who} {when}{r}; who's available?",
        "look for {who} with an opening {when}{r}",
        who=HOME[service],
        when=g.when(day),
        r=f", rated {rating} or better" if rating else "",
    )
    args: dict[str, Any] = {"service_type": service, "date": g.date(day), **({"min_rating": rating} if rating else {})}
    found = providers_free(g, service, g.date(day), rating)
    # the best rated one: a model listing them all names it too, and naming another one fails
    answer = (
        f"{found[0]['name']} has an opening, rated {found[0]['rating']}, for "
        f"{json.loads(found[0]['price_json'])[service]:.2f} {found[0]['currency']}."
        if found
        else f"No {service.replace('_', ' ')} provider has an opening then."
    )
    return Draft(
        query=query,
        gold=[act("search_local_services", **args), done(answer)],
        bucket="tool_call",
        check={"calls": [{"tool": "search_local_services", "args": args}]},
    )


def free_slot(g: Gen, provider: dict[str, Any], service: str, days: range) -> str:
    from sandbox.domains.lifestyle.schema import DURATION_MIN

    booked = [a for a in g.rows("service_appointments") if a["status"] == "booked"]
    slots = [
        s["start"]
        for s in g.rows("world_service_slots", {"provider_id": provider["provider_id"], "available": 1})
        if s["start"] > minute(g) and s["start"][:10] in {g.date(d) for d in days}
    ]
    fine = []
    for start in slots:
        end = (dt.datetime.strptime(start, "%Y-%m-%dT%H:%M") + dt.timedelta(minutes=DURATION_MIN[service])).strftime(
            "%Y-%m-%dT%H:%M"
        )
        if not any(a["start"] < end and a["end"] > start for a in booked):
            fine.append(start)
    if not fine:
        raise BuildError("no free slot")
    return g.pick(fine)


@family("basic", "13.3", pattern="lookup_then_act")
def book_home_service(g: Gen) -> Draft:
    service = g.pick(sorted(HOME))
    prov = g.one(
        "world_service_providers",
        {"city": g.persona.home_city, "online_booking": 1},
        filter=lambda p: service in json.loads(p["service_types_json"]),
    )
    start = free_slot(g, prov, service, range(1, 4))
    days = (dt.date.fromisoformat(start[:10]) - g.now.date()).days
    home = g.one("addresses", {"label": "Home"})
    query = g.say(
        "book {name} for {svc} at home {when} at {t}",
        "get {name} to come to my place for {svc} {when}, {t}",
        "schedule {svc} with {name} at my home address {when} at {t}",
        name=prov["name"],
        svc=service.replace("_", " "),
        when=g.when(days),
        t=start[11:],
    )
    return Draft(
        query=query,
        gold=[
            act("search_local_services", service_type=service, date=start[:10]),
            act(
                "book_service_appointment",
                provider_id=prov["provider_id"],
                service=service,
                start=start,
                address_id=home["label"],
            ),
            done("Booked."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "service_appointments": [
                    {
                        "provider_id": prov["provider_id"],
                        "service": service,
                        "start": start,
                        "address_id": home["address_id"],
                    }
                ],
                **paid(prov["name"], "services"),
            },
            "ignore_tables": PAY,
        },
    )


# a cancellation's reason as the user gave it -> how a model may pass it on (the tool keeps it in notes)
REASON_WORDS = {
    "something came up": r"came up|something|conflict",
    "I'm travelling": r"travel|trip|away",
    "I'm sick": r"sick|ill|unwell",
    "plans changed": r"plan|change",
}


@family("basic", "13.3", pattern="friction", friction="confirmation_required")
def cancel_service_with_history(g: Gen) -> Draft:
    appt = g.one("service_appointments", {"status": "booked"})
    prov = g.one("world_service_providers", {"provider_id": appt["provider_id"]})
    late = (dt.datetime.strptime(appt["start"], "%Y-%m-%dT%H:%M") - g.now) < dt.timedelta(hours=2)
    if dt.datetime.strptime(appt["start"], "%Y-%m-%dT%H:%M") <= g.now:
        raise BuildError("already started")
    history = [
        {
            "role": "user",
            "content": f"Book me {appt['service']} with {prov['name']} on {appt['start'][:10]} "
            f"at {appt['start'][11:]}.",
        },
        {
            "role": "assistant",
            "content": f"Done: {prov['name']}, {appt['service']} on {appt['start'][:10]} at "
            f"{appt['start'][11:]} (appointment {appt['appointment_id']}).",
        },
    ]
    reason = g.pick(sorted(REASON_WORDS))
    query = g.say(
        "please cancel that appointment, {r}",
        "{r}, so cancel the {svc} booking",
        "cancel it after all; {r}",
        r=reason,
        svc=appt["service"],
    )
    aid = appt["appointment_id"]
    # the reason the user gave, passed on, or no reason at all (notes unchanged)
    cancelled = {"status": "cancelled", "notes": {"$any": [appt["notes"], {"$regex": REASON_WORDS[reason]}]}}
    posted = g.rows("transactions", {"ref_id": aid, "status": "posted"})
    refunded = (
        {"transactions": [{"match": {"txn_id": t["txn_id"]}, "set": {"status": "refunded"}} for t in posted]}
        if posted
        else {}
    )
    if late:
        gold = [
            act("cancel_service_appointment", appointment_id=aid, reason=reason),
            act(
                "ask_user",
                question="Cancelling this close to the start costs a late fee of half the price. Cancel anyway?",
                kind="confirm",
            ),
            act("cancel_service_appointment", appointment_id=aid, reason=reason, confirm=True),
            done("Cancelled; the late fee was charged."),
        ]
        return Draft(
            query=query,
            history=history,
            gold=gold,
            bucket="agent_behavior",
            check={
                "follow_up": {"tool": "ask_user"},
                "state": {
                    "update": {
                        "service_appointments": [{"match": {"appointment_id": aid}, "set": cancelled}],
                        **refunded,
                    },
                    "insert": paid("Late cancellation fee", "services"),
                    "ignore_tables": PAY,
                    "ignore_columns": ["cancellation_fee"],
                },
            },
            script=[{"answer": "Yes, cancel it anyway.", "keywords": ["fee", "anyway", "cancel"], "kind": "confirm"}],
            recovers=(ErrorType.CONFIRMATION_REQUIRED,),
            tags={"friction": "confirmation_required"},
        )
    return Draft(
        query=query,
        history=history,
        gold=[act("cancel_service_appointment", appointment_id=aid, reason=reason), done("Cancelled and refunded.")],
        bucket="state_change",
        check={
            "update": {"service_appointments": [{"match": {"appointment_id": aid}, "set": cancelled}], **refunded},
            "ignore_tables": PAY,
            "ignore_columns": ["cancellation_fee"],
        },
        tags={"pattern": "single_call"},
    )


# ---- 13.4 Personal Care & Wellness Bookings -------------------------------------------------------

CARE = {
    "haircut": "a haircut",
    "massage": "a massage",
    "nail": "a manicure",
    "pet_grooming": "grooming for my dog",
    "car_wash": "a car wash",
}


@family("basic", "13.4", pattern="lookup_then_act")
def book_wellness(g: Gen) -> Draft:
    service = g.pick(sorted(CARE))
    prov = g.one(
        "world_service_providers",
        {"city": g.persona.home_city, "online_booking": 1},
        filter=lambda p: service in json.loads(p["service_types_json"]),
    )
    start = free_slot(g, prov, service, range(4))
    days = (dt.date.fromisoformat(start[:10]) - g.now.date()).days
    staff = g.pick((None, "Tony", "Mia", "Ken", "Ava"))
    query = g.say(
        "book {what} at {name} {when} at {t}{s}",
        "I'd like {what} at {name}, {when} {t}{s}",
        "reserve {name} for {what} {when} at {t}{s}",
        what=CARE[service],
        name=prov["name"],
        when=g.when(days),
        t=start[11:],
        s=f", with {staff} if possible" if staff else "",
    )
    args: dict[str, Any] = {
        "provider_id": prov["provider_id"],
        "service": service,
        "start": start,
        **({"staff_preference": staff} if staff else {}),
    }
    row: dict[str, Any] = {
        "provider_id": prov["provider_id"],
        "service": service,
        "start": start,
        **({"staff_preference": {"$contains": staff}} if staff else {}),
    }
    return Draft(
        query=query,
        gold=[
            act("search_local_services", service_type=service, date=start[:10]),
            act("book_service_appointment", **args),
            done("Booked."),
        ],
        bucket="state_change",
        check={"insert": {"service_appointments": [row], **paid(prov["name"], "services")}, "ignore_tables": PAY},
    )


@family("basic", "13.4", pattern="friction", friction="resource_unavailable")
def book_wellness_slot_taken(g: Gen) -> Draft:
    """The asked-for slot is taken: the gold books the next open slot the same day, as the user allowed."""
    service = g.pick(("haircut", "massage", "nail"))
    prov = g.one(
        "world_service_providers",
        {"city": g.persona.home_city, "online_booking": 1},
        filter=lambda p: service in json.loads(p["service_types_json"]),
    )
    taken = [
        s["start"]
        for s in g.rows("world_service_slots", {"provider_id": prov["provider_id"], "available": 0})
        if s["start"] > minute(g) and s["start"][:10] > g.date(0)
    ]
    if not taken:
        raise BuildError("no taken slot")
    want = g.pick(taken)
    day = want[:10]
    later = free_slot(g, prov, service, range(1, 4))
    opens = sorted(
        s["start"]
        for s in g.rows("world_service_slots", {"provider_id": prov["provider_id"], "available": 1})
        if s["start"][:10] == day and s["start"] > want
    )
    if not opens or (later[:10] != day and True):
        pass
    if not opens:
        raise BuildError("nothing later that day")
    alt = opens[0]
    days = (dt.date.fromisoformat(day) - g.now.date()).days
    query = g.say(
        "book {what} at {name} {when} at {t}; if that's taken, the next free time that day",
        "{what} at {name} {when} {t} please, or the next opening after that on the same day",
        "reserve {name} for {what} {when} at {t} (otherwise the first slot after it that day)",
        what=CARE[service],
        name=prov["name"],
        when=g.when(days),
        t=want[11:],
    )
    # a clash with the user's own bookings would be another friction: keep it clean
    from sandbox.domains.lifestyle.schema import DURATION_MIN

    end = (dt.datetime.strptime(alt, "%Y-%m-%dT%H:%M") + dt.timedelta(minutes=DURATION_MIN[service])).strftime(
        "%Y-%m-%dT%H:%M"
    )
    if any(a["status"] == "booked" and a["start"] < end and a["end"] > alt for a in g.rows("service_appointments")):
        raise BuildError("clash")
    return Draft(
        query=query,
        gold=[
            act("search_local_services", service_type=service, date=day),
            act("book_service_appointment", provider_id=prov["provider_id"], service=service, start=want),
            act("book_service_appointment", provider_id=prov["provider_id"], service=service, start=alt),
            done(f"{want[11:]} was taken; booked {alt[11:]} instead."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "service_appointments": [{"provider_id": prov["provider_id"], "service": service, "start": alt}],
                **paid(prov["name"], "services"),
            },
            "ignore_tables": PAY,
        },
        recovers=(ErrorType.RESOURCE_UNAVAILABLE,),
    )


# ---- 13.5 Loyalty & Memberships -------------------------------------------------------------------

MERCHANTS = (
    "Decathlon Club",
    "Sephora Beauty Insider",
    "Uniqlo Members",
    "Marriott Bonvoy",
    "7-Eleven Rewards",
    "H&M Member",
    "Muji Passport",
    "Shell ClubSmart",
    "Lush Club",
    "Ace Hardware Rewards",
)


@family("basic", "13.5", pattern="single_call")
def add_loyalty_card(g: Gen) -> Draft:
    merchant = g.pick(MERCHANTS)
    number = f"{g.rng.randint(1000, 9999)} {g.rng.randint(1000, 9999)} {g.rng.randint(1000, 9999)}"
    points = g.pick((None, g.rng.randint(50, 5000)))
    query = g.say(
        "add my {m} card to the wallet, number {n}{p}",
        "save my {m} membership: {n}{p}",
        "put the {m} loyalty card {n} in my wallet{p}",
        m=merchant,
        n=number,
        p=f", it has {points} points" if points else "",
    )
    args: dict[str, Any] = {"merchant": merchant, "card_number": number, **({"points": points} if points else {})}
    row: dict[str, Any] = {
        "merchant": {"$contains": merchant.split()[0]},
        "card_number": number.replace(" ", ""),
        **({"points": points} if points else {}),
    }
    return Draft(
        query=query,
        gold=[act("add_membership_card", **args), done("Added.")],
        bucket="state_change",
        check={"insert": {"membership_cards": [row]}},
    )


@family("basic", "13.5", pattern="single_call")
def update_card_points(g: Gen) -> Draft:
    card = g.one("membership_cards")
    points = card["points"] + g.rng.randint(20, 900)
    shown = card["card_number"]
    query = g.say(
        "my {m} card ({n}) has {p} points now, update it",
        "update the points on my {m} card {n} to {p}",
        "set the {m} balance (card {n}) to {p} points",
        m=card["merchant"],
        n=shown,
        p=points,
    )
    return Draft(
        query=query,
        gold=[
            act("add_membership_card", merchant=card["merchant"], card_number=shown, points=points),
            done("Updated."),
        ],
        bucket="state_change",
        check={"update": {"membership_cards": [{"match": {"card_id": card["card_id"]}, "set": {"points": points}}]}},
    )


@family("basic", "13.5", pattern="friction", friction="duplicate_entity")
def add_card_already_saved(g: Gen) -> Draft:
    card = g.one("membership_cards")
    number = card["card_number"]
    query = g.say(
        "add my {m} card {n} to the wallet",
        "save my {m} membership number {n}",
        "please put the {m} card ({n}) in my wallet",
        m=card["merchant"],
        n=number,
    )
    return Draft(
        query=query + g.pick(("", " Thanks!")),
        gold=[
            act("add_membership_card", merchant=card["merchant"], card_number=number),
            done(f"Your {card['merchant']} card is already in the wallet."),
        ],
        bucket="state_change",
        check={},
        recovers=(ErrorType.DUPLICATE_ENTITY,),
        tags={"expected": "noop"},
    )
