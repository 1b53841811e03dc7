"""Where the worlds are: each city's country and centre, each country's currency, dialling code and
news outlets, each currency's rate and how its prices are written.

Seeders price things in US dollars and convert with ``local_money``/``shelf_price`` into the
persona's currency (an event, into its city's: ``convert`` pays it from home), name businesses' phones
with ``business_phone`` and pick news outlets from ``Country.outlets``: a Tokyo phone pays in yen, calls
+81 numbers and reads Japanese outlets.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Currency:
    """A currency: its units per US dollar and the smallest step a price is written in."""

    code: str
    per_usd: float
    step: float  # 0.01 for cents; 1 for yen; 10 for won


CURRENCIES: dict[str, Currency] = {
    c.code: c
    for c in (
        Currency("USD", 1.0, 0.01),
        Currency("CNY", 7.18, 0.01),
        Currency("EUR", 0.88, 0.01),
        Currency("GBP", 0.74, 0.01),
        Currency("JPY", 144.6, 1.0),
        Currency("KRW", 1368.0, 10.0),
        Currency("CAD", 1.37, 0.01),
        Currency("AUD", 1.53, 0.01),
        Currency("INR", 85.6, 0.01),
    )
}


@dataclass(frozen=True)
class Country:
    """A country: its currency, its international dialling code and the news outlets based there."""

    code: str
    currency: str
    dial: str
    outlets: tuple[str, ...]


COUNTRIES: dict[str, Country] = {
    c.code: c
    for c in (
        Country("CN", "CNY", "+86", ("Xinhua", "China Daily", "Caixin")),
        Country("US", "USD", "+1", ("AP", "The New York Times", "NPR")),
        Country("GB", "GBP", "+44", ("BBC", "The Guardian", "Financial Times")),
        Country("JP", "JPY", "+81", ("NHK World", "Nikkei Asia", "The Japan Times")),
        Country("DE", "EUR", "+49", ("Deutsche Welle", "Der Spiegel", "Tagesschau")),
        Country("ES", "EUR", "+34", ("El País", "EFE", "RTVE")),
        Country("KR", "KRW", "+82", ("Yonhap", "The Korea Herald", "KBS World")),
        Country("CA", "CAD", "+1", ("CBC News", "The Globe and Mail", "CTV News")),
        Country("AU", "AUD", "+61", ("ABC News", "The Sydney Morning Herald")),
        Country("IN", "INR", "+91", ("The Hindu", "Times of India", "NDTV")),
    )
}
# Outlets that report the whole world, from no one country.
GLOBAL_OUTLETS = ("Reuters", "Bloomberg", "Al Jazeera")


@dataclass(frozen=True)
class City:
    """A city of the worlds: its country, its centre, the local area code of its landlines and its time zone."""

    name: str
    country: str
    lat: float
    lon: float
    area: str
    tz: str  # IANA zone: its clocks (and a flight's arrival there) are in it


CITIES: dict[str, City] = {
    c.name: c
    for c in (
        City("Beijing", "CN", 39.90, 116.40, "10", "Asia/Shanghai"),
        City("Shanghai", "CN", 31.23, 121.47, "21", "Asia/Shanghai"),
        City("San Francisco", "US", 37.77, -122.42, "415", "America/Los_Angeles"),
        City("Palo Alto", "US", 37.44, -122.14, "650", "America/Los_Angeles"),
        City("London", "GB", 51.51, -0.13, "20", "Europe/London"),
        City("Tokyo", "JP", 35.68, 139.69, "3", "Asia/Tokyo"),
        City("Berlin", "DE", 52.52, 13.40, "30", "Europe/Berlin"),
        City("Madrid", "ES", 40.42, -3.70, "91", "Europe/Madrid"),
        City("Seoul", "KR", 37.57, 126.98, "2", "Asia/Seoul"),
        City("Toronto", "CA", 43.65, -79.38, "416", "America/Toronto"),
        City("Sydney", "AU", -33.87, 151.21, "2", "Australia/Sydney"),
        City("Mumbai", "IN", 19.08, 72.88, "22", "Asia/Kolkata"),
    )
}


def country_of(city: str) -> Country:
    return COUNTRIES[CITIES[city].country]


def local_money(usd: float, currency: str) -> float:
    """A US-dollar amount in ``currency``, rounded to the step its prices are written in."""
    return to_step(usd * CURRENCIES[currency].per_usd, currency)


def convert(amount: float, source: str, target: str) -> float:
    """An amount in currency ``source`` in ``target`` at the worlds' rates (a ticket abroad, paid from home)."""
    return amount if source == target else local_money(amount / CURRENCIES[source].per_usd, target)


def shelf_price(usd: float, currency: str) -> float:
    """A price as a shop writes it in ``currency``: 4.99 dollars, 1,480 yen, 12,900 won, 39 yuan."""
    c = CURRENCIES[currency]
    value = usd * c.per_usd
    if c.step >= 1:  # yen and won: two significant round figures (980, 1,480, 12,900)
        unit = max(c.step, 10 ** max(0, len(str(int(value))) - 2))
        return float(max(unit, round(value / unit) * unit))
    if c.per_usd > 5:  # yuan, rupees: whole units ending in 9
        return float(max(9, round(value, -1) - 1))
    return round(max(1.0, float(int(value))) - 0.01, 2)


def round_amount(usd: float, currency: str) -> float:
    """A round amount (a fee, a threshold, a limit) in ``currency``: two significant figures."""
    value = usd * CURRENCIES[currency].per_usd
    unit = 10 ** max(0, len(str(int(value))) - 2)
    return float(max(unit, round(value / unit) * unit))


def to_step(value: float, currency: str) -> float:
    """An amount in ``currency`` rounded to the step its prices are written in (cents, yen, ten won)."""
    step = CURRENCIES[currency].step
    return round(value, 2) if step < 1 else float(round(value / step) * step)


def decimals(currency: str) -> int:
    """The decimals an amount in ``currency`` is written with: 2 for cents, 0 for yen and won (no minor unit)."""
    known = CURRENCIES.get(currency)
    return 0 if known is not None and known.step >= 1 else 2


def minor_units(value: float, currency: str) -> float:
    """An amount rounded to the currency's smallest coin: cents, or whole yen and won."""
    return round(float(value), decimals(currency)) if decimals(currency) else float(round(value))


def business_phone(city: str, rng: random.Random) -> str:
    """A landline number in the city's format: +1 415 555 0123 in North America, +81 3 1234 5678 in Tokyo."""
    c = CITIES[city]
    dial = COUNTRIES[c.country].dial
    if dial == "+1":
        return f"{dial} {c.area} {rng.randint(200, 999)} {rng.randint(1000, 9999)}"
    return f"{dial} {c.area} {rng.randint(1000, 9999)} {rng.randint(1000, 9999)}"


def figures(table: Mapping[str, Any], currency: str, convert: Callable[[float, str], float] = round_amount) -> Any:
    """A currency's entry of a table of local figures (a fee, or a dict of fees): its own where the table
    writes one, else the dollar entry converted (``round_amount`` by default; zero stays zero)."""
    if currency in table:
        return table[currency]
    usd = table["USD"]
    if isinstance(usd, Mapping):
        return {k: convert(v, currency) if v else v for k, v in usd.items()}
    return convert(usd, currency) if usd else usd


# A mobile number of a country: calling code -> (prefixes, lowest and highest subscriber number), e.g.
# +1 415 2345678 (NANP: an area code, then seven digits starting 2-9), +86 139 12345678, +44 77 12345678.
MOBILE_FORMATS: dict[str, tuple[tuple[str, ...], int, int]] = {
    "+1": (("212", "305", "312", "415", "416", "503", "617", "647", "650", "702", "718", "905"), 2000000, 9999999),
    "+86": (tuple(map(str, range(130, 200))), 10000000, 99999999),
    "+44": (("71", "73", "74", "75", "77", "78", "79"), 10000000, 99999999),
    "+81": (("70", "80", "90"), 10000000, 99999999),
    "+49": (("151", "152", "160", "170", "171", "172", "175", "176", "177", "178", "179"), 10000000, 99999999),
    "+34": (("6",), 10000000, 99999999),
    "+82": (("10",), 10000000, 99999999),
}


def mobile_phone(rng: random.Random, dial: str) -> str:
    """A well-formed mobile number of the country with calling code ``dial``."""
    prefixes, low, high = MOBILE_FORMATS[dial]
    return f"{dial}{rng.choice(prefixes)}{rng.randint(low, high)}"


def money_unit(currency: str) -> float:
    """The order of magnitude a person rounds amounts to in ``currency``: 1 dollar, euro or pound, 10 yuan,
    100 yen, 1,000 won (the power of ten nearest its units per dollar)."""
    return float(10 ** round(math.log10(CURRENCIES[currency].per_usd)))
