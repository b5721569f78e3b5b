#!/usr/bin/env python3
"""Convert the USDA National Nutrient Database for Standard Reference (SR21),
as shipped by Debian's `gourmand` package, into SampleData/ingredients.tsv.

Usage:
    apt-get download gourmand && dpkg -x gourmand_*_all.deb /tmp/gourmand
    python3 Scripts/convert-usda.py /tmp/gourmand/usr/lib/python3/dist-packages/gourmand/data

With no argument the script reads the data directory of an installed gourmand
package. The output is deterministic: rows are sorted by NDB number.

Columns: name, usdaNumber, usdaDescription, foodGroup, kcal, proteinG, fatG,
carbohydrateG, fiberG, sugarG, sodiumMg (nutrients per 100 g; empty when unknown).
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.normpath(os.path.join(HERE, "..", "SampleData"))
DEFAULT_DATA = "/usr/lib/python3/dist-packages/gourmand/data"

# Food group names of USDA SR (its FD_GROUP file), keyed by FdGrp_Cd. gourmand
# does not ship FD_GROUP.txt, so the table is carried here.
FOOD_GROUPS = {
    "0100": "Dairy and Egg Products",
    "0200": "Spices and Herbs",
    "0300": "Baby Foods",
    "0400": "Fats and Oils",
    "0500": "Poultry Products",
    "0600": "Soups, Sauces, and Gravies",
    "0700": "Sausages and Luncheon Meats",
    "0800": "Breakfast Cereals",
    "0900": "Fruits and Fruit Juices",
    "1000": "Pork Products",
    "1100": "Vegetables and Vegetable Products",
    "1200": "Nut and Seed Products",
    "1300": "Beef Products",
    "1400": "Beverages",
    "1500": "Finfish and Shellfish Products",
    "1600": "Legumes and Legume Products",
    "1700": "Lamb, Veal, and Game Products",
    "1800": "Baked Products",
    "1900": "Sweets",
    "2000": "Cereal Grains and Pasta",
    "2100": "Fast Foods",
    "2200": "Meals, Entrees, and Sidedishes",
    "2500": "Snacks",
    "3500": "Ethnic Foods",
}

# ABBREV.txt field positions (SR "abbreviated" file, per 100 g edible portion).
ABBREV_FIELDS = {
    "kcal": 3, "proteinG": 4, "fatG": 5, "carbohydrateG": 7,
    "fiberG": 8, "sugarG": 9, "sodiumMg": 15,
}
NUTRIENTS = ["kcal", "proteinG", "fatG", "carbohydrateG", "fiberG", "sugarG", "sodiumMg"]

# Short common names (lower-case) for the foods the sample recipes use, and for
# a few more that a cook would look for. Each maps to exactly one NDB number;
# the comment is the USDA description it stands for.
CURATED = [
    ("butter", "01001"),  # Butter, salted
    ("unsalted butter", "01145"),  # Butter, without salt
    ("ghee", "01003"),  # Butter oil, anhydrous
    ("egg", "01123"),  # Egg, whole, raw, fresh
    ("egg white", "01124"),  # Egg, white, raw, fresh
    ("egg yolk", "01125"),  # Egg, yolk, raw, fresh
    ("milk", "01077"),  # Milk, whole, 3.25% milkfat
    ("heavy cream", "01053"),  # Cream, fluid, heavy whipping
    ("sour cream", "01056"),  # Cream, sour, cultured
    ("yogurt", "01116"),  # Yogurt, plain, whole milk, 8 grams protein per 8 ounce
    ("buttermilk", "01088"),  # Milk, buttermilk, fluid, cultured, lowfat
    ("condensed milk", "01095"),  # Milk, canned, condensed, sweetened
    ("parmesan", "01033"),  # Cheese, parmesan, hard
    ("mozzarella", "01026"),  # Cheese, mozzarella, whole milk
    ("feta", "01019"),  # Cheese, feta
    ("cheddar", "01009"),  # Cheese, cheddar
    ("gruyère", "01023"),  # Cheese, gruyere
    ("ricotta", "01036"),  # Cheese, ricotta, whole milk
    ("cream cheese", "01017"),  # Cheese, cream
    ("goat cheese", "01159"),  # Cheese, goat, soft type
    ("blue cheese", "01004"),  # Cheese, blue
    ("swiss cheese", "01040"),  # Cheese, swiss
    ("brie", "01006"),  # Cheese, brie
    ("salt", "02047"),  # Salt, table
    ("black pepper", "02030"),  # Spices, pepper, black
    ("white pepper", "02032"),  # Spices, pepper, white
    ("cumin", "02014"),  # Spices, cumin seed
    ("coriander seed", "02013"),  # Spices, coriander seed
    ("paprika", "02028"),  # Spices, paprika
    ("cinnamon", "02010"),  # Spices, cinnamon, ground
    ("nutmeg", "02025"),  # Spices, nutmeg, ground
    ("turmeric", "02043"),  # Spices, turmeric, ground
    ("chili powder", "02009"),  # Spices, chili powder
    ("cayenne pepper", "02031"),  # Spices, pepper, red or cayenne
    ("ground ginger", "02021"),  # Spices, ginger, ground
    ("cloves", "02011"),  # Spices, cloves, ground
    ("cardamom", "02006"),  # Spices, cardamom
    ("saffron", "02037"),  # Spices, saffron
    ("dried oregano", "02027"),  # Spices, oregano, dried
    ("dried thyme", "02042"),  # Spices, thyme, dried
    ("basil", "02044"),  # Basil, fresh
    ("dill", "02045"),  # Dill weed, fresh
    ("rosemary", "02063"),  # Rosemary, fresh
    ("mint", "02065"),  # Spearmint, fresh
    ("sage", "02038"),  # Spices, sage, ground
    ("bay leaf", "02004"),  # Spices, bay leaf
    ("fennel seed", "02018"),  # Spices, fennel seed
    ("mustard seed", "02024"),  # Spices, mustard seed, yellow
    ("curry powder", "02015"),  # Spices, curry powder
    ("allspice", "02001"),  # Spices, allspice, ground
    ("caraway seed", "02005"),  # Spices, caraway seed
    ("poppy seed", "02033"),  # Spices, poppy seed
    ("tarragon", "02041"),  # Spices, tarragon, dried
    ("anise seed", "02002"),  # Spices, anise seed
    ("fenugreek", "02019"),  # Spices, fenugreek seed
    ("garlic powder", "02020"),  # Spices, garlic powder
    ("marjoram", "02023"),  # Spices, marjoram, dried
    ("vanilla extract", "02050"),  # Vanilla extract
    ("cider vinegar", "02048"),  # Vinegar, cider
    ("white vinegar", "02053"),  # Vinegar, distilled
    ("red wine vinegar", "02068"),  # Vinegar, red wine
    ("balsamic vinegar", "02069"),  # Vinegar, balsamic
    ("capers", "02054"),  # Capers, canned
    ("horseradish", "02055"),  # Horseradish, prepared
    ("parsley", "11297"),  # Parsley, raw
    ("cilantro", "11165"),  # Coriander (cilantro) leaves, raw
    ("chives", "11156"),  # Chives, raw
    ("sesame seeds", "12023"),  # Seeds, sesame seeds, whole, dried
    ("tahini", "12166"),  # Seeds, sesame butter, tahini, from roasted and toasted kernels (most common type)
    ("olive oil", "04053"),  # Oil, olive, salad or cooking
    ("vegetable oil", "04582"),  # Oil, vegetable, canola
    ("sesame oil", "04058"),  # Oil, sesame, salad or cooking
    ("peanut oil", "04042"),  # Oil, peanut, salad or cooking
    ("coconut oil", "04047"),  # Vegetable oil, coconut
    ("lard", "04002"),  # Lard
    ("mayonnaise", "04018"),  # Salad dressing, mayonnaise type, regular, with salt
    ("margarine", "04073"),  # Margarine, regular, hard, soybean (hydrogenated)
    ("chicken breast", "05062"),  # Chicken, broilers or fryers, breast, meat only, raw
    ("chicken thigh", "05096"),  # Chicken, broilers or fryers, thigh, meat only, raw
    ("chicken wings", "05100"),  # Chicken, broilers or fryers, wing, meat and skin, raw
    ("duck", "05139"),  # Duck, domesticated, meat and skin, raw
    ("turkey", "05165"),  # Turkey, all classes, meat and skin, raw
    ("chicken stock", "06172"),  # Soup, stock, chicken, home-prepared
    ("beef stock", "06170"),  # Soup, stock, beef, home-prepared
    ("fish stock", "06174"),  # Soup, stock, fish, home-prepared
    ("soy sauce", "16123"),  # Soy sauce made from soy and wheat (shoyu)
    ("tamari", "16124"),  # Soy sauce made from soy (tamari)
    ("teriyaki sauce", "06112"),  # Sauce, teriyaki, ready-to-serve
    ("barbecue sauce", "06150"),  # Sauce, barbecue
    ("salsa", "06164"),  # Sauce, salsa, ready-to-serve
    ("hot sauce", "06168"),  # Sauce, ready-to-serve, pepper or hot
    ("hoisin sauce", "06175"),  # Sauce, hoisin, ready-to-serve
    ("worcestershire sauce", "06971"),  # Sauce, worcestershire
    ("tomato paste", "11887"),  # Tomato products, canned, paste, with salt added
    ("tomato sauce", "11549"),  # Tomato products, canned, sauce
    ("canned tomatoes", "11531"),  # Tomatoes, red, ripe, canned, packed in tomato juice
    ("tomato", "11529"),  # Tomatoes, red, ripe, raw, year round average
    ("sunflower oil", "04060"),  # Oil, vegetable, sunflower, linoleic (less than 60%)
    ("fish sauce", "06179"),  # Sauce, fish, ready-to-serve
    ("oyster sauce", "06176"),  # Sauce, oyster, ready-to-serve
    ("ground turkey", "05305"),  # Poultry food products, ground turkey, raw
    ("bacon", "10123"),  # Pork, cured, bacon, raw
    ("chorizo", "07019"),  # Chorizo, pork and beef
    ("ham", "07029"),  # Ham, sliced, regular (approximately 11% fat)
    ("salami", "07071"),  # Salami, dry or hard, pork
    ("pepperoni", "07057"),  # Pepperoni, pork, beef
    ("bratwurst", "07013"),  # Bratwurst, pork, cooked
    ("kielbasa", "07934"),  # Kielbasa, Polish, turkey and beef, smoked
    ("italian sausage", "07036"),  # Sausage, Italian, pork, raw
    ("apple", "09003"),  # Apples, raw, with skin
    ("banana", "09040"),  # Bananas, raw
    ("lemon", "09150"),  # Lemons, raw, without peel
    ("lemon juice", "09152"),  # Lemon juice, raw
    ("lemon zest", "09156"),  # Lemon peel, raw
    ("lime", "09159"),  # Limes, raw
    ("lime juice", "09160"),  # Lime juice, raw
    ("orange", "09200"),  # Oranges, raw, all commercial varieties
    ("orange juice", "09206"),  # Orange juice, raw
    ("orange zest", "09216"),  # Orange peel, raw
    ("strawberries", "09316"),  # Strawberries, raw
    ("blueberries", "09050"),  # Blueberries, raw
    ("raspberries", "09302"),  # Raspberries, raw
    ("mango", "09176"),  # Mangos, raw
    ("pineapple", "09266"),  # Pineapple, raw, all varieties
    ("pear", "09252"),  # Pears, raw
    ("peach", "09236"),  # Peaches, raw
    ("cherries", "09070"),  # Cherries, sweet, raw
    ("sour cherries", "09063"),  # Cherries, sour, red, raw
    ("raisins", "09298"),  # Raisins, seedless
    ("dates", "09421"),  # Dates, medjool
    ("figs", "09089"),  # Figs, raw
    ("dried figs", "09094"),  # Figs, dried, uncooked
    ("apricot", "09021"),  # Apricots, raw
    ("dried apricots", "09032"),  # Apricots, dried, sulfured, uncooked
    ("coconut", "12104"),  # Nuts, coconut meat, raw
    ("coconut milk", "12117"),  # Nuts, coconut milk, raw (liquid expressed from grated meat and water)
    ("avocado", "09037"),  # Avocados, raw, all commercial varieties
    ("pomegranate", "09286"),  # Pomegranates, raw
    ("plum", "09279"),  # Plums, raw
    ("grapes", "09132"),  # Grapes, red or green (European type, such as Thompson seedless), raw
    ("cranberries", "09078"),  # Cranberries, raw
    ("dried cranberries", "09079"),  # Cranberries, dried, sweetened
    ("passion fruit", "09231"),  # Passion-fruit, (granadilla), purple, raw
    ("papaya", "09226"),  # Papayas, raw
    ("guava", "09139"),  # Guavas, common, raw
    ("watermelon", "09326"),  # Watermelon, raw
    ("rhubarb", "09307"),  # Rhubarb, raw
    ("tamarind", "09322"),  # Tamarinds, raw
    ("prunes", "09291"),  # Plums, dried (prunes), uncooked
    ("plantain", "09277"),  # Plantains, raw
    ("quince", "09296"),  # Quinces, raw
    ("lychee", "09164"),  # Litchis, raw
    ("kiwi", "09148"),  # Kiwi fruit, (chinese gooseberries), fresh, raw
    ("melon", "09181"),  # Melons, cantaloupe, raw
    ("blackberries", "09042"),  # Blackberries, raw
    ("pork shoulder", "10070"),  # Pork, fresh, shoulder, whole, separable lean and fat, raw
    ("pork belly", "10005"),  # Pork, fresh, belly, raw
    ("pork loin", "10020"),  # Pork, fresh, loin, whole, separable lean and fat, raw
    ("pork chop", "10036"),  # Pork, fresh, loin, center loin (chops), bone-in, separable lean and fat, raw
    ("ground pork", "10219"),  # Pork, fresh, ground, raw
    ("pork ribs", "10088"),  # Pork, fresh, spareribs, separable lean and fat, raw
    ("pork tenderloin", "10060"),  # Pork, fresh, loin, tenderloin, separable lean only, raw
    ("onion", "11282"),  # Onions, raw
    ("garlic", "11215"),  # Garlic, raw
    ("shallot", "11677"),  # Shallots, raw
    ("scallion", "11291"),  # Onions, spring or scallions (includes tops and bulb), raw
    ("leek", "11246"),  # Leeks, (bulb and lower leaf-portion), raw
    ("carrot", "11124"),  # Carrots, raw
    ("celery", "11143"),  # Celery, raw
    ("sweet potato", "11507"),  # Sweet potato, raw, unprepared
    ("red bell pepper", "11821"),  # Peppers, sweet, red, raw
    ("green bell pepper", "11333"),  # Peppers, sweet, green, raw
    ("jalapeño pepper", "11979"),  # Peppers, jalapeno, raw
    ("chili pepper", "11819"),  # Peppers, hot chili, red, raw
    ("green chili", "11670"),  # Peppers, hot chili, green, raw
    ("cucumber", "11205"),  # Cucumber, with peel, raw
    ("zucchini", "11477"),  # Squash, summer, zucchini, includes skin, raw
    ("eggplant", "11209"),  # Eggplant, raw
    ("spinach", "11457"),  # Spinach, raw
    ("kale", "11233"),  # Kale, raw
    ("cabbage", "11109"),  # Cabbage, raw
    ("red cabbage", "11112"),  # Cabbage, red, raw
    ("napa cabbage", "11119"),  # Cabbage, chinese (pe-tsai), raw
    ("bok choy", "11116"),  # Cabbage, chinese (pak-choi), raw
    ("broccoli", "11090"),  # Broccoli, raw
    ("cauliflower", "11135"),  # Cauliflower, raw
    ("brussels sprouts", "11098"),  # Brussels sprouts, raw
    ("green beans", "11052"),  # Beans, snap, green, raw
    ("peas", "11304"),  # Peas, green, raw
    ("corn", "11167"),  # Corn, sweet, yellow, raw
    ("mushrooms", "11260"),  # Mushrooms, white, raw
    ("dried shiitake", "11268"),  # Mushrooms, shiitake, dried
    ("asparagus", "11011"),  # Asparagus, raw
    ("beet", "11080"),  # Beets, raw
    ("radish", "11429"),  # Radishes, raw
    ("daikon", "11430"),  # Radishes, oriental, raw
    ("turnip", "11564"),  # Turnips, raw
    ("parsnip", "11298"),  # Parsnips, raw
    ("pumpkin", "11422"),  # Pumpkin, raw
    ("butternut squash", "11485"),  # Squash, winter, butternut, raw
    ("artichoke", "11007"),  # Artichokes, (globe or french), raw
    ("fennel bulb", "11957"),  # Fennel, bulb, raw
    ("lettuce", "11250"),  # Lettuce, butterhead (includes boston and bibb types), raw
    ("romaine lettuce", "11251"),  # Lettuce, cos or romaine, raw
    ("arugula", "11959"),  # Arugula, raw
    ("watercress", "11591"),  # Watercress, raw
    ("okra", "11278"),  # Okra, raw
    ("bean sprouts", "11043"),  # Mung beans, mature seeds, sprouted, raw
    ("bamboo shoots", "11028"),  # Bamboo shoots, canned, drained solids
    ("water chestnuts", "11590"),  # Waterchestnuts, chinese, canned, solids and liquids
    ("ginger", "11216"),  # Ginger root, raw
    ("lemongrass", "11972"),  # Lemon grass (citronella), raw
    ("nori", "11446"),  # Seaweed, laver, raw
    ("wakame", "11669"),  # Seaweed, wakame, raw
    ("kombu", "11445"),  # Seaweed, kelp, raw
    ("sauerkraut", "11439"),  # Sauerkraut, canned, solids and liquids
    ("pickles", "11947"),  # Pickles, cucumber, dill, low sodium
    ("olives", "09193"),  # Olives, ripe, canned (small-extra large)
    ("cassava", "11134"),  # Cassava, raw
    ("celeriac", "11141"),  # Celeriac, raw
    ("swiss chard", "11147"),  # Chard, swiss, raw
    ("collard greens", "11161"),  # Collards, raw
    ("endive", "11213"),  # Endive, raw
    ("taro", "11518"),  # Taro, raw
    ("lotus root", "11254"),  # Lotus root, raw
    ("chayote", "11149"),  # Chayote, fruit, raw
    ("tomatillo", "11954"),  # Tomatillos, raw
    ("sun-dried tomatoes", "11955"),  # Tomatoes, sun-dried
    ("almonds", "12061"),  # Nuts, almonds
    ("walnuts", "12155"),  # Nuts, walnuts, english
    ("pine nuts", "12149"),  # Nuts, pine nuts, pinyon, dried
    ("pistachios", "12151"),  # Nuts, pistachio nuts, raw
    ("hazelnuts", "12120"),  # Nuts, hazelnuts or filberts
    ("cashews", "12087"),  # Nuts, cashew nuts, raw
    ("pecans", "12142"),  # Nuts, pecans
    ("chestnuts", "12167"),  # Nuts, chestnuts, european, roasted
    ("macadamia nuts", "12131"),  # Nuts, macadamia nuts, raw
    ("pumpkin seeds", "12014"),  # Seeds, pumpkin and squash seed kernels, dried
    ("sunflower seeds", "12036"),  # Seeds, sunflower seed kernels, dried
    ("flaxseed", "12220"),  # Seeds, flaxseed
    ("almond flour", "12062"),  # Nuts, almonds, blanched
    ("peanuts", "16087"),  # Peanuts, all types, raw
    ("peanut butter", "16098"),  # Peanut butter, smooth style, with salt
    ("rice", "20444"),  # Rice, white, long-grain, regular, raw, unenriched
    ("brown rice", "20036"),  # Rice, brown, long-grain, raw
    ("glutinous rice", "20054"),  # Rice, white, glutinous, raw
    ("short-grain rice", "20452"),  # Rice, white, short-grain, raw, unenriched
    ("arborio rice", "20450"),  # Rice, white, medium-grain, raw, unenriched
    ("basmati rice", "20446"),  # Rice, white, long-grain, parboiled, unenriched, dry
    ("wild rice", "20088"),  # Wild rice, raw
    ("spaghetti", "20420"),  # Spaghetti, dry, unenriched
    ("pasta", "20499"),  # Macaroni, dry, unenriched
    ("fresh pasta", "20093"),  # Pasta, fresh-refrigerated, plain, as purchased
    ("egg noodles", "20409"),  # Noodles, egg, dry, unenriched
    ("rice noodles", "20133"),  # Rice noodles, dry
    ("soba noodles", "20114"),  # Noodles, japanese, soba, dry
    ("glass noodles", "16082"),  # Noodles, chinese, cellophane or long rice (mung beans), dehydrated
    ("couscous", "20028"),  # Couscous, dry
    ("bulgur", "20012"),  # Bulgur, dry
    ("quinoa", "20035"),  # Quinoa, uncooked
    ("oats", "20038"),  # Oats
    ("cornmeal", "20322"),  # Cornmeal, degermed, enriched, white
    ("masa harina", "20017"),  # Corn flour, masa, enriched, white
    ("cornstarch", "20027"),  # Cornstarch
    ("semolina", "20466"),  # Semolina, unenriched
    ("barley", "20005"),  # Barley, pearled, raw
    ("buckwheat flour", "20011"),  # Buckwheat flour, whole-groat
    ("millet", "20031"),  # Millet, raw
    ("tapioca", "20068"),  # Tapioca, pearl, dry
    ("all-purpose flour", "20481"),  # Wheat flour, white, all-purpose, unenriched
    ("whole wheat flour", "20080"),  # Wheat flour, whole-grain
    ("bread flour", "20129"),  # Wheat flours, bread, unenriched
    ("rice flour", "20061"),  # Rice flour, white
    ("baking powder", "18370"),  # Leavening agents, baking powder, double-acting, straight phosphate
    ("baking soda", "18372"),  # Leavening agents, baking soda
    ("yeast", "18375"),  # Leavening agents, yeast, baker's, active dry
    ("cream of tartar", "18373"),  # Leavening agents, cream of tartar
    ("ground beef", "23567"),  # Beef, ground, 85% lean meat / 15% fat, raw
    ("veal", "17094"),  # Veal, leg (top round), separable lean and fat, raw
    ("lamb shoulder", "17035"),  # Lamb, domestic, shoulder, whole (arm and blade), separable lean and fat, trimmed to 1/4" fat, choice, raw
    ("leg of lamb", "17011"),  # Lamb, domestic, leg, whole (shank and sirloin), separable lean and fat, trimmed to 1/4" fat, choice, raw
    ("ground lamb", "17224"),  # Lamb, ground, raw
    ("rabbit", "17177"),  # Game meat, rabbit, domesticated, composite of cuts, raw
    ("venison", "17164"),  # Game meat, deer, raw
    ("espresso", "14210"),  # Coffee, brewed, espresso, restaurant-prepared
    ("red wine", "14096"),  # Alcoholic beverage, wine, table, red
    ("white wine", "14106"),  # Alcoholic beverage, wine, table, white
    ("beer", "14003"),  # Alcoholic beverage, beer, regular, all
    ("rum", "14050"),  # Alcoholic beverage, distilled, rum, 80 proof
    ("sake", "43479"),  # Alcoholic beverage, rice (sake)
    ("water", "14411"),  # Water, tap, drinking
    ("sparkling water", "14121"),  # Carbonated beverage, club soda
    ("apple juice", "09400"),  # Apple juice, canned or bottled, unsweetened, with added ascorbic acid
    ("cocoa powder", "19165"),  # Cocoa, dry powder, unsweetened
    ("salmon", "15236"),  # Fish, salmon, Atlantic, farmed, raw
    ("smoked salmon", "15077"),  # Fish, salmon, chinook, smoked
    ("tuna", "15127"),  # Fish, tuna, fresh, yellowfin, raw
    ("canned tuna", "15121"),  # Fish, tuna, light, canned in water, drained solids
    ("cod", "15015"),  # Fish, cod, Atlantic, raw
    ("shrimp", "15149"),  # Crustaceans, shrimp, mixed species, raw
    ("mussels", "15164"),  # Mollusks, mussel, blue, raw
    ("clams", "15157"),  # Mollusks, clam, mixed species, raw
    ("squid", "15175"),  # Mollusks, squid, mixed species, raw
    ("octopus", "15166"),  # Mollusks, octopus, common, raw
    ("anchovies", "15002"),  # Fish, anchovy, european, canned in oil, drained solids
    ("sardines", "15088"),  # Fish, sardine, Atlantic, canned in oil, drained solids with bone
    ("mackerel", "15046"),  # Fish, mackerel, Atlantic, raw
    ("tilapia", "15261"),  # Fish, tilapia, raw
    ("crab", "15139"),  # Crustaceans, crab, blue, raw
    ("lobster", "15147"),  # Crustaceans, lobster, northern, raw
    ("scallops", "15172"),  # Mollusks, scallop, mixed species, raw
    ("herring", "15041"),  # Fish, herring, Atlantic, pickled
    ("trout", "15240"),  # Fish, trout, rainbow, farmed, raw
    ("sea bass", "15091"),  # Fish, sea bass, mixed species, raw
    ("halibut", "15036"),  # Fish, halibut, Atlantic and Pacific, raw
    ("catfish", "15010"),  # Fish, catfish, channel, wild, raw
    ("beef chuck", "13815"),  # Beef, chuck, blade roast, separable lean and fat, trimmed to 1/8" fat, all grades, raw
    ("beef brisket", "13803"),  # Beef, brisket, whole, separable lean and fat, trimmed to 1/8" fat, all grades, raw
    ("beef tenderloin", "13917"),  # Beef, tenderloin, separable lean and fat, trimmed to 1/8" fat, all grades, raw
    ("flank steak", "13065"),  # Beef, flank, separable lean and fat, trimmed to 0" fat, choice, raw
    ("beef round", "13891"),  # Beef, round, top round, separable lean and fat, trimmed to 1/8" fat, all grades, raw
    ("beef sirloin", "13929"),  # Beef, top sirloin, separable lean and fat, trimmed to 1/8" fat, all grades, raw
    ("coffee", "14209"),  # Coffee, brewed from grounds, prepared with tap water
    ("tea", "14355"),  # Tea, brewed, prepared with tap water
    ("chickpeas", "16056"),  # Chickpeas (garbanzo beans, bengal gram), mature seeds, raw
    ("canned chickpeas", "16058"),  # Chickpeas (garbanzo beans, bengal gram), mature seeds, canned
    ("black beans", "16014"),  # Beans, black, mature seeds, raw
    ("kidney beans", "16027"),  # Beans, kidney, all types, mature seeds, raw
    ("lentils", "16069"),  # Lentils, raw
    ("white beans", "16049"),  # Beans, white, mature seeds, raw
    ("pinto beans", "16042"),  # Beans, pinto, mature seeds, raw
    ("fava beans", "16052"),  # Broadbeans (fava beans), mature seeds, raw
    ("edamame", "11211"),  # Edamame, frozen, unprepared
    ("split peas", "16085"),  # Peas, split, mature seeds, raw
    ("mung beans", "16080"),  # Mung beans, mature seeds, raw
    ("soybeans", "16108"),  # Soybeans, mature seeds, raw
    ("refried beans", "16103"),  # Refried beans, canned, traditional style (includes USDA commodity)
    ("tofu", "16126"),  # Tofu, firm, prepared with calcium sulfate and magnesium chloride (nigari)
    ("silken tofu", "16127"),  # Tofu, soft, prepared with calcium sulfate and magnesium chloride (nigari)
    ("miso", "16112"),  # Miso
    ("black-eyed peas", "16062"),  # Cowpeas, common (blackeyes, crowder, southern), mature seeds, raw
    ("white bread", "18069"),  # Bread, white, commercially prepared (includes soft bread crumbs)
    ("french bread", "18029"),  # Bread, french or vienna (includes sourdough)
    ("rye bread", "18060"),  # Bread, rye
    ("pita bread", "18041"),  # Bread, pita, white, enriched
    ("corn tortilla", "18363"),  # Tortillas, ready-to-bake or -fry, corn
    ("puff pastry", "18337"),  # Puff pastry, frozen, ready-to-bake
    ("phyllo dough", "18338"),  # Phyllo dough
    ("croissant", "18239"),  # Croissants, butter
    ("pie crust", "18334"),  # Pie crust, standard-type, frozen, ready-to-bake, enriched
    ("crackers", "18228"),  # Crackers, saltines (includes oyster, soda, soup)
    ("sponge cake", "18134"),  # Cake, sponge, prepared from recipe
    ("ladyfingers", "18423"),  # Cookies, ladyfingers, without lemon juice and rind
    ("sugar", "19335"),  # Sugars, granulated
    ("brown sugar", "19334"),  # Sugars, brown
    ("powdered sugar", "19336"),  # Sugars, powdered
    ("honey", "19296"),  # Honey
    ("maple syrup", "19353"),  # Syrups, maple
    ("molasses", "19304"),  # Molasses
    ("corn syrup", "19350"),  # Syrups, corn, light
    ("dark chocolate", "19904"),  # Candies, chocolate, dark, 70-85% cacao solids
    ("milk chocolate", "19120"),  # Candies, milk chocolate
    ("semisweet chocolate", "19080"),  # Candies, semisweet chocolate
    ("white chocolate", "19087"),  # Candies, white chocolate
    ("jam", "19297"),  # Jams and preserves
    ("marshmallows", "19116"),  # Candies, marshmallows
    ("mustard", "02046"),  # Mustard, prepared, yellow
    ("romano cheese", "01038"),  # Cheese, romano
    ("potato", "11354"),  # Potatoes, white, flesh and skin, raw
    ("flour tortilla", "18364"),  # Tortillas, ready-to-bake or -fry, flour
    ("breadcrumbs", "18079"),  # Bread crumbs, dry, grated, plain
    ("gelatin", "19177"),  # Gelatins, dry powder, unsweetened
    ("red lentils", "16144"),  # Lentils, pink, raw
    ("short ribs", "13147"),  # Beef, rib, shortribs, separable lean and fat, choice, raw
    ("bagel", "18406"),  # Bagels, plain, enriched, without calcium propionate (includes onion, poppy, sesame)
    ("chicken", "05006"),  # Chicken, broilers or fryers, meat and skin, raw
    ("thyme", "02049"),  # Thyme, fresh
]


def fields(line):
    """Split one SR record: '^' separates fields, '~' quotes text."""
    return [f.strip("~") for f in line.rstrip("\r\n").split("^")]


def clean(text):
    """Collapse whitespace so that no cell holds a tab or a newline."""
    return " ".join(text.split())


def number(text):
    """Return an SR number as written, or '' when the value is unknown."""
    text = text.strip()
    if text == "":
        return ""
    float(text)  # raises on anything that is not a number
    return text


def main():
    data = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_DATA
    with open(os.path.join(data, "FOOD_DES.txt"), encoding="latin-1") as f:
        foods = [fields(l) for l in f if l.strip()]
    with open(os.path.join(data, "ABBREV.txt"), encoding="latin-1") as f:
        abbrev = {r[0]: r for r in (fields(l) for l in f if l.strip())}

    curated = {}
    for name, ndb in CURATED:
        if name != name.lower() or name.strip() != name:
            sys.exit(f"curated name {name!r} must be lower-case and trimmed")
        if ndb in curated.values():
            sys.exit(f"NDB {ndb} has two curated names")
        if name in curated:
            sys.exit(f"curated name {name!r} appears twice")
        curated[name] = ndb
    by_ndb = {ndb: name for name, ndb in curated.items()}

    descriptions = {}
    for r in foods:
        descriptions.setdefault(clean(r[2]), []).append(r[0])

    rows = []
    names = set()
    for r in sorted(foods, key=lambda r: r[0]):
        ndb, group, desc = r[0], r[1], clean(r[2])
        if ndb in by_ndb:
            name = by_ndb[ndb]
        elif len(descriptions[desc]) > 1:
            name = f"{desc} (NDB {ndb})"  # SR repeats a few descriptions
        else:
            name = desc
        if name.lower() in names:
            sys.exit(f"name {name!r} is not unique (NDB {ndb})")
        names.add(name.lower())
        a = abbrev.get(ndb)
        values = [number(a[ABBREV_FIELDS[n]]) if a else "" for n in NUTRIENTS]
        rows.append([name, ndb, desc, FOOD_GROUPS[group]] + values)

    missing = set(curated.values()) - {r[1] for r in rows}
    if missing:
        sys.exit(f"curated NDB numbers not in FOOD_DES.txt: {sorted(missing)}")

    out = os.path.join(SAMPLE, "ingredients.tsv")
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        f.write("\t".join(["name", "usdaNumber", "usdaDescription", "foodGroup"] + NUTRIENTS) + "\n")
        for row in rows:
            for cell in row:
                assert "\t" not in cell and "\n" not in cell, row
            f.write("\t".join(row) + "\n")
    print(f"wrote {len(rows)} foods ({len(curated)} with curated names) to {out}")

    check_recipes({r[0] for r in rows})


def check_recipes(names):
    """Fail when recipes.jsonl uses an ingredient name that the catalogue lacks."""
    path = os.path.join(SAMPLE, "recipes.jsonl")
    if not os.path.exists(path):
        return
    unknown = {}
    with open(path, encoding="utf-8") as f:
        for number_, line in enumerate(f, 1):
            if not line.strip():
                continue
            for item in json.loads(line).get("ingredients", []):
                if item["name"] not in names:
                    unknown.setdefault(item["name"], number_)
    if unknown:
        sys.exit("recipes.jsonl uses unknown ingredients: "
                 + ", ".join(f"{n!r} (line {l})" for n, l in sorted(unknown.items())))
    print("every ingredient in recipes.jsonl is in ingredients.tsv")


if __name__ == "__main__":
    main()
