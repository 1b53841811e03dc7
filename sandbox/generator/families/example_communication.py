"""Basic Tool Use families for Communication & Social (D3): the worked example other modules follow."""

from __future__ import annotations

from sandbox.errors import ErrorType
from sandbox.generator.core import Draft, Gen, act, done, family

FIRST = ("Mike", "Priya", "Jonas", "Aiko", "Sofia", "Omar", "Chen", "Lucia", "Tariq", "Hana", "Pavel", "Nadia")
LAST = ("Ross", "Das", "Berg", "Tanaka", "Costa", "Haddad", "Wei", "Moreno", "Aziz", "Kim", "Novak", "Silva")
ROLES = ("plumber", "dentist", "colleague", "neighbour", "tennis coach", "landlord", "tutor", "mechanic")


def new_number(g: Gen) -> str:
    return f"+1 415 555 {g.rng.randint(1000, 9999)}"


@family("basic", "3.1", pattern="single_call")
def add_new_contact(g: Gen) -> Draft:
    name = f"{g.pick(FIRST)} {g.pick(LAST)}"
    number, role = new_number(g), g.pick(ROLES)
    query = g.say("save my new {role} {name}, the number is {number}",
                  "add {name} ({role}) to my contacts: {number}",
                  "please create a contact for {name}, {number}; they're my {role}", name=name, number=number, role=role)
    return Draft(
        query=query,
        gold=[act("add_contact", name=name, phone_number=number, relationship=role), done(f"Saved {name}.")],
        bucket="state_change",
        check={"insert": {"contacts": [{"name": name, "phone_number": {"$phone": number}}]}},
    )


@family("basic", "3.2", pattern="friction", friction="permission_denied")
def text_after_granting_sms(g: Gen) -> Draft:
    contact = g.one("contacts", filter=lambda r: r["relationship"] in ("friend", "colleague", "sibling"))
    first = contact["name"].split()[0]
    when = g.pick(("7pm", "8:30", "noon"))
    body = f"I'll be there by {when}."
    return Draft(
        query=g.say("text {first} that I'll be there by {when}", "send {first} an SMS: I'll be there by {when}",
                    first=first, when=when),
        gold=[act("search_contacts", name=contact["name"]),
              act("send_sms", to=[contact["contact_id"]], body=body),
              act("grant_app_permission", app_id="messages", permission="SMS"),
              act("send_sms", to=[contact["contact_id"]], body=body),
              done(f"Texted {first}.")],
        bucket="state_change",
        check={"insert": {"messages": [{"channel": "sms", "contact_id": contact["contact_id"],
                                        "body": {"$contains": when}}]},
               "update": {"app_permissions": [{"match": {"app_id": "messages", "permission": "SMS"},
                                               "set": {"state": "granted"}}]}},
        patches={"update": {"app_permissions": [{"match": {"app_id": "messages", "permission": "SMS"},
                                                 "set": {"state": "not_requested"}}]}},
        recovers=(ErrorType.PERMISSION_DENIED,),
    )
