"""Sub-agent Collaboration families for Food & Dining (D8) and Health & Fitness (D9): one per level-2 category."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from sandbox.errors import ErrorType
from sandbox.generator.core import BuildError, Gen, act, done, family
from sandbox.generator.draft import Draft
from sandbox.generator.families._common import on_screen, snapshot_patch
from sandbox.generator.families.basic_food import (
    DIET_WORDS,
    DT,
    _bookable_slot,
    _delivering,
    _delivery_time,
    _lines,
    _order_check,
    _say_lines,
    clock,
    days_ahead,
    grant,
    home_address,
    home_city,
    merge,
    recipes,
    restaurants,
)
from sandbox.generator.families.basic_health import _busy, _doctors

# ---- 8.1 Restaurant Discovery: read a friend's post, then book the place --------------------------


@family("subagent", "8.1", agent="screen_reader_agent")
def book_restaurant_from_screenshot(g: Gen) -> Draft:
    party = g.rng.randint(2, 4)
    r, s = _bookable_slot(g, party)
    dish = g.pick([m["name"] for m in g.rows("world_menu_items", {"restaurant_id": r["restaurant_id"]})])
    friend = g.pick(("Mia", "Tom", "Ravi", "Lea", "Ken", "Sara"))
    sid = "snapshot_801"
    text = f"{friend} posted:\nBest {dish} in town at {r['name']}!\n{r['address']}, {r['city']}\n#foodie"
    query = g.say(
        "my friend's post on screen ({sid}) shows a restaurant; book it for {n} {when} at {t}",
        "find the place in the post I'm looking at (screen {sid}) and reserve a table for {n} {when}, {t}",
        "get us a table for {n} at the restaurant in screenshot {sid}, {when} at {t}",
        sid=sid,
        n=party,
        when=g.when(days_ahead(g, s["slot_dt"])),
        t=clock(s["slot_dt"][11:]),
    )
    return Draft(
        query=query,
        gold=[
            act(
                "call_screen_reader_agent",
                source={"type": "screen", "id": sid},
                extract_fields=["restaurant", "address"],
            ),
            act("search_restaurants", query=r["name"], near=r["city"]),
            act(
                "make_restaurant_reservation", restaurant_id=r["restaurant_id"], datetime=s["slot_dt"], party_size=party
            ),
            done(f"Booked {r['name']}."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": on_screen(sid),
            "state": {
                "insert": {
                    "restaurant_reservations": [
                        {"restaurant_id": r["restaurant_id"], "datetime": s["slot_dt"], "party_size": party}
                    ]
                }
            },
        },
        patches=snapshot_patch(
            sid, "social", text, {"restaurant": r["name"], "address": r["address"], "city": r["city"], "dish": dish}
        ),
    )


# ---- 8.2 Table Reservations: phone a restaurant that takes bookings by phone only -----------------


@family("subagent", "8.2", agent="voice_agent")
def phone_booking_restaurant(g: Gen) -> Draft:
    services = {s["place_id"]: s for s in g.rows("world_phone_services", {"handler": "booking"}) if s["place_id"]}
    options = [r for r in restaurants(g, city=home_city(g), online_booking=0) if r["place_id"] in services]
    if not options:
        raise BuildError("no phone-only restaurant")
    r = g.pick(options)
    svc = services[r["place_id"]]
    rules = json.loads(svc["rules_json"])
    times = [t for t in rules["slots"] if rules["open"] <= t < rules["close"] and t not in rules.get("full", [])]
    days = g.rng.randint(1, 10)
    day = g.date(days)
    t = g.pick(times)
    if (
        not any(a <= t < b for a, b in r["hours"]["windows"])
        or ("mon", "tue", "wed", "thu", "fri", "sat", "sun")[dt.date.fromisoformat(day).weekday()]
        in r["hours"]["closed"]
    ):
        raise BuildError("closed then")
    party = g.rng.randint(2, 6)
    name = g.rows("user_profile")[0]["name"]
    query = g.say(
        "book a table at {name} for {n} {when} at {t}",
        "reserve {name} for {n} people {when}, {t}",
        "we're {n}: get us a table at {name} {when} at {t}",
        name=r["name"],
        n=party,
        when=g.when(days),
        t=clock(t),
    )
    facts = {"date": day, "time": t, "party_size": party, "name": name}
    return Draft(
        query=query,
        gold=[
            act("search_restaurants", query=r["name"], near=r["city"]),
            act("get_restaurant_details", restaurant_id=r["restaurant_id"], date=day, party_size=party),
            act(
                "call_voice_agent",
                callee={"phone": r["phone"]},
                objective=f"Book a table for {party} at {t} on {day}",
                facts=facts,
            ),
            done(f"{r['name']} confirmed the table."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_voice_agent",
            "handoff": {
                "objective": {"$regex": "book|reserv|table"},
                "facts": {
                    "date": day,
                    "time": t,
                    "party_size": {"$any": [party, str(party)]},
                    "name": {"$contains": name.split()[0]},
                },
            },
            "state": {
                "insert": {
                    "phone_bookings": [
                        {"business_phone": {"$phone": r["phone"]}, "date": day, "time": t, "party_size": party}
                    ]
                }
            },
        },
    )


# ---- 8.3 Food Delivery: order a sold-out dish once it is back ----------------------------------


@family("subagent", "8.3", agent="monitor_agent")
def order_when_back_in_stock(g: Gen) -> Draft:
    r = g.pick(_delivering(g))
    lines = _lines(g, r, 1)
    m, q = lines[0]
    if m["price"] * q < r["min_order"]:
        raise BuildError("under minimum")
    at = _delivery_time(g, r)
    address = home_address(g)
    dishes = g.rows("world_menu_items", {"restaurant_id": r["restaurant_id"]})
    k = [d["menu_item_id"] for d in dishes].index(m["menu_item_id"])
    query = g.say(
        "{dish} at {name} is sold out. When it's available again, order {what} for delivery home {when} at {t}",
        "watch {name}'s menu: as soon as the {dish} is back, get {what} delivered to my home for {t} {when}",
        "once {name} has {dish} again, order {what} to my home address, scheduled {when} at {t}",
        dish=m["name"],
        name=r["name"],
        what=_say_lines(lines),
        when=g.when(days_ahead(g, at)),
        t=clock(at[11:]),
    )
    items = [{"menu_item_id": m["menu_item_id"], "quantity": q}]
    condition = {
        "tool": "get_restaurant_details",
        "args": {"restaurant_id": r["restaurant_id"]},
        "path": f"$.menu[{k}].available",
        "op": "eq",
        "value": True,
    }
    plan: list[dict[str, Any]] = [
        {
            "tool": "order_food_delivery",
            "args": {
                "restaurant_id": r["restaurant_id"],
                "items": items,
                "address_id": address["address_id"],
                "scheduled_at": at,
            },
        }
    ]
    back = (g.now + dt.timedelta(minutes=30)).strftime(DT)
    return Draft(
        query=query,
        gold=[
            act("search_restaurants", query=r["name"], near=r["city"]),
            act("get_restaurant_details", restaurant_id=r["restaurant_id"]),
            act("order_food_delivery", **plan[0]["args"]),
            act(
                "call_monitor_agent",
                condition=condition,
                on_trigger=plan,
                description=f"Order {m['name']} from {r['name']} when it is back",
            ),
            done("I'll order it as soon as it's back."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_monitor_agent",
            "handoff": {"condition": {"tool": "get_restaurant_details", "args": {"restaurant_id": r["restaurant_id"]}}},
            "state": {
                **_order_check(g, r, lines, address["address_id"], scheduled_at=at),
                "ignore_tables": ["monitors"],
            },
        },
        patches={
            "update": {"world_menu_items": [{"match": {"menu_item_id": m["menu_item_id"]}, "set": {"available": 0}}]}
        },
        events=[
            {
                "at": back,
                "changes": {
                    "update": {
                        "world_menu_items": [{"match": {"menu_item_id": m["menu_item_id"]}, "set": {"available": 1}}]
                    }
                },
            }
        ],
        recovers=(ErrorType.RESOURCE_UNAVAILABLE,),
    )


# ---- 8.4 Recipes & Cooking: set the app's default diet on its settings screen, then save a recipe ----


@family("subagent", "8.4", agent="gui_agent")
def recipe_diet_preference(g: Gen) -> Draft:
    saved = {s["recipe_id"] for s in g.rows("saved_recipes")}
    options = [(r, d) for r in recipes(g) if r["recipe_id"] not in saved for d in r["diet"]]
    r, diet = g.pick(options)
    word = DIET_WORDS[diet]
    query = g.say(
        "set my recipes app to show {d} recipes by default, then save the {title} recipe",
        "change the recipe app's default diet to {d} and save {title} to my recipes",
        "in the recipes app, make {d} my default diet setting; also save {title} for me",
        d=word,
        title=r["title"],
    )
    return Draft(
        query=query,
        gold=[
            act(
                "call_gui_agent",
                app_id="recipes",
                goal=f"Set the default diet preference to {word}",
                inputs={"diet": diet},
            ),
            act("search_recipes", query=r["title"], diet=diet, limit=3),
            act("save_recipe", recipe_id=r["recipe_id"]),
            done("Done."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_gui_agent",
            "handoff": {"app_id": "recipes"},
            "state": {
                "insert": {
                    "recipe_preferences": [{"key": "diet", "value": diet}],
                    "saved_recipes": [{"recipe_id": r["recipe_id"]}],
                }
            },
        },
    )


# ---- 8.5 Grocery & Meal Planning: a photo of a handwritten list onto the grocery list --------------

SHOPPING = (
    "Oat milk",
    "Eggs",
    "Sourdough bread",
    "Cherry tomatoes",
    "Basil",
    "Parmesan",
    "Lemons",
    "Salmon fillets",
    "Brown rice",
    "Frozen peas",
    "Honey",
    "Peanut butter",
    "Granola",
    "Cucumbers",
    "Feta",
)


@family("subagent", "8.5", agent="screen_reader_agent")
def grocery_list_from_photo(g: Gen) -> Draft:
    on_list = {i["name"].lower() for i in g.rows("grocery_items")}
    items = g.rng.sample([x for x in SHOPPING if x.lower() not in on_list], g.pick((3, 4)))
    list_name = g.pick(("Groceries", "Weekend party", "Saturday market"))
    sid = "snapshot_805"
    query = g.say(
        "add everything on the handwritten list on my screen ({sid}) to my {l} list",
        "read the shopping list in picture {sid} and put the items on {l}",
        "copy the items from the note I'm showing you (screen {sid}) into my {l} grocery list",
        l=list_name,
        sid=sid,
    )
    return Draft(
        query=query,
        gold=[
            act("call_screen_reader_agent", source={"type": "screen", "id": sid}, extract_fields=["items"]),
            act("add_grocery_items", items=[{"name": n} for n in items], list_name=list_name),
            done("Added."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": on_screen(sid),
            "state": {
                "insert": {
                    "grocery_items": [{"name": {"$contains": n.split()[-1]}, "list_name": list_name} for n in items]
                }
            },
        },
        patches=snapshot_patch(sid, "camera", "Shopping\n" + "\n".join(f"- {n}" for n in items), {"items": items}),
    )


# ---- 9.1 Workout Tracking: log the treadmill's summary screen ----------------------------------


@family("subagent", "9.1", agent="screen_reader_agent")
def workout_from_machine_screen(g: Gen) -> Draft:
    kind = g.pick(("run", "walk", "cycle"))
    minutes = g.pick((25, 30, 35, 40, 45, 50))
    km = round({"run": 9.6, "walk": 5.4, "cycle": 21.0}[kind] * minutes / 60 * g.rng.uniform(0.9, 1.1), 2)
    kcal = int(minutes * {"run": 11, "walk": 4.6, "cycle": 8.2}[kind] * g.rng.uniform(0.9, 1.1))
    machine = {"run": "Treadmill", "walk": "Treadmill", "cycle": "Bike"}[kind]
    sid = "snapshot_901"
    query = g.say(
        "log the workout shown on the gym {m}'s screen ({sid}) as today's {k}",
        "save the {m} summary on my screen, {sid}, as a {k} for today",
        "record today's {k} from the {m} display I'm showing you ({sid})",
        m=machine.lower(),
        sid=sid,
        k={"run": "run", "walk": "walk", "cycle": "ride"}[kind],
    )
    if g.now.hour < 7:
        raise BuildError("too early for a gym session")
    return Draft(
        query=query,
        gold=[
            act(
                "call_screen_reader_agent",
                source={"type": "screen", "id": sid},
                extract_fields=["duration_min", "distance_km", "calories"],
            ),
            act("log_workout", type=kind, date=g.date(0), duration_min=minutes, distance_km=km, calories=kcal),
            done("Logged."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": on_screen(sid),
            "state": {
                "insert": {
                    "workouts": [
                        {
                            "type": kind,
                            "started_at": {"$contains": g.date(0)},
                            "duration_min": minutes,
                            "distance_km": {"$approx": [km, 0.05]},
                            "calories": kcal,
                        }
                    ]
                }
            },
        },
        patches=merge(
            snapshot_patch(
                sid,
                "camera",
                f"{machine} summary\nTime {minutes}:00\nDistance {km} km\nCalories {kcal} kcal",
                {"duration_min": minutes, "distance_km": km, "calories": kcal},
            ),
            grant(g, "health", "ACTIVITY"),
        ),
    )


# ---- 9.2 Daily Activity & Sleep: raise the step goal once today's steps pass it ---------------------


@family("subagent", "9.2", agent="monitor_agent")
def raise_goal_when_steps_reached(g: Gen) -> Draft:
    first = g.pick((9000, 10000, 11000))
    target = first + g.pick((1000, 1500, 2000, 3000))
    today = g.rows("activity_daily", {"date": g.date(0)})
    if not today or today[0]["steps"] >= first:
        raise BuildError("steps already there")
    query = g.say(
        "set my daily step goal to {a:,}, and once I pass {a:,} steps today, raise it to {b:,}",
        "make my step goal {a:,} a day; if I hit {a:,} today, bump the goal to {b:,}",
        "change my daily steps target to {a:,}. Watch today's count and when it reaches {a:,}, set the goal to {b:,}",
        a=first,
        b=target,
    )
    condition = {
        "tool": "get_activity_summary",
        "args": {"date": g.date(0)},
        "path": "$.totals.steps",
        "op": "ge",
        "value": first,
    }
    plan = [{"tool": "set_fitness_goal", "args": {"metric": "steps", "target": target, "period": "daily"}}]
    later = (g.now + dt.timedelta(hours=3)).strftime(DT)
    return Draft(
        query=query,
        gold=[
            act("set_fitness_goal", metric="steps", target=first, period="daily"),
            act(
                "call_monitor_agent",
                condition=condition,
                on_trigger=plan,
                description=f"Raise the step goal to {target} once {first} is reached",
            ),
            done("Goal set; I'll raise it when you get there."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_monitor_agent",
            # the threshold the user named: a lower one would raise the goal too early
            "handoff": {
                "condition": {
                    "tool": "get_activity_summary",
                    "op": {"$any": ["ge", "gt"]},
                    "value": {"$any": [first, first - 1]},
                }
            },
            "state": {
                "update": {"health_goals": [{"match": {"metric": "steps"}, "set": {"target": target}}]},
                "ignore_tables": ["monitors", "activity_daily"],
            },
        },
        events=[
            {
                "at": later,
                "changes": {
                    "update": {"activity_daily": [{"match": {"date": g.date(0)}, "set": {"steps": first + 350}}]}
                },
            }
        ],
        patches=grant(g, "health", "ACTIVITY"),
    )


# ---- 9.3 Nutrition & Hydration: log a meal from a nutrition label photo ----------------------------

LABELS = (
    ("Chicken Caesar wrap", 480),
    ("Greek yogurt & granola", 320),
    ("Teriyaki salmon bowl", 610),
    ("Veggie burrito", 560),
    ("Protein shake", 220),
    ("Tuna pasta salad", 450),
    ("Hummus snack pot", 180),
)


@family("subagent", "9.3", agent="screen_reader_agent")
def meal_from_label(g: Gen) -> Draft:
    food, kcal = g.pick(LABELS)
    meal = "snack" if kcal < 250 else g.pick(("lunch", "dinner")) if g.now.hour >= 14 else "breakfast"
    if meal == "breakfast" and g.now.hour < 8:
        raise BuildError("breakfast not over")
    if meal == "dinner" and g.now.hour < 20:
        meal = "lunch"
    sid = "snapshot_903"
    query = g.say(
        "I had the thing on this label ({sid}) for {m}; log it with its calories",
        "add the food in the nutrition label photo {sid} to today's {m}",
        "log today's {m}: it's the product on my screen ({sid}), use the calories it shows",
        m=meal,
        sid=sid,
    )
    return Draft(
        query=query,
        gold=[
            act(
                "call_screen_reader_agent", source={"type": "screen", "id": sid}, extract_fields=["product", "calories"]
            ),
            act("log_meal", meal=meal, items=[{"name": food, "calories": kcal}], date=g.date(0)),
            done("Logged."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": on_screen(sid),
            "state": {"insert": {"food_logs": [{"meal": meal, "date": g.date(0), "calories": kcal}]}},
        },
        patches=merge(
            snapshot_patch(
                sid,
                "camera",
                f"{food}\nNutrition facts\nPer pack: {kcal} kcal\nProtein 24 g",
                {"product": food, "calories": kcal},
            ),
            grant(g, "health", "HEALTH"),
        ),
    )


# ---- 9.4 Medication Management: request a refill on the health app's pharmacy screen --------------


@family("subagent", "9.4", agent="gui_agent")
def refill_in_health_app(g: Gen) -> Draft:
    m = g.pick(g.rows("medications", {"status": "active"}))
    packs = g.pick((1, 2, 3))
    pickup = g.pick(("pharmacy", "delivery"))
    how = "for pickup at the pharmacy" if pickup == "pharmacy" else "delivered"
    query = g.say(
        "order a refill of my {n}: {p} pack(s), {h}",
        "request {p} more pack(s) of {n} in the health app, {h}",
        "I'm running low on {n}; get a refill of {p} pack(s) {h}",
        n=m["name"],
        p=packs,
        h=how,
    )
    return Draft(
        query=query,
        gold=[
            act(
                "call_gui_agent",
                app_id="health",
                goal=f"Request a refill of {m['name']}",
                inputs={"medication": m["name"], "packs": packs, "pickup": pickup},
                expected_outputs=["refill_code"],
            ),
            done("Refill requested."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_gui_agent",
            "handoff": {"app_id": "health"},
            "state": {
                "insert": {
                    "medication_refills": [{"medication_id": m["medication_id"], "packs": packs, "pickup": pickup}]
                }
            },
        },
    )


# ---- 9.5 Doctor Appointments: grab a slot as soon as it opens ------------------------------------


@family("subagent", "9.5", agent="monitor_agent")
def book_when_slot_opens(g: Gen) -> Draft:
    options = []
    for d in _doctors(g):
        # search_doctors lists a doctor only with a free slot that day, so the day must have one (the id is
        # read off that search)
        free_days = {
            s["slot_dt"][:10] for s in g.rows("world_doctor_slots", {"doctor_id": d["doctor_id"], "available": 1})
        }
        taken = [
            s["slot_dt"]
            for s in g.rows("world_doctor_slots", {"doctor_id": d["doctor_id"], "available": 0})
            if s["slot_dt"] > (g.now + dt.timedelta(hours=30)).strftime(DT)
            and not _busy(g, s["slot_dt"])
            and s["slot_dt"][:10] in free_days
        ]
        options += [(d, s) for s in taken]
    if not options:
        raise BuildError("no taken slot")
    d, slot = g.pick(options)
    query = g.say(
        "{doc}'s {t} slot {when} is taken. If it frees up, book it for me",
        "watch for {doc} at {t} {when} to open up and grab it when it does",
        "I really want {doc} {when} at {t}: book it the moment that slot becomes free",
        doc=d["name"],
        t=clock(slot[11:]),
        when=g.when(days_ahead(g, slot)),
    )
    condition = {
        "tool": "search_doctors",
        "args": {"specialty": d["specialty"], "date": slot[:10]},
        "path": "$.doctors",
        "op": "contains",
        "value": slot,
    }
    plan: list[dict[str, Any]] = [
        {"tool": "book_doctor_appointment", "args": {"doctor_id": d["doctor_id"], "slot": slot}}
    ]
    later = (g.now + dt.timedelta(hours=2)).strftime(DT)
    return Draft(
        query=query,
        gold=[
            act("search_doctors", specialty=d["specialty"], date=slot[:10]),
            act("book_doctor_appointment", **plan[0]["args"]),
            act(
                "call_monitor_agent",
                condition=condition,
                on_trigger=plan,
                description=f"Book {d['name']} at {slot} when it opens",
            ),
            done("I'll book it as soon as it opens."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_monitor_agent",
            "handoff": {"condition": {"tool": "search_doctors"}},
            "state": {
                "insert": {"medical_appointments": [{"doctor_id": d["doctor_id"], "slot": slot, "status": "booked"}]},
                "ignore_tables": ["monitors"],
            },
        },
        events=[
            {
                "at": later,
                "changes": {
                    "update": {
                        "world_doctor_slots": [
                            {"match": {"doctor_id": d["doctor_id"], "slot_dt": slot}, "set": {"available": 1}}
                        ]
                    }
                },
            }
        ],
        patches=grant(g, "health", "LOCATION"),
        recovers=(ErrorType.RESOURCE_UNAVAILABLE,),
    )


# ---- 9.6 Body Metrics & Health Records: read the blood-pressure monitor -----------------------------


@family("subagent", "9.6", agent="screen_reader_agent")
def blood_pressure_from_monitor(g: Gen) -> Draft:
    hi, lo, pulse = g.rng.randint(108, 142), g.rng.randint(66, 92), g.rng.randint(55, 90)
    sid = "snapshot_906"
    moment = g.pick(
        ("", " I just took", " from a minute ago", " after my morning coffee", " from the pharmacy machine")
    )
    query = g.say(
        "log the blood pressure reading{m} on this monitor photo ({sid})",
        "save the BP{m} shown on my screen ({sid}) to my health records",
        "record the blood pressure{m} from the cuff display I'm showing you, {sid}",
        "put the reading{m} on my screen ({sid}) into my blood pressure log",
        m=moment,
        sid=sid,
    )
    return Draft(
        query=query,
        gold=[
            act(
                "call_screen_reader_agent",
                source={"type": "screen", "id": sid},
                extract_fields=["systolic", "diastolic"],
            ),
            act("log_body_metric", metric="blood_pressure", value=f"{hi}/{lo}"),
            done(f"Logged {hi}/{lo}."),
        ],
        bucket="agent_behavior",
        check={
            "route": "call_screen_reader_agent",
            "handoff": on_screen(sid),
            "state": {"insert": {"body_metrics": [{"metric": "blood_pressure", "value": f"{hi}/{lo}"}]}},
        },
        patches=merge(
            snapshot_patch(
                sid,
                "camera",
                f"SYS {hi} mmHg\nDIA {lo} mmHg\nPULSE {pulse}/min",
                {"systolic": hi, "diastolic": lo, "pulse": pulse},
            ),
            grant(g, "health", "HEALTH"),
        ),
    )
