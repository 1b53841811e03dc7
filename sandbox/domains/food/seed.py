"""The food domain's world data and its seeder, which fills the tables for a persona."""

from __future__ import annotations

import datetime as dt
import json
import random
from typing import Any

from sqlalchemy import (
    Connection,
    Integer,
    Table,
    cast,
    func,
    insert,
    select,
)

from sandbox.domains.common import (
    CITY_CENTRES,
    STREETS,
    addresses,
    payment_methods,
    transactions,
    world_places,
)
from sandbox.domains.food.schema import (
    COURIER_MIN,
    DT_FMT,
    WEEKDAYS,
    food_orders,
    grocery_items,
    meal_plans,
    restaurant_reservations,
    saved_recipes,
    world_menu_items,
    world_recipes,
    world_restaurants,
    world_table_slots,
)
from sandbox.domains.food.tools import _open_at, _shift
from sandbox.executor import normalise_phone, rows
from sandbox.locales import CURRENCIES, business_phone, round_amount
from sandbox.personas import Persona, seeder
from sandbox.subagents import world_phone_services

# ---- World data -------------------------------------------------------------------------------

# Dishes: (name, category, price in USD, tags). Tags: v vegetarian, vg vegan, gf gluten-free, n contains nuts.
CUISINES: dict[str, tuple[tuple[str, ...], tuple[tuple[str, str, float, str], ...]]] = {
    "Cantonese": (
        ("Jade Garden", "Pearl River Kitchen", "Golden Lotus", "Dim Sum Palace", "Canton House"),
        (
            ("Har gow shrimp dumplings", "starter", 6, "gf"),
            ("Char siu bao", "starter", 5, ""),
            ("Roast goose", "main", 22, "gf"),
            ("Steamed fish with ginger", "main", 24, "gf"),
            ("Wonton noodle soup", "main", 9, ""),
            ("Stir-fried gai lan", "side", 8, "vg gf"),
            ("Mango pomelo sago", "dessert", 5, "v gf"),
            ("Egg tarts", "dessert", 4, "v"),
        ),
    ),
    "Sichuan": (
        ("Spicy Pavilion", "Red Lantern", "Chengdu Taste", "Mala Kitchen", "Peppercorn House"),
        (
            ("Kung pao chicken", "main", 12, "n"),
            ("Dan dan noodles", "main", 8, "n"),
            ("Mapo tofu", "main", 9, ""),
            ("Boiled fish in chili oil", "main", 22, "gf"),
            ("Twice-cooked pork", "main", 13, "gf"),
            ("Dry-fried green beans", "side", 8, "vg gf"),
            ("Fish-fragrant eggplant", "main", 9, "vg"),
            ("Sichuan cold noodles", "starter", 7, "vg"),
        ),
    ),
    "Beijing": (
        ("Old Hutong", "Imperial Duck House", "Courtyard Kitchen", "Drum Tower Eatery", "Siheyuan"),
        (
            ("Peking roast duck (half)", "main", 28, ""),
            ("Zhajiang noodles", "main", 8, ""),
            ("Pork and chive dumplings", "main", 7, ""),
            ("Lamb skewers", "starter", 10, "gf"),
            ("Sweet and sour pork", "main", 12, ""),
            ("Tomato and egg stir-fry", "main", 7, "v gf"),
            ("Stir-fried cabbage", "side", 5, "vg gf"),
            ("Hawthorn cake", "dessert", 4, "vg gf"),
        ),
    ),
    "Hot pot": (
        ("Bubbling Pot", "Little Lamb Hot Pot", "Copper Pot", "Broth & Co", "Fire Pot Club"),
        (
            ("Spicy broth base", "main", 10, "vg"),
            ("Mushroom broth base", "main", 9, "vg gf"),
            ("Sliced beef", "main", 14, "gf"),
            ("Lamb rolls", "main", 13, "gf"),
            ("Shrimp paste", "main", 11, "gf"),
            ("Tofu skin", "side", 5, "vg"),
            ("Vegetable platter", "side", 7, "vg gf"),
            ("Hand-pulled noodles", "side", 4, "vg"),
        ),
    ),
    "Japanese": (
        ("Sakura Sushi", "Ramen Ichiban", "Kaze Izakaya", "Tsukiji Bar", "Hana Bento"),
        (
            ("Salmon nigiri", "main", 8, "gf"),
            ("Tonkotsu ramen", "main", 14, ""),
            ("Chicken katsu curry", "main", 15, ""),
            ("Vegetable tempura", "starter", 10, "v"),
            ("Edamame", "starter", 5, "vg gf"),
            ("Miso soup", "side", 4, "v gf"),
            ("Spicy tuna roll", "main", 11, ""),
            ("Matcha ice cream", "dessert", 6, "v gf"),
        ),
    ),
    "Korean": (
        ("Seoul Kitchen", "Bulgogi Brothers", "Kimchi House", "Gangnam Grill", "Hanok Table"),
        (
            ("Bibimbap", "main", 13, "v"),
            ("Korean fried chicken", "main", 16, ""),
            ("Beef bulgogi", "main", 18, ""),
            ("Kimchi jjigae", "main", 12, ""),
            ("Japchae", "main", 11, "vg"),
            ("Tteokbokki", "starter", 9, ""),
            ("Seafood pancake", "starter", 13, ""),
            ("Kimchi", "side", 4, "vg gf"),
        ),
    ),
    "Italian": (
        ("Trattoria Roma", "Pasta Fresca", "Luigi's", "Il Forno", "Osteria Bella"),
        (
            ("Margherita pizza", "main", 14, "v"),
            ("Spaghetti carbonara", "main", 16, ""),
            ("Mushroom risotto", "main", 17, "v gf"),
            ("Lasagna", "main", 18, ""),
            ("Caesar salad", "starter", 11, ""),
            ("Penne arrabbiata", "main", 14, "vg"),
            ("Bruschetta", "starter", 8, "vg"),
            ("Tiramisu", "dessert", 8, "v"),
        ),
    ),
    "French": (
        ("Le Petit Bistro", "Chez Marcel", "Maison Rose", "La Belle Epoque", "Brasserie Lumiere"),
        (
            ("French onion soup", "starter", 11, "v"),
            ("Steak frites", "main", 28, "gf"),
            ("Coq au vin", "main", 26, "gf"),
            ("Nicoise salad", "starter", 15, "gf"),
            ("Ratatouille", "main", 18, "vg gf"),
            ("Croque monsieur", "main", 13, ""),
            ("Escargots", "starter", 14, "gf"),
            ("Creme brulee", "dessert", 9, "v gf"),
        ),
    ),
    "Thai": (
        ("Bangkok Street", "Lemongrass", "Thai Orchid", "Siam Spoon", "Coconut Grove"),
        (
            ("Pad thai", "main", 13, "n"),
            ("Green curry chicken", "main", 15, "gf"),
            ("Tom yum goong", "starter", 14, "gf"),
            ("Som tam papaya salad", "starter", 9, "vg gf n"),
            ("Massaman curry", "main", 16, "gf n"),
            ("Basil tofu stir-fry", "main", 12, "vg"),
            ("Spring rolls", "starter", 7, "vg"),
            ("Mango sticky rice", "dessert", 8, "vg gf"),
        ),
    ),
    "Indian": (
        ("Spice Route", "Taj Tandoor", "Masala Art", "Curry Leaf", "Bombay Bites"),
        (
            ("Butter chicken", "main", 16, "gf"),
            ("Chana masala", "main", 12, "vg gf"),
            ("Lamb rogan josh", "main", 18, "gf"),
            ("Palak paneer", "main", 14, "v gf"),
            ("Vegetable biryani", "main", 13, "v gf n"),
            ("Garlic naan", "side", 4, "v"),
            ("Samosas", "starter", 6, "vg"),
            ("Mango lassi", "drink", 5, "v gf"),
        ),
    ),
    "Mexican": (
        ("Casa Verde", "El Taquito", "Cantina Sol", "La Palma", "Burrito Bros"),
        (
            ("Tacos al pastor", "main", 12, "gf"),
            ("Chicken burrito", "main", 13, ""),
            ("Veggie quesadilla", "main", 11, "v"),
            ("Guacamole and chips", "starter", 8, "vg gf"),
            ("Beef enchiladas", "main", 14, ""),
            ("Black bean soup", "starter", 9, "vg gf"),
            ("Elote", "side", 5, "v gf"),
            ("Churros", "dessert", 6, "v"),
        ),
    ),
    "American": (
        ("Liberty Burger", "Smokestack Diner", "Patty & Bun", "Five Bros Grill", "Route 66 Diner"),
        (
            ("Classic cheeseburger", "main", 14, ""),
            ("Bacon double burger", "main", 17, ""),
            ("Plant-based burger", "main", 15, "vg"),
            ("Fries", "side", 5, "vg gf"),
            ("Buffalo wings", "starter", 12, "gf"),
            ("Onion rings", "side", 6, "v"),
            ("Pecan pie", "dessert", 7, "v n"),
            ("Vanilla milkshake", "drink", 7, "v gf"),
        ),
    ),
    "Middle Eastern": (
        ("Sahara Grill", "Cedar Tree", "Falafel Corner", "Levant Kitchen", "Olive & Zaatar"),
        (
            ("Chicken shawarma wrap", "main", 11, ""),
            ("Falafel plate", "main", 12, "vg"),
            ("Hummus with pita", "starter", 8, "vg"),
            ("Lamb kofta", "main", 17, "gf"),
            ("Tabbouleh", "starter", 8, "vg"),
            ("Baba ganoush", "starter", 8, "vg gf"),
            ("Mixed grill", "main", 24, "gf"),
            ("Baklava", "dessert", 6, "v n"),
        ),
    ),
    "Vietnamese": (
        ("Pho Saigon", "Little Hanoi", "Banh Mi Box", "Lotus Pho", "Mekong Kitchen"),
        (
            ("Pho bo", "main", 13, "gf"),
            ("Banh mi", "main", 9, ""),
            ("Fresh spring rolls", "starter", 8, "gf n"),
            ("Bun cha", "main", 13, ""),
            ("Tofu pho", "main", 12, "vg gf"),
            ("Lemongrass chicken", "main", 14, "gf"),
            ("Broken rice with pork", "main", 13, ""),
            ("Vietnamese iced coffee", "drink", 5, "v gf"),
        ),
    ),
    "Plant-based": (
        ("Green Bowl", "Leaf & Root", "Sprout Kitchen", "Veggie Lab", "Bodhi Garden"),
        (
            ("Buddha bowl", "main", 14, "vg gf"),
            ("Mushroom burger", "main", 15, "vg"),
            ("Lentil soup", "starter", 9, "vg gf"),
            ("Tofu steak", "main", 16, "vg gf"),
            ("Avocado toast", "main", 11, "vg"),
            ("Quinoa salad", "main", 13, "vg gf n"),
            ("Vegan brownie", "dessert", 6, "vg"),
            ("Green smoothie", "drink", 7, "vg gf"),
        ),
    ),
    "Cafe": (
        ("Morning Glory Cafe", "Bean & Brew", "Sunday Brunch Club", "Daily Grind", "Toast House"),
        (
            ("Eggs Benedict", "main", 14, ""),
            ("Avocado toast", "main", 12, "vg"),
            ("Buttermilk pancakes", "main", 11, "v"),
            ("Butter croissant", "starter", 4, "v"),
            ("Granola bowl", "main", 9, "v n"),
            ("Flat white", "drink", 5, "v gf"),
            ("Club sandwich", "main", 13, ""),
            ("Cheesecake", "dessert", 7, "v"),
        ),
    ),
    "Spanish": (
        ("Casa Tapas", "La Bodega", "Sol y Sombra", "El Mercado", "Barcelona Bites"),
        (
            ("Patatas bravas", "starter", 8, "vg gf"),
            ("Gambas al ajillo", "starter", 14, "gf"),
            ("Seafood paella", "main", 26, "gf"),
            ("Jamon iberico", "starter", 18, "gf"),
            ("Tortilla espanola", "main", 9, "v gf"),
            ("Croquetas", "starter", 9, ""),
            ("Pimientos de padron", "side", 8, "vg gf"),
            ("Churros con chocolate", "dessert", 7, "v"),
        ),
    ),
}
CHINESE = ("Beijing", "Cantonese", "Sichuan", "Hot pot")
LOCAL_CUISINES = {
    "Beijing": CHINESE,
    "Shanghai": CHINESE,
    "Tokyo": ("Japanese",),
    "Seoul": ("Korean",),
    "Madrid": ("Spanish",),
    "Mumbai": ("Indian",),
    "Berlin": ("Plant-based", "Cafe"),
    "London": ("Indian", "French"),
    "San Francisco": ("Mexican", "American", "Cafe"),
    "Palo Alto": ("American", "Cafe"),
    "Toronto": ("American", "Cafe"),
    "Sydney": ("Cafe", "Vietnamese"),
}
HALAL_CUISINES = {"Middle Eastern": 1.0, "Indian": 0.5}
HOURS = {  # cuisine -> opening windows
    "Cafe": [["07:30", "18:00"]],
    "Hot pot": [["11:00", "23:30"]],
    "Beijing": [["11:00", "14:00"], ["17:00", "21:30"]],
}
DEFAULT_HOURS = ([["11:00", "14:30"], ["17:00", "22:00"]], [["11:30", "22:00"]], [["17:00", "23:00"]])
# USD-denominated seed prices -> local prices in the user's currency: what a meal costs there, where it differs
# from the exchange rate (``locales.CURRENCIES``)
FX = {"CNY": 5.0}


def menu_price(usd: float, currency: str) -> float:
    """A menu price: whole yuan, two round figures in yen and won, halves elsewhere."""
    if currency in FX:
        return float(round(usd * FX[currency]))
    if CURRENCIES[currency].step >= 1:
        return round_amount(usd, currency)
    return round(usd * CURRENCIES[currency].per_usd * 2) / 2


DISHES_PER_MENU = 6  # of the cuisine's eight, so that two places of one cuisine differ

# Recipes: (title, cuisine, diets, minutes, servings, kcal/serving, tags, ingredients "qty unit name; ...").
# Diets: veg vegetarian, vgn vegan, gf gluten_free, df dairy_free, lc low_carb, hp high_protein, nf nut_free.
RECIPES = [
    (
        "Tomato and egg stir-fry",
        "Chinese",
        "veg gf nf",
        15,
        2,
        220,
        "dinner lunch",
        "4 pc egg; 3 pc tomato; 2 pc spring onion; 1 tsp sugar; 1 tbsp vegetable oil",
    ),
    (
        "Kung pao chicken",
        "Sichuan",
        "df hp",
        25,
        2,
        480,
        "dinner spicy",
        "300 g chicken breast; 40 g roasted peanuts; 6 pc dried chili; 1 tsp sichuan peppercorn; 2 tbsp soy sauce; "
        "1 tbsp black vinegar; 3 clove garlic; 1 tbsp cornstarch",
    ),
    (
        "Mapo tofu",
        "Sichuan",
        "df nf",
        20,
        3,
        350,
        "dinner spicy",
        "400 g silken tofu; 150 g ground pork; 2 tbsp doubanjiang; 1 tsp sichuan peppercorn; 2 clove garlic; "
        "1 tbsp cornstarch; 2 pc spring onion",
    ),
    (
        "Vegetarian mapo tofu",
        "Sichuan",
        "veg vgn df nf",
        20,
        3,
        280,
        "dinner spicy",
        "400 g silken tofu; 150 g shiitake mushrooms; 2 tbsp doubanjiang; 1 tsp sichuan peppercorn; 2 clove garlic; "
        "1 tbsp cornstarch",
    ),
    (
        "Pork and chive dumplings",
        "Chinese",
        "df nf",
        60,
        4,
        420,
        "dinner lunch",
        "500 g ground pork; 200 g garlic chives; 40 pc dumpling wrappers; 2 tbsp soy sauce; 1 tbsp sesame oil; "
        "1 tbsp ginger",
    ),
    (
        "Beef noodle soup",
        "Chinese",
        "df hp nf",
        150,
        4,
        560,
        "dinner soup",
        "800 g beef shank; 400 g wheat noodles; 2 pc star anise; 3 tbsp soy sauce; 1 tbsp chili bean paste; "
        "200 g bok choy; 30 g ginger",
    ),
    (
        "Egg fried rice",
        "Chinese",
        "veg df nf",
        15,
        2,
        450,
        "dinner lunch leftovers",
        "400 g cooked rice; 3 pc egg; 100 g peas; 2 pc spring onion; 1 tbsp soy sauce; 2 tbsp vegetable oil",
    ),
    (
        "Steamed fish with ginger and scallion",
        "Cantonese",
        "gf df lc hp nf",
        25,
        3,
        260,
        "dinner",
        "600 g sea bass; 30 g ginger; 4 pc spring onion; 2 tbsp light soy sauce; 2 tbsp vegetable oil",
    ),
    (
        "Century egg and pork congee",
        "Cantonese",
        "df gf nf",
        60,
        4,
        310,
        "breakfast",
        "150 g rice; 2 pc century egg; 100 g lean pork; 20 g ginger; 1500 ml water",
    ),
    (
        "Hot and sour soup",
        "Chinese",
        "veg df nf",
        30,
        4,
        180,
        "soup dinner",
        "200 g tofu; 100 g wood ear mushrooms; 50 g bamboo shoots; 2 pc egg; 3 tbsp black vinegar; "
        "1 tsp white pepper; 2 tbsp cornstarch",
    ),
    (
        "Beef and broccoli stir-fry",
        "Chinese",
        "df hp nf",
        20,
        3,
        430,
        "dinner quick",
        "400 g flank steak; 300 g broccoli; 3 tbsp oyster sauce; 1 tbsp soy sauce; 2 clove garlic; 1 tbsp cornstarch",
    ),
    (
        "Spaghetti carbonara",
        "Italian",
        "hp nf",
        25,
        2,
        650,
        "dinner pasta",
        "200 g spaghetti; 120 g pancetta; 3 pc egg; 60 g parmesan; 1 tsp black pepper",
    ),
    (
        "Margherita pizza",
        "Italian",
        "veg nf",
        90,
        2,
        700,
        "dinner",
        "300 g pizza dough; 150 g tomato sauce; 200 g mozzarella; 10 pc basil leaves; 1 tbsp olive oil",
    ),
    (
        "Mushroom risotto",
        "Italian",
        "veg gf nf",
        40,
        3,
        520,
        "dinner",
        "300 g arborio rice; 300 g mushrooms; 1000 ml vegetable stock; 1 pc onion; 50 g parmesan; 30 g butter; "
        "100 ml white wine",
    ),
    (
        "Pesto pasta",
        "Italian",
        "veg",
        20,
        2,
        600,
        "dinner pasta quick",
        "200 g penne; 80 g basil pesto; 30 g pine nuts; 40 g parmesan",
    ),
    (
        "Minestrone soup",
        "Italian",
        "veg vgn df nf",
        45,
        4,
        240,
        "soup lunch",
        "1 pc onion; 2 pc carrot; 2 pc celery stalk; 400 g canned tomatoes; 400 g cannellini beans; 100 g small pasta; "
        "1000 ml vegetable stock",
    ),
    (
        "Chicken tikka masala",
        "Indian",
        "gf hp nf",
        50,
        4,
        520,
        "dinner curry",
        "600 g chicken thigh; 200 g yogurt; 400 g canned tomatoes; 200 ml cream; 2 tbsp garam masala; 3 clove garlic; "
        "20 g ginger; 1 pc onion",
    ),
    (
        "Chana masala",
        "Indian",
        "veg vgn gf df nf",
        35,
        4,
        320,
        "dinner curry",
        "800 g chickpeas; 400 g canned tomatoes; 1 pc onion; 2 tsp garam masala; 1 tsp cumin; 3 clove garlic; "
        "20 g ginger",
    ),
    (
        "Dal tadka",
        "Indian",
        "veg vgn gf df nf",
        40,
        4,
        280,
        "dinner curry",
        "250 g red lentils; 1 tsp turmeric; 1 tsp cumin seeds; 2 pc tomato; 3 clove garlic; 2 tbsp vegetable oil",
    ),
    (
        "Green curry with chicken",
        "Thai",
        "gf df nf",
        30,
        3,
        540,
        "dinner curry spicy",
        "400 g chicken thigh; 400 ml coconut milk; 3 tbsp green curry paste; 150 g thai eggplant; 1 tbsp fish sauce; "
        "10 pc thai basil leaves",
    ),
    (
        "Pad thai",
        "Thai",
        "df",
        30,
        2,
        610,
        "dinner noodles",
        "200 g rice noodles; 200 g shrimp; 2 pc egg; 100 g bean sprouts; 40 g roasted peanuts; 3 tbsp tamarind paste; "
        "2 tbsp fish sauce",
    ),
    (
        "Tom yum soup",
        "Thai",
        "gf df lc nf",
        25,
        3,
        190,
        "soup spicy",
        "300 g shrimp; 200 g mushrooms; 2 pc lemongrass; 4 pc kaffir lime leaves; 3 tbsp lime juice; "
        "2 tbsp fish sauce; 2 pc chili",
    ),
    (
        "Beef tacos",
        "Mexican",
        "df gf hp nf",
        25,
        4,
        480,
        "dinner",
        "500 g ground beef; 8 pc corn tortillas; 1 pc onion; 2 pc tomato; 1 pc avocado; 1 tbsp taco seasoning; "
        "50 g lettuce",
    ),
    (
        "Guacamole",
        "Mexican",
        "veg vgn gf df lc nf",
        10,
        4,
        160,
        "snack quick",
        "3 pc avocado; 1 pc lime; 0.5 pc red onion; 1 pc tomato; 10 g cilantro",
    ),
    (
        "Black bean burrito bowl",
        "Mexican",
        "veg vgn gf df nf",
        30,
        2,
        560,
        "lunch dinner",
        "200 g rice; 400 g black beans; 150 g corn; 1 pc avocado; 100 g salsa; 1 pc lime",
    ),
    (
        "Teriyaki salmon",
        "Japanese",
        "df hp nf",
        20,
        2,
        480,
        "dinner quick",
        "2 pc salmon fillet; 4 tbsp teriyaki sauce; 1 tbsp sesame seeds; 200 g rice; 150 g broccoli",
    ),
    (
        "Miso soup",
        "Japanese",
        "veg vgn df lc nf",
        10,
        2,
        80,
        "soup quick",
        "2 tbsp miso paste; 150 g tofu; 5 g wakame; 2 pc spring onion; 600 ml kombu dashi",
    ),
    (
        "Chicken katsu curry",
        "Japanese",
        "df nf",
        45,
        3,
        780,
        "dinner curry",
        "3 pc chicken breast; 100 g panko; 2 pc egg; 100 g japanese curry roux; 2 pc carrot; 2 pc potato; 1 pc onion; "
        "300 g rice",
    ),
    (
        "Bibimbap",
        "Korean",
        "df nf",
        40,
        2,
        620,
        "dinner lunch",
        "300 g rice; 200 g beef; 100 g spinach; 100 g bean sprouts; 1 pc carrot; 2 pc egg; 2 tbsp gochujang",
    ),
    (
        "Kimchi fried rice",
        "Korean",
        "df nf",
        15,
        2,
        490,
        "lunch quick leftovers",
        "400 g cooked rice; 200 g kimchi; 100 g bacon; 2 pc egg; 1 tbsp gochujang",
    ),
    (
        "Greek salad",
        "Greek",
        "veg gf lc nf",
        10,
        2,
        280,
        "lunch salad quick",
        "2 pc tomato; 1 pc cucumber; 150 g feta; 60 g kalamata olives; 0.5 pc red onion; 3 tbsp olive oil",
    ),
    (
        "Shakshuka",
        "Middle Eastern",
        "veg gf nf",
        30,
        2,
        340,
        "breakfast brunch",
        "4 pc egg; 400 g canned tomatoes; 1 pc red pepper; 1 pc onion; 1 tsp cumin; 1 tsp paprika; 50 g feta",
    ),
    (
        "Hummus",
        "Middle Eastern",
        "veg vgn gf df nf",
        10,
        6,
        180,
        "snack dip",
        "400 g chickpeas; 3 tbsp tahini; 1 pc lemon; 1 clove garlic; 3 tbsp olive oil",
    ),
    (
        "Overnight oats",
        "International",
        "veg",
        5,
        1,
        380,
        "breakfast quick",
        "50 g rolled oats; 150 ml milk; 100 g yogurt; 1 tbsp honey; 80 g blueberries; 15 g almonds",
    ),
    (
        "Banana pancakes",
        "American",
        "veg nf",
        20,
        2,
        450,
        "breakfast brunch",
        "2 pc banana; 2 pc egg; 120 g flour; 200 ml milk; 1 tsp baking powder; 1 tbsp maple syrup",
    ),
    (
        "Avocado toast with poached egg",
        "International",
        "veg df nf",
        10,
        1,
        390,
        "breakfast quick",
        "2 pc sourdough bread; 1 pc avocado; 2 pc egg; 0.5 pc lemon; 1 pinch chili flakes",
    ),
    (
        "Grilled chicken Caesar salad",
        "American",
        "hp nf lc",
        25,
        2,
        520,
        "lunch salad",
        "2 pc chicken breast; 1 pc romaine lettuce; 40 g parmesan; 60 g croutons; 4 tbsp caesar dressing",
    ),
    (
        "Lentil soup",
        "International",
        "veg vgn gf df nf",
        45,
        4,
        260,
        "soup lunch",
        "250 g green lentils; 2 pc carrot; 1 pc onion; 2 pc celery stalk; 1500 ml vegetable stock; 1 tsp cumin",
    ),
    (
        "Salmon poke bowl",
        "Hawaiian",
        "df hp nf",
        20,
        2,
        560,
        "lunch dinner",
        "300 g sashimi salmon; 300 g sushi rice; 1 pc avocado; 1 pc cucumber; 2 tbsp soy sauce; 1 tbsp sesame oil",
    ),
    (
        "Chocolate chip cookies",
        "American",
        "veg nf",
        30,
        24,
        120,
        "dessert snack baking",
        "225 g butter; 200 g brown sugar; 2 pc egg; 280 g flour; 300 g chocolate chips; 1 tsp baking soda",
    ),
]
DIETS = {
    "veg": "vegetarian",
    "vgn": "vegan",
    "gf": "gluten_free",
    "df": "dairy_free",
    "lc": "low_carb",
    "hp": "high_protein",
    "nf": "nut_free",
}
SEED_GROCERIES = [  # (list, name, quantity, unit, checked)
    ("Groceries", "Jasmine rice", 2, "kg", 0),
    ("Groceries", "Soy sauce", 1, "bottle", 0),
    ("Groceries", "Firm tofu", 2, "pc", 0),
    ("Groceries", "Spinach", 300, "g", 0),
    ("Groceries", "Chicken thighs", 600, "g", 0),
    ("Groceries", "Garlic", 1, "head", 0),
    ("Groceries", "Spring onion", 1, "bunch", 0),
    ("Groceries", "Greek yogurt", 2, "pc", 0),
    ("Groceries", "Bananas", 6, "pc", 0),
    ("Groceries", "Olive oil", 1, "bottle", 1),
    ("Groceries", "Spaghetti", 500, "g", 1),
    ("Groceries", "Tomatoes", 6, "pc", 1),
    ("Weekend party", "Sparkling water", 12, "bottle", 0),
    ("Weekend party", "Tortilla chips", 3, "bag", 0),
    ("Weekend party", "Avocados", 4, "pc", 0),
]


def next_number(conn: Connection, tbl: Table, prefix: str) -> int:
    """One above the highest ``<prefix>_NNN`` id another seeder already put in a shared table."""
    pk = next(iter(tbl.primary_key.columns))
    return (
        conn.execute(
            select(func.max(cast(func.substr(pk, len(prefix) + 2), Integer))).where(
                pk.like(f"{prefix}\\_%", escape="\\")
            )
        ).scalar()
        or 0
    ) + 1


def _stamp(day: dt.date, hm: str) -> str:
    return f"{day.isoformat()}T{hm}"


def _seatings(rng: random.Random, windows: list[list[str]]) -> list[str]:
    """The times a restaurant takes bookings: two dinner seatings, perhaps a lunch one, or brunch ones."""
    marks = [f"{h:02d}:{m:02d}" for h in range(7, 23) for m in (0, 30)]
    usable = [
        t
        for t in marks
        if any(_shift(f"2000-01-01T{a}", 30)[11:] <= t <= _shift(f"2000-01-01T{b}", -90)[11:] for a, b in windows)
    ]
    dinner = [t for t in usable if "17:00" <= t <= "20:30"]
    lunch = [t for t in usable if "11:30" <= t <= "13:30"]
    brunch = [t for t in usable if "09:00" <= t <= "11:00"]
    picked = rng.sample(dinner, min(2, len(dinner)))
    if lunch and (not dinner or rng.random() < 0.5):
        picked.append(rng.choice(lunch))
    if not dinner and brunch:
        picked += rng.sample(brunch, min(2, len(brunch)))
    return sorted(picked)


def city_counts(persona: Persona, cities: list[str], home: int, work: int, total: int) -> dict[str, int]:
    """The user's own cities get most places; travel cities share the rest."""
    mine = [persona.home_city] + ([persona.work_city] if persona.work_city != persona.home_city else [])
    counts = {persona.home_city: home + work} if len(mine) == 1 else {persona.home_city: home, persona.work_city: work}
    others = [c for c in cities if c not in counts]
    for i, city in enumerate(others):
        counts[city] = (total - sum(counts.values())) // (len(others) - i)
    return counts


@seeder
def seed_food(conn: Connection, rng: random.Random, persona: Persona) -> None:
    """~60 restaurants with menus and two weeks of seatings, the user's bookings and orders, recipes, groceries."""
    now = dt.datetime.fromisoformat(persona.now)
    today, minute = now.date(), now.strftime(DT_FMT)
    currency = conn.execute(select(payment_methods.c.currency).where(payment_methods.c.is_default == 1)).scalar()

    def price(usd: float) -> float:
        return menu_price(usd, str(currency))

    cities = sorted(set(conn.execute(select(world_places.c.city)).scalars()))
    existing = rows(
        conn.execute(
            select(world_places).where(world_places.c.category == "restaurant").order_by(world_places.c.place_id)
        )
    )
    place_no = next_number(conn, world_places, "place")
    pools = {c: list(names) for c, (names, _) in CUISINES.items()}
    for names in pools.values():
        rng.shuffle(names)
    new_places: list[dict[str, Any]] = []
    restaurants: list[dict[str, Any]] = []
    menu: list[dict[str, Any]] = []
    slots: list[dict[str, Any]] = []
    phones: list[dict[str, Any]] = []
    for city, count in city_counts(persona, cities, 20, 8, 60).items():
        sites = [p for p in existing if p["city"] == city]
        for k in range(count):
            local = LOCAL_CUISINES.get(city, ())
            cuisine = (
                "Cafe"
                if city == persona.home_city and k == 0
                else (rng.choice(local) if local and rng.random() < 0.5 else rng.choice(sorted(CUISINES)))
            )
            while not pools[cuisine]:
                cuisine = rng.choice(sorted(CUISINES))
            windows = HOURS.get(cuisine) or rng.choice(DEFAULT_HOURS)
            hours: dict[str, Any] = {
                "windows": windows,
                "closed": ["mon"] if cuisine != "Cafe" and rng.random() < 0.3 else [],
            }
            if sites:
                site = sites.pop(0)
            else:
                lat0, lon0 = CITY_CENTRES.get(city, (0.0, 0.0))
                site = {
                    "place_id": f"place_{place_no:03d}",
                    "name": pools[cuisine].pop(),
                    "category": "restaurant",
                    "address": f"{rng.randint(1, 300)} {rng.choice(STREETS)}",
                    "city": city,
                    "lat": round(lat0 + rng.uniform(-0.05, 0.05), 5),
                    "lon": round(lon0 + rng.uniform(-0.05, 0.05), 5),
                    "rating": round(rng.uniform(3.4, 4.9), 1),
                    "phone": business_phone(city, rng),
                    "open_now": int(_open_at(hours, minute)),
                }
                place_no += 1
                new_places.append(site)
            rid = f"rest_{len(restaurants) + 1:03d}"
            chosen = rng.sample(range(len(CUISINES[cuisine][1])), DISHES_PER_MENU)
            dishes = [d for i, d in enumerate(CUISINES[cuisine][1]) if i in chosen]
            halal = rng.random() < HALAL_CUISINES.get(cuisine, 0.0)
            tags = [set(d[3].split()) for d in dishes]
            diet = [
                flag
                for flag, ok in (
                    ("vegetarian", sum(bool(t & {"v", "vg"}) for t in tags) >= 2),
                    ("vegan", sum("vg" in t for t in tags) >= 2),
                    ("halal", halal),
                    ("gluten_free", sum("gf" in t for t in tags) >= 3),
                    ("nut_free", sum("n" not in t for t in tags) >= 5 and rng.random() < 0.6),
                )
                if ok
            ]
            level = rng.choices([1, 2, 3, 4], [3, 5, 3, 1])[0]
            online = int(cuisine != "Cafe" and rng.random() < 0.75)
            delivers = int((k == 0 and city == persona.home_city) or rng.random() < 0.65)
            restaurants.append(
                {
                    "restaurant_id": rid,
                    "name": site["name"],
                    "cuisine": cuisine,
                    "place_id": site["place_id"],
                    "price_level": level,
                    "rating": site["rating"],
                    "dietary_json": json.dumps(diet),
                    "online_booking": online,
                    "delivery": delivers,
                    "delivery_fee": price(rng.choice([0.99, 1.49, 1.99])),
                    "min_order": price(rng.choice([5, 8, 12])),
                    "prep_min": rng.choice([10, 15, 20, 25]),
                    "max_party": rng.choice([6, 8, 10, 12, 20]),
                    "hours_json": json.dumps(hours),
                    "phone": site["phone"],
                }
            )
            scale = (0.8, 1.0, 1.3, 1.8)[level - 1]
            for name, category, usd, flags in dishes:
                marks = set(flags.split())
                item_diet = [
                    d
                    for d, ok in (
                        ("vegetarian", bool(marks & {"v", "vg"})),
                        ("vegan", "vg" in marks),
                        ("halal", halal),
                        ("gluten_free", "gf" in marks),
                        ("nut_free", "n" not in marks),
                    )
                    if ok
                ]
                menu.append(
                    {
                        "menu_item_id": f"menu_{len(menu) + 1:03d}",
                        "restaurant_id": rid,
                        "name": name,
                        "category": category,
                        "price": price(usd * scale),
                        "available": int(rng.random() > 0.04),
                        "dietary_json": json.dumps(item_diet),
                    }
                )
            if not online:
                phones.append(
                    {
                        "phone": normalise_phone(site["phone"]),
                        "place_id": site["place_id"],
                        "name": site["name"],
                        "handler": "booking",
                        "rules_json": json.dumps(
                            {
                                "open": windows[0][0],
                                "close": windows[-1][1],
                                "slots": _seatings(rng, windows),
                                "full": [],
                            }
                        ),
                    }
                )
                continue
            times = _seatings(rng, windows)
            seats = rng.choice([12, 16, 20, 24, 30])
            for offset in range(14):
                day = today + dt.timedelta(days=offset)
                if WEEKDAYS[day.weekday()] in hours["closed"]:
                    continue
                busy = (0.5, 1.05) if day.weekday() in (4, 5) else (0.1, 0.8)
                for t in times:
                    if _stamp(day, t) > minute:
                        left = max(0, seats - round(seats * rng.uniform(*busy)))
                        slots.append(
                            {
                                "slot_id": len(slots) + 1,
                                "restaurant_id": rid,
                                "slot_dt": _stamp(day, t),
                                "capacity_left": left,
                            }
                        )
    conn.execute(insert(world_places), new_places)
    conn.execute(insert(world_restaurants), restaurants)
    conn.execute(insert(world_menu_items), menu)
    conn.execute(insert(world_phone_services).prefix_with("OR IGNORE"), phones)
    _seed_reservations(conn, rng, persona, restaurants, slots)
    conn.execute(insert(world_table_slots), slots)
    _seed_orders(conn, rng, persona, restaurants, menu)
    _seed_recipes(conn, rng, persona)


def _seed_reservations(
    conn: Connection,
    rng: random.Random,
    persona: Persona,
    restaurants: list[dict[str, Any]],
    slots: list[dict[str, Any]],
) -> None:
    """Past dinners out, one cancelled, two upcoming online bookings and one made by phone."""
    today, stamp = dt.date.fromisoformat(persona.now[:10]), persona.now
    profile = {"name": persona.name, "phone": normalise_phone(persona.phone)}
    home = {r["place_id"] for r in restaurants} & set(
        conn.execute(select(world_places.c.place_id).where(world_places.c.city == persona.home_city)).scalars()
    )
    local = [r for r in restaurants if r["place_id"] in home]
    online = [r for r in local if r["online_booking"]]
    booked: list[dict[str, Any]] = []
    for back in sorted(rng.sample(range(5, 90), 5), reverse=True):
        when = _stamp(today - dt.timedelta(days=back), rng.choice(["18:30", "19:00", "19:30"]))
        r = rng.choice([r for r in local if _open_at(json.loads(r["hours_json"]), when)])
        booked.append(
            {
                "restaurant_id": r["restaurant_id"],
                "datetime": when,
                "party_size": rng.choice([2, 2, 4, 6]),
                "status": "cancelled" if len(booked) == 2 else "completed",
                "source": "api",
                "special_requests": None,
            }
        )
    for days, party, note in ((2, 2, None), (8, 4, "Birthday dinner, a quiet table please")):
        day = (today + dt.timedelta(days=days)).isoformat()
        slot = next(
            s
            for s in slots
            if s["slot_dt"].startswith(day)
            and s["capacity_left"] >= party
            and s["restaurant_id"] in {r["restaurant_id"] for r in online}
            and s["restaurant_id"] not in {b["restaurant_id"] for b in booked[5:]}
        )
        slot["capacity_left"] -= party
        booked.append(
            {
                "restaurant_id": slot["restaurant_id"],
                "datetime": slot["slot_dt"],
                "party_size": party,
                "status": "confirmed",
                "source": "api",
                "special_requests": note,
            }
        )
    evening = _stamp(today + dt.timedelta(days=5), "19:00")
    phone_only = [r for r in local if not r["online_booking"] and _open_at(json.loads(r["hours_json"]), evening)]
    if phone_only:
        booked.append(
            {
                "restaurant_id": phone_only[0]["restaurant_id"],
                "datetime": evening,
                "party_size": 3,
                "status": "confirmed",
                "source": "voice_agent",
                "special_requests": None,
            }
        )
    booked.sort(key=lambda b: b["datetime"])
    conn.execute(
        insert(restaurant_reservations),
        [
            {
                "reservation_id": f"resv_{i:03d}",
                **b,
                **profile,
                "seating": None,
                "cancel_reason": None,
                "created_at": stamp,
                "updated_at": stamp,
            }
            for i, b in enumerate(booked, start=1)
        ],
    )


def _seed_orders(
    conn: Connection,
    rng: random.Random,
    persona: Persona,
    restaurants: list[dict[str, Any]],
    menu: list[dict[str, Any]],
) -> None:
    """Three months of deliveries from a few favourite places (paid, some refunded) and one on its way now."""
    now = dt.datetime.fromisoformat(persona.now)
    addr = rows(conn.execute(select(addresses).order_by(addresses.c.address_id)))
    method = conn.execute(select(payment_methods).where(payment_methods.c.is_default == 1)).one()
    city_of = dict(conn.execute(select(world_places.c.place_id, world_places.c.city)).all())
    by_city = {a["city"]: a for a in reversed(addr)}
    delivering = [r for r in restaurants if r["delivery"] and city_of[r["place_id"]] in by_city]
    favourites = delivering[:1] + rng.sample(delivering[1:], min(5, len(delivering) - 1))
    tips = [0.0, 0.0, menu_price(1, method.currency), menu_price(2, method.currency)]
    dishes = {r["restaurant_id"]: [m for m in menu if m["restaurant_id"] == r["restaurant_id"]] for r in favourites}
    orders: list[dict[str, Any]] = []
    for i in range(36):
        r = favourites[0] if i == 35 else rng.choice(favourites)
        hours = json.loads(r["hours_json"])
        if i == 35:
            placed = now - dt.timedelta(minutes=25)
        else:
            while True:  # a day and a mealtime the restaurant is open
                day = now.date() - dt.timedelta(days=rng.randint(1, 90))
                placed = dt.datetime.combine(day, dt.time(rng.choice([8, 12, 13, 18, 19, 20]), rng.choice([0, 15, 30])))
                if _open_at(hours, placed.strftime(DT_FMT)):
                    break
        lines = rng.sample(dishes[r["restaurant_id"]], rng.randint(1, 3))
        items = [
            {
                "menu_item_id": m["menu_item_id"],
                "name": m["name"],
                "quantity": rng.choice([1, 1, 2]),
                "unit_price": m["price"],
            }
            for m in lines
        ]
        while (subtotal := round(sum(x["quantity"] * x["unit_price"] for x in items), 2)) < r["min_order"]:
            items[0]["quantity"] += 1
        tip = tips[i % len(tips)]
        total = round(subtotal + r["delivery_fee"] + tip, 2)
        at = placed.strftime(DT_FMT)
        orders.append(
            {
                "restaurant_id": r["restaurant_id"],
                "items_json": json.dumps(items, ensure_ascii=False),
                "address_id": by_city[city_of[r["place_id"]]]["address_id"],
                "payment_method_id": method.method_id,
                "subtotal": subtotal,
                "delivery_fee": r["delivery_fee"],
                "tip": tip,
                "total": total,
                "currency": method.currency,
                "utensils": int(rng.random() < 0.3),
                "status": "on_the_way" if i == 35 else ("cancelled" if rng.random() < 0.08 else "delivered"),
                "scheduled_at": None,
                "placed_at": at,
                "eta": _shift(at, r["prep_min"] + COURIER_MIN),
                "reordered_from": None,
                "created_at": at + ":00",
                "updated_at": at + ":00",
            }
        )
    orders.sort(key=lambda o: o["placed_at"])
    txn_no = next_number(conn, transactions, "txn")
    txns = []
    for i, o in enumerate(orders, start=1):
        o["order_id"] = f"forder_{i:03d}"
        txns.append(
            {
                "txn_id": f"txn_{txn_no + i - 1:03d}",
                "method_id": o["payment_method_id"],
                "amount": -o["total"],
                "currency": o["currency"],
                "merchant": next(r["name"] for r in favourites if r["restaurant_id"] == o["restaurant_id"]),
                "category": "dining",
                "ref_id": o["order_id"],
                "ts": o["placed_at"] + ":00",
                "status": "refunded" if o["status"] == "cancelled" else "posted",
                "created_at": o["created_at"],
                "updated_at": o["updated_at"],
            }
        )
    conn.execute(insert(food_orders), orders)
    conn.execute(insert(transactions), txns)


def _seed_recipes(conn: Connection, rng: random.Random, persona: Persona) -> None:
    """The recipe catalogue, a few saved recipes, two grocery lists and this week's meal plan."""
    today, stamp = dt.date.fromisoformat(persona.now[:10]), persona.now
    recipes: list[dict[str, Any]] = []
    for i, (title, cuisine, diets, minutes, servings, kcal, tags, ingredients) in enumerate(RECIPES, start=1):
        parts = [part.split(" ", 2) for part in ingredients.split("; ")]
        recipes.append(
            {
                "recipe_id": f"recipe_{i:03d}",
                "title": title,
                "cuisine": cuisine,
                "diet_json": json.dumps([DIETS[d] for d in diets.split()]),
                "tags_json": json.dumps(tags.split() + (["quick"] if minutes <= 20 and "quick" not in tags else [])),
                "time_min": minutes,
                "servings": servings,
                "calories": kcal,
                "ingredients_json": json.dumps([{"name": n, "quantity": float(q), "unit": u} for q, u, n in parts]),
            }
        )
    conn.execute(insert(world_recipes), recipes)
    ids = [r["recipe_id"] for r in recipes]
    picks = rng.sample(ids, 6)
    conn.execute(
        insert(saved_recipes),
        [
            {
                "recipe_id": rid,
                "collection": ("Saved", "Saved", "Saved", "Weeknight", "Weeknight", "Family favourites")[i],
                "created_at": stamp,
                "updated_at": stamp,
            }
            for i, rid in enumerate(picks)
        ],
    )
    conn.execute(
        insert(grocery_items),
        [
            {
                "item_id": f"grocery_{i:03d}",
                "list_name": lst,
                "name": name,
                "quantity": float(qty),
                "unit": unit,
                "checked": checked,
                "from_recipe_id": None,
                "created_at": stamp,
                "updated_at": stamp,
            }
            for i, (lst, name, qty, unit, checked) in enumerate(SEED_GROCERIES, start=1)
        ],
    )
    dinners = [r["recipe_id"] for r in recipes if "dinner" in r["tags_json"]]
    plan = [(today + dt.timedelta(days=d), "dinner") for d in range(-3, 5)] + [(today + dt.timedelta(days=1), "lunch")]
    conn.execute(
        insert(meal_plans),
        [
            {
                "date": day.isoformat(),
                "meal": meal,
                "recipe_id": rng.choice(dinners),
                "servings": 2,
                "created_at": stamp,
                "updated_at": stamp,
            }
            for day, meal in plan
            if rng.random() < 0.85
        ],
    )
