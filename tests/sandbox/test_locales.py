"""Worlds where home and work are apart and money, phones and news fit the persona's country."""

from __future__ import annotations

import random
import re

import pytest
from sqlalchemy import select

import sandbox.domains  # noqa: F401  (registers every tool and seeder)
from sandbox import locales
from sandbox.db import open_database, transaction
from sandbox.domains.common import km_between, payment_methods, world_places
from sandbox.domains.information.schema import world_news
from sandbox.executor import Executor
from sandbox.personas import PERSONAS
from sandbox.world import world_image
from tests.sandbox.conftest import ALL_DOMAIN_TOOLS, ok


def executor(persona_id: str) -> Executor:
    e = Executor(open_database(world_image(persona_id)), visible=ALL_DOMAIN_TOOLS)
    e.step = 1
    return e


def test_home_and_work_are_apart_in_every_world() -> None:
    for persona in PERSONAS.values():
        km = km_between(persona.home.lat, persona.home.lon, persona.work.lat, persona.work.lon)
        assert km >= 2.0, persona.persona_id
        assert persona.home.district != persona.work.district


@pytest.mark.parametrize("tool", ["search_restaurants"])
def test_near_home_and_near_work_measure_from_different_points(tool: str) -> None:
    """The same search from home and from work: other distances (and, in another city, other places)."""
    ex = executor("yuki_sato")
    home = ok(ex, tool, {"near": "home", "limit": 20})
    work = ok(ex, tool, {"near": "work", "limit": 20})
    office = ok(ex, tool, {"near": "the office", "limit": 20})
    line = ok(ex, tool, {"near": "88 Market Street, 12F", "limit": 20})
    far = {r["restaurant_id"]: r["distance_km"] for r in home["restaurants"]}
    near = {r["restaurant_id"]: r["distance_km"] for r in work["restaurants"]}
    assert any(far[k] != near[k] for k in far.keys() & near.keys())
    assert [r["restaurant_id"] for r in home["restaurants"]] != [r["restaurant_id"] for r in work["restaurants"]]
    assert office["restaurants"] == work["restaurants"] == line["restaurants"]
    assert "Marunouchi" in work["near"] and "Setagaya" in home["near"]


def test_a_saved_address_without_a_point_resolves_to_its_city() -> None:
    ex = executor("wang_lei")
    mom = {"label": "Mom", "recipient": "Zhang Min", "phone": "+86 139 1234 5678", "address_line": "5 Lake Rd"}
    ok(ex, "add_shipping_address", {**mom, "city": "Beijing"})
    found = ok(ex, "search_restaurants", {"near": "Mom", "limit": 3})
    assert found["near"] == "Beijing"


def test_commuters_search_the_city_they_work_in() -> None:
    ex = executor("maya_patel")
    work = ok(ex, "search_restaurants", {"near": "work", "limit": 20})
    assert {r["city"] for r in work["restaurants"]} == {"Palo Alto"}


@pytest.mark.parametrize(
    ("persona_id", "currency"),
    [
        ("wang_lei", "CNY"),
        ("maya_patel", "USD"),
        ("oliver_hughes", "GBP"),
        ("yuki_sato", "JPY"),
        ("lena_weber", "EUR"),
        ("carlos_ruiz", "EUR"),
        ("ji_woo_park", "KRW"),
        ("amara_okafor", "CAD"),
    ],
)
def test_each_persona_pays_in_the_currency_of_home(persona_id: str, currency: str) -> None:
    conn = open_database(world_image(persona_id))
    with transaction(conn):
        used = set(conn.execute(select(payment_methods.c.currency)).scalars())
    assert PERSONAS[persona_id].currency == currency and used == {currency}


def test_yen_and_won_prices_have_no_cents() -> None:
    for persona_id in ("yuki_sato", "ji_woo_park"):
        ex = executor(persona_id)
        found = ok(ex, "search_products", {"query": "headphones"})
        prices = [p["price"] for p in found["products"]]
        assert prices and all(float(p).is_integer() for p in prices), prices


def test_businesses_have_phones_of_their_own_country() -> None:
    for persona_id in PERSONAS:
        conn = open_database(world_image(persona_id))
        with transaction(conn):
            places = conn.execute(select(world_places.c.city, world_places.c.phone)).all()
        for city, phone in places:
            dial = locales.country_of(city).dial
            assert phone.startswith(dial + " "), (persona_id, city, phone)
            assert not (dial != "+1" and "555" in phone.split()[1:2]), phone


def test_news_outlets_fit_where_the_story_is() -> None:
    conn = open_database(world_image("oliver_hughes"))
    with transaction(conn):
        news = conn.execute(select(world_news.c.region, world_news.c.source)).all()
    regional = [(r, s) for r, s in news if r in locales.COUNTRIES]
    assert regional and all(s in locales.COUNTRIES[r].outlets for r, s in regional)
    assert all(s not in {o for c in locales.COUNTRIES.values() for o in c.outlets} for r, s in news if r == "global")


def test_locale_formats() -> None:
    rng = random.Random(0)
    assert re.fullmatch(r"\+81 3 \d{4} \d{4}", locales.business_phone("Tokyo", rng))
    assert re.fullmatch(r"\+1 416 \d{3} \d{4}", locales.business_phone("Toronto", rng))
    assert locales.shelf_price(10.0, "JPY") == 1400.0 and locales.shelf_price(10.0, "KRW") == 14000.0
    assert locales.shelf_price(10.0, "GBP") == 6.99 and locales.round_amount(1000, "EUR") == 880.0
    assert locales.money_unit("JPY") == 100 and locales.money_unit("KRW") == 1000 and locales.money_unit("GBP") == 1
    assert locales.figures({"USD": {"fee": 5.0, "free": 0.0}}, "JPY") == {"fee": 720.0, "free": 0.0}
