"""Basic Tool Use families for Smart Home & Vehicle (D10).

Every persona's home has the same devices (``sandbox.domains.home.DEVICES``), so these families draw
their variety from the values the user asks for (rooms, levels, temperatures, times, names).
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from sandbox.domains.home import dev_id
from sandbox.errors import ErrorType
from sandbox.generator.core import BuildError, Draft, Gen, act, done, family
from sandbox.generator.families.basic_travel import guarded


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
    query = g.say("set the {room} lights to {level}%{extra}", "dim the {room} lights to {level} percent{extra}",
                  "put the lights in the {room} at {level}% brightness{extra}",
                  "{room} lights: {level}% please{extra}", room=room.lower(), level=level, extra=extra)
    want = {"on": True, "brightness": level, **({"color_temp_k": warm} if warm else {})}
    return Draft(
        query=query,
        gold=[act("set_light_state", target=room, brightness=level, **args), done("Done.")],
        bucket="state_change",
        check={"update": {"home_devices": [dev_update(d["device_id"], **want) for d in lights]}},
    )


SCENE_WORDS = {"Good morning": ("good morning", "morning"), "Good night": ("good night", "bedtime"),
               "Movie time": ("movie time", "movie night"), "Dinner": ("dinner", "dinner time"),
               "Leave home": ("leave home", "I'm heading out")}


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
    query = g.say("run the {w} scene", "activate my '{w}' scene", "switch the house to the {w} scene",
                  "start the {w} scene in the home app", "set {w} mode, the scene", "turn on the {w} scene please",
                  w=word)
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
    query = g.say("turn on the bedroom light at {l}%", "bedroom lights on, {l} percent",
                  "switch on the light in the bedroom, brightness {l}", l=level)
    return Draft(
        query=query,
        gold=[act("set_light_state", target="bedroom", brightness=level),
              act("ask_user", question="Which bedroom: the master bedroom or the kids' bedroom?", kind="choose",
                  options=["Master bedroom", "Kids bedroom"]),
              act("set_light_state", target=room, brightness=level), done("Done.")],
        bucket="agent_behavior",
        check={"follow_up": {"tool": "ask_user"},
               "state": {"update": {"home_devices": [dev_update(d["device_id"], on=True, brightness=level)
                                                     for d in lights]}}},
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
    query = g.say("set the {r} to {t} degrees{how}", "make the {r} {t}°C{how}",
                  "change the {r} thermostat to {t}{how}", "I want the {r} at {t} degrees{how}",
                  r=THERMOSTATS[room], t=shown, how=how)
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
    query = g.say("{m} the {r} to {t} degrees and hold it until {h}:00 {when}",
                  "keep the {r} at {t}°C until {h}:00 {when}, {m}ing",
                  "{m} the {r}, {t} degrees, hold till {h}:00 {when}", m=mode.replace("cool", "cool"), r=THERMOSTATS[room],
                  t=temp, h=hour, when=g.when(days))
    return Draft(
        query=query,
        gold=[act("set_thermostat", target=room, target_c=temp, mode=mode, hold_until=until), done("Done.")],
        bucket="state_change",
        check={"update": {"home_devices": [dev_update(d["device_id"], target_c=temp, mode=mode, hold_until=until)]}},
    )


# ---- 10.3 Home Security & Locks -------------------------------------------------------------------

ARM_WORDS = {"away": ("I'm leaving the house, arm the alarm", "arm the alarm in away mode",
                      "set the security system to away"),
             "night": ("arm the alarm for the night", "set the alarm to night mode", "night mode on the alarm"),
             "home": ("arm the alarm in home mode, we're staying in", "stay mode on the alarm",
                      "arm the perimeter, we're home")}


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
        check={"update": {"home_devices": [dev_update(panel, armed_mode=mode)]},
               "insert": {"home_events": [{"device_id": panel, "kind": f"armed_{mode}"}]}},
    )


GUESTS = ("Cleaner Ana", "Plumber", "Babysitter", "Mom", "Dog sitter", "Electrician", "Neighbour Tom", "Handyman",
          "Window cleaner", "Piano teacher")


@family("basic", "10.3", pattern="friction", friction="confirmation_required")
@guarded
def guest_code_with_confirm(g: Gen) -> Draft:
    lock = g.pick(("Front door lock", "Back door lock"))
    guest = g.pick(GUESTS)
    days = g.rng.randint(1, 6)
    hour = g.rng.randint(12, 20)
    until = f"{g.date(days)}T{hour:02d}:00"
    door = lock.split(" lock")[0].lower()
    query = g.say("give the {guest} a keypad code for the {door}, valid until {h}:00 {when}",
                  "create a temporary {door} code for {guest} that expires {when} at {h}:00",
                  "set up a guest code on the {door} labelled {guest}, good until {h}:00 {when}",
                  guest=guest, door=door, h=hour, when=g.when(days))
    did = dev_id(lock)
    return Draft(
        query=query,
        gold=[act("list_smart_devices", type="lock"),
              act("set_lock_state", device_id=did, locked=True, guest_code_label=guest, code_valid_until=until),
              act("ask_user", question=f"Issue a keypad code for {guest} on the {door} until {until}?",
                  kind="confirm"),
              act("set_lock_state", device_id=did, locked=True, guest_code_label=guest, code_valid_until=until,
                  confirm=True),
              done("Guest code created.")],
        bucket="state_change",
        check={"insert": {"access_codes": [{"device_id": did, "label": {"$contains": guest.split()[-1]},
                                            "valid_until": until}]}},
        script=[{"answer": "Yes, go ahead.", "keywords": ["code", "confirm", "issue", "sure"]}],
        recovers=(ErrorType.CONFIRMATION_REQUIRED,),
    )


@family("basic", "10.3", pattern="lookup_then_act")
@guarded
def camera_who_came(g: Gen) -> Draft:
    cam = g.pick(("Doorbell camera", "Living room camera"))
    hours = g.rng.randint(1, 12)
    since = (g.now - dt.timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M")
    where = {"Doorbell camera": "at the front door", "Living room camera": "in the living room"}[cam]
    what = g.pick(("anyone", "a delivery", "any movement", "a person"))
    query = g.say("was there {what} {where} in the last {h} hours?", "check the camera: {what} {where} since {t}?",
                  "show me what the camera {where} saw since {t}", what=what, where=where, h=hours, t=since[11:])
    return Draft(
        query=query,
        gold=[act("list_smart_devices", type="camera"),
              act("get_camera_snapshot", camera_id=dev_id(cam), since=since), done("Here is what it saw.")],
        bucket="tool_call",
        check={"calls": [{"tool": "get_camera_snapshot", "args": {"camera_id": dev_id(cam)}}]},
    )


# ---- 10.4 Appliances & Plugs -------------------------------------------------------------------------

POWER = {"Coffee maker plug": "the coffee maker", "Air purifier": "the air purifier", "Desk fan plug": "the desk fan",
         "Smart speaker": "the smart speaker", "Living room TV": "the TV", "Washing machine": "the washing machine"}


@family("basic", "10.4", pattern="lookup_then_act")
@guarded
def switch_appliance(g: Gen) -> Draft:
    name = g.pick(list(POWER))
    d = device(g, name)
    on = not d["state"]["on"]
    word = "on" if on else "off"
    query = g.say("turn {w} {thing}", "switch {thing} {w}", "can you power {w} {thing}?", "{thing}: {w}, please",
                  "please switch {w} {thing} from the home app", w=word, thing=POWER[name])
    return Draft(
        query=query,
        gold=[act("list_smart_devices", room=d["room"]), act("set_device_power", device_id=d["device_id"], on=on),
              done(f"{name} is {word}.")],
        bucket="state_change",
        check={"update": {"home_devices": [dev_update(d["device_id"], on=on)]}},
    )


@family("basic", "10.4", pattern="lookup_then_act")
@guarded
def vacuum_rooms(g: Gen) -> Draft:
    rooms = sorted(g.rng.sample(["Kitchen", "Living room", "Master bedroom", "Kids bedroom", "Study", "Hallway"],
                                g.rng.randint(1, 3)))
    mode = g.pick(("vacuum", "mop", "both"))
    suction = g.pick(("quiet", "standard", "max"))
    how = {"vacuum": "vacuum", "mop": "mop", "both": "vacuum and mop"}[mode]
    listing = " and ".join(r.lower() for r in rooms)
    query = g.say("have the robot {how} the {rooms} on {s} suction", "start the robot vacuum: {how} {rooms}, {s} power",
                  "send the robot to {how} the {rooms}, {s} suction", how=how, rooms=listing, s=suction)
    vac = dev_id("Robot vacuum")
    return Draft(
        query=query,
        gold=[act("list_smart_devices", type="vacuum"),
              act("start_robot_vacuum", device_id=vac, action="start", rooms=rooms, mode=mode, suction=suction),
              done("The robot is cleaning.")],
        bucket="state_change",
        check={"update": {"home_devices": [dev_update(vac, status="cleaning", rooms=rooms, mode=mode,
                                                      suction=suction)]}},
    )


@family("basic", "10.4", pattern="friction", friction="unsupported_operation")
@guarded
def thermostat_power_off(g: Gen) -> Draft:
    d = device(g, "Living room thermostat")
    temp = d["state"]["target_c"]
    query = g.say("switch off the living room thermostat", "power off the thermostat in the living room",
                  "turn the living room thermostat off", "shut the living room thermostat down",
                  "living room thermostat off please", "kill the thermostat in the living room")
    return Draft(
        query=query,
        gold=[act("list_smart_devices", room="Living room", type="thermostat"),
              act("set_device_power", device_id=d["device_id"], on=False),
              act("set_thermostat", target=d["device_id"], target_c=temp, mode="off"),
              done("The thermostat is off.")],
        bucket="state_change",
        check={"update": {"home_devices": [dev_update(d["device_id"], mode="off", target_c=temp)]}},
        recovers=(ErrorType.UNSUPPORTED_OPERATION,),
    )


# ---- 10.5 Home Automations & Routines ------------------------------------------------------------------

AUTO_TARGETS = {"Coffee maker plug": "the coffee maker", "Desk fan plug": "the desk fan", "Porch light": "the porch light",
                "Smart speaker": "the smart speaker", "Living room TV": "the TV", "Floor lamp": "the floor lamp"}
DAY_SETS = {"weekdays": ["mon", "tue", "wed", "thu", "fri"], "weekends": ["sat", "sun"], "every day": None,
            "Mondays and Thursdays": ["mon", "thu"]}


@family("basic", "10.5", pattern="lookup_then_act")
@guarded
def timed_automation(g: Gen) -> Draft:
    name = g.pick(list(AUTO_TARGETS))
    turn = g.pick(("turn_on", "turn_off"))
    at = f"{g.rng.randint(5, 23):02d}:{g.pick(('00', '15', '30', '45'))}"
    days_word = g.pick(list(DAY_SETS))
    days = DAY_SETS[days_word]
    label = f"{AUTO_TARGETS[name].removeprefix('the ').capitalize()} {'on' if turn == 'turn_on' else 'off'} {at}"
    query = g.say("create an automation called '{label}': {days} at {at}, {verb} {thing}",
                  "{days} at {at} {verb} {thing} automatically; name the automation {label}",
                  "set up a home routine named '{label}' that will {verb} {thing} at {at} {days}",
                  label=label, days=days_word, at=at, verb=turn.replace("_", " "), thing=AUTO_TARGETS[name])
    did = dev_id(name)
    args: dict[str, Any] = {"name": label, "trigger": {"type": "time", "value": at},
                            "actions": [{"target": did, "command": turn}]}
    if days:
        args["days"] = days
    check_row: dict[str, Any] = {"name": label, "trigger_json": {"$json": {"type": "time", "value": at}},
                                 "actions_json": {"$json": [{"target": did, "command": turn}]}, "enabled": 1}
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
    name, command = g.pick({"arrive_home": (("Floor lamp", "turn_on"), ("Smart speaker", "turn_on"),
                                            ("Desk fan plug", "turn_on"), ("Porch light", "turn_on")),
                            "leave_home": (("Living room TV", "turn_off"), ("Floor lamp", "turn_off"),
                                           ("Desk fan plug", "turn_off"), ("Air purifier", "turn_off"))}[kind])
    thing = {"Floor lamp": "the floor lamp", "Smart speaker": "the speaker", "Desk fan plug": "the desk fan",
             "Porch light": "the porch light", "Living room TV": "the TV", "Air purifier": "the air purifier"}[name]
    event = {"arrive_home": "I get home", "leave_home": "I leave home"}[kind]
    # the name follows the trigger: "Arrival" for a leave-home rule would contradict the request
    label = g.pick({"arrive_home": ("Welcome home", "Arrival", "Coming home", "Home again"),
                    "leave_home": ("Bye house", "Away switch", "Out the door", "Leaving")}[kind])
    label = f"{label} ({thing.removeprefix('the ')})"
    query = g.say("whenever {e}, {v} {thing}. Call the automation '{label}'",
                  "make an automation named {label} that will {v} {thing} when {e}",
                  "set up '{label}': when {e}, {v} {thing}", e=event, v=command.replace("_", " "), thing=thing,
                  label=label)
    did = dev_id(name)
    args = {"name": label, "trigger": {"type": kind}, "actions": [{"target": did, "command": command}]}
    return Draft(
        query=query,
        gold=[act("list_smart_devices"), act("create_home_automation", **args),
              act("grant_app_permission", app_id="home", permission="LOCATION"),
              act("create_home_automation", **args), done("Automation created.")],
        bucket="state_change",
        check={"insert": {"home_automations": [{"name": label, "trigger_json": {"$json": {"type": kind}},
                                                "actions_json": {"$json": [{"target": did, "command": command}]}}]},
               "update": {"app_permissions": [{"match": {"app_id": "home", "permission": "LOCATION"},
                                               "set": {"state": "granted"}}]}},
        patches={"update": {"app_permissions": [{"match": {"app_id": "home", "permission": "LOCATION"},
                                                 "set": {"state": "not_requested"}}]}},
        # the user asked for a location rule, so the gold grants at once; a model that checks first gets a yes
        script=[{"answer": "Yes, let the home app use my location.", "kind": "confirm",
                 "keywords": ["location", "permission", "allow", "grant"]}],
        recovers=(ErrorType.PERMISSION_DENIED,),
    )


# ---- 10.6 Vehicle Remote Control ---------------------------------------------------------------------

STATUS_QUESTIONS = ("how much range does my car have left?", "is my car locked?", "what's the tyre pressure on the car?",
                    "where did I park the car?", "how much charge or fuel is left in the car?",
                    "are the car windows closed?", "what's the mileage on my car?", "is the engine off?",
                    "how warm is it inside the car right now?", "give me a quick status of my car")


@family("basic", "10.6", pattern="single_call")
@guarded
def car_status_question(g: Gen) -> Draft:
    query = g.say(g.pick(STATUS_QUESTIONS), "quick one: " + g.pick(STATUS_QUESTIONS))
    return Draft(
        query=query,
        gold=[act("get_vehicle_status"), done("Here is the car's status.")],
        bucket="tool_call",
        check={"calls": [{"tool": "get_vehicle_status"}]},
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
    query = g.say("warm up the car to {t} degrees{x}", "pre-condition the cabin to {t}°C{x}",
                  "get the car to {t} degrees before I go{x}", t=f"{temp:g}", x=extra)
    args: dict[str, Any] = {"target_c": temp}
    keys = [{"match": {"key": "climate_on"}, "set": {"value": "1"}},
            {"match": {"key": "climate_until"}, "set": {"value": {"$regex": "^20"}}}]
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
    check: dict[str, Any] = {"update": {"vehicle_state": keys},
                             "insert": {"vehicle_events": [{"command": "climate_on", "result": "ok"}]}}
    return Draft(query=query, gold=[act("set_vehicle_climate", **args), done("The cabin is warming up.")],
                 bucket="state_change", check=check)


CAR_RISKY = {"unlock": ("unlock my car", "open the car doors remotely", "unlock the car for me"),
             "start_engine": ("start the car engine", "remote-start my car", "turn the car's engine on"),
             "open_trunk": ("open the car trunk", "pop the boot of my car", "open the trunk remotely")}
CAR_KEY = {"unlock": ("locked", "0"), "start_engine": ("engine_on", "1"), "open_trunk": ("trunk_open", "1")}


@family("basic", "10.6", pattern="friction", friction="confirmation_required")
@guarded
def risky_car_command(g: Gen) -> Draft:
    command = g.pick(list(CAR_RISKY))
    reason = g.pick(("", ", my friend needs to grab something", ", I'm coming down now", ", it's cold out",
                     ", the courier is here"))
    query = g.pick(CAR_RISKY[command]) + reason
    key, value = CAR_KEY[command]
    return Draft(
        query=query[0].upper() + query[1:],
        gold=[act("vehicle_remote_command", command=command),
              act("ask_user", question=f"Please confirm: {command.replace('_', ' ')} the car?", kind="confirm"),
              act("vehicle_remote_command", command=command, confirm=True), done("Done.")],
        bucket="state_change",
        check={"update": {"vehicle_state": [{"match": {"key": key}, "set": {"value": value}}]},
               "insert": {"vehicle_events": [{"command": command, "result": "ok"}]}},
        script=[{"answer": "Yes, do it.", "keywords": ["confirm", "sure", "car"]}],
        recovers=(ErrorType.CONFIRMATION_REQUIRED,),
    )
