"""The phones' owners, and the registry of the seeders that fill a world for one of them.

Domain modules register their ``@seeder`` functions here; ``sandbox.world`` builds a world by running
them. Each seeder draws from its own RNG stream, keyed by its name, so adding a domain never perturbs
the rows of another.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import Connection

from sandbox.locales import country_of


@dataclass(frozen=True)
class Address:
    """Where the owner lives or works: the street line, its district, and the point it stands on (home
    and work are apart, so "near work" and "near home" are different searches)."""

    line: str
    district: str
    postal_code: str
    lat: float
    lon: float


@dataclass(frozen=True)
class Persona:
    """The owner of a phone. Only name, phone, email, locale, timezone, the home and work cities and now
    reach the prompt; the addresses are found through the tools."""

    persona_id: str
    seed: int
    name: str
    phone: str
    email: str
    locale: str
    timezone: str
    home_city: str
    work_city: str
    now: str  # the frozen clock, YYYY-MM-DDTHH:MM:SS
    home: Address
    work: Address
    contacts: int = 100
    memories: int = 40  # memory records, distractors and superseded ones included (the paper: 30-80)
    unset_permissions: int = 4  # non-core app permissions never requested or refused

    @property
    def currency(self) -> str:
        """The currency the owner is paid and charged in: their home country's."""
        return country_of(self.home_city).currency


PERSONAS: dict[str, Persona] = {
    p.persona_id: p
    for p in (
        Persona(
            "wang_lei",
            1101,
            "Wang Lei",
            "+86 138 0000 1111",
            "wang.lei@example.com",
            "en-US",
            "Asia/Shanghai",
            "Beijing",
            "Beijing",
            "2025-06-13T09:00:00",
            home=Address("18 Garden Road", "Chaoyang", "100020", 39.9219, 116.4436),
            work=Address("88 Market Street, 12F", "Haidian", "100080", 39.9593, 116.3122),
            unset_permissions=0,
        ),
        Persona(
            "maya_patel",
            2202,
            "Maya Patel",
            "+1 415 555 0101",
            "maya.patel@example.com",
            "en-US",
            "America/Los_Angeles",
            "San Francisco",
            "Palo Alto",
            "2025-03-04T08:30:00",
            home=Address("18 Garden Road", "Mission District", "94110", 37.7599, -122.4148),
            work=Address("88 Market Street, 12F", "University Avenue", "94301", 37.4455, -122.1611),
        ),
        Persona(
            "oliver_hughes",
            3303,
            "Oliver Hughes",
            "+44 20 7946 0102",
            "oliver.hughes@example.co.uk",
            "en-GB",
            "Europe/London",
            "London",
            "London",
            "2025-10-21T07:45:00",
            home=Address("18 Garden Road", "Islington", "N1 2UQ", 51.5416, -0.1022),
            work=Address("88 Market Street, 12F", "Canary Wharf", "E14 5AB", 51.5054, -0.0235),
            contacts=120,
            memories=64,
            unset_permissions=6,
        ),
        Persona(
            "yuki_sato",
            4404,
            "Yuki Sato",
            "+81 3 5555 0103",
            "yuki.sato@example.jp",
            "ja-JP",
            "Asia/Tokyo",
            "Tokyo",
            "Tokyo",
            "2025-01-15T18:20:00",
            home=Address("18 Garden Road", "Setagaya", "154-0004", 35.6464, 139.6533),
            work=Address("88 Market Street, 12F", "Marunouchi", "100-0005", 35.6812, 139.7671),
            contacts=90,
            memories=33,
            unset_permissions=3,
        ),
        Persona(
            "lena_weber",
            5505,
            "Lena Weber",
            "+49 30 5555 0104",
            "lena.weber@example.de",
            "de-DE",
            "Europe/Berlin",
            "Berlin",
            "Berlin",
            "2025-08-02T10:10:00",
            home=Address("18 Garden Road", "Prenzlauer Berg", "10405", 52.5388, 13.4244),
            work=Address("88 Market Street, 12F", "Charlottenburg", "10585", 52.5058, 13.3040),
            contacts=80,
            memories=52,
        ),
        Persona(
            "carlos_ruiz",
            6606,
            "Carlos Ruiz",
            "+34 91 555 0105",
            "carlos.ruiz@example.es",
            "es-ES",
            "Europe/Madrid",
            "Madrid",
            "Madrid",
            "2025-05-28T21:05:00",
            home=Address("18 Garden Road", "Chamberí", "28010", 40.4344, -3.7038),
            work=Address("88 Market Street, 12F", "Salamanca", "28001", 40.4284, -3.6768),
            contacts=110,
            memories=78,
        ),
        Persona(
            "ji_woo_park",
            7707,
            "Ji-woo Park",
            "+82 2 5555 0106",
            "jiwoo.park@example.kr",
            "ko-KR",
            "Asia/Seoul",
            "Seoul",
            "Seoul",
            "2025-12-05T06:50:00",
            home=Address("18 Garden Road", "Mapo-gu", "04001", 37.5563, 126.9100),
            work=Address("88 Market Street, 12F", "Gangnam-gu", "06236", 37.4981, 127.0276),
            contacts=95,
            memories=45,
            unset_permissions=5,
        ),
        Persona(
            "amara_okafor",
            8808,
            "Amara Okafor",
            "+1 416 555 0107",
            "amara.okafor@example.ca",
            "en-CA",
            "America/Toronto",
            "Toronto",
            "Toronto",
            "2025-02-11T12:00:00",
            home=Address("18 Garden Road", "Leslieville", "M4M 1A1", 43.6626, -79.3304),
            work=Address("88 Market Street, 12F", "Financial District", "M5H 2N2", 43.6481, -79.3815),
            contacts=130,
            memories=71,
        ),
    )
}

Seeder = Callable[[Connection, random.Random, Persona], None]
SEEDERS: list[tuple[str, Seeder]] = []


def seeder(fn: Seeder) -> Seeder:
    """Register a function that fills its domain's tables for a persona. Its name keys its RNG stream and
    is its domain's: a domain package's ``seed`` module seeds under the package's name, so moving a seeder
    within its domain leaves every world as it was."""
    SEEDERS.append((f"{fn.__module__.removesuffix('.seed')}.{fn.__name__}", fn))
    return fn
