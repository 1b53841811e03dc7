"""The apps_security domain's world data and its seeder, which fills the tables for a persona."""

from __future__ import annotations

import datetime as dt
import json
import random
import string
from typing import Any

from sqlalchemy import (
    Connection,
    insert,
    select,
)

from sandbox.domains.apps_security.schema import (
    accounts,
    app_installs,
    backups,
    cloud_account,
    credentials,
    files,
    folders,
    linked_devices,
    notification_channels,
    world_store_apps,
)
from sandbox.domains.apps_security.tools import COMMON_PASSWORDS, _category_sizes, _credential_fields
from sandbox.executor import normalise_phone
from sandbox.personas import Persona, seeder
from sandbox.schema import app_permissions, apps

# ---- World data -------------------------------------------------------------------------------

# app_id: (name, developer, category, size MB, description); developer "Phone maker" = preinstalled system app.
SYSTEM_DEVELOPER = "Phone maker"
KNOWN_APPS: dict[str, tuple[str, str, str, int, str]] = {
    "settings": ("Settings", SYSTEM_DEVELOPER, "Tools", 40, "System settings, permissions, storage and notifications"),
    "app_store": ("App Store", SYSTEM_DEVELOPER, "Tools", 60, "Find, install and update apps"),
    "assistant": ("Assistant", SYSTEM_DEVELOPER, "Productivity", 120, "The phone's voice and text assistant"),
    "contacts": ("Contacts", SYSTEM_DEVELOPER, "Communication", 30, "Address book"),
    "messages": ("Messages", SYSTEM_DEVELOPER, "Communication", 45, "Text messages"),
    "phone": ("Phone", SYSTEM_DEVELOPER, "Communication", 35, "Calls, call log and call blocking"),
    "clock": ("Clock", SYSTEM_DEVELOPER, "Tools", 20, "Alarms, timers and world clock"),
    "calendar": ("Calendar", SYSTEM_DEVELOPER, "Productivity", 55, "Events, invitations and reminders"),
    "camera": ("Camera", SYSTEM_DEVELOPER, "Photography", 80, "Take photos and videos"),
    "gallery": ("Gallery", SYSTEM_DEVELOPER, "Photography", 70, "Photos, videos and albums"),
    "files": ("Files", SYSTEM_DEVELOPER, "Tools", 25, "Browse, move and delete files"),
    "cloud": ("Cloud", SYSTEM_DEVELOPER, "Tools", 50, "Cloud backup and restore"),
    "passwords": ("Passwords", SYSTEM_DEVELOPER, "Tools", 30, "Password manager and security report"),
    "security": ("Security", SYSTEM_DEVELOPER, "Tools", 40, "Account security, 2-step verification, Find My Device"),
    "browser": ("Browser", SYSTEM_DEVELOPER, "Tools", 150, "Web browser"),
    "wallet": ("Wallet", SYSTEM_DEVELOPER, "Finance", 65, "Cards, passes and membership cards"),
    "health": ("Health", SYSTEM_DEVELOPER, "Health & Fitness", 90, "Activity, sleep, workouts and records"),
    "tasks": ("Tasks", "Listwise", "Productivity", 28, "To-do lists and reminders"),
    "notes": ("Notes", "Paperleaf", "Productivity", 32, "Notes and memos"),
    "mail": ("Mail", "Postbox Inc.", "Productivity", 110, "Email for all your accounts"),
    "docs": ("Docs", "OfficeWorks", "Productivity", 210, "Documents, spreadsheets and slides"),
    "campus": ("Campus", "EduLink", "Education", 85, "Courses, assignments and grades"),
    "focus": ("Focus", "Deepwork Labs", "Productivity", 25, "Focus timer and app blocking"),
    "chat": ("Chat", "ChatCo", "Social", 420, "Messages, voice and video calls, moments"),
    "social": ("Social", "Friendly Labs", "Social", 260, "Share posts and follow friends"),
    "music": ("Music", "Tunebox", "Music & Audio", 140, "Stream songs, albums and playlists"),
    "video": ("Video", "Streamly", "Entertainment", 180, "Films and series"),
    "podcasts": ("Podcasts", "Castaway", "Music & Audio", 75, "Podcasts and audiobooks"),
    "ebooks": ("Books", "Pageturn", "Books", 95, "E-books and reading"),
    "cast": ("Cast", "Beamly", "Tools", 22, "Cast to TVs and speakers"),
    "maps": ("Maps", "Atlas Maps", "Travel", 190, "Maps, directions and navigation"),
    "ride": ("Ride", "GoRide", "Travel", 120, "Ride hailing"),
    "travel": ("Travel", "TripNest", "Travel", 160, "Flights, hotels and trips"),
    "rail": ("Rail", "RailLink", "Travel", 90, "Train and bus tickets"),
    "shop": ("Shop", "MegaMart", "Shopping", 230, "Online shopping"),
    "bank": ("Bank", "First City Bank", "Finance", 140, "Banking, transfers and cards"),
    "stocks": ("Stocks", "TickerTap", "Finance", 70, "Quotes and trading"),
    "utilities": ("Utilities", "CityBills", "Finance", 45, "Pay utility bills"),
    "dining": ("Dining", "TableTime", "Food & Drink", 100, "Restaurants and reservations"),
    "delivery": ("Delivery", "DashEats", "Food & Drink", 150, "Food delivery"),
    "recipes": ("Recipes", "CookBook Co.", "Food & Drink", 60, "Recipes, groceries and meal plans"),
    "home": ("Home", "HomeHub", "Lifestyle", 110, "Smart home devices and scenes"),
    "car": ("Car", "Voltic Motors", "Auto & Vehicles", 80, "Remote control of your car"),
    "weather": ("Weather", "SkyCast", "Weather", 55, "Forecasts and alerts"),
    "news": ("News", "Daily Wire Media", "News", 80, "Headlines and saved articles"),
    "translate": ("Translate", "Polyglot", "Tools", 70, "Translation and dictionary"),
    "tickets": ("Tickets", "SeatGeek Asia", "Entertainment", 95, "Events and attraction tickets"),
    "courier": ("Courier", "ParcelGo", "Lifestyle", 60, "Track parcels and book pickups"),
    "services": ("Services", "HandyHub", "Lifestyle", 75, "Local services and appointments"),
    "roombook": ("RoomBook", "Corp IT", "Business", 35, "Book meeting rooms at work"),
}

# Apps only in the store (the first eight are installed in every world): (id, name, developer, category, MB,
# price, description)
STORE_ONLY: list[tuple[str, str, str, str, int, float, str]] = [
    ("shortvid", "ShortVid", "Loop Media", "Entertainment", 310, 0.0, "Short videos, live streams and trends"),
    ("kingdom_clash", "Kingdom Clash", "Ironforge Games", "Games", 1450, 0.0, "Build, battle and conquer"),
    ("office_suite", "Office Suite", "OfficeWorks", "Productivity", 380, 0.0, "Edit Word, Excel and PowerPoint files"),
    ("quickscan", "QuickScan PDF Scanner", "Scanly", "Productivity", 48, 0.0, "Scan documents to PDF with OCR"),
    ("lingoleap", "LingoLeap", "Leap Learning", "Education", 130, 0.0, "Learn languages in five minutes a day"),
    ("pixelcraft", "PixelCraft Photo Editor", "Craft Apps", "Photography", 95, 0.0, "Filters, collages, retouch"),
    ("authenticator", "Authenticator", "KeySafe", "Tools", 18, 0.0, "2-step verification codes for your accounts"),
    ("taxi_express", "Taxi Express", "Express Mobility", "Travel", 75, 0.0, "Book a local taxi in seconds"),
    ("budget_buddy", "Budget Buddy", "Coinwise", "Finance", 40, 2.99, "Track spending and budgets, no ads"),
    ("shield_vpn", "Shield VPN", "Shield Security", "Tools", 35, 4.99, "Private and secure browsing with VPN"),
    ("star_chart", "Star Chart", "Cosmos Apps", "Education", 210, 1.99, "Point your phone at the sky"),
    ("radar_pro", "Weather Radar Pro", "SkyCast", "Weather", 60, 3.99, "Live radar and storm alerts"),
    ("zen_meditate", "Zen Meditation", "Calm Minds", "Health & Fitness", 120, 0.0, "Guided meditation and sleep"),
    ("run_club", "Run Club", "Stride Sports", "Health & Fitness", 150, 0.0, "GPS running tracker and plans"),
    ("tile_swap", "Tile Swap Puzzle", "Puzzle Bros", "Games", 90, 0.0, "Relaxing tile matching puzzle"),
    ("chess_master", "Chess Master", "Checkmate Studio", "Games", 60, 0.0, "Play chess online and offline"),
    ("recipe_box", "Recipe Box", "CookBook Co.", "Food & Drink", 55, 0.0, "Save recipes from any site"),
    ("metro_pass", "Metro Pass", "City Transit", "Travel", 45, 0.0, "Metro QR tickets and route planner"),
    ("cam_scanner_pro", "Scanner Pro", "Scanly", "Productivity", 60, 5.99, "Batch scanning, OCR, cloud export"),
    ("password_gen", "Password Generator", "KeySafe", "Tools", 12, 0.0, "Generate strong passwords"),
    ("sleep_sounds", "Sleep Sounds", "Calm Minds", "Health & Fitness", 80, 0.99, "White noise and rain sounds"),
    ("photo_print", "PhotoPrint", "Craft Apps", "Photography", 70, 0.0, "Order prints of your photos"),
    ("file_shrink", "File Shrink", "Scanly", "Tools", 20, 0.0, "Compress PDFs and images"),
    ("news_digest", "News Digest", "Daily Wire Media", "News", 40, 0.0, "A five-minute daily news summary"),
]
PREINSTALLED_STORE_APPS = 8

# (cache MB, data MB) fixed for heavy apps so storage tasks have stable targets; others are drawn.
HEAVY_APPS = {
    "chat": (2300.0, 3600.0),
    "shortvid": (1850.0, 420.0),
    "kingdom_clash": (760.0, 2100.0),
    "social": (980.0, 350.0),
    "video": (1200.0, 800.0),
    "music": (540.0, 1500.0),
    "browser": (640.0, 120.0),
}

CHANNELS = {  # app: [(channel, enabled)]
    "chat": [("Messages", 1), ("Group chats", 1), ("Calls", 1), ("Moments", 0)],
    "messages": [("Messages", 1), ("Emergency alerts", 1)],
    "calendar": [("Event reminders", 1), ("Invitations", 1)],
    "mail": [("Inbox", 1), ("Promotions", 0)],
    "shop": [("Order updates", 1), ("Promotions", 1), ("Price alerts", 1)],
    "social": [("Likes", 1), ("Comments", 1), ("New followers", 1), ("Live", 1)],
    "bank": [("Transactions", 1), ("Security alerts", 1), ("Offers", 1)],
    "news": [("Breaking news", 1), ("Daily digest", 1)],
    "ride": [("Trip updates", 1), ("Promotions", 1)],
    "delivery": [("Order status", 1), ("Deals", 1)],
    "shortvid": [("Recommendations", 1), ("Live", 1), ("Messages", 1)],
    "kingdom_clash": [("Events", 1), ("Rewards", 1), ("Clan chat", 1)],
    "lingoleap": [("Practice reminders", 1), ("Streaks", 1)],
}

STORE_APP_PERMISSIONS = {  # runtime permissions the installed store apps asked for
    "shortvid": {
        "CAMERA": "granted",
        "MICROPHONE": "granted",
        "LOCATION": "denied",
        "CONTACTS": "denied",
        "NOTIFICATIONS": "granted",
    },
    "kingdom_clash": {"NOTIFICATIONS": "granted", "LOCATION": "granted", "MICROPHONE": "granted"},
    "pixelcraft": {"PHOTOS": "granted", "CAMERA": "granted", "LOCATION": "granted"},
    "quickscan": {"CAMERA": "granted", "STORAGE": "granted"},
    "taxi_express": {"LOCATION": "granted", "PHONE": "granted", "NOTIFICATIONS": "granted"},
    "lingoleap": {"MICROPHONE": "granted", "NOTIFICATIONS": "granted"},
    "office_suite": {"STORAGE": "granted"},
    "authenticator": {"CAMERA": "granted"},
}

EXTENSION_TYPES = {
    "docx": "doc",
    "txt": "doc",
    "xlsx": "sheet",
    "csv": "sheet",
    "pptx": "slides",
    "pdf": "pdf",
    "jpg": "image",
    "png": "image",
    "mp4": "video",
    "mp3": "audio",
    "m4a": "audio",
    "flac": "audio",
    "zip": "archive",
    "apk": "other",
    "epub": "other",
}
TYPE_MB = {
    "doc": (0.02, 1.5),
    "sheet": (0.05, 4.0),
    "slides": (1.0, 25.0),
    "pdf": (0.1, 6.0),
    "image": (1.5, 6.5),
    "video": (80.0, 900.0),
    "audio": (4.0, 45.0),
    "archive": (15.0, 650.0),
    "other": (20.0, 140.0),
}
FOLDERS = [
    "/",
    "/Documents",
    "/Documents/Finance",
    "/Documents/Personal",
    "/Documents/Receipts",
    "/Documents/School",
    "/Documents/Taxes",
    "/Documents/Work",
    "/Downloads",
    "/Music",
    "/Music/Recordings",
    "/Pictures",
    "/Pictures/Camera",
    "/Pictures/Screenshots",
    "/Pictures/Trips",
]

# (folder, name, app, content); "{...}" fields are filled from the persona.
NAMED_FILES: list[tuple[str, str, str, str | None]] = [
    ("/Documents", "Resume_2025.docx", "docs", "{name}. Senior product manager. Experience: 8 years."),
    ("/Documents", "Lease_Agreement.pdf", "docs", "Residential lease, 18 Garden Road, {home_city}. Term 12 months."),
    ("/Documents", "Household_Budget_2025.xlsx", "docs", "Rent, groceries, utilities, transport, savings by month"),
    ("/Documents", "Passport_Scan.pdf", "quickscan", "Passport of {name}. Expires 2029-08-14."),
    ("/Documents", "Car_Insurance_Policy.pdf", "mail", "Policy CI-558210. Renewal date 2025-09-30."),
    ("/Documents", "Travel_Checklist.docx", "docs", "Passport, adapter, chargers, medicine, travel insurance"),
    ("/Documents", "Wedding_Guest_List.xlsx", "docs", "Names, tables and dietary needs for 86 guests"),
    ("/Documents/Work", "Q2_Report.docx", "docs", "Q2 report: revenue up 12%, churn down 3%. Draft v3."),
    ("/Documents/Work", "Project_Plan.xlsx", "docs", "Milestones: design freeze 06-20, beta 07-15, launch 08-30"),
    ("/Documents/Work", "Team_Offsite.pptx", "docs", "Offsite agenda: strategy, roadmap, team building"),
    ("/Documents/Work", "Quarterly_Review.pptx", "docs", "Quarterly project review: status, risks, milestones"),
    ("/Documents/Work", "Product_Roadmap.pdf", "mail", "Roadmap H2: dashboard v2, mobile app, API v3"),
    ("/Documents/Work", "Client_Contract_Draft.docx", "mail", "Service agreement draft between ACME Ltd and us"),
    ("/Documents/Work", "Sales_Figures_Q1.xlsx", "docs", "Sales by region Q1: North 1.2M, South 0.9M"),
    ("/Documents/Work", "Architecture_Diagram.pdf", "docs", "System architecture: gateway, services, database"),
    ("/Documents/Taxes", "Tax_Return_2023.pdf", "browser", "Annual tax return 2023 of {name}. Refund 1,240.00"),
    ("/Documents/Taxes", "Tax_Return_2024.pdf", "browser", "Annual tax return 2024 of {name}. Refund 860.00"),
    ("/Documents/Taxes", "Salary_Statement_2024.pdf", "mail", "Salary statement 2024, employer ACME Ltd"),
    ("/Documents/Taxes", "Donation_Receipts_2024.pdf", "quickscan", "Donation receipts: Red Cross 500, Library 200"),
    ("/Downloads", "invoice_INV-2025-0412.pdf", "mail", "Invoice INV-2025-0412 from CloudHost. Total 1,280.00"),
    ("/Downloads", "scan_0001.pdf", "quickscan", "Invoice No. INV-88231, Bright Smile Dental Clinic, total 350.00"),
    ("/Downloads", "conference_agenda.pdf", "browser", "TechConf 2025 agenda: keynotes, workshops, panels"),
    ("/Downloads", "conference_agenda (1).pdf", "browser", "TechConf 2025 agenda: keynotes, workshops, panels"),
    ("/Downloads", "boarding_pass.pdf", "mail", "Boarding pass {name}, seat 32A, gate B12"),
    ("/Downloads", "restaurant_menu.pdf", "chat", "Menu: dumplings, noodles, hot pot, desserts"),
    ("/Downloads", "flight_itinerary.pdf", "mail", "Itinerary: {home_city} to Tokyo, 3 nights"),
    ("/Downloads", "setup_tool.apk", "browser", None),
    ("/Downloads", "photos_2024.zip", "chat", None),
    ("/Downloads", "wallpaper_pack.zip", "browser", None),
    ("/Downloads", "driver_update.zip", "browser", None),
    ("/Downloads", "movie_trailer.mp4", "chat", None),
    ("/Downloads", "sample_book.epub", "browser", None),
    ("/Downloads", "meeting_notes.txt", "chat", "Notes: budget approved, hire two engineers, next sync Monday"),
    ("/Music", "Coldplay - Yellow.mp3", "music", None),
    ("/Music", "Adele - Hello.mp3", "music", None),
    ("/Music", "Jay Chou - Qing Hua Ci.mp3", "music", None),
    ("/Music", "Norah Jones - Don't Know Why.mp3", "music", None),
    ("/Music", "Queen - Bohemian Rhapsody.flac", "music", None),
    ("/Music", "Taylor Swift - Shake It Off.mp3", "music", None),
    ("/Music", "Ed Sheeran - Perfect.mp3", "music", None),
    ("/Music", "Faye Wong - Red Bean.mp3", "music", None),
    ("/Music", "Daft Punk - Get Lucky.mp3", "music", None),
    ("/Music", "Beethoven - Moonlight Sonata.flac", "music", None),
    ("/Music", "Miles Davis - So What.mp3", "music", None),
    ("/Music", "Lo-fi Beats Mix.mp3", "music", None),
]
# The labelled values a screen reader extracts from a seeded document, by file name.
SEED_FILE_FIELDS: dict[str, dict[str, Any]] = {
    "invoice_INV-2025-0412.pdf": {"invoice_number": "INV-2025-0412", "issuer": "CloudHost", "total": 1280.00},
    "scan_0001.pdf": {"invoice_number": "INV-88231", "issuer": "Bright Smile Dental Clinic", "total": 350.00},
    "Car_Insurance_Policy.pdf": {"policy_number": "CI-558210", "renewal_date": "2025-09-30"},
    "boarding_pass.pdf": {"seat": "32A", "gate": "B12"},
}
RECEIPT_MERCHANTS = [
    "Corner Cafe",
    "MegaMart",
    "City Pharmacy",
    "Golden Restaurant",
    "Hardware Depot",
    "Book Nook",
    "Fresh Market",
    "Tech Store",
]
TRIP_NAMES = ["Tokyo", "Shanghai", "Berlin", "Seoul"]

# (service, username pattern, recovery phone on file, 2-step method)
SEED_ACCOUNTS = [
    ("Google", "{handle}@gmail.com", True, "sms"),
    ("Google", "{handle}.work@gmail.com", False, None),
    ("Apple ID", "{email}", True, "authenticator"),
    ("Microsoft", "{handle}@outlook.com", True, None),
    ("GitHub", "{handle}-dev", False, None),
    ("Amazon", "{email}", True, None),
    ("PayPal", "{email}", True, "sms"),
    ("Dropbox", "{email}", False, None),
    ("LinkedIn", "{email}", True, None),
    ("Netflix", "{email}", False, None),
    ("Work SSO", "{handle}@acme-corp.com", True, "security_key"),
    ("Cloud", "{email}", True, "sms"),
]
# (site, the site's brand as people name it, account service or None, password kind, breached in a site breach)
SEED_CREDENTIALS = [
    ("google.com", "Google", "Google", "strong", False),
    ("apple.com", "Apple", "Apple ID", "strong", False),
    ("outlook.com", "Outlook", "Microsoft", "reused", False),
    ("github.com", "GitHub", "GitHub", "strong", False),
    ("amazon.com", "Amazon", "Amazon", "reused", False),
    ("paypal.com", "PayPal", "PayPal", "strong", False),
    ("dropbox.com", "Dropbox", "Dropbox", "reused", True),
    ("linkedin.com", "LinkedIn", "LinkedIn", "weak", True),
    ("netflix.com", "Netflix", "Netflix", "reused", False),
    ("spotify.com", "Spotify", None, "medium", False),
    ("airbnb.com", "Airbnb", None, "strong", False),
    ("booking.com", "Booking.com", None, "medium", False),
    ("x.com", "X (Twitter)", None, "weak", False),
    ("facebook.com", "Facebook", None, "common", True),
    ("instagram.com", "Instagram", None, "strong", False),
    ("reddit.com", "Reddit", None, "medium", False),
    ("zoom.us", "Zoom", None, "strong", False),
    ("slack.com", "Slack", None, "strong", False),
    ("adobe.com", "Adobe", None, "common", True),
    ("ebay.com", "eBay", None, "medium", False),
    ("uber.com", "Uber", None, "strong", False),
    ("coursera.org", "Coursera", None, "weak", False),
    ("steampowered.com", "Steam", None, "reused", False),
    ("taobao.com", "Taobao", None, "strong", False),
    ("acme-corp.com", "Acme Corp", "Work SSO", "strong", False),
]
# (name pattern, kind, online, where, days since seen, locked)
SEED_DEVICES = [
    ("{first}'s iPad", "tablet", 1, "Home, 18 Garden Road, {home_city}", 0, 0),
    ("Work MacBook", "laptop", 1, "Office, 88 Market Street, {work_city}", 0, 1),
    ("Galaxy Watch 6", "watch", 1, "Home, 18 Garden Road, {home_city}", 0, 0),
    ("Pixel 6 (old phone)", "phone", 0, "Sunny Cafe, Lake Avenue, {home_city}", 41, 0),
    ("AirPods Pro", "earbuds", 0, "Gym, Hill Road, {home_city}", 3, 0),
    ("Family iPad", "tablet", 1, "Home, 18 Garden Road, {home_city}", 0, 0),
]


def _stamp(moment: dt.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def _seed_apps(conn: Connection, base: int, stamp: str) -> None:
    """Store entries for every app the phone knows, install details, store-only installs, channels.

    Each app draws from its own stream (``base`` and its id), so apps other domains add later leave the
    rows of existing apps unchanged.
    """
    declared = list(conn.execute(select(apps.c.app_id).order_by(apps.c.app_id)).scalars())
    store = [
        (a, *KNOWN_APPS.get(a, (a.replace("_", " ").title(), "Independent", "Utilities", 60, "An app")), 0.0)
        for a in declared
    ]
    store += [
        (a, name, dev, cat, size, about, price)
        for a, name, dev, cat, size, price, about in STORE_ONLY
        if a not in declared
    ]
    store_only = [s[0] for s in STORE_ONLY[:PREINSTALLED_STORE_APPS] if s[0] not in declared]
    mine = sorted(declared + store_only)
    store_rows, install_rows = [], []
    for app_id, name, developer, category, size, about, price in store:
        r = random.Random(f"{base}:{app_id}")
        major, minor, patch = r.randint(1, 12), r.randint(0, 20), r.randint(1, 9)
        store_rows.append(
            {
                "app_id": app_id,
                "name": name,
                "developer": developer,
                "category": category,
                "price": price,
                "size_mb": float(size),
                "version": f"{major}.{minor}.{patch}",
                "rating": round(r.uniform(3.2, 4.9), 1),
                "description": about,
            }
        )
        if app_id not in mine:
            continue
        system = developer == SYSTEM_DEVELOPER
        outdated = not system and r.random() < 0.2
        cache, data = HEAVY_APPS.get(app_id, (round(r.uniform(2, 120), 1), round(r.uniform(5, 300), 1)))
        install_rows.append(
            {
                "app_id": app_id,
                "version": f"{major}.{minor}.{patch - outdated}",
                "is_system": int(system),
                "app_mb": float(size),
                "data_mb": data,
                "cache_mb": cache,
                "created_at": stamp,
                "updated_at": stamp,
            }
        )
    conn.execute(insert(world_store_apps), store_rows)
    names = {s[0]: s[1] for s in STORE_ONLY}
    conn.execute(
        insert(apps),
        [
            {
                "app_id": a,
                "name": names[a],
                "installed": 1,
                "logged_in": int(a != "kingdom_clash"),
                "notifications_enabled": int(a != "kingdom_clash"),
            }
            for a in store_only
        ],
    )
    conn.execute(
        insert(app_permissions),
        [
            {"app_id": a, "permission": p, "state": s}
            for a in store_only
            for p, s in sorted(STORE_APP_PERMISSIONS[a].items())
        ],
    )
    conn.execute(insert(app_installs), sorted(install_rows, key=lambda r: r["app_id"]))
    conn.execute(
        insert(notification_channels),
        [
            {"app_id": a, "channel": ch, "enabled": on, "created_at": stamp, "updated_at": stamp}
            for a in mine
            if a in CHANNELS
            for ch, on in CHANNELS[a]
        ],
    )


def _seed_files(conn: Connection, rng: random.Random, persona: Persona, now: dt.datetime) -> None:
    """About a hundred files in the user's folders, a few of them in the trash."""
    stamp = _stamp(now)
    conn.execute(insert(folders), [{"path": p, "created_at": stamp, "updated_at": stamp} for p in FOLDERS])
    fields = {"name": persona.name, "home_city": persona.home_city}
    specs: list[tuple[str, str, str, str | None, dt.datetime]] = []

    def when(max_days: int) -> dt.datetime:
        return now - dt.timedelta(days=rng.randint(1, max_days), minutes=rng.randint(0, 1439))

    for folder, name, app, content in NAMED_FILES:
        specs.append((folder, name, app, content.format(**fields) if content else None, when(180)))
    for merchant in RECEIPT_MERCHANTS:
        moment, total = when(120), rng.randint(8, 400) + rng.choice([0, 0.5, 0.99])
        specs.append(
            (
                "/Documents/Receipts",
                f"Receipt_{merchant.replace(' ', '_')}_{moment:%Y%m%d}.pdf",
                "quickscan",
                f"Receipt from {merchant}, {moment:%Y-%m-%d}, total {total:.2f}",
                moment,
            )
        )
    media = (
        ("IMG", "/Pictures/Camera", "camera", 30),
        ("VID", "/Pictures/Camera", "camera", 4),
        ("Screenshot", "/Pictures/Screenshots", "gallery", 12),
        ("Recording", "/Music/Recordings", "assistant", 3),
    )
    for kind, folder, app, count in media:
        for _ in range(count):
            moment = when(150)
            ext = {"IMG": "jpg", "VID": "mp4", "Screenshot": "png", "Recording": "m4a"}[kind]
            specs.append((folder, f"{kind}_{moment:%Y%m%d_%H%M%S}.{ext}", app, None, moment))
    for trip in TRIP_NAMES[:2]:
        moment = when(300)
        for i in range(1, 4):
            specs.append(("/Pictures/Trips", f"{trip}_{moment:%Y}_{i:03d}.jpg", "camera", None, moment))
    unique = {
        (folder, name.lower()): (folder, name, app, content, moment)
        for folder, name, app, content, moment in reversed(specs)
    }  # the first of two namesakes wins
    out: list[dict[str, Any]] = []
    for i, (folder, name, app, content, moment) in enumerate(
        sorted(unique.values(), key=lambda s: (s[4], s[0], s[1])), start=1
    ):
        file_type = EXTENSION_TYPES[name.rsplit(".", 1)[1]]
        lo, hi = TYPE_MB[file_type]
        out.append(
            {
                "file_id": f"file_{i:03d}",
                "name": name,
                "folder": folder,
                "file_type": file_type,
                "size_mb": round(rng.uniform(lo, hi), 2),
                "content": content,
                "fields_json": json.dumps(SEED_FILE_FIELDS[name]) if name in SEED_FILE_FIELDS else None,
                "app": app,
                "modified_at": _stamp(moment),
                "deleted_at": None,
                "created_at": _stamp(moment),
                "updated_at": _stamp(moment),
            }
        )
    for f in rng.sample([f for f in out if f["folder"] in ("/Pictures/Screenshots", "/Downloads", "/Documents")], 6):
        gone = dt.datetime.fromisoformat(f["modified_at"]) + (now - dt.datetime.fromisoformat(f["modified_at"])) / 2
        f["deleted_at"] = f["updated_at"] = _stamp(gone)
    conn.execute(insert(files), out)


def _seed_security(conn: Connection, rng: random.Random, persona: Persona, now: dt.datetime) -> None:
    """Online accounts, the password vault, the user's other devices."""
    stamp = _stamp(now)
    first = persona.name.split()[0]
    handle = persona.email.split("@")[0]
    phone = normalise_phone(persona.phone)
    acc_rows: list[dict[str, Any]] = []
    by_service: dict[str, str] = {}
    for i, (service, user, has_phone, method) in enumerate(SEED_ACCOUNTS, start=1):
        aid = f"account_{i:03d}"
        by_service.setdefault(service, aid)
        acc_rows.append(
            {
                "account_id": aid,
                "service": service,
                "username": user.format(handle=handle, email=persona.email),
                "recovery_phone": phone if has_phone else None,
                "two_factor_method": method,
                "created_at": stamp,
                "updated_at": stamp,
            }
        )
    conn.execute(insert(accounts), acc_rows)
    shared = f"{rng.choice(['Sunflower', 'Panda', 'Harbor', 'Maple'])}{rng.randint(1985, 2001)}!"
    weak_pool = [f"{first.lower()}{rng.randint(10, 99)}", "qwerty1", f"{handle[:3]}1234"]  # all under 8 characters
    cred_rows = []
    for i, (site, brand, site_service, kind, site_breach) in enumerate(SEED_CREDENTIALS, start=1):
        secret = {
            "strong": lambda: (
                "".join(rng.choice(string.ascii_letters + string.digits + "!@#$%") for _ in range(16)) + "aA1!"
            ),
            "medium": lambda: f"{rng.choice(['Blue', 'Green', 'Happy'])}{rng.randint(1000, 9999)}",
            "reused": lambda: shared,
            "weak": lambda: rng.choice(weak_pool),
            "common": lambda: rng.choice(sorted(COMMON_PASSWORDS)),
        }[kind]()
        changed = _stamp(now - dt.timedelta(days=rng.randint(20, 900)))
        fields = _credential_fields(secret)
        fields["breached"] = int(fields["breached"] or site_breach)
        cred_rows.append(
            {
                "credential_id": f"cred_{i:03d}",
                "site": site,
                "name": brand,
                "username": persona.email if rng.random() < 0.7 else handle,
                "notes": None,
                "account_id": by_service.get(site_service) if site_service else None,
                "created_at": changed,
                "updated_at": changed,
                **fields,
            }
        )
    conn.execute(insert(credentials), cred_rows)
    conn.execute(
        insert(linked_devices),
        [
            {
                "device_id": f"ldevice_{i:03d}",
                "name": name.format(first=first),
                "kind": kind,
                "online": online,
                "last_location": where.format(home_city=persona.home_city, work_city=persona.work_city),
                "last_seen_at": _stamp(now - dt.timedelta(days=days, minutes=rng.randint(1, 90))),
                "locked": locked,
                "lock_message": None,
                "erased": 0,
                "last_rung_at": None,
                "created_at": stamp,
                "updated_at": stamp,
            }
            for i, (name, kind, online, where, days, locked) in enumerate(SEED_DEVICES, start=1)
        ],
    )


def _seed_cloud(conn: Connection, rng: random.Random, persona: Persona, now: dt.datetime) -> None:
    """Past backups and a cloud account with room for a photo backup but not for everything."""
    sizes = _category_sizes(conn)
    auto = ["calendar", "contacts", "messages", "photos"]
    out = []
    for i, days in enumerate(sorted(rng.sample(range(3, 120), 8), reverse=True), start=1):
        cats = auto if i % 4 else sorted([*auto, "files"])
        done = _stamp(now - dt.timedelta(days=days, hours=rng.randint(0, 5)))
        out.append(
            {
                "backup_id": f"backup_{i:03d}",
                "categories_json": json.dumps(cats),
                "size_gb": round(sum(sizes[c] for c in cats) * rng.uniform(0.85, 1.0) / 1024, 3),
                "status": "failed" if i == 5 else "completed",
                "completed_at": done,
                "restored_at": None,
                "created_at": done,
                "updated_at": done,
            }
        )
    conn.execute(insert(backups), out)
    quota = 200.0
    headroom = round(sum(v for k, v in sizes.items() if k != "app_data") / 1024 + rng.uniform(0.5, 1.0), 3)
    conn.execute(
        insert(cloud_account).values(
            cloud_id="cloud_001",
            email=persona.email,
            quota_gb=quota,
            used_gb=round(quota - headroom, 3),
            created_at=_stamp(now),
            updated_at=_stamp(now),
        )
    )


@seeder
def seed_apps_security(conn: Connection, rng: random.Random, persona: Persona) -> None:
    """Apps, files, accounts and vault, devices, backups; each part draws from its own stream of ``rng``."""
    now = dt.datetime.fromisoformat(persona.now)
    apps_base, files_rng, security_rng, cloud_rng = (
        rng.getrandbits(64),
        random.Random(rng.getrandbits(64)),
        random.Random(rng.getrandbits(64)),
        random.Random(rng.getrandbits(64)),
    )
    _seed_apps(conn, apps_base, persona.now)
    _seed_files(conn, files_rng, persona, now)
    _seed_security(conn, security_rng, persona, now)
    _seed_cloud(conn, cloud_rng, persona, now)
