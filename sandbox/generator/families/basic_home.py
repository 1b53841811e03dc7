"""Basic Tool Use families for Smart Home & Vehicle (D10).

Every persona's home has the same devices (``sandbox.domains.home.DEVICES``), so these families draw
their variety from the values the user asks for (rooms, levels, temperatures, times, names).
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from sandbox.domains.home.seed import dev_id
from sandbox.errors import ErrorType
from sandbox.generator.core import BuildError, Gen, act, done, family
from sandbox.generator.draft import Draft
from sandbox.generator.families.basic_travel.helpers import guarded


def devices(g: Gen, **where: Any) -> list[dict[str, Any]]:
    return [{**d, "state": json.loads(d["state_json"])} for d in g.rows("home_devices", where or None)]


def device(g: Gen, name: str) -> dict[str, Any]:
    found = devices(g, name=name)
    if not found:
        raise BuildError(f"no device {name}")
    return found[0]


def state_is(**values: Any) -> dict[str, Any]:
    return {"state_json": {"$json": values}}


def dev_update(device_id: str, **values: Any) -> dict[str, Any]:
    return {"match": {"device_id": device_id}, "set": state_is(**values)}


# ---- 10.1 Lights & Scenes -----------------------------------------------------------------------

LIGHT_ROOMS = ("Living room", "Master bedroom", "Kitchen", "Kids bedroom", "Study", "Porch", "Bathroom")


@family("basic", "10.1", pattern="single_call")
@guarded
def dim_room_lights(g: Gen) -> Draft:
    room = g.pick(LIGHT_ROOMS)
    lights = [d for d in devices(g, room=room, type="light") if d["online"]]
    level = g.pick([v for v in range(10, 100, 5) if all(d["state"].get("brightness") != v for d in lights)])
    warm = g.pick((None, None, 2700, 4000, 5000))
    extra, args = "", {}
    if warm:
        extra = g.pick((f" with a {warm}K white", f" at {warm} kelvin"))
        args["color_temp_k"] = warm
    query = g.say(
        "set the {room} lights to {level}%{extra}",
        "dim the {room} lights to {level} percent{extra}",
        "put the lights in the {room} at {level}% brightness{extra}",
        "{room} lights: {level}% please{extra}",
        room=room.lower(),
        level=level,
        extra=extra,
    )
    want = {"on": True, "brightness": level, **({"color_temp_k": warm} if warm else {})}
    return Draft(
        query=query,
        gold=[act("set_light_state", target=room, brightness=level, **args), done("Done.")],
        bucket="state_change",
        check={"update": {"home_devices": [dev_update(d["device_id"], **want) for d in lights]}},
    )


SCENE_WORDS = {
    "Good morning": ("good morning", "morning"),
    "Good night": ("good night", "bedtime"),
    "Movie time": ("movie time", "movie night"),
    "Dinner": ("dinner", "dinner time"),
    "Leave home": ("leave home", "I'm heading out"),
}


@family("basic", "10.1", pattern="single_call")
@guarded
def run_scene(g: Gen) -> Draft:
    scene = g.pick(list(SCENE_WORDS))
    word = SCENE_WORDS[scene][0]
    steps = json.loads(g.rows("home_scenes", {"scene_name": scene})[0]["actions_json"])
    by_id = {d["device_id"]: d for d in devices(g)}
    updates = []
    for step in steps:
        d = by_id[step["device_id"]]
        if d["online"] and any(d["state"].get(k) != v for k, v in step["set"].items()):
            updates.append(dev_update(d["device_id"], **step["set"]))
    query = g.say(
        "run the {w} scene",
        "activate my '{w}' scene",
        "switch the house to the {w} scene",
        "start the {w} scene in the home app",
        "set {w} mode, the scene",
        "turn on the {w} scene please",
        w=word,
    )
    return Draft(
        query=query,
        gold=[act("activate_scene", scene_name=scene), done(f"{scene} is on.")],
        bucket="state_change",
        check={"update": {"home_devices": updates}},
    )


@family("basic", "10.1", pattern="friction", friction="ambiguous_entity")
@guarded
def bedroom_light_which(g: Gen) -> Draft:
    room = g.pick(("Master bedroom", "Kids bedroom"))
    lights = [d for d in devices(g, room=room, type="light") if d["online"]]
    level = g.pick(range(20, 100, 10))
    answer = {"Master bedroom": "The master bedroom, mine.", "Kids bedroom": "The kids' bedroom."}[room]
    query = g.say(
        "turn on the bedroom light at {l}%",
        "bedroom lights on, {l} percent",
        "switch on the light in the bedroom, brightness {l}",
        l=level,
    )
    return Draft(
        query=query,
        gold=[
            act("set_light_state", target="bedroom", brightness=level),
            act(
                "ask_user",
                question="Which bedroom: the master bedroom or the kids' bedroom?",
                kind="choose",
                options=["Master bedroom", "Kids bedroom"],
            ),
            act("set_light_state", target=room, brightness=level),
            done("Done."),
        ],
        bucket="agent_behavior",
        check={
            "follow_up": {"tool": "ask_user"},
            "state": {
                "update": {"home_devices": [dev_update(d["device_id"], on=True, brightness=level) for d in lights]}
            },
        },
        script=[{"answer": answer, "keywords": ["which", "bedroom"]}],
        recovers=(ErrorType.AMBIGUOUS_ENTITY,),
    )


# ---- 10.2 Climate Control ---------------------------------------------------------------------------

THERMOSTATS = {"Living room": "living room", "Master bedroom": "bedroom"}


@family("basic", "10.2", pattern="single_call")
@guarded
def set_room_temperature(g: Gen) -> Draft:
    room = g.pick(list(THERMOSTATS))
    d = devices(g, room=room, type="thermostat")[0]
    temp = g.pick([t / 2 for t in range(36, 57) if t / 2 != d["state"]["target_c"]])
    mode = g.pick((None, "cool", "heat", "auto")) if room == "Living room" else g.pick(("cool", "heat", "auto"))
    shown = f"{temp:g}"
    how = {"cool": " on cooling", "heat": " on heating", "auto": " in auto mode", None: ""}[mode]
    query = g.say(
        "set the {r} to {t} degrees{how}",
        "make the {r} {t}°C{how}",
        "change the {r} thermostat to {t}{how}",
        "I want the {r} at {t} degrees{how}",
        r=THERMOSTATS[room],
        t=shown,
        how=how,
    )
    args = {"mode": mode} if mode else {}
    return Draft(
        query=query,
        gold=[act("set_thermostat", target=room, target_c=temp, **args), done("Done.")],
        bucket="state_change",
        check={"update": {"home_devices": [dev_update(d["device_id"], target_c=temp, **args)]}},
    )


@family("basic", "10.2", pattern="single_call")
@guarded
def hold_temperature_until(g: Gen) -> Draft:
    room = g.pick(list(THERMOSTATS))
    d = devices(g, room=room, type="thermostat")[0]
    temp = g.pick([t for t in range(18, 28) if t != d["state"]["target_c"]])
    hour = g.rng.randint(g.now.hour + 1, 23) if g.now.hour < 22 else g.rng.randint(6, 11)
    days = 0 if g.now.hour < 22 else 1
    until = f"{g.date(days)}T{hour:02d}:00"
    mode = "cool" if temp < 24 else "heat"
    query = g.say(
        "{m} the {r} to {t} degrees and hold it until {h}:00 {when}",
        "keep the {r} at {t}°C until {h}:00 {when}, {m}ing",
        "{m} the {r}, {t} degrees, hold till {h}:00 {when}",
        m=mode.replace("cool", "cool"),
        r=THERMOSTATS[room],
        t=temp,
        h=hour,
        when=g.when(days),
    )
    return Draft(
        query=query,
        gold=[act("set_thermostat", target=room, target_c=temp, mode=mode, hold_until=until), done("Done.")],
        bucket="state_change",
        check={"update": {"home_devices": [dev_update(d["device_id"], target_c=temp, mode=mode, hold_until=until)]}},
    )


# ---- 10.3 Home Security & Locks -------------------------------------------------------------------

ARM_WORDS = {
    "away": ("I'm leaving the house, arm the alarm", "arm the alarm in away mode", "set the security system to away"),
    "night": ("arm the alarm for the night", "set the alarm to night mode", "night mode on the alarm"),
    "home": ("arm the alarm in home mode, we're staying in", "stay mode on the alarm", "arm the perimeter, we're home"),
}


@family("basic", "10.3", pattern="single_call")
@guarded
def arm_alarm(g: Gen) -> Draft:
    mode = g.pick(list(ARM_WORDS))
    query = g.pick(ARM_WORDS[mode])
    suffix = g.pick(("", " please", ", thanks", " now"))
    panel = dev_id("Alarm panel")
    return Draft(
        query=query[0].upper() + query[1:] + suffix,
        gold=[act("arm_security_system", mode=mode), done(f"Armed ({mode}).")],
        bucket="state_change",
        check={
            "update": {"home_devices": [dev_update(panel, armed_mode=mode)]},
            "insert": {"home_events": [{"device_id": panel, "kind": f"armed_{mode}"}]},
        },
    )


GUESTS = (
    "Cleaner Ana",
    "Plumber",
    "Babysitter",
    "Mom",
    "Dog sitter",
    "Electrician",
    "Neighbour Tom",
    "Handyman",
    "Window cleaner",
    "Piano teacher",
)


@family("basic", "10.3", pattern="friction", friction="confirmation_required")
@guarded
def guest_code_with_confirm(g: Gen) -> Draft:
    lock = g.pick(("Front door lock", "Back door lock"))
    guest = g.pick(GUESTS)
    days = g.rng.randint(1, 6)
    hour = g.rng.randint(12, 20)
    until = f"{g.date(days)}T{hour:02d}:00"
    door = lock.split(" lock")[0].lower()
    query = g.say(
        "give the {guest} a keypad code for the {door}, valid until {h}:00 {when}",
        "create a temporary {door} code for {guest} that expires {when} at {h}:00",
        "set up a guest code on the {door} labelled {guest}, good until {h}:00 {when}",
        guest=guest,
        door=door,
        h=hour,
        when=g.when(days),
    )
    did = dev_id(lock)
    return Draft(
        query=query,
        gold=[
            act("list_smart_devices", type="lock"),
            act("set_lock_state", device_id=did, locked=True, guest_code_label=guest, code_valid_until=until),
            act("ask_user", question=f"Issue a keypad code for {guest} on the {door} until {until}?", kind="confirm"),
            act(
                "set_lock_state",
                device_id=did,
                locked=True,
                guest_code_label=guest,
                code_valid_until=until,
                confirm=True,
            ),
            done("Guest code created."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "access_codes": [{"device_id": did, "label": {"$contains": guest.split()[-1]}, "valid_until": until}]
            }
        },
        script=[{"answer": "Yes, go ahead.", "keywords": ["code", "confirm", "issue", "sure"]}],
        recovers=(ErrorType.CONFIRMATION_REQUIRED,),
    )


# the detection kinds and labels each question is about, and how people name what a camera saw
SOUGHT = {
    "anyone": {"person", "doorbell", "courier"},
    "a person": {"person", "doorbell", "courier"},
    "a delivery": {"package", "courier"},
    "any movement": {"person", "doorbell", "courier", "package", "vehicle", "animal", "motion"},
}
NOTHING = {"anyone": "no one", "a person": "no one", "a delivery": "no delivery", "any movement": "nothing"}
SEEN_WORDS = {
    "person": ("a person", "person", "someone", "somebody", "people", "visitor", "man", "woman"),
    "doorbell": (
        "a doorbell ring",
        "doorbell",
        "rang",
        "ring",
        "rung",
        "person",
        "someone",
        "somebody",
        "visitor",
        "courier",
    ),
    "package": ("a package", "package", "parcel", "delivery", "delivered", "courier"),
    "vehicle": ("a vehicle", "vehicle", "car", "truck", "van"),
    "animal": ("an animal", "animal", "cat", "dog", "pet", "bird", "fox"),
    "motion": ("motion", "movement", "moving", "activity"),
}


@family("basic", "10.3", pattern="lookup_then_act")
@guarded
def camera_who_came(g: Gen) -> Draft:
    cam = g.pick(("Doorbell camera", "Living room camera"))
    hours = g.rng.randint(1, min(30, g.now.hour + 23))  # back to yesterday at most, so "since HH:MM" is clear
    since = (g.now - dt.timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M")
    at = since[11:] if since[:10] == g.date(0) else f"yesterday at {since[11:]}"
    where = {"Doorbell camera": "at the front door", "Living room camera": "in the living room"}[cam]
    what = g.pick(("anyone", "a delivery", "any movement", "a person"))
    shown = g.rng.random() < 0.3
    if shown:
        what = "any movement"
    query = (
        g.say("show me what the camera {where} saw since {t}", where=where, t=at)
        if shown
        else g.say(
            "was there {what} {where} in the last {h} hours?",
            "check the camera: {what} {where} since {t}?",
            what=what,
            where=where,
            h=hours,
            t=at,
        )
    )
    # what get_camera_snapshot reports: the camera's detections since then, newest first
    seen = sorted(
        (e for e in g.rows("home_events", {"device_id": dev_id(cam)}) if since <= e["ts"] <= g.persona.now),
        key=lambda e: e["ts"],
        reverse=True,
    )[:20]
    found = [e for e in seen if SOUGHT[what] & {e["kind"], *json.loads(e["labels_json"])}]
    if found:  # any of the detections asked about, told by its time and what it was
        answer: list[Any] = [
            {"$any": [{"$time": t} for t in dict.fromkeys(e["ts"][11:16] for e in found)]},
            {"$any": [{"$name": w} for w in dict.fromkeys(w for e in found for w in SEEN_WORDS[e["kind"]])]},
        ]
        seen_text = "; ".join(
            f"{SEEN_WORDS[e['kind']][0]} at {e['ts'][11:16]}" + ("" if e["ts"][:10] == g.date(0) else " yesterday")
            for e in found[:5]
        )
        text = f"The {cam.lower()} saw: {seen_text}." if shown else f"Yes: {seen_text}."
    else:
        answer = [{"$none": True}]
        # not naming the camera: the evidence of the empty read is then its empty detections list
        text = f"{'The' if shown else 'No, the'} camera saw {NOTHING[what]} since {at}."
    return Draft(
        query=query,
        gold=[
            act("list_smart_devices", type="camera"),
            act("get_camera_snapshot", camera_id=dev_id(cam), since=since),
            done(text),
        ],
        bucket="tool_call",
        check={"calls": [{"tool": "get_camera_snapshot", "args": {"camera_id": dev_id(cam)}}]},
        answer=answer,
    )


# ---- 10.4 Appliances & Plugs -------------------------------------------------------------------------

POWER = {
    "Coffee maker plug": "the coffee maker",
    "Air purifier": "the air purifier",
    "Desk fan plug": "the desk fan",
    "Smart speaker": "the smart speaker",
    "Living room TV": "the TV",
    "Washing machine": "the washing machine",
}


@family("basic", "10.4", pattern="lookup_then_act")
@guarded
def switch_appliance(g: Gen) -> Draft:
    name = g.pick(list(POWER))
    d = device(g, name)
    on = not d["state"]["on"]
    word = "on" if on else "off"
    query = g.say(
        "turn {w} {thing}",
        "switch {thing} {w}",
        "can you power {w} {thing}?",
        "{thing}: {w}, please",
        "please switch {w} {thing} from the home app",
        w=word,
        thing=POWER[name],
    )
    return Draft(
        query=query,
        gold=[
            act("list_smart_devices", room=d["room"]),
            act("set_device_power", device_id=d["device_id"], on=on),
            done(f"{name} is {word}."),
        ],
        bucket="state_change",
        check={"update": {"home_devices": [dev_update(d["device_id"], on=on)]}},
    )


@family("basic", "10.4", pattern="lookup_then_act")
@guarded
def vacuum_rooms(g: Gen) -> Draft:
    rooms = sorted(
        g.rng.sample(
            ["Kitchen", "Living room", "Master bedroom", "Kids bedroom", "Study", "Hallway"], g.rng.randint(1, 3)
        )
    )
    mode = g.pick(("vacuum", "mop", "both"))
    suction = g.pick(("quiet", "standard", "max"))
    how = {"vacuum": "vacuum", "mop": "mop", "both": "vacuum and mop"}[mode]
    listing = " and ".join(r.lower() for r in rooms)
    query = g.say(
        "have the robot {how} the {rooms} on {s} suction",
        "start the robot vacuum: {how} {rooms}, {s} power",
        "send the robot to {how} the {rooms}, {s} suction",
        how=how,
        rooms=listing,
        s=suction,
    )
    vac = dev_id("Robot vacuum")
    return Draft(
        query=query,
        gold=[
            act("list_smart_devices", type="vacuum"),
            act("start_robot_vacuum", device_id=vac, action="start", rooms=rooms, mode=mode, suction=suction),
            done("The robot is cleaning."),
        ],
        bucket="state_change",
        check={
            "update": {"home_devices": [dev_update(vac, status="cleaning", rooms=rooms, mode=mode, suction=suction)]}
        },
    )


@family("basic", "10.4", pattern="friction", friction="unsupported_operation")
@guarded
def thermostat_power_off(g: Gen) -> Draft:
    d = device(g, "Living room thermostat")
    query = g.say(
        "switch off the living room thermostat",
        "power off the thermostat in the living room",
        "turn the living room thermostat off",
        "shut the living room thermostat down",
        "living room thermostat off please",
        "kill the thermostat in the living room",
    )
    return Draft(
        query=query,
        gold=[
            act("list_smart_devices", room="Living room", type="thermostat"),
            act("set_device_power", device_id=d["device_id"], on=False),
            act("set_thermostat", target=d["device_id"], mode="off"),
            done("The thermostat is off."),
        ],
        bucket="state_change",
        # the user named no temperature: off keeps the target it had
        check={"update": {"home_devices": [dev_update(d["device_id"], mode="off")]}},
        recovers=(ErrorType.UNSUPPORTED_OPERATION,),
    )


# ---- 10.5 Home Automations & Routines ------------------------------------------------------------------

AUTO_TARGETS = {
    "Coffee maker plug": "the coffee maker",
    "Desk fan plug": "the desk fan",
    "Porch light": "the porch light",
    "Smart speaker": "the smart speaker",
    "Living room TV": "the TV",
    "Floor lamp": "the floor lamp",
}
DAY_SETS = {
    "weekdays": ["mon", "tue", "wed", "thu", "fri"],
    "weekends": ["sat", "sun"],
    "every day": None,
    "Mondays and Thursdays": ["mon", "thu"],
}


@family("basic", "10.5", pattern="lookup_then_act")
@guarded
def timed_automation(g: Gen) -> Draft:
    name = g.pick(list(AUTO_TARGETS))
    turn = g.pick(("turn_on", "turn_off"))
    at = f"{g.rng.randint(5, 23):02d}:{g.pick(('00', '15', '30', '45'))}"
    days_word = g.pick(list(DAY_SETS))
    days = DAY_SETS[days_word]
    label = f"{AUTO_TARGETS[name].removeprefix('the ').capitalize()} {'on' if turn == 'turn_on' else 'off'} {at}"
    query = g.say(
        "create an automation called '{label}': {days} at {at}, {verb} {thing}",
        "{days} at {at} {verb} {thing} automatically; name the automation {label}",
        "set up a home routine named '{label}' that will {verb} {thing} at {at} {days}",
        label=label,
        days=days_word,
        at=at,
        verb=turn.replace("_", " "),
        thing=AUTO_TARGETS[name],
    )
    did = dev_id(name)
    args: dict[str, Any] = {
        "name": label,
        "trigger": {"type": "time", "value": at},
        "actions": [{"target": did, "command": turn}],
    }
    if days:
        args["days"] = days
    check_row: dict[str, Any] = {
        "name": label,
        "trigger_json": {"$json": {"type": "time", "value": at}},
        "actions_json": {"$json": [{"target": did, "command": turn}]},
        "enabled": 1,
    }
    if days:
        check_row["days_json"] = {"$json": {"$set": days}}
    return Draft(
        query=query,
        gold=[act("list_smart_devices"), act("create_home_automation", **args), done("Automation created.")],
        bucket="state_change",
        check={"insert": {"home_automations": [check_row]}},
    )


@family("basic", "10.5", pattern="friction", friction="permission_denied")
@guarded
def arrival_automation_permission(g: Gen) -> Draft:
    kind = g.pick(("arrive_home", "leave_home"))
    name, command = g.pick(
        {
            "arrive_home": (
                ("Floor lamp", "turn_on"),
                ("Smart speaker", "turn_on"),
                ("Desk fan plug", "turn_on"),
                ("Porch light", "turn_on"),
            ),
            "leave_home": (
                ("Living room TV", "turn_off"),
                ("Floor lamp", "turn_off"),
                ("Desk fan plug", "turn_off"),
                ("Air purifier", "turn_off"),
            ),
        }[kind]
    )
    thing = {
        "Floor lamp": "the floor lamp",
        "Smart speaker": "the speaker",
        "Desk fan plug": "the desk fan",
        "Porch light": "the porch light",
        "Living room TV": "the TV",
        "Air purifier": "the air purifier",
    }[name]
    event = {"arrive_home": "I get home", "leave_home": "I leave home"}[kind]
    # the name follows the trigger: "Arrival" for a leave-home rule would contradict the request
    label = g.pick(
        {
            "arrive_home": ("Welcome home", "Arrival", "Coming home", "Home again"),
            "leave_home": ("Bye house", "Away switch", "Out the door", "Leaving"),
        }[kind]
    )
    label = f"{label} ({thing.removeprefix('the ')})"
    query = g.say(
        "whenever {e}, {v} {thing}. Call the automation '{label}'",
        "make an automation named {label} that will {v} {thing} when {e}",
        "set up '{label}': when {e}, {v} {thing}",
        e=event,
        v=command.replace("_", " "),
        thing=thing,
        label=label,
    )
    did = dev_id(name)
    args = {"name": label, "trigger": {"type": kind}, "actions": [{"target": did, "command": command}]}
    return Draft(
        query=query,
        gold=[
            act("list_smart_devices"),
            act("create_home_automation", **args),
            act("grant_app_permission", app_id="home", permission="LOCATION"),
            act("create_home_automation", **args),
            done("Automation created."),
        ],
        bucket="state_change",
        check={
            "insert": {
                "home_automations": [
                    {
                        "name": label,
                        "trigger_json": {"$json": {"type": kind}},
                        "actions_json": {"$json": [{"target": did, "command": command}]},
                    }
                ]
            },
            "update": {
                "app_permissions": [
                    {"match": {"app_id": "home", "permission": "LOCATION"}, "set": {"state": "granted"}}
                ]
            },
        },
        patches={
            "update": {
                "app_permissions": [
                    {"match": {"app_id": "home", "permission": "LOCATION"}, "set": {"state": "not_requested"}}
                ]
            }
        },
        # the user asked for a location rule, so the gold grants at once; a model that checks first gets a yes
        script=[
            {
                "answer": "Yes, let the home app use my location.",
                "kind": "confirm",
                "keywords": ["location", "permission", "allow", "grant"],
            }
        ],
        recovers=(ErrorType.PERMISSION_DENIED,),
    )


# ---- 10.6 Vehicle Remote Control ---------------------------------------------------------------------

STATUS_QUESTIONS = {
    "how much range does my car have left?": "range",
    "is my car locked?": "locked",
    "what's the tyre pressure on the car?": "tyres",
    "where did I park the car?": "parked",
    "how much charge or fuel is left in the car?": "energy",
    "are the car windows closed?": "windows",
    "what's the mileage on my car?": "odometer",
    "is the engine off?": "engine",
    "how warm is it inside the car right now?": "cabin",
    "give me a quick status of my car": "summary",
}
# what people call each part of the car whose state a question asks about (the car's model is added)
CAR_SUBJECTS = {
    "locked": ["car", "vehicle", "doors", "door", "locks"],
    "windows": ["windows", "window"],
    "engine": ["engine", "motor", "ignition", "car"],
}


def says_state(car: dict[str, str], part: str, value: str, asked: str | None) -> dict[str, Any]:
    """A car state stated of the car (or the part asked about) and never its opposite, read by polarity:
    "The engine is running; want me to turn it off?" says running, not off; a leading yes/no answers
    ``asked``, the state the question asked about ("is the engine off?" asks "off")."""
    spec: dict[str, Any] = {"value": value, "subject": CAR_SUBJECTS[part] + [car["model"]]}
    return {"$state": spec | ({"asked": asked} if asked else {})}


def windows_state(car: dict[str, str], closed: bool) -> dict[str, Any]:
    """Closed/open windows by polarity, or as "all up"/"rolled down" when nothing says otherwise (the
    state words do not hold up/down)."""
    state = says_state(car, "windows", "closed" if closed else "open", "closed")
    said, other = (
        (r"rolled up|(?:are|all) up", r"open|opened|down")
        if closed
        else (r"rolled down|(?:are|all|is|one|two|both) down", r"closed|shut|up")
    )
    return {"$any": [state, {"$regex": rf"^(?!.*\b(?:{other}|not|n't)\b).*\b(?:{said})\b"}]}


def number(value: float, tolerance: float, *also: tuple[float, float]) -> dict[str, Any]:
    """A number, or the same quantity in another unit (factor, tolerance): miles, psi, Fahrenheit..."""
    options = [{"$number": {"value": value, "tolerance": tolerance}}]
    options += [{"$number": {"value": round(value * f + (32 if f == 1.8 else 0), 1), "tolerance": t}} for f, t in also]
    return {"$any": options}


def car_fact(g: Gen, fact: str, car: dict[str, str]) -> tuple[list[Any], str]:
    """The answer check and the gold's answer for one car question, from the car's state."""
    energy = "battery_pct" if "battery_pct" in car else "fuel_pct"
    pct, word = int(car[energy]), "charge" if energy == "battery_pct" else "fuel"
    locked = car["locked"] == "1"
    if fact == "range":
        km = int(car["range_km"])
        return [number(km, 5, (0.621371, 3))], f"About {km} km of range left."
    if fact == "locked":
        return (
            [says_state(car, "locked", "locked" if locked else "unlocked", "locked")],
            "Yes, it's locked." if locked else "No, it's unlocked.",
        )
    if fact == "tyres":
        tyres = json.loads(car["tire_pressure_json"])
        low = min(tyres, key=lambda k: (tyres[k], k))
        listed = ", ".join(f"{k.replace('_', ' ')} {v} bar" for k, v in sorted(tyres.items()))
        return (
            [number(tyres[low], 0.05, (14.5038, 1), (100, 3))],
            f"{listed[:1].upper()}{listed[1:]}; the {low.replace('_', ' ')} tyre is low.",
        )
    if fact == "parked":
        spot = g.rows("world_places", {"place_id": car["location_place_id"]})
        if not spot:
            raise BuildError("the car's location is no known place")
        return (
            [{"$any": [{"$name": spot[0]["name"]}, {"$name": spot[0]["address"]}]}],
            f"It's parked at {spot[0]['name']}, {spot[0]['address']}.",
        )
    if fact == "energy":
        return [number(pct, 0.5)], f"{pct}% {word} left, about {car['range_km']} km of range."
    if fact == "windows":
        closed = car["windows_closed"] == "1"
        return ([windows_state(car, closed)], "Yes, all windows are closed." if closed else "No, the windows are open.")
    if fact == "odometer":
        km = int(car["odometer_km"])
        return [number(km, 100, (0.621371, 60))], f"The odometer reads {km} km."
    if fact == "engine":
        on = car["engine_on"] == "1"
        return (
            [says_state(car, "engine", "running" if on else "off", "off")],
            "No, the engine is running." if on else "Yes, the engine is off.",
        )
    if fact == "cabin":
        c = int(car["cabin_temp_c"])
        return [number(c, 0.5, (1.8, 1))], f"It's {c}°C inside the car."
    return (
        [
            {"$any": [number(pct, 0.5), number(int(car["range_km"]), 5)]},
            says_state(car, "locked", "locked" if locked else "unlocked", None),
        ],
        f"{pct}% {word}, {car['range_km']} km of range, {'locked' if locked else 'unlocked'}.",
    )


@family("basic", "10.6", pattern="single_call")
@guarded
def car_status_question(g: Gen) -> Draft:
    question = g.pick(sorted(STATUS_QUESTIONS))
    fact = STATUS_QUESTIONS[question]
    car = {r["key"]: r["value"] for r in g.rows("vehicle_state")}
    energy = "battery_pct" if "battery_pct" in car else "fuel_pct"
    # the state varies per task, so the answer must come from the car
    changes = {
        "locked": g.pick(("1", "1", "0")),
        "windows_closed": g.pick(("1", "1", "0")),
        "engine_on": g.pick(("0", "0", "1")),
        energy: str(g.rng.randint(8, 97)),
    }
    changes["range_km"] = str(round(int(changes[energy]) * int(car["range_km"]) / int(car[energy])))
    car |= changes
    answer, text = car_fact(g, fact, car)
    return Draft(
        query=g.say(g.pick(("{q}", "{q}" if fact == "summary" else "quick one: {q}")), q=question),
        gold=[act("get_vehicle_status"), done(text)],
        bucket="tool_call",
        check={"calls": [{"tool": "get_vehicle_status"}]},
        answer=answer,
        patches={
            "update": {
                "vehicle_state": [{"match": {"key": k}, "set": {"value": v}} for k, v in sorted(changes.items())]
            }
        },
    )


@family("basic", "10.6", pattern="single_call")
@guarded
def precondition_cabin(g: Gen) -> Draft:
    temp = g.pick([t / 2 for t in range(36, 55)])
    seat = g.pick((None, "low", "high"))
    defrost = g.pick((None, True))
    minutes = g.pick((None, 10, 20, 30))
    bits = []
    if seat:
        bits.append(f"seat heating on {seat}")
    if defrost:
        bits.append("defrost the windscreen")
    if minutes:
        bits.append(f"run it for {minutes} minutes")
    extra = (", " + ", ".join(bits)) if bits else ""
    query = g.say(
        "warm up the car to {t} degrees{x}",
        "pre-condition the cabin to {t}°C{x}",
        "get the car to {t} degrees before I go{x}",
        t=f"{temp:g}",
        x=extra,
    )
    args: dict[str, Any] = {"target_c": temp}
    keys = [
        {"match": {"key": "climate_on"}, "set": {"value": "1"}},
        {"match": {"key": "climate_until"}, "set": {"value": {"$regex": "^20"}}},
    ]
    if temp != 22.0:
        keys.append({"match": {"key": "climate_target_c"}, "set": {"value": f"{temp:.1f}"}})
    if seat:
        args["seat_heat"] = seat
        keys.append({"match": {"key": "seat_heat"}, "set": {"value": seat}})
    if defrost:
        args["defrost"] = True
        keys.append({"match": {"key": "defrost"}, "set": {"value": "1"}})
    if minutes:
        args["duration_min"] = minutes
    check: dict[str, Any] = {
        "update": {"vehicle_state": keys},
        "insert": {"vehicle_events": [{"command": "climate_on", "result": "ok"}]},
    }
    return Draft(
        query=query,
        gold=[act("set_vehicle_climate", **args), done("The cabin is warming up.")],
        bucket="state_change",
        check=check,
    )


CAR_RISKY = {
    "unlock": ("unlock my car", "open the car doors remotely", "unlock the car for me"),
    "start_engine": ("start the car engine", "remote-start my car", "turn the car's engine on"),
    "open_trunk": ("open the car trunk", "pop the boot of my car", "open the trunk remotely"),
}
CAR_KEY = {"unlock": ("locked", "0"), "start_engine": ("engine_on", "1"), "open_trunk": ("trunk_open", "1")}


@family("basic", "10.6", pattern="friction", friction="confirmation_required")
@guarded
def risky_car_command(g: Gen) -> Draft:
    command = g.pick(list(CAR_RISKY))
    reason = g.pick(
        ("", ", my friend needs to grab something", ", I'm coming down now", ", it's cold out", ", the courier is here")
    )
    query = g.pick(CAR_RISKY[command]) + reason
    key, value = CAR_KEY[command]
    return Draft(
        query=query[0].upper() + query[1:],
        gold=[
            act("vehicle_remote_command", command=command),
            act("ask_user", question=f"Please confirm: {command.replace('_', ' ')} the car?", kind="confirm"),
            act("vehicle_remote_command", command=command, confirm=True),
            done("Done."),
        ],
        bucket="state_change",
        check={
            "update": {"vehicle_state": [{"match": {"key": key}, "set": {"value": value}}]},
            "insert": {"vehicle_events": [{"command": command, "result": "ok"}]},
        },
        script=[{"answer": "Yes, do it.", "keywords": ["confirm", "sure", "car"]}],
        recovers=(ErrorType.CONFIRMATION_REQUIRED,),
    )
