"""Basic Tool Use families for Device & System Settings (D11): connectivity, Bluetooth, sound, display,
battery, focus and Do Not Disturb, accessibility and language.

Every persona starts with the same switches (Wi-Fi, mobile data, Bluetooth and location on; airplane,
low-power, dark mode and DND off; ringer normal; brightness 70; volumes 60/70/80), so a family that
needs another starting point patches ``device_settings`` first.
"""

from __future__ import annotations

from typing import Any

from sandbox.errors import ErrorType
from sandbox.generator.core import BuildError, Gen, act, done, family
from sandbox.generator.draft import Draft


def setting(key: str, value: Any) -> dict[str, Any]:
    """One device_settings row update (a patch, or an expected change in a check)."""
    return {"match": {"key": key}, "set": {"value": value}}


def settings_patch(**values: str) -> dict[str, Any]:
    return {"update": {"device_settings": [setting(k, v) for k, v in values.items()]}}


def settings_check(**values: Any) -> dict[str, Any]:
    return {"update": {"device_settings": [setting(k, v) for k, v in values.items()]}}


# ---- 11.1 Connectivity & Location Services -----------------------------------------------------------------

SWITCHES = {  # key: (tool, names a user says)
    "wifi": ("set_wifi", ("Wi-Fi", "the wifi", "wireless internet")),
    "mobile_data": ("set_mobile_data", ("mobile data", "cellular data", "my data connection")),
    "airplane_mode": ("set_airplane_mode", ("airplane mode", "flight mode")),
    "location_service": ("set_location_services", ("location services", "GPS location", "location")),
}


@family("basic", "11.1", pattern="single_call")
def toggle_connectivity(g: Gen) -> Draft:
    key = g.pick(sorted(SWITCHES))
    tool, names = SWITCHES[key]
    on = g.rng.random() < 0.5
    name = g.pick(names)
    patches: dict[str, Any] = {}
    expected = {key: "1" if on else "0"}
    if on:
        patches = settings_patch(**{key: "0"}) if key != "airplane_mode" else {}
    else:
        if key == "airplane_mode":
            patches = settings_patch(airplane_mode="1", wifi="0", mobile_data="0", bluetooth="0")
    if key == "airplane_mode" and on:
        expected.update(wifi="0", mobile_data="0", bluetooth="0")
    reason = g.pick(("", " please", " for now", " right away"))
    verb_on, verb_off = g.pick((("turn on", "turn off"), ("switch on", "switch off"), ("enable", "disable")))
    query = g.say(
        "{verb} {name}{reason}",
        "can you {verb} {name}{reason}?",
        "I need {name} {state}{reason}",
        verb=verb_on if on else verb_off,
        name=name,
        reason=reason,
        state="on" if on else "off",
    )
    return Draft(
        query=query,
        gold=[act(tool, enabled=on), done(f"{name} is {'on' if on else 'off'}.")],
        bucket="state_change",
        check=settings_check(**expected),
        patches=patches,
    )


LOCATION_USES = (
    "so the maps app can find me",
    "for my running app",
    "so my ride can pick me up",
    "so the weather app knows where I am",
    "I need navigation",
    "so I can share where I am",
)


@family("basic", "11.1", pattern="friction", friction="changed_state")
def location_blocked_by_battery_saver(g: Gen) -> Draft:
    use = g.pick(LOCATION_USES)
    query = g.say(
        "turn on location services {use}",
        "switch location back on, {use}",
        "please enable GPS location {use}",
        "I need location turned on {use}",
        use=use,
    )
    return Draft(
        query=query,
        gold=[
            act("set_location_services", enabled=True),
            act("set_low_power_mode", enabled=False),
            act("set_location_services", enabled=True),
            done("Battery saver blocked location, so I turned battery saver off and location on."),
        ],
        bucket="state_change",
        check=settings_check(low_power_mode="0", location_service="1"),
        patches=settings_patch(low_power_mode="1", location_service="0", brightness="60"),
        recovers=(ErrorType.STATE_CONFLICT,),
    )


DATA_USES = (
    "I just landed",
    "the plane is at the gate now",
    "I'm off the flight",
    "I need to check my email",
    "I have to call a taxi",
    "there is no Wi-Fi here",
)


@family("basic", "11.1", pattern="friction", friction="changed_state")
def mobile_data_after_flight(g: Gen) -> Draft:
    use = g.pick(DATA_USES)
    query = g.say(
        "{use}; turn on mobile data",
        "turn my cellular data on, {use}",
        "{use}, can you get my mobile data working?",
        "switch on mobile data please, {use}",
        use=use,
    )
    return Draft(
        query=query,
        gold=[
            act("set_mobile_data", enabled=True),
            act("set_airplane_mode", enabled=False),
            act("set_mobile_data", enabled=True),
            done("Airplane mode was on; I turned it off and switched mobile data on."),
        ],
        bucket="state_change",
        check=settings_check(airplane_mode="0", mobile_data="1"),
        patches=settings_patch(airplane_mode="1", wifi="0", mobile_data="0", bluetooth="0"),
        recovers=(ErrorType.STATE_CONFLICT,),
    )


# ---- 11.2 Bluetooth & Pairing --------------------------------------------------------------------------

NEW_DEVICES = {
    "Sony WH-1000XM5": ("my new Sony WH-1000XM5 headphones", "the Sony WH-1000XM5"),
    "JBL Flip 6": ("the JBL Flip 6 speaker", "my JBL Flip 6"),
    "Galaxy Buds2 Pro": ("my Galaxy Buds2 Pro", "the Galaxy Buds2 Pro earbuds"),
    "Bose SoundLink Mini": ("the Bose SoundLink Mini", "my Bose SoundLink Mini speaker"),
}


def _new_device(g: Gen) -> tuple[str, str]:
    name = g.pick(sorted(NEW_DEVICES))
    if any(r["name"] == name and r["paired"] for r in g.rows("devices")):
        raise BuildError(f"{name} is already paired")
    return name, g.pick(NEW_DEVICES[name])


def _paired_insert(name: str) -> dict[str, Any]:
    return {"devices": [{"name": name, "connection": "bluetooth", "paired": 1, "connected": 1}]}


@family("basic", "11.2", pattern="single_call")
def pair_new_device(g: Gen) -> Draft:
    name, said = _new_device(g)
    query = g.say(
        "pair {said} with my phone",
        "connect {said} over Bluetooth, it's in pairing mode",
        "set up {said}; it's blinking and ready to pair",
        said=said,
    )
    return Draft(
        query=query,
        gold=[act("pair_bluetooth_device", device_name=name, action="pair"), done(f"Paired {name}.")],
        bucket="state_change",
        check={"insert": _paired_insert(name)},
    )


@family("basic", "11.2", pattern="friction", friction="service_disabled")
def pair_with_bluetooth_off(g: Gen) -> Draft:
    name, said = _new_device(g)
    query = g.say(
        "I'm trying to pair {said}, can you do it?",
        "please get {said} paired",
        "hook up {said} to this phone",
        said=said,
    )
    return Draft(
        query=query,
        gold=[
            act("pair_bluetooth_device", device_name=name, action="pair"),
            act("set_bluetooth", enabled=True),
            act("pair_bluetooth_device", device_name=name, action="pair"),
            done(f"Bluetooth was off; I turned it on and paired {name}."),
        ],
        bucket="state_change",
        check={"insert": _paired_insert(name), **settings_check(bluetooth="1")},
        patches=settings_patch(bluetooth="0"),
        recovers=(ErrorType.SERVICE_DISABLED,),
    )


PAIRED = {
    "Sony WH-1000XM4": ("my Sony headphones", "the WH-1000XM4 headphones"),
    "Smart Watch": ("my smart watch", "the watch"),
}


@family("basic", "11.2", pattern="lookup_then_act")
def disconnect_or_forget(g: Gen) -> Draft:
    dev = g.one(
        "devices", {"connection": "bluetooth", "paired": 1, "connected": 1}, filter=lambda r: r["name"] in PAIRED
    )
    said = g.pick(PAIRED[dev["name"]])
    action = g.pick(("disconnect", "forget"))
    if action == "disconnect":
        query = g.say(
            "disconnect {said}",
            "stop {said} from being connected to my phone",
            "drop the Bluetooth connection to {said}",
            said=said,
        )
        change = {"connected": 0}
    else:
        query = g.say(
            "forget {said} in Bluetooth",
            "unpair {said}, I gave it away",
            "remove {said} from my paired devices",
            said=said,
        )
        change = {"paired": 0, "connected": 0}
    return Draft(
        query=query,
        gold=[
            act("pair_bluetooth_device", device_name=dev["name"], action=action),
            done(f"{dev['name']}: {action} done."),
        ],
        bucket="state_change",
        check={"update": {"devices": [{"match": {"device_id": dev["device_id"]}, "set": change}]}},
    )


# ---- 11.3 Sound & Ringer ------------------------------------------------------------------------------

STREAMS = {
    "media": ("media volume", "music volume", "the volume for videos"),
    "ring": ("ringtone volume", "ring volume", "the volume for calls"),
    "alarm": ("alarm volume", "the volume of my alarms"),
}
CURRENT_VOLUME = {"media": 60, "ring": 70, "alarm": 80}


@family("basic", "11.3", pattern="single_call")
def set_stream_volume(g: Gen) -> Draft:
    stream = g.pick(sorted(STREAMS))
    level = g.pick([v for v in range(0, 101, 5) if v != CURRENT_VOLUME[stream]])
    said = g.pick(STREAMS[stream])
    query = g.say(
        "set the {bare} to {level}%",
        "put {said} at {level} percent",
        "change {said} to {level}",
        said=said,
        bare=said.removeprefix("the "),
        level=level,
    )
    return Draft(
        query=query,
        gold=[act("set_volume", stream=stream, level=level), done(f"{said} is at {level}%.")],
        bucket="state_change",
        check=settings_check(**{f"volume_{stream}": str(level)}),
    )


RINGER = {
    "vibrate": (
        "put my phone on vibrate",
        "vibrate only, no ringing please",
        "switch the ringer to vibrate",
        "I'm in a meeting, set the phone to vibrate",
    ),
    "silent": (
        "silence my phone completely",
        "set the ringer to silent, no vibration either",
        "make the phone totally silent",
        "mute the ringer, no buzzing",
    ),
    "normal": (
        "turn the ringer back on",
        "set my phone to ring normally again",
        "take the phone off vibrate",
        "I want to hear calls again, switch to normal ringing",
    ),
}


@family("basic", "11.3", pattern="single_call")
def set_ringer(g: Gen) -> Draft:
    mode = g.pick(sorted(RINGER))
    patches = settings_patch(ringer_mode=g.pick(("vibrate", "silent"))) if mode == "normal" else {}
    return Draft(
        query=g.say(*RINGER[mode]),
        gold=[act("set_ringer_mode", mode=mode), done(f"Ringer set to {mode}.")],
        bucket="state_change",
        check=settings_check(ringer_mode=mode),
        patches=patches,
    )


# ---- 11.4 Display & Appearance -------------------------------------------------------------------------


@family("basic", "11.4", pattern="single_call")
def set_screen_brightness(g: Gen) -> Draft:
    level = g.pick([v for v in range(10, 101, 5) if v != 70])
    query = g.say(
        "set screen brightness to {level}%",
        "make the display {level} percent bright",
        "change the brightness to {level}",
        "put the screen at {level}% brightness",
        level=level,
    )
    return Draft(
        query=query,
        gold=[act("set_brightness", level=level), done(f"Brightness is {level}%.")],
        bucket="state_change",
        check=settings_check(brightness=str(level), auto_brightness="0"),
    )


@family("basic", "11.4", pattern="single_call")
def switch_theme(g: Gen) -> Draft:
    dark = g.rng.random() < 0.6
    level = g.pick((None, 20, 30, 40, 50))
    extra = f" and turn the brightness down to {level}%" if level else ""
    if dark:
        query = g.say(
            "switch to dark mode{extra}",
            "use the dark theme{extra}",
            "turn on dark mode{extra}",
            "my eyes hurt at night: dark mode please{extra}",
            extra=extra,
        )
        patches: dict[str, Any] = {}
    else:
        query = g.say(
            "go back to light mode{extra}",
            "turn dark mode off{extra}",
            "use the light theme{extra}",
            "I can't read outside, switch off dark mode{extra}",
            extra=extra,
        )
        patches = settings_patch(dark_mode="1")
    gold = [act("set_dark_mode", enabled=dark)]
    expected: dict[str, Any] = {"dark_mode": "1" if dark else "0"}
    if level:
        gold.insert(0, act("set_brightness", level=level))
        expected.update(brightness=str(level), auto_brightness="0")
    return Draft(
        query=query,
        gold=[*gold, done("Done.")],
        bucket="state_change",
        check=settings_check(**expected),
        patches=patches,
    )


# ---- 11.5 Battery & Power ------------------------------------------------------------------------------

STATUS_QUESTIONS = {
    "how much battery do I have left?": "battery",
    "what's my battery level?": "battery",
    "is my phone charging?": "charging",
    "how charged is my phone right now?": "battery",
    "check the battery percentage for me": "battery",
    "am I connected to Wi-Fi, and which network?": "wifi",
    "is battery saver on at the moment?": "low_power_mode",
    "what's the current screen brightness?": "brightness",
    "tell me my battery status": "battery",
    "is do not disturb on right now?": "dnd",
}
SWITCH_WORDS = {
    "charging": "charging",
    "wifi": "connected to Wi-Fi",
    "low_power_mode": "Battery saver is",
    "dnd": "Do Not Disturb is",
}
# a switch's (state when set, state when not, names people give it): read by polarity, not by words
SWITCH_STATES = {
    "charging": ("charging", "discharging", ["phone", "battery", "device"]),
    "wifi": ("connected", "disconnected", ["Wi-Fi", "wifi", "phone", "device"]),
    "low_power_mode": (
        "on",
        "off",
        [
            "battery saver",
            "low power mode",
            "low-power mode",
            "power saving mode",
            "power saving",
            "power saver",
            "battery saving mode",
        ],
    ),
    "dnd": ("on", "off", ["Do Not Disturb", "DND"]),
}


def says_state(fact: str, on: bool) -> dict[str, Any]:
    """An answer stating the switch's state about it and never the opposite ("Yes, DND is on, so no calls
    ring" says on, although it holds "no"); a leading yes/no answers the question "is it on?"."""
    yes, no, names = SWITCH_STATES[fact]
    return {"$state": {"value": yes if on else no, "asked": yes, "subject": names}}


@family("basic", "11.5", pattern="single_call")
def device_status_question(g: Gen) -> Draft:
    """The answer states the one fact asked: a level as a number, a switch as on or off, the Wi-Fi network."""
    question = g.pick(sorted(STATUS_QUESTIONS))
    fact = STATUS_QUESTIONS[question]
    answer: list[dict[str, Any]]
    if fact in ("battery", "brightness"):
        value = int(g.setting("battery_pct" if fact == "battery" else "brightness") or 0)
        said, answer = f"{'Your battery' if fact == 'battery' else 'Brightness'} is at {value}%.", [{"$number": value}]
    elif fact == "wifi" and g.setting("wifi") == "1" and g.setting("wifi_connected_ssid"):
        ssid = g.setting("wifi_connected_ssid")
        said, answer = f"Yes, you are connected to Wi-Fi: {ssid}.", [{"$name": ssid}]
    else:  # Wi-Fi here: no network joined, so not connected whether or not the radio is on
        on = g.setting(fact) == "1" and fact != "wifi"
        said = (
            f"{SWITCH_WORDS[fact]} {'on' if on else 'off'}."
            if fact in ("low_power_mode", "dnd")
            else f"{'Yes' if on else 'No'}, the phone is {'' if on else 'not '}{SWITCH_WORDS[fact]}."
        )
        answer = [says_state(fact, on)]
    return Draft(
        query=g.say(question),
        gold=[act("get_device_status"), done(said)],
        bucket="tool_call",
        check={"calls": [{"tool": "get_device_status"}]},
        answer=answer,
    )


@family("basic", "11.5", pattern="single_call")
def battery_saver(g: Gen) -> Draft:
    on = g.rng.random() < 0.7
    pct = g.rng.randint(5, 25) if on else g.rng.randint(80, 100)
    if on:
        query = g.say(
            "I'm down to {pct}% battery, turn on battery saver",
            "battery is at {pct}%: enable low power mode",
            "only {pct} percent left, make the battery last",
            pct=pct,
        )
        return Draft(
            query=query,
            gold=[act("set_low_power_mode", enabled=True), done("Low-power mode is on.")],
            bucket="state_change",
            check=settings_check(low_power_mode="1", location_service="0", brightness="60"),
            patches=settings_patch(battery_pct=str(pct)),
        )
    query = g.say(
        "the phone is charged to {pct}%, turn off battery saver",
        "I'm at {pct}% now, disable low power mode",
        "battery is back to {pct} percent; switch power saving off",
        pct=pct,
    )
    return Draft(
        query=query,
        gold=[act("set_low_power_mode", enabled=False), done("Low-power mode is off.")],
        bucket="state_change",
        check=settings_check(low_power_mode="0"),
        patches=settings_patch(battery_pct=str(pct), low_power_mode="1", location_service="0", brightness="60"),
    )


# ---- 11.6 Focus Modes & DND --------------------------------------------------------------------------------


def _clock(hour: int, minute: int) -> str:
    return f"{hour:02d}:{minute:02d}"


@family("basic", "11.6", pattern="single_call")
def dnd_until_later_today(g: Gen) -> Draft:
    start = g.now.hour * 60 + g.now.minute + 30
    options = [m for m in range(start, 23 * 60 + 59, 15)]
    if not options:
        raise BuildError("too late in the day for a DND end later today")
    end = g.pick(options)
    hhmm = _clock(end // 60, end % 60)
    until = f"{g.date(0)}T{hhmm}"
    query = g.say(
        "turn on do not disturb until {t}",
        "don't let anything disturb me until {t} today",
        "silence notifications until {t}, please",
        "DND on until {t}",
        t=hhmm,
    )
    return Draft(
        query=query,
        gold=[act("set_do_not_disturb", enabled=True, until=until), done(f"Do Not Disturb is on until {hhmm}.")],
        bucket="state_change",
        check=settings_check(dnd="1", dnd_until={"$contains": until}),
    )


@family("basic", "11.6", pattern="friction", friction="invalid_value")
def dnd_until_tomorrow_morning(g: Gen) -> Draft:
    """The user names a clock time already past today: the first try with today's date is refused."""
    now_min = g.now.hour * 60 + g.now.minute
    options = [m for m in range(5 * 60, min(now_min - 15, 11 * 60), 15)]
    if not options:
        raise BuildError("no morning time already past today")
    end = g.pick(options)
    hhmm = _clock(end // 60, end % 60)
    query = g.say(
        "do not disturb until {t}",
        "keep the phone quiet until {t}",
        "turn on DND till {t}",
        "no notifications until {t}, thanks",
        t=hhmm,
    )
    return Draft(
        query=query,
        gold=[
            act("set_do_not_disturb", enabled=True, until=f"{g.date(0)}T{hhmm}"),
            act("set_do_not_disturb", enabled=True, until=f"{g.date(1)}T{hhmm}"),
            done(f"{hhmm} has passed today, so Do Not Disturb is on until {hhmm} tomorrow."),
        ],
        bucket="state_change",
        check=settings_check(dnd="1", dnd_until={"$contains": f"{g.date(1)}T{hhmm}"}),
        recovers=(ErrorType.INVALID_ARGUMENT_VALUE,),
    )


FOCUS_NAMES = {
    "work": "work focus",
    "sleep": "sleep focus",
    "driving": "driving focus",
    "personal": "personal focus",
    "fitness": "fitness focus",
}
REPLIES = (
    "I'm driving, I'll call you back.",
    "In a workout, back in an hour.",
    "Busy right now, will reply later.",
    "At the gym, talk soon!",
    "Focusing on work; I'll answer after 6.",
)
DAYSETS = {"weekdays": ["mon", "tue", "wed", "thu", "fri"], "weekends": ["sat", "sun"], "every day": None}


@family("basic", "11.6", pattern="single_call")
def configure_focus_mode(g: Gen) -> Draft:
    mode = g.pick(sorted(FOCUS_NAMES))
    name = FOCUS_NAMES[mode]
    if g.rng.random() < 0.5:
        reply = g.pick(REPLIES)
        query = g.say(
            'turn on {name} and auto-reply "{reply}"',
            "start {name} with the auto reply: {reply}",
            'activate {name}; anyone who texts should get "{reply}"',
            name=name,
            reply=reply,
        )
        return Draft(
            query=query,
            gold=[act("set_focus_mode", mode=mode, enabled=True, auto_reply=reply), done(f"{name} is on.")],
            bucket="state_change",
            check={
                "update": {
                    "focus_modes": [
                        {
                            "match": {"mode": mode},
                            "set": {"enabled": 1, "auto_reply": {"$contains": reply.rstrip(".!")}},
                        }
                    ]
                }
            },
        )
    label = g.pick(sorted(DAYSETS))
    sh, eh = g.pick(((6, 8), (7, 9), (13, 15), (18, 20), (21, 23), (22, 6), (17, 19)))
    start, end = _clock(sh, 0), _clock(eh, 0)
    query = g.say(
        "schedule {name} from {s} to {e} {label}",
        "set {name} to run {label}, {s} to {e}",
        "make {name} come on {label} at {s} and end at {e}",
        name=name,
        s=start,
        e=end,
        label=label,
    )
    days = DAYSETS[label]
    args = {"days": days} if days else {}
    sched: dict[str, Any] = {"start": start, "end": end}
    if days:
        sched["days"] = days
    return Draft(
        query=query,
        gold=[
            act("set_focus_mode", mode=mode, enabled=False, start=start, end=end, **args),
            done(f"{name} is scheduled {label}, {start}-{end}."),
        ],
        bucket="state_change",
        check={
            "update": {
                "focus_modes": [{"match": {"mode": mode}, "set": {"enabled": 0, "schedule_json": {"$json": sched}}}]
            }
        },
    )


# ---- 11.7 Accessibility & Language -------------------------------------------------------------------

LANGUAGES = {
    "zh-CN": ("Chinese", "Simplified Chinese"),
    "ja-JP": ("Japanese",),
    "es-ES": ("Spanish",),
    "fr-FR": ("French",),
    "de-DE": ("German",),
    "ko-KR": ("Korean",),
    "pt-BR": ("Brazilian Portuguese", "Portuguese (Brazil)"),
    "it-IT": ("Italian",),
    "ru-RU": ("Russian",),
}


@family("basic", "11.7", pattern="single_call")
def change_language(g: Gen) -> Draft:
    code = g.pick(sorted(LANGUAGES))
    name = g.pick(LANGUAGES[code])
    query = g.say(
        "change the phone's language to {name}",
        "switch the system language to {name}",
        "I want my phone in {name}",
        "set {name} as the display language",
        name=name,
    )
    return Draft(
        query=query,
        gold=[act("set_system_language", language=code), done(f"The phone is now in {name}.")],
        bucket="state_change",
        check=settings_check(language=code),
    )


A11Y = {
    "screen_reader": ("the screen reader", "spoken feedback for everything on screen"),
    "magnifier": ("the magnifier", "screen magnification"),
    "bold_text": ("bold text", "bolder fonts"),
    "color_inversion": ("color inversion", "inverted colors"),
    "mono_audio": ("mono audio", "mono sound, I only hear in one ear"),
    "captions": ("captions", "live captions for videos"),
    "reduce_motion": ("reduce motion", "fewer animations, they make me dizzy"),
    "large_text": ("large text", "bigger text"),
}


@family("basic", "11.7", pattern="single_call")
def accessibility_option(g: Gen) -> Draft:
    option = g.pick(sorted(A11Y))
    said = g.pick(A11Y[option])
    expected: dict[str, Any] = {f"a11y_{option}": "1"}
    args: dict[str, Any] = {}
    scale_text = ""
    if option == "large_text":
        scale = g.pick((None, 1.5, 1.8, 2.0))
        if scale:
            args["font_scale"] = scale
            scale_text = f" at {scale}x size"
        expected["font_scale"] = str(scale or "1.3")
    query = g.say(
        "turn on {said}{x}", "please enable {said}{x}", "I need {said}{x} on my phone", said=said, x=scale_text
    )
    return Draft(
        query=query,
        gold=[act("set_accessibility_option", option=option, enabled=True, **args), done(f"{said} is on.")],
        bucket="state_change",
        check=settings_check(**expected),
    )
