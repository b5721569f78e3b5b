#!/usr/bin/env python3
"""Write SampleData/recipes.jsonl: the hand-written sample recipes of the
catalogue, one JSON object per line, in the import format of SampleData/README.md.

    python3 Scripts/make-sample-recipes.py

The recipes are data in this file. Ratings, publication dates and chefs are
drawn from a fixed-seed PRNG and the optional photos are small PNG gradients
made here with zlib, so the output is byte-for-byte the same on every run.
The script fails if a recipe uses an ingredient name that is not in
SampleData/ingredients.tsv.
"""

import base64
import json
import os
import random
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.normpath(os.path.join(HERE, "..", "SampleData"))

# Invented chefs, each with the cuisines they write for.
CHEFS = {
    "Margaux Lefèvre": ["French"],
    "Aurélien Fauré": ["French", "Moroccan"],
    "Giulia Bernardi": ["Italian"],
    "Marco Rinaldi": ["Italian", "Spanish"],
    "Nguyễn Thị Lan": ["Vietnamese"],
    "Tomás Ibáñez": ["Mexican", "Spanish"],
    "Søren Kjærgaard": ["Danish", "Swedish"],
    "Jürgen Weißmann": ["German", "Hungarian"],
    "Haruki Tanabe": ["Japanese"],
    "Priya Raghunathan": ["Indian"],
    "Somchai Wongsakul": ["Thai"],
    "Yasmina El Idrissi": ["Moroccan", "Lebanese"],
    "Selam Tesfaye": ["Ethiopian"],
    "Rosa Quispe Huamán": ["Peruvian"],
    "Ji-woo Han": ["Korean"],
    "Eleni Papadaki": ["Greek"],
    "Nour Haddad": ["Lebanese"],
    "Lucía Ortega": ["Spanish", "Mexican"],
    "Emre Yıldız": ["Turkish"],
    "Chen Meiling": ["Chinese"],
    "João Carvalho": ["Brazilian"],
    "Betty-Lou Harper": ["American"],
    "Dragana Petrović": ["Balkan", "Turkish"],
    "Ingrid Lindqvist": ["Swedish", "Danish"],
    "Małgorzata Wójcik": ["Polish"],
    "Ágnes Szabó": ["Hungarian", "Balkan"],
    "Océane Dubois": ["French", "Vietnamese"],
    "Zoë Ångström": ["Swedish", "American", "Japanese"],
    "Camille O'Brien": ["American", "Brazilian"],
    "Kwame Mensah-Berg": ["Ethiopian", "Peruvian", "Korean"],
}

# (name, cuisine, course, "prep/cook/servings", ingredients, instructions)
# Ingredients: "name[:quantity[ unit]]" separated by ";".
RECIPES = [
    # French
    ("Crème Brûlée", "French", "dessert", "20/45/6",
     "heavy cream:500 ml; egg yolk:6; sugar:120 g; vanilla extract:1 tsp",
     "Warm the cream with the vanilla until it steams. Whisk the yolks with most of the sugar, then pour in the cream slowly. Bake the custards in a water bath until they barely wobble. Chill them, dust with the last of the sugar and torch it to a glassy crust."),
    ("Crêpes Suzette", "French", "dessert", "15/20/4",
     "all-purpose flour:125 g; milk:300 ml; egg:2; butter:60 g; sugar:80 g; orange juice:150 ml; orange zest:1 tbsp",
     "Whisk flour, milk and eggs into a thin batter and let it rest. Cook paper-thin crêpes in a buttered pan. Melt butter and sugar to a pale caramel, add the orange juice and zest. Fold the crêpes into quarters and warm them in the sauce."),
    ("Gâteau Basque", "French", "dessert", "40/50/8",
     "all-purpose flour:300 g; butter:200 g; sugar:200 g; egg:3; almond flour:80 g; sour cherries:250 g; lemon zest:1 tsp; baking powder:1 tsp",
     "Cream butter and sugar, then beat in two eggs and the zest. Work in the flours and baking powder to a soft dough and chill it. Line a tin with half the dough, spread the cherries over it and cover with the rest. Brush with the last egg, score a lattice and bake until deep gold."),
    ("Œufs en Meurette", "French", "starter", "15/40/4",
     "egg:4; red wine:500 ml; shallot:3; bacon:100 g; butter:40 g; french bread:4 slice; thyme:2 sprig; salt; black pepper",
     "Simmer the wine with the shallots and thyme until it has reduced by half. Crisp the bacon in a pan. Poach the eggs gently in the wine and lift them onto toasted bread. Whisk cold butter into the wine, season and spoon it over the eggs with the bacon."),
    ("Ratatouille", "French", "side", "25/60/6",
     "eggplant:1; zucchini:2; red bell pepper:2; onion:1; garlic:3 clove; tomato:4; olive oil:4 tbsp; thyme:3 sprig; salt",
     "Cut all the vegetables into even cubes. Brown the eggplant and zucchini in batches in olive oil. Soften the onion, peppers and garlic, add the tomatoes and thyme. Return everything to the pot and simmer slowly until it is soft but still holds its shape."),
    ("Soupe à l'Oignon", "French", "soup", "15/75/4",
     "onion:1 kg; butter:50 g; beef stock:1.2 l; white wine:150 ml; french bread:8 slice; gruyère:150 g; bay leaf:1; salt",
     "Cook the sliced onions in butter over low heat until they are deep brown and sweet. Deglaze with the wine, add the stock and bay leaf and simmer for half an hour. Ladle into bowls, float toasted bread on top and cover with cheese. Grill until bubbling."),
    ("Coq au Vin", "French", "main", "30/120/6",
     "chicken:1.8 kg; red wine:750 ml; bacon:150 g; mushrooms:250 g; shallot:12; garlic:3 clove; all-purpose flour:2 tbsp; butter:30 g; bay leaf:2; thyme:4 sprig",
     "Brown the chicken pieces with the bacon and set them aside. Colour the shallots and mushrooms in the same pot. Dust with flour, pour in the wine and add the herbs. Braise the chicken, covered, until it falls from the bone."),
    ("Gratin Dauphinois", "French", "side", "20/80/6",
     "potato:1.2 kg; heavy cream:400 ml; milk:200 ml; garlic:2 clove; nutmeg:1 pinch; butter:20 g; salt; white pepper",
     "Rub a baking dish with garlic and butter. Slice the potatoes thinly and layer them with salt, pepper and nutmeg. Pour over the cream and milk. Bake slowly until a knife slides through and the top is golden."),
    ("Salade Niçoise", "French", "salad", "25/10/4",
     "canned tuna:250 g; egg:4; green beans:200 g; tomato:3; potato:400 g; olives:80 g; anchovies:8; lettuce:1; olive oil:5 tbsp; red wine vinegar:2 tbsp",
     "Boil the potatoes and eggs, and blanch the beans. Whisk oil and vinegar with a pinch of salt. Arrange the leaves, vegetables, tuna, halved eggs, olives and anchovies on a platter. Dress just before serving."),
    # Italian
    ("Risotto alla Milanese", "Italian", "main", "10/30/4",
     "arborio rice:320 g; chicken stock:1.2 l; onion:1; butter:60 g; white wine:100 ml; saffron:0.5 g; parmesan:60 g; salt",
     "Soften the onion in half the butter, add the rice and toast it until translucent at the edges. Pour in the wine and let it evaporate. Add hot stock a ladle at a time, stirring, with the saffron steeped in the first ladle. Finish off the heat with the rest of the butter and the cheese."),
    ("Spaghetti alla Carbonara", "Italian", "main", "10/15/4",
     "spaghetti:400 g; bacon:150 g; egg yolk:4; egg:1; romano cheese:80 g; black pepper:1 tsp; salt",
     "Boil the pasta in well-salted water. Render the bacon until crisp. Beat the yolks, egg, cheese and plenty of pepper. Toss the drained pasta with the bacon off the heat, then stir in the egg mixture with a splash of pasta water until glossy."),
    ("Minestrone", "Italian", "soup", "25/50/6",
     "onion:1; carrot:2; celery:2; zucchini:1; white beans:200 g; canned tomatoes:400 g; pasta:100 g; olive oil:3 tbsp; basil:1 bunch; parmesan:40 g",
     "Sweat the onion, carrot and celery in olive oil. Add the tomatoes, beans and enough water to cover generously. Simmer until the beans are tender, then add zucchini and pasta. Serve with torn basil and grated cheese."),
    ("Saltimbocca alla Romana", "Italian", "main", "15/10/4",
     "veal:500 g; ham:100 g; sage:12; butter:40 g; white wine:100 ml; all-purpose flour:2 tbsp; salt",
     "Pound the veal thin and top each slice with ham and a sage leaf. Dust the underside with flour. Fry ham side up in butter, then turn briefly. Deglaze with the wine and pour the pan juices over the meat."),
    ("Tiramisù", "Italian", "dessert", "30/0/8",
     "ladyfingers:300 g; espresso:300 ml; egg:4; sugar:100 g; cream cheese:500 g; cocoa powder:2 tbsp; rum:2 tbsp",
     "Beat the yolks with the sugar until pale, then fold in the cheese. Whip the whites stiff and fold them through. Dip the biscuits briefly in coffee with rum and layer them with the cream. Chill overnight and sift cocoa over the top."),
    ("Focaccia Genovese", "Italian", "bread", "20/25/8",
     "bread flour:500 g; water:380 ml; yeast:7 g; olive oil:80 ml; salt:10 g; rosemary:2 sprig",
     "Mix flour, water and yeast into a wet dough and rest it for an hour with a few folds. Spread it in an oiled tray and let it rise again. Dimple deeply with oiled fingers, scatter salt and rosemary. Bake hot until the base is crisp."),
    ("Caprese Salad", "Italian", "salad", "10/0/4",
     "tomato:4; mozzarella:250 g; basil:1 bunch; olive oil:3 tbsp; salt; black pepper",
     "Slice tomatoes and cheese to the same thickness. Alternate them on a plate with basil leaves. Season and drizzle with good oil just before serving."),
    ("Osso Buco", "Italian", "main", "25/120/4",
     "veal:1.2 kg; onion:1; carrot:1; celery:1; white wine:200 ml; canned tomatoes:400 g; chicken stock:300 ml; lemon zest:1 tbsp; parsley:1 bunch; garlic:1 clove",
     "Brown the veal shanks well on both sides. Soften the chopped vegetables, add wine, tomatoes and stock. Return the shanks and braise slowly until the meat is tender. Scatter a mix of lemon zest, parsley and garlic over the top."),
    ("Panna Cotta", "Italian", "dessert", "15/5/6",
     "heavy cream:500 ml; milk:100 ml; sugar:70 g; gelatin:8 g; vanilla extract:1 tsp; raspberries:150 g",
     "Soften the gelatin in a little cold milk. Heat cream, remaining milk, sugar and vanilla, then dissolve the gelatin in it. Pour into moulds and chill until set. Turn out and serve with raspberries."),
    # Vietnamese
    ("Phở Bò", "Vietnamese", "soup", "30/240/6",
     "beef brisket:1 kg; beef tenderloin:200 g; rice noodles:400 g; onion:2; ginger:80 g; anise seed:1 tsp; cinnamon:1 tsp; fish sauce:4 tbsp; bean sprouts:200 g; basil:1 bunch; lime:2",
     "Char the onion and ginger over a flame. Simmer the brisket with them and the spices for several hours, skimming often. Season with fish sauce. Pour the boiling broth over noodles and raw slices of tenderloin, and serve with herbs, sprouts and lime."),
    ("Bún Chả", "Vietnamese", "main", "30/15/4",
     "ground pork:400 g; pork belly:300 g; rice noodles:300 g; fish sauce:5 tbsp; sugar:3 tbsp; garlic:4 clove; lime juice:3 tbsp; lettuce:1; mint:1 bunch; carrot:1",
     "Marinate the minced pork and sliced belly with fish sauce, sugar and garlic. Shape the mince into small patties and grill everything over high heat. Make a dipping broth of water, fish sauce, sugar, lime and thin carrot slices. Serve the meat in the broth with noodles and herbs on the side."),
    ("Gỏi Cuốn", "Vietnamese", "starter", "30/10/4",
     "shrimp:200 g; pork loin:200 g; rice noodles:100 g; lettuce:1; mint:1 bunch; cilantro:1 bunch; hoisin sauce:4 tbsp; peanut butter:2 tbsp",
     "Poach the shrimp and pork and slice them thinly. Soften rice paper in warm water one sheet at a time. Roll noodles, herbs, lettuce, pork and shrimp snugly. Thin the hoisin with peanut butter and a little water for dipping."),
    ("Bánh Xèo", "Vietnamese", "main", "20/25/4",
     "rice flour:200 g; coconut milk:200 ml; turmeric:1 tsp; scallion:3; shrimp:200 g; pork belly:150 g; bean sprouts:200 g; vegetable oil:4 tbsp; lettuce:1",
     "Whisk rice flour, coconut milk, turmeric, water and sliced scallion into a thin batter. Fry a few shrimp and strips of pork in a hot oiled pan. Pour in a thin layer of batter, add sprouts and cover until crisp. Fold in half and wrap pieces in lettuce to eat."),
    ("Cà Ri Gà", "Vietnamese", "main", "20/50/4",
     "chicken thigh:800 g; sweet potato:400 g; coconut milk:400 ml; lemongrass:2; curry powder:2 tbsp; shallot:3; garlic:3 clove; fish sauce:2 tbsp; french bread:1",
     "Rub the chicken with curry powder, garlic and fish sauce. Fry the shallots and bruised lemongrass, then brown the chicken. Add coconut milk, water and sweet potato and simmer until tender. Serve with crusty bread."),
    ("Chè Chuối", "Vietnamese", "dessert", "10/20/4",
     "banana:4; coconut milk:400 ml; tapioca:50 g; sugar:60 g; salt:1 pinch; peanuts:30 g",
     "Soak the tapioca pearls briefly. Simmer coconut milk with sugar and salt, add the tapioca and cook until clear. Add sliced banana for the last few minutes. Serve warm with crushed roasted peanuts."),
    ("Cá Kho Tộ", "Vietnamese", "main", "15/40/4",
     "catfish:600 g; sugar:4 tbsp; fish sauce:4 tbsp; shallot:3; garlic:3 clove; chili pepper:1; black pepper:1 tsp; coconut oil:1 tbsp",
     "Cook the sugar to a dark caramel and stop it with a splash of water. Add the shallots, garlic, fish sauce and fish steaks. Braise uncovered, turning once, until the sauce is thick and sticky. Finish with black pepper and sliced chili."),
    # Mexican
    ("Jalapeño Poppers", "Mexican", "snack", "20/20/6",
     "jalapeño pepper:12; cream cheese:200 g; cheddar:100 g; bacon:6 slice; garlic powder:1 tsp",
     "Halve the peppers and scrape out the seeds. Mix the cheeses with garlic powder and fill each half. Wrap with half a slice of bacon. Bake until the bacon is crisp and the filling bubbles."),
    ("Pozole Rojo", "Mexican", "soup", "30/180/8",
     "pork shoulder:1.2 kg; corn:800 g; chili powder:3 tbsp; garlic:5 clove; onion:1; dried oregano:1 tbsp; cabbage:0.25; radish:6; lime:2",
     "Simmer the pork with onion and garlic until it shreds easily. Blend the chili powder with a little broth and garlic into a paste and stir it in. Add the corn and simmer another half hour. Serve with shredded cabbage, radish, oregano and lime."),
    ("Tacos al Pastor", "Mexican", "main", "30/20/6",
     "pork shoulder:1 kg; pineapple:0.5; chili powder:2 tbsp; cider vinegar:3 tbsp; garlic:3 clove; cumin:1 tsp; corn tortilla:18; onion:1; cilantro:1 bunch",
     "Marinate thin slices of pork with chili, vinegar, garlic and cumin overnight. Sear them in batches in a very hot pan with pieces of pineapple. Chop everything together. Serve on warm tortillas with onion and cilantro."),
    ("Guacamole", "Mexican", "snack", "10/0/4",
     "avocado:3; lime juice:2 tbsp; onion:0.5; jalapeño pepper:1; cilantro:0.5 bunch; tomato:1; salt",
     "Mash the avocados roughly with lime juice and salt. Fold in finely chopped onion, chili, tomato and cilantro. Taste and adjust the lime before serving."),
    ("Sopa de Lima", "Mexican", "soup", "20/40/4",
     "chicken breast:400 g; chicken stock:1.5 l; lime:3; onion:1; tomato:2; green bell pepper:1; corn tortilla:6; cilantro:0.5 bunch",
     "Poach the chicken in the stock and shred it. Fry onion, pepper and tomato, then add the stock and chicken. Squeeze in lime juice and drop in a few slices of peel for a minute. Top with crisp fried tortilla strips."),
    ("Elote", "Mexican", "snack", "5/15/4",
     "corn:4; mayonnaise:4 tbsp; feta:80 g; chili powder:1 tsp; lime:1",
     "Grill the cobs until charred in places. Brush with mayonnaise. Roll in crumbled cheese and dust with chili. Serve with lime wedges."),
    ("Horchata", "Mexican", "drink", "15/0/6",
     "rice:200 g; water:1.5 l; cinnamon:1 tsp; sugar:120 g; milk:250 ml; vanilla extract:1 tsp",
     "Soak the rice with cinnamon in half the water overnight. Blend until very smooth and strain through a cloth. Stir in the rest of the water, milk, sugar and vanilla. Serve over ice."),
    # Danish
    ("Smørrebrød med Rejer", "Danish", "starter", "15/0/4",
     "rye bread:4 slice; butter:30 g; shrimp:300 g; egg:2; mayonnaise:3 tbsp; dill:0.5 bunch; lemon:1",
     "Butter each slice of rye bread generously. Pile on the shrimp and slices of hard-boiled egg. Add a spoon of mayonnaise, dill and a twist of lemon."),
    ("Æbleskiver", "Danish", "dessert", "15/20/6",
     "all-purpose flour:250 g; buttermilk:400 ml; egg:3; sugar:2 tbsp; baking soda:1 tsp; cardamom:0.5 tsp; butter:50 g; powdered sugar; jam",
     "Whisk flour, buttermilk, yolks, sugar, soda and cardamom. Fold in the whisked whites. Fill the buttered wells of the pan and turn the balls with a skewer as they set. Dust with sugar and serve with jam."),
    ("Frikadeller", "Danish", "main", "20/20/4",
     "ground pork:500 g; onion:1; egg:1; breadcrumbs:40 g; milk:100 ml; allspice:0.5 tsp; butter:40 g; salt; black pepper",
     "Mix the pork with grated onion, egg, crumbs soaked in milk and the seasoning. Rest the mixture for half an hour. Shape flattened ovals with a wet spoon. Fry slowly in butter until browned and cooked through."),
    ("Rødgrød med Fløde", "Danish", "dessert", "10/10/6",
     "strawberries:400 g; raspberries:300 g; sour cherries:300 g; sugar:150 g; cornstarch:3 tbsp; heavy cream:200 ml",
     "Simmer the berries with sugar and a little water until they collapse. Thicken with cornstarch slaked in cold water and bring just to the boil. Chill and serve with cold cream."),
    ("Stegt Flæsk med Persillesovs", "Danish", "main", "15/35/4",
     "pork belly:800 g; potato:1 kg; butter:40 g; all-purpose flour:3 tbsp; milk:500 ml; parsley:1 bunch; salt",
     "Fry thick slices of pork belly slowly until crisp. Boil the potatoes. Make a white sauce with butter, flour and milk and stir in plenty of chopped parsley. Serve the pork with potatoes and sauce."),
    ("Koldskål", "Danish", "dessert", "15/0/4",
     "buttermilk:1 l; egg yolk:2; sugar:60 g; vanilla extract:1 tsp; lemon zest:1 tsp; strawberries:200 g",
     "Whisk the yolks with sugar and vanilla until thick. Beat in the cold buttermilk and zest. Serve chilled with sliced strawberries."),
    # German
    ("Käsespätzle", "German", "main", "20/25/4",
     "all-purpose flour:400 g; egg:4; milk:100 ml; swiss cheese:250 g; onion:2; butter:40 g; nutmeg:1 pinch; chives:0.5 bunch",
     "Beat flour, eggs, milk, salt and nutmeg into a thick batter. Scrape it into simmering water in short strands and lift them out when they float. Layer with grated cheese in a warm dish. Top with onions fried golden in butter and chives."),
    ("Sauerbraten", "German", "main", "30/180/6",
     "beef round:1.5 kg; red wine vinegar:250 ml; red wine:250 ml; onion:2; carrot:2; bay leaf:3; cloves:4; raisins:50 g; sugar:2 tbsp",
     "Marinate the beef in wine, vinegar, vegetables and spices for three days. Dry it and brown it all over. Braise in the strained marinade until tender. Simmer the sauce with raisins and a little sugar until glossy."),
    ("Kartoffelsalat", "German", "side", "20/25/6",
     "potato:1 kg; onion:1; beef stock:250 ml; white vinegar:4 tbsp; vegetable oil:4 tbsp; mustard:1 tsp; chives:0.5 bunch",
     "Boil waxy potatoes in their skins, peel and slice them while warm. Heat the stock with chopped onion, vinegar and mustard and pour it over. Let the potatoes soak it up for an hour. Fold in the oil and chives."),
    ("Apfelstrudel", "German", "dessert", "45/40/8",
     "all-purpose flour:250 g; apple:1 kg; raisins:60 g; sugar:100 g; cinnamon:1 tsp; breadcrumbs:60 g; butter:100 g; egg:1",
     "Knead flour, egg, water and a little butter into a smooth dough and rest it warm. Toast the crumbs in butter. Stretch the dough over a floured cloth until you can read through it. Spread with crumbs, apple, raisins, sugar and cinnamon, roll up and bake until crisp."),
    ("Rotkohl", "German", "side", "15/75/6",
     "red cabbage:1 kg; apple:2; onion:1; lard:2 tbsp; red wine vinegar:4 tbsp; sugar:2 tbsp; cloves:3; bay leaf:2",
     "Shred the cabbage and slice the apples and onion. Soften the onion in lard, then add everything else with a splash of water. Cover and braise slowly, stirring now and then, until soft and glossy."),
    ("Laugenbrezeln", "German", "bread", "40/15/8",
     "bread flour:500 g; water:280 ml; yeast:7 g; butter:30 g; baking soda:3 tbsp; salt",
     "Knead a firm dough and let it rise. Roll long ropes and twist them into pretzels. Dip each in simmering water with baking soda. Sprinkle with coarse salt and bake until deep brown."),
    ("Straße-Style Currywurst", "German", "snack", "10/20/4",
     "bratwurst:4; tomato sauce:300 ml; curry powder:2 tbsp; onion:1; sugar:1 tbsp; paprika:1 tsp; vegetable oil:1 tbsp",
     "Fry the onion until soft, then add curry powder and paprika. Pour in the tomato sauce with the sugar and simmer until thick. Grill the sausages, slice them and cover with sauce and a last dusting of curry."),
    # Japanese
    ("Oyakodon", "Japanese", "main", "10/15/2",
     "chicken thigh:300 g; egg:3; onion:1; soy sauce:3 tbsp; sake:2 tbsp; sugar:1 tbsp; short-grain rice:300 g; scallion:1",
     "Simmer sliced onion in water, soy sauce, sake and sugar. Add bite-size chicken and cook through. Pour over the lightly beaten eggs and cover until just set. Slide onto bowls of hot rice and scatter scallion."),
    ("Miso Soup", "Japanese", "soup", "5/10/4",
     "kombu:10 g; miso:4 tbsp; silken tofu:200 g; wakame:5 g; scallion:2",
     "Steep the kombu in water and heat it gently to make a light stock. Remove the kombu and add cubed tofu and wakame. Dissolve the miso in a ladle of stock and stir it in without boiling. Top with scallion."),
    ("Tonkatsu", "Japanese", "main", "15/10/4",
     "pork loin:4 slice; all-purpose flour:50 g; egg:2; breadcrumbs:120 g; vegetable oil:1 l; cabbage:0.25; worcestershire sauce:4 tbsp",
     "Season the cutlets and coat them in flour, egg and coarse crumbs. Deep-fry until golden and rest on a rack. Slice and serve with shredded cabbage and sauce."),
    ("Okonomiyaki", "Japanese", "main", "15/15/2",
     "all-purpose flour:150 g; egg:2; cabbage:300 g; pork belly:100 g; scallion:2; mayonnaise:2 tbsp; worcestershire sauce:2 tbsp",
     "Mix flour, eggs and a little water, then fold in a mountain of shredded cabbage and scallion. Spread it thick in a pan and lay strips of pork on top. Flip when the base is browned and cook through. Finish with sauce and mayonnaise."),
    ("Onigiri", "Japanese", "snack", "15/20/6",
     "short-grain rice:400 g; nori:3; smoked salmon:100 g; salt; sesame seeds:1 tbsp",
     "Cook the rice and let it cool until you can handle it. Wet and salt your hands, press a portion around a little salmon into a triangle. Wrap the base in nori and sprinkle with sesame."),
    ("Chawanmushi", "Japanese", "starter", "15/15/4",
     "egg:3; fish stock:400 ml; soy sauce:1 tsp; sake:1 tsp; shrimp:4; dried shiitake:2; chicken breast:80 g",
     "Beat the eggs with the stock, soy sauce and sake and strain until silky. Divide shrimp, soaked mushroom and chicken among cups. Pour over the custard and steam gently until it just sets."),
    ("Teriyaki Salmon", "Japanese", "main", "10/12/4",
     "salmon:600 g; soy sauce:4 tbsp; sake:3 tbsp; sugar:2 tbsp; ginger:10 g; vegetable oil:1 tbsp; rice:300 g",
     "Fry the salmon skin side down until crisp, then turn it. Pour in soy sauce, sake, sugar and grated ginger. Baste as the glaze bubbles and thickens. Serve on rice."),
    # Indian
    ("Chana Masala", "Indian", "main", "15/40/4",
     "canned chickpeas:800 g; onion:2; tomato:3; ginger:20 g; garlic:4 clove; cumin:1 tsp; coriander seed:2 tsp; turmeric:0.5 tsp; chili powder:1 tsp; ghee:2 tbsp; cilantro:0.5 bunch",
     "Fry cumin in ghee, then the onions until deep brown. Add ginger, garlic and the ground spices and cook for a minute. Add tomatoes and cook them down to a thick masala. Stir in the chickpeas with a little water and simmer, then finish with cilantro."),
    ("Dal Tadka", "Indian", "main", "10/35/4",
     "red lentils:250 g; turmeric:0.5 tsp; ghee:3 tbsp; cumin:1 tsp; mustard seed:1 tsp; garlic:4 clove; green chili:2; tomato:1; salt",
     "Simmer the lentils with turmeric until they fall apart. Heat ghee until very hot and crackle the seeds in it. Add sliced garlic and chili and let them colour. Pour the sizzling tadka over the dal."),
    ("Murgh Makhani", "Indian", "main", "30/40/4",
     "chicken thigh:800 g; yogurt:150 g; butter:60 g; tomato sauce:400 ml; heavy cream:150 ml; ginger:20 g; garlic:4 clove; chili powder:1 tsp; fenugreek:1 tsp; sugar:1 tsp",
     "Marinate the chicken in yogurt, ginger, garlic and chili and grill until charred. Melt butter, add the tomato and simmer until thick. Stir in cream, crushed fenugreek and sugar. Add the chicken and warm through."),
    ("Aloo Gobi", "Indian", "side", "15/30/4",
     "potato:500 g; cauliflower:1; onion:1; turmeric:1 tsp; cumin:1 tsp; coriander seed:1 tsp; ginger:15 g; vegetable oil:3 tbsp; cilantro:0.5 bunch",
     "Fry the cumin, then the onion and ginger. Add the potatoes and florets with the ground spices and a splash of water. Cover and cook on low until tender, stirring gently. Uncover to let the edges brown."),
    ("Masala Chai", "Indian", "drink", "5/10/4",
     " tea:4; milk:500 ml; water:500 ml; sugar:4 tbsp; ginger:15 g; cardamom:1 tsp; cloves:4; cinnamon:1 tsp",
     "Simmer water with crushed ginger and the spices for a few minutes. Add the tea and milk and bring it to a rolling boil twice. Sweeten and strain into cups."),
    ("Rogan Josh", "Indian", "main", "20/90/6",
     "lamb shoulder:1 kg; yogurt:200 g; onion:2; paprika:2 tbsp; ground ginger:1 tsp; fennel seed:1 tsp; cardamom:1 tsp; cloves:4; ghee:3 tbsp",
     "Brown the lamb in ghee in batches. Fry the onions with the whole spices until soft. Return the meat with paprika, ginger and fennel. Stir in the yogurt a spoon at a time and simmer, covered, until the lamb is tender."),
    ("Kheer", "Indian", "dessert", "5/60/6",
     "basmati rice:80 g; milk:1.5 l; sugar:100 g; cardamom:0.5 tsp; saffron:1 pinch; pistachios:30 g; raisins:30 g",
     "Rinse the rice and simmer it in milk, stirring often, until the milk has reduced by a third. Add sugar, cardamom and saffron. Serve warm or cold scattered with nuts and raisins."),
    ("Cucumber Raita", "Indian", "side", "10/0/4",
     "yogurt:400 g; cucumber:1; cumin:1 tsp; mint:0.5 bunch; salt",
     "Grate the cucumber and squeeze out its water. Toast the cumin and crush it. Stir everything into the yogurt with the chopped mint and salt."),
    # Thai
    ("Tom Yum Goong", "Thai", "soup", "15/15/4",
     "shrimp:400 g; chicken stock:1 l; lemongrass:3; mushrooms:150 g; chili pepper:3; fish sauce:3 tbsp; lime juice:4 tbsp; cilantro:0.5 bunch",
     "Bring the stock to a boil with bruised lemongrass and chilies. Add the mushrooms and then the shrimp, cooking just until pink. Off the heat, season with fish sauce and lime juice. Taste for a balance of sour, salty and hot."),
    ("Pad Thai", "Thai", "main", "20/10/2",
     "rice noodles:200 g; shrimp:200 g; egg:2; tofu:100 g; bean sprouts:150 g; tamarind:2 tbsp; fish sauce:2 tbsp; sugar:2 tbsp; peanuts:40 g; scallion:3; lime:1",
     "Soak the noodles until pliable. Stir-fry the tofu and shrimp in a hot wok, push them aside and scramble the eggs. Add the noodles with tamarind, fish sauce and sugar and toss until coated. Fold in sprouts and scallion and serve with peanuts and lime."),
    ("Gaeng Keow Wan Gai", "Thai", "main", "20/25/4",
     "chicken thigh:600 g; coconut milk:800 ml; green chili:6; lemongrass:2; garlic:4 clove; shallot:2; cumin:1 tsp; eggplant:2; fish sauce:3 tbsp; basil:1 bunch",
     "Pound the chilies, lemongrass, garlic, shallots and cumin into a paste. Fry it in the thick top of the coconut milk until fragrant. Add the chicken, then the rest of the milk and the eggplant. Season with fish sauce and finish with basil."),
    ("Som Tam", "Thai", "salad", "15/0/4",
     "papaya:1; green beans:100 g; tomato:2; garlic:2 clove; chili pepper:2; lime juice:3 tbsp; fish sauce:2 tbsp; sugar:1 tbsp; peanuts:30 g",
     "Shred the unripe papaya finely. Pound garlic and chili in a mortar, then bruise the beans and tomatoes. Add lime, fish sauce and sugar and toss the papaya in the dressing. Top with peanuts."),
    ("Khao Niao Mamuang", "Thai", "dessert", "10/30/4",
     "glutinous rice:250 g; coconut milk:400 ml; sugar:80 g; salt:1 pinch; mango:2; sesame seeds:1 tsp",
     "Soak the rice for several hours and steam it until tender. Warm the coconut milk with sugar and salt and pour most of it over the hot rice. Let it soak in for twenty minutes. Serve with sliced mango, the remaining sauce and sesame."),
    ("Larb Gai", "Thai", "salad", "15/10/4",
     "ground turkey:500 g; shallot:3; lime juice:4 tbsp; fish sauce:3 tbsp; glutinous rice:2 tbsp; mint:1 bunch; cilantro:0.5 bunch; chili powder:1 tsp; lettuce:1",
     "Toast the raw rice until golden and grind it coarsely. Cook the mince in a little water until no longer pink. Off the heat, mix in lime, fish sauce, chili, shallots, herbs and the ground rice. Serve with lettuce leaves."),
    ("Tom Kha Gai", "Thai", "soup", "15/20/4",
     "chicken breast:400 g; coconut milk:600 ml; chicken stock:400 ml; ginger:40 g; lemongrass:2; mushrooms:150 g; fish sauce:3 tbsp; lime juice:3 tbsp",
     "Simmer the stock and coconut milk with sliced ginger and lemongrass. Add the chicken and mushrooms and poach until cooked. Season with fish sauce and lime off the heat."),
    # Moroccan
    ("Tajine de Poulet aux Citrons Confits", "Moroccan", "main", "20/75/4",
     "chicken:1.5 kg; onion:2; garlic:3 clove; ground ginger:1 tsp; turmeric:1 tsp; saffron:1 pinch; lemon:2; olives:150 g; olive oil:3 tbsp; cilantro:1 bunch",
     "Rub the chicken with the spices, garlic and oil. Lay it on sliced onions in the tajine with a little water. Cover and cook slowly until tender. Add lemon quarters and olives for the last twenty minutes and scatter with cilantro."),
    ("Harira", "Moroccan", "soup", "20/90/8",
     "lamb shoulder:300 g; lentils:150 g; canned chickpeas:400 g; canned tomatoes:800 g; onion:1; celery:2; cilantro:1 bunch; parsley:1 bunch; all-purpose flour:3 tbsp; cinnamon:1 tsp; lemon:1",
     "Brown the lamb with onion, celery and spices. Add tomatoes, lentils and water and simmer for an hour. Add the chickpeas and herbs. Thicken with flour whisked into water and serve with lemon."),
    ("Couscous aux Sept Légumes", "Moroccan", "main", "30/60/6",
     "couscous:500 g; lamb shoulder:600 g; carrot:3; turnip:2; zucchini:2; pumpkin:400 g; cabbage:0.25; canned chickpeas:400 g; onion:1; tomato:2; butter:40 g",
     "Simmer the lamb with onion, tomato and spices in a deep pot. Add the hard vegetables first and the soft ones later. Steam the couscous twice over the broth, fluffing it with butter in between. Mound the grains and arrange the vegetables over them."),
    ("Zaalouk", "Moroccan", "side", "15/40/4",
     "eggplant:2; tomato:4; garlic:4 clove; paprika:1 tsp; cumin:1 tsp; olive oil:4 tbsp; cilantro:0.5 bunch; lemon juice:1 tbsp",
     "Roast the eggplants until collapsed and scrape out the flesh. Cook the tomatoes with garlic and spices in oil. Add the eggplant and mash as it simmers to a thick relish. Finish with lemon and herbs."),
    ("Msemen", "Moroccan", "bread", "40/20/8",
     "all-purpose flour:300 g; semolina:100 g; water:250 ml; yeast:3 g; vegetable oil:100 ml; butter:60 g; salt",
     "Knead a soft, elastic dough and divide it into balls. Stretch each one on an oiled surface until thin, sprinkle with semolina and fold into a square. Flatten again and cook on a hot griddle until flaky and spotted."),
    ("Atay bi Naanaa", "Moroccan", "drink", "5/5/4",
     "tea:2 tbsp; mint:1 bunch; sugar:4 tbsp; water:1 l",
     "Rinse the tea with a splash of boiling water and discard it. Add the mint, sugar and fresh boiling water. Pour from a height into glasses and back into the pot a few times before serving."),
    # Ethiopian
    ("Doro Wat", "Ethiopian", "main", "30/120/6",
     "chicken thigh:1.2 kg; onion:1 kg; ghee:100 g; paprika:4 tbsp; cayenne pepper:1 tbsp; fenugreek:1 tsp; garlic:5 clove; ginger:30 g; egg:6; lemon juice:2 tbsp",
     "Cook the finely chopped onions in a dry pot for a long time until jammy. Add ghee, the spices, garlic and ginger and fry until dark red. Add the chicken, marinated in lemon, with water and simmer. Slip in peeled hard-boiled eggs near the end."),
    ("Misir Wot", "Ethiopian", "main", "10/35/4",
     "red lentils:300 g; onion:2; paprika:2 tbsp; cayenne pepper:1 tsp; garlic:3 clove; ginger:15 g; vegetable oil:4 tbsp; tomato paste:1 tbsp",
     "Fry the chopped onion slowly in oil until soft. Add spices, garlic, ginger and tomato paste. Stir in the lentils and water and simmer until thick and smooth."),
    ("Gomen", "Ethiopian", "side", "10/30/4",
     "collard greens:700 g; onion:1; garlic:3 clove; green chili:2; ginger:10 g; ghee:3 tbsp",
     "Cook the onion in ghee, then the garlic, ginger and chilies. Add the chopped greens with a splash of water. Braise until tender and most of the liquid is gone."),
    ("Shiro", "Ethiopian", "main", "5/25/4",
     "chickpeas:150 g; onion:1; garlic:3 clove; paprika:1 tbsp; cardamom:0.5 tsp; olive oil:4 tbsp; tomato:1",
     "Grind the dried chickpeas to a fine flour with the spices. Fry onion, garlic and tomato in oil. Whisk in the flour with hot water and simmer, stirring, until it is thick as porridge."),
    ("Injera", "Ethiopian", "bread", "20/30/8",
     "whole wheat flour:200 g; buckwheat flour:200 g; water:700 ml; yeast:2 g; salt",
     "Mix the flours with water and a little yeast and leave to ferment for two days. Stir in salt and a little boiling water. Pour a thin spiral into a hot, dry pan and cover until the top is full of holes. Do not turn it."),
    ("Atakilt Wat", "Ethiopian", "side", "15/40/4",
     "cabbage:0.5; potato:3; carrot:3; onion:1; turmeric:1 tsp; garlic:3 clove; ginger:10 g; olive oil:4 tbsp",
     "Soften the onion in oil, add garlic, ginger and turmeric. Add carrots and potatoes and cook for ten minutes. Add the cabbage and a splash of water and cook until everything is tender."),
    # Peruvian
    ("Ceviche de Pescado", "Peruvian", "starter", "20/0/4",
     "sea bass:500 g; lime juice:150 ml; onion:1; chili pepper:1; cilantro:0.5 bunch; sweet potato:1; corn:1; salt",
     "Cut the fish into cubes and salt it. Pour over the lime juice with sliced chili and leave for only a few minutes. Add the thinly sliced onion and cilantro. Serve with boiled sweet potato and corn."),
    ("Lomo Saltado", "Peruvian", "main", "15/15/4",
     "beef sirloin:600 g; onion:1; tomato:3; chili pepper:1; soy sauce:3 tbsp; red wine vinegar:2 tbsp; potato:600 g; vegetable oil:500 ml; rice:300 g; cilantro:0.5 bunch",
     "Fry the potato sticks until crisp. Sear strips of beef in a very hot pan in batches. Add onion wedges, tomato and chili and toss for a minute. Splash in soy sauce and vinegar, fold in the fries and serve with rice."),
    ("Ají de Gallina", "Peruvian", "main", "25/45/6",
     "chicken breast:800 g; white bread:4 slice; milk:300 ml; onion:1; garlic:3 clove; chili pepper:3; walnuts:50 g; parmesan:50 g; potato:6; olives:12",
     "Poach and shred the chicken, keeping the broth. Soak the bread in milk. Fry onion, garlic and chili, then blend with the bread, walnuts and cheese. Simmer the sauce with the chicken and serve over potatoes with olives."),
    ("Causa Limeña", "Peruvian", "starter", "30/25/6",
     "potato:1 kg; lime juice:4 tbsp; chili pepper:2; vegetable oil:4 tbsp; canned tuna:200 g; mayonnaise:4 tbsp; avocado:1; egg:2",
     "Mash the boiled potatoes with lime, blended chili and oil. Bind the tuna with mayonnaise. Layer potato, tuna and sliced avocado in a ring. Top with egg slices."),
    ("Papa a la Huancaína", "Peruvian", "starter", "15/25/4",
     "potato:800 g; feta:200 g; milk:150 ml; chili pepper:3; crackers:4; garlic:1 clove; lettuce:1; egg:2; olives:8",
     "Boil and slice the potatoes. Blend the cheese, milk, chili, crackers and garlic until smooth and thick. Lay the potatoes on lettuce and coat with sauce. Garnish with egg and olives."),
    ("Picarones", "Peruvian", "dessert", "30/30/6",
     "sweet potato:300 g; pumpkin:300 g; all-purpose flour:400 g; yeast:7 g; anise seed:1 tsp; vegetable oil:1 l; molasses:150 ml; orange zest:1 tsp",
     "Boil the sweet potato and pumpkin with anise and purée them. Mix with flour, yeast and some cooking water into a sticky dough and let it rise. Shape rings with wet fingers and fry until puffed. Drizzle with warm molasses scented with orange."),
    ("Arroz con Pollo", "Peruvian", "main", "20/45/6",
     "chicken thigh:1 kg; rice:400 g; cilantro:2 bunch; peas:150 g; red bell pepper:1; onion:1; garlic:4 clove; beer:330 ml; chicken stock:600 ml",
     "Brown the chicken and set it aside. Blend the cilantro with a little stock and fry it with onion and garlic until dark green. Add rice, beer, stock and the chicken and cook covered. Stir in peas and pepper for the last ten minutes."),
    # Korean
    ("Bibimbap", "Korean", "main", "30/20/4",
     "short-grain rice:400 g; ground beef:250 g; spinach:200 g; carrot:1; bean sprouts:150 g; mushrooms:150 g; egg:4; chili powder:2 tbsp; sesame oil:2 tbsp; soy sauce:3 tbsp",
     "Season the beef with soy sauce and sesame oil and fry it. Blanch or sauté each vegetable separately and season lightly. Arrange everything over hot rice with a fried egg on top. Stir in a chili paste made of chili, sesame oil and a little sugar."),
    ("Bulgogi", "Korean", "main", "20/10/4",
     "beef sirloin:600 g; soy sauce:5 tbsp; pear:1; garlic:4 clove; sugar:2 tbsp; sesame oil:1 tbsp; scallion:3; sesame seeds:1 tbsp",
     "Slice the beef paper-thin. Marinate it with grated pear, soy sauce, garlic, sugar and sesame oil for an hour. Cook quickly over very high heat. Finish with scallion and sesame."),
    ("Japchae", "Korean", "main", "25/15/4",
     "glass noodles:250 g; beef sirloin:150 g; spinach:200 g; carrot:1; onion:1; mushrooms:100 g; soy sauce:4 tbsp; sugar:1 tbsp; sesame oil:3 tbsp; sesame seeds:1 tbsp",
     "Boil the noodles until chewy and toss them with sesame oil. Stir-fry the beef and each vegetable separately. Combine everything with soy sauce and sugar. Toss well and finish with sesame."),
    ("Kimchi Jjigae", "Korean", "soup", "10/30/4",
     "sauerkraut:400 g; napa cabbage:200 g; pork belly:250 g; tofu:300 g; chili powder:2 tbsp; garlic:3 clove; scallion:2; anchovies:4",
     "Fry the pork belly until its fat runs. Add the fermented cabbage and chili and cook until softened. Pour in water, add the anchovies and simmer. Slide in the tofu and scallion."),
    ("Haemul Pajeon", "Korean", "starter", "15/15/4",
     "all-purpose flour:150 g; rice flour:50 g; egg:1; scallion:10; squid:150 g; shrimp:150 g; vegetable oil:4 tbsp; soy sauce:3 tbsp; white vinegar:1 tbsp",
     "Whisk the flours with egg and cold water into a loose batter. Lay whole scallions in a hot oiled pan and pour batter over them. Scatter the seafood and add a little more batter. Fry until crisp on both sides and serve with soy and vinegar."),
    ("Galbi-jjim", "Korean", "main", "30/120/6",
     "short ribs:1.5 kg; soy sauce:6 tbsp; pear:1; onion:1; garlic:6 clove; carrot:2; daikon:300 g; chestnuts:10; sugar:2 tbsp; sesame oil:1 tbsp",
     "Soak the ribs in cold water and blanch them. Blend pear, onion and garlic with soy sauce and sugar. Braise the ribs in the sauce until tender. Add the vegetables and chestnuts and reduce the sauce to a glaze."),
    ("Hotteok", "Korean", "dessert", "30/15/6",
     "all-purpose flour:300 g; glutinous rice:50 g; milk:200 ml; yeast:5 g; brown sugar:100 g; cinnamon:1 tsp; walnuts:40 g; vegetable oil:3 tbsp",
     "Make a soft yeasted dough with the flours and warm milk and let it double. Mix brown sugar, cinnamon and chopped nuts. Wrap a spoonful in each piece of dough. Press flat in an oiled pan and fry until the sugar melts inside."),
    # Greek
    ("Moussaka", "Greek", "main", "45/60/8",
     "eggplant:3; ground lamb:700 g; onion:1; canned tomatoes:400 g; cinnamon:1 tsp; red wine:150 ml; butter:60 g; all-purpose flour:60 g; milk:700 ml; egg yolk:2; parmesan:60 g",
     "Slice and roast the eggplant until golden. Brown the lamb with onion, add wine, tomatoes and cinnamon and simmer until thick. Make a béchamel and enrich it with yolks and cheese. Layer eggplant and meat, cover with sauce and bake."),
    ("Spanakopita", "Greek", "main", "30/45/8",
     "spinach:1 kg; feta:300 g; egg:3; scallion:6; dill:1 bunch; phyllo dough:12; olive oil:100 ml",
     "Wilt the spinach and squeeze it dry. Mix with crumbled feta, eggs, scallion and dill. Layer oiled sheets of phyllo in a dish, spread the filling and cover with more sheets. Score the top and bake until crisp."),
    ("Horiatiki", "Greek", "salad", "10/0/4",
     "tomato:4; cucumber:1; green bell pepper:1; onion:0.5; olives:100 g; feta:200 g; dried oregano:1 tsp; olive oil:5 tbsp",
     "Cut tomatoes and cucumber into large chunks. Add sliced pepper, onion and olives. Set the feta on top in one slab. Season with oregano and pour on the oil."),
    ("Avgolemono", "Greek", "soup", "10/30/4",
     "chicken stock:1.5 l; rice:100 g; egg:3; lemon juice:80 ml; chicken breast:300 g; salt",
     "Poach the chicken in the stock, then shred it. Cook the rice in the stock. Beat eggs with lemon and temper them with hot stock, whisking. Stir the mixture back in off the boil until the soup turns silky."),
    ("Souvlaki", "Greek", "main", "20/15/4",
     "pork shoulder:800 g; olive oil:4 tbsp; lemon juice:3 tbsp; dried oregano:2 tsp; garlic:3 clove; pita bread:4; tomato:2; onion:1",
     "Cube the pork and marinate it in oil, lemon, oregano and garlic. Thread on skewers and grill over high heat. Serve in warm pita with tomato and onion."),
    ("Tzatziki", "Greek", "snack", "10/0/6",
     "yogurt:500 g; cucumber:1; garlic:2 clove; olive oil:2 tbsp; dill:0.5 bunch; white vinegar:1 tsp",
     "Grate the cucumber and squeeze out the water. Mix into thick yogurt with crushed garlic, vinegar and dill. Drizzle with oil."),
    ("Loukoumades", "Greek", "dessert", "20/20/6",
     "all-purpose flour:250 g; yeast:7 g; water:250 ml; honey:150 g; cinnamon:1 tsp; walnuts:50 g; vegetable oil:1 l",
     "Beat flour, yeast and warm water into a loose batter and let it bubble for an hour. Drop spoonfuls into hot oil and fry until golden. Toss in warm honey and finish with cinnamon and nuts."),
    # Lebanese
    ("Tabbouleh", "Lebanese", "salad", "20/0/4",
     "parsley:3 bunch; mint:1 bunch; bulgur:40 g; tomato:3; scallion:3; lemon juice:4 tbsp; olive oil:4 tbsp; salt",
     "Soak the bulgur in the tomato juices. Chop the parsley and mint very fine with a sharp knife. Mix with diced tomato and scallion. Dress with lemon and oil just before serving."),
    ("Hummus", "Lebanese", "snack", "10/0/6",
     "canned chickpeas:800 g; tahini:120 g; lemon juice:4 tbsp; garlic:1 clove; cumin:0.5 tsp; olive oil:3 tbsp; paprika:1 pinch",
     "Blend the warm chickpeas with tahini, lemon and garlic. Add ice water gradually until very smooth and light. Spread in a bowl and finish with oil and paprika."),
    ("Fattoush", "Lebanese", "salad", "15/10/4",
     "pita bread:2; romaine lettuce:1; tomato:3; cucumber:1; radish:6; scallion:3; mint:0.5 bunch; pomegranate:0.5; olive oil:5 tbsp; lemon juice:3 tbsp",
     "Toast or fry torn pita until crisp. Chop the vegetables into rough pieces. Dress with oil, lemon and a little pomegranate juice. Fold in the bread just before serving."),
    ("Kibbeh bil Sanieh", "Lebanese", "main", "40/40/8",
     "bulgur:300 g; ground lamb:800 g; onion:2; pine nuts:50 g; allspice:1 tsp; cinnamon:1 tsp; olive oil:80 ml",
     "Soak the bulgur, then knead it with half the lamb, an onion and spices into a paste. Brown the rest of the meat with onion and pine nuts for the filling. Layer paste, filling and paste in a tray. Score diamonds, drizzle with oil and bake."),
    ("Mujaddara", "Lebanese", "main", "10/50/4",
     "lentils:250 g; rice:150 g; onion:4; olive oil:100 ml; cumin:1 tsp; salt",
     "Fry the sliced onions in plenty of oil until very brown and crisp. Simmer the lentils until nearly soft. Add rice, cumin, half the onions and water and cook until the rice is done. Top with the remaining crisp onions."),
    ("Baba Ghanoush", "Lebanese", "snack", "10/40/4",
     "eggplant:2; tahini:60 g; lemon juice:2 tbsp; garlic:1 clove; olive oil:2 tbsp; parsley:0.25 bunch",
     "Char the eggplants over a flame until collapsed. Scoop out the smoky flesh and drain it. Mash with tahini, garlic and lemon. Finish with oil and parsley."),
    # Spanish
    ("Paella Valenciana", "Spanish", "main", "30/45/6",
     "short-grain rice:400 g; chicken:1 kg; rabbit:500 g; green beans:200 g; white beans:150 g; tomato:2; saffron:0.5 g; paprika:1 tsp; olive oil:100 ml; rosemary:1 sprig",
     "Brown the chicken and rabbit well in oil in a wide pan. Add the beans and grated tomato and fry. Pour in water with saffron and paprika and simmer. Scatter the rice evenly and cook without stirring until a crust forms."),
    ("Tortilla Española", "Spanish", "main", "15/35/6",
     "potato:800 g; egg:6; onion:1; olive oil:250 ml; salt",
     "Poach thin potato and onion slices slowly in the oil until soft. Drain and fold them into the beaten eggs. Cook in a pan over low heat until set underneath. Flip onto a plate and slide back to finish."),
    ("Gazpacho Andaluz", "Spanish", "soup", "20/0/6",
     "tomato:1 kg; cucumber:1; green bell pepper:1; garlic:1 clove; french bread:50 g; olive oil:100 ml; white vinegar:2 tbsp; salt",
     "Blend everything until completely smooth. Pass through a sieve and chill thoroughly. Adjust the vinegar and salt and serve very cold."),
    ("Patatas Bravas", "Spanish", "snack", "10/35/4",
     "potato:800 g; olive oil:200 ml; paprika:2 tsp; cayenne pepper:0.5 tsp; tomato sauce:200 ml; garlic:2 clove; mayonnaise:4 tbsp",
     "Fry chunks of potato slowly, then raise the heat to crisp them. Warm garlic and both paprikas in oil, add the tomato and reduce. Serve the potatoes with the sauce and garlicky mayonnaise."),
    ("Gambas al Ajillo", "Spanish", "starter", "5/5/4",
     "shrimp:400 g; garlic:6 clove; olive oil:150 ml; chili pepper:1; parsley:0.25 bunch; french bread:1",
     "Warm the oil with sliced garlic and chili in a small clay dish. Add the shrimp and cook just until they turn pink. Scatter with parsley and serve sizzling with bread."),
    ("Crema Catalana", "Spanish", "dessert", "15/15/6",
     "milk:750 ml; egg yolk:6; sugar:150 g; cornstarch:2 tbsp; lemon zest:1 tbsp; cinnamon:1 tsp",
     "Infuse the milk with lemon zest and cinnamon. Whisk yolks, sugar and cornstarch and cook with the milk until thick. Pour into dishes and chill. Caramelise a layer of sugar on top just before serving."),
    ("Churros con Chocolate", "Spanish", "breakfast", "15/20/4",
     "all-purpose flour:250 g; water:300 ml; salt:1 pinch; vegetable oil:1 l; sugar:50 g; dark chocolate:150 g; milk:400 ml; cornstarch:1 tsp",
     "Beat boiling salted water into the flour to a stiff paste. Pipe ropes into hot oil and fry until crisp, then roll in sugar. Melt the chocolate into the milk, thicken with cornstarch and serve for dipping."),
    # Turkish
    ("Köfte", "Turkish", "main", "20/15/4",
     "ground lamb:500 g; onion:1; breadcrumbs:40 g; parsley:0.5 bunch; cumin:1 tsp; paprika:1 tsp; garlic:2 clove; salt",
     "Grate the onion and squeeze out its juice. Knead it with the lamb, crumbs, herbs and spices until sticky. Shape into small fingers and chill. Grill over high heat."),
    ("İmam Bayıldı", "Turkish", "main", "25/60/4",
     "eggplant:4; onion:3; tomato:3; garlic:6 clove; olive oil:150 ml; sugar:1 tsp; parsley:1 bunch; lemon juice:1 tbsp",
     "Peel the eggplants in stripes and fry them until soft. Cook the onions, garlic and tomatoes slowly in oil with sugar. Split the eggplants and fill them with the onion mixture. Bake with a little water and serve at room temperature."),
    ("Mercimek Çorbası", "Turkish", "soup", "10/30/6",
     "red lentils:300 g; onion:1; carrot:1; potato:1; butter:40 g; paprika:1 tsp; cumin:1 tsp; lemon:1",
     "Soften the onion in butter and add the chopped carrot and potato. Add lentils and water and simmer until everything is soft. Blend smooth. Drizzle with paprika butter and serve with lemon."),
    ("Menemen", "Turkish", "breakfast", "10/15/2",
     "egg:4; tomato:3; green bell pepper:2; onion:1; butter:30 g; chili powder:0.5 tsp; salt",
     "Soften the peppers and onion in butter. Add the chopped tomatoes and cook until saucy. Stir in the eggs gently and take off the heat while still soft."),
    ("Çılbır", "Turkish", "breakfast", "10/10/2",
     "egg:4; yogurt:300 g; garlic:1 clove; butter:40 g; paprika:1 tsp; white vinegar:1 tbsp; dill:0.25 bunch",
     "Beat garlic into the yogurt and spread it on plates. Poach the eggs in water with vinegar. Set them on the yogurt and spoon over butter foaming with paprika. Scatter dill."),
    ("Lahmacun", "Turkish", "main", "40/10/6",
     "bread flour:400 g; yeast:5 g; ground lamb:300 g; onion:1; tomato:2; red bell pepper:1; parsley:0.5 bunch; paprika:1 tbsp; lemon:2",
     "Make a soft yeast dough and let it rise. Chop meat, onion, tomato, pepper and parsley together finely with the paprika. Roll the dough very thin and spread it with the topping. Bake at the highest heat and serve rolled with lemon."),
    ("Sütlaç", "Turkish", "dessert", "10/45/6",
     "rice:100 g; milk:1 l; sugar:120 g; rice flour:2 tbsp; vanilla extract:1 tsp; cinnamon:1 tsp",
     "Cook the rice in a little water until it is soft. Add milk and sugar and simmer, stirring. Thicken with rice flour slaked in milk. Pour into dishes, brown the tops under a grill and dust with cinnamon."),
    # Chinese
    ("Mapo Tofu", "Chinese", "main", "10/15/4",
     "tofu:500 g; ground pork:150 g; chili powder:2 tbsp; garlic:3 clove; ginger:15 g; soy sauce:2 tbsp; chicken stock:250 ml; cornstarch:1 tbsp; scallion:2; black pepper:1 tsp",
     "Cube the tofu and warm it in salted water. Fry the pork until crisp, then add chili, garlic and ginger. Pour in stock and soy sauce and slide in the tofu. Thicken with cornstarch and finish with scallion and ground pepper."),
    ("Kung Pao Chicken", "Chinese", "main", "15/10/4",
     "chicken thigh:500 g; peanuts:60 g; chili pepper:8; soy sauce:3 tbsp; white vinegar:1 tbsp; sugar:1 tbsp; cornstarch:1 tbsp; garlic:3 clove; scallion:3; vegetable oil:3 tbsp",
     "Dice the chicken and coat it in soy sauce and cornstarch. Fry the dried chilies briefly in hot oil, then the chicken. Add garlic and scallion and the sauce of soy, vinegar and sugar. Toss with peanuts."),
    ("Hot and Sour Soup", "Chinese", "soup", "15/15/4",
     "chicken stock:1 l; tofu:200 g; dried shiitake:6; bamboo shoots:100 g; egg:2; white vinegar:4 tbsp; soy sauce:2 tbsp; white pepper:1 tsp; cornstarch:2 tbsp",
     "Simmer the stock with soaked mushrooms and bamboo shoots. Add the tofu, soy sauce and vinegar. Thicken with cornstarch and drizzle in beaten egg. Season boldly with white pepper."),
    ("Char Siu", "Chinese", "main", "20/50/6",
     "pork shoulder:1 kg; hoisin sauce:4 tbsp; honey:3 tbsp; soy sauce:3 tbsp; sake:2 tbsp; garlic:3 clove",
     "Cut the pork into long strips and marinate overnight. Roast on a rack, basting often with the marinade. Glaze with honey for the last minutes and slice."),
    ("Dan Dan Noodles", "Chinese", "main", "15/15/2",
     "egg noodles:200 g; ground pork:150 g; tahini:2 tbsp; soy sauce:2 tbsp; chili powder:1 tbsp; sesame oil:1 tbsp; bok choy:2; peanuts:20 g; scallion:2",
     "Fry the pork until crisp and brown. Mix tahini, soy sauce, chili and sesame oil in bowls. Cook noodles and greens and drop them in. Top with pork, peanuts and scallion and toss."),
    ("Egg Fried Rice", "Chinese", "main", "5/10/2",
     "rice:300 g; egg:3; scallion:3; peas:80 g; soy sauce:1 tbsp; vegetable oil:2 tbsp; salt",
     "Use cold, day-old rice. Scramble the eggs in a very hot wok and add the rice, breaking up clumps. Toss in peas and scallion and season with soy sauce."),
    ("Jiaozi", "Chinese", "starter", "60/15/6",
     "all-purpose flour:400 g; ground pork:400 g; napa cabbage:300 g; ginger:15 g; scallion:3; soy sauce:2 tbsp; sesame oil:1 tbsp; white vinegar:3 tbsp",
     "Knead flour and water into a smooth dough and rest it. Salt the cabbage, squeeze it and mix with the pork and seasonings. Roll small rounds and pleat them around the filling. Boil until they float and serve with vinegar."),
    # Brazilian
    ("Pão de Queijo", "Brazilian", "bread", "15/25/24",
     "tapioca:250 g; milk:150 ml; vegetable oil:60 ml; egg:2; parmesan:120 g; salt:1 tsp",
     "Boil milk, oil and salt and pour over the tapioca starch. Beat until smooth and let it cool slightly. Beat in the eggs and cheese. Roll small balls and bake until puffed and golden."),
    ("Açaí Bowl", "Brazilian", "breakfast", "10/0/2",
     "banana:2; blueberries:200 g; apple juice:100 ml; oats:40 g; honey:2 tbsp; coconut:20 g; strawberries:100 g",
     "Blend frozen berries and one banana with the juice to a thick purée. Spoon into bowls. Top with oats, sliced fruit, coconut and honey."),
    ("Feijoada", "Brazilian", "main", "30/180/8",
     "black beans:500 g; pork ribs:500 g; bacon:200 g; chorizo:300 g; beef brisket:400 g; onion:2; garlic:6 clove; bay leaf:3; orange:2; rice:400 g",
     "Soak the beans overnight. Brown the meats in stages and set aside. Fry onion and garlic, add the beans, meats, bay and water and simmer for hours. Serve with rice and orange slices."),
    ("Moqueca Baiana", "Brazilian", "main", "20/30/4",
     "cod:700 g; shrimp:200 g; coconut milk:400 ml; tomato:3; onion:1; red bell pepper:1; lime juice:3 tbsp; cilantro:1 bunch; olive oil:3 tbsp",
     "Marinate the fish in lime and salt. Layer onion, pepper and tomato in a clay pot and lay the fish on top. Pour over coconut milk and oil and simmer covered. Add the shrimp and cilantro at the end."),
    ("Brigadeiro", "Brazilian", "dessert", "5/15/20",
     "condensed milk:400 g; cocoa powder:2 tbsp; butter:15 g; semisweet chocolate:50 g",
     "Cook condensed milk, cocoa and butter over low heat, stirring constantly, until it pulls away from the pan. Cool completely. Roll into small balls and coat in grated chocolate."),
    ("Coxinha", "Brazilian", "snack", "60/20/20",
     "chicken breast:500 g; chicken stock:500 ml; all-purpose flour:300 g; butter:30 g; cream cheese:100 g; onion:1; egg:2; breadcrumbs:150 g; vegetable oil:1 l",
     "Poach and shred the chicken, then mix it with fried onion and cream cheese. Cook the flour into the boiling stock with butter to a smooth dough. Wrap the filling in teardrops of dough. Coat in egg and crumbs and fry."),
    ("Farofa", "Brazilian", "side", "5/10/6",
     "cassava:200 g; butter:60 g; onion:1; bacon:100 g; parsley:0.25 bunch",
     "Crisp the bacon and soften the onion in butter. Stir in the toasted cassava meal and toast until sandy and golden. Finish with parsley."),
    # American
    ("Buttermilk Pancakes", "American", "breakfast", "10/15/4",
     "all-purpose flour:250 g; buttermilk:400 ml; egg:2; butter:40 g; sugar:2 tbsp; baking powder:2 tsp; baking soda:0.5 tsp; maple syrup",
     "Whisk the dry ingredients in one bowl and the wet ones in another. Combine with a few strokes, leaving lumps. Cook on a buttered griddle until bubbles form, then flip. Serve with maple syrup."),
    ("Mac and Cheese", "American", "main", "10/30/6",
     "pasta:400 g; cheddar:300 g; milk:600 ml; butter:50 g; all-purpose flour:40 g; mustard:1 tsp; breadcrumbs:40 g",
     "Cook the macaroni until just shy of tender. Make a sauce with butter, flour and milk, then melt in the cheese and mustard. Fold in the pasta, top with crumbs and bake until bubbling."),
    ("New England Clam Chowder", "American", "soup", "20/40/6",
     "clams:1 kg; bacon:150 g; onion:1; celery:2; potato:500 g; milk:500 ml; heavy cream:200 ml; thyme:3 sprig; crackers:8",
     "Steam the clams open and keep the liquor. Render the bacon and soften onion and celery in the fat. Add potatoes, liquor and thyme and simmer until tender. Stir in milk, cream and chopped clams and serve with crackers."),
    ("Skillet Cornbread", "American", "bread", "10/25/8",
     "cornmeal:200 g; all-purpose flour:100 g; buttermilk:350 ml; egg:2; butter:60 g; baking powder:2 tsp; sugar:2 tbsp; salt",
     "Heat a buttered cast-iron pan in the oven. Mix the dry and wet ingredients separately, then together. Pour into the hot pan and bake until the edges are crisp."),
    ("Pulled Pork", "American", "main", "20/480/10",
     "pork shoulder:2.5 kg; brown sugar:4 tbsp; paprika:2 tbsp; garlic powder:1 tbsp; black pepper:1 tbsp; cider vinegar:100 ml; barbecue sauce:300 ml",
     "Rub the pork all over with sugar, paprika, garlic and pepper. Cook it low and slow until it pulls apart with a fork. Shred and toss with vinegar and sauce."),
    ("Apple Pie", "American", "dessert", "40/60/8",
     "pie crust:2; apple:1.2 kg; sugar:150 g; cinnamon:1 tsp; nutmeg:1 pinch; lemon juice:1 tbsp; cornstarch:2 tbsp; butter:30 g; egg:1",
     "Toss sliced apples with sugar, spices, lemon and cornstarch. Pile into the lined tin and dot with butter. Cover with the second crust, crimp and cut vents. Brush with egg and bake until the juices bubble."),
    ("Cobb Salad", "American", "salad", "20/15/4",
     "romaine lettuce:1; chicken breast:300 g; bacon:6 slice; egg:3; avocado:1; tomato:2; blue cheese:100 g; red wine vinegar:2 tbsp; olive oil:5 tbsp",
     "Grill the chicken and crisp the bacon. Boil the eggs. Arrange everything in rows over the chopped lettuce. Dress at the table."),
    ("Chocolate Chip Cookies", "American", "dessert", "15/12/24",
     "all-purpose flour:280 g; butter:200 g; brown sugar:150 g; sugar:100 g; egg:2; vanilla extract:2 tsp; baking soda:1 tsp; semisweet chocolate:300 g; salt:1 tsp",
     "Cream the butter and sugars, then beat in eggs and vanilla. Mix in the flour, soda and salt, then the chopped chocolate. Chill the dough. Bake scoops until the edges are set and the middles soft."),
    ("Buffalo Wings", "American", "snack", "10/45/4",
     "chicken wings:1.2 kg; hot sauce:120 ml; butter:60 g; baking powder:1 tbsp; celery:3; blue cheese:100 g; sour cream:100 g",
     "Toss the wings with baking powder and salt and roast on a rack until crisp. Melt butter into the hot sauce and toss the wings in it. Serve with celery and a blue cheese dip."),
    # Balkan
    ("Ćevapi", "Balkan", "main", "20/15/4",
     "ground beef:500 g; ground lamb:250 g; garlic:3 clove; baking soda:0.5 tsp; paprika:1 tsp; onion:1; pita bread:4",
     "Knead the meats with garlic, soda, paprika and a little water until sticky. Rest overnight. Roll into short fingers and grill. Serve in warm bread with chopped raw onion."),
    ("Burek", "Balkan", "main", "30/45/8",
     "phyllo dough:12; ground beef:600 g; onion:2; butter:80 g; black pepper:1 tsp; salt",
     "Brown the beef with the onion and season it well. Brush sheets of pastry with melted butter and roll them around lines of filling. Coil the rolls in a round tin. Bake until deep gold."),
    ("Ajvar", "Balkan", "side", "20/60/8",
     "red bell pepper:2 kg; eggplant:1; garlic:3 clove; olive oil:150 ml; white vinegar:2 tbsp; salt",
     "Roast the peppers and eggplant until blackened and peel them. Chop finely. Cook slowly with oil and garlic, stirring, until thick and glossy. Season with vinegar and salt."),
    ("Sarma", "Balkan", "main", "60/150/8",
     "sauerkraut:1 kg; ground pork:500 g; ground beef:300 g; rice:150 g; onion:2; paprika:2 tsp; bacon:200 g; tomato paste:2 tbsp",
     "Separate the sour cabbage leaves. Mix the meats with rice, fried onion and paprika. Roll each leaf tightly around a spoonful. Pack into a pot with bacon, cover with water and tomato paste, and simmer for hours."),
    ("Šopska Salata", "Balkan", "salad", "10/0/4",
     "tomato:4; cucumber:2; green bell pepper:2; onion:1; feta:200 g; olive oil:4 tbsp; parsley:0.25 bunch",
     "Chop the vegetables into small pieces. Dress with oil and salt. Grate the cheese over the top in a snowy heap."),
    # Swedish
    ("Köttbullar", "Swedish", "main", "25/20/4",
     "ground beef:300 g; ground pork:200 g; onion:1; breadcrumbs:40 g; milk:100 ml; egg:1; allspice:0.5 tsp; butter:40 g; heavy cream:200 ml; beef stock:200 ml",
     "Soak the crumbs in milk and mix with the meat, grated onion, egg and allspice. Roll small balls and brown them in butter. Make a sauce in the pan with stock and cream. Serve with potatoes and lingonberry jam."),
    ("Gravlax", "Swedish", "starter", "20/0/8",
     "salmon:1 kg; sugar:80 g; salt:80 g; dill:2 bunch; white pepper:1 tbsp; mustard:3 tbsp; honey:1 tbsp",
     "Mix sugar, salt and pepper. Sandwich the salmon with the cure and plenty of dill. Weigh it down in the fridge for two days, turning daily. Slice thinly and serve with a honey-mustard sauce."),
    ("Kanelbullar", "Swedish", "bread", "45/12/20",
     "all-purpose flour:600 g; milk:300 ml; yeast:10 g; butter:150 g; sugar:100 g; cardamom:1 tsp; cinnamon:2 tbsp; egg:1",
     "Make a soft dough with warm milk, yeast, butter, sugar and cardamom. Roll it out and spread with butter, sugar and cinnamon. Roll up, slice and set in paper cases to rise. Brush with egg and bake briefly."),
    ("Raggmunk", "Swedish", "main", "15/20/4",
     "potato:800 g; all-purpose flour:100 g; milk:300 ml; egg:2; bacon:200 g; butter:30 g",
     "Whisk flour, milk and eggs, then stir in the grated potato. Fry thin pancakes in butter until lacy and crisp. Serve with fried bacon."),
    ("Ärtsoppa", "Swedish", "soup", "10/90/6",
     "split peas:500 g; ham:300 g; onion:1; marjoram:1 tsp; thyme:2 sprig; mustard:2 tbsp",
     "Soak the peas overnight. Simmer with the ham, onion and herbs until the peas are soft. Dice the meat back in and serve with mustard."),
    # Polish
    ("Pierogi Ruskie", "Polish", "main", "60/20/6",
     "all-purpose flour:400 g; egg:1; water:200 ml; potato:600 g; cream cheese:250 g; onion:2; butter:60 g; black pepper",
     "Knead a soft dough from flour, egg and warm water. Mash the potatoes with the cheese and half the fried onion. Cut rounds, fill and pinch them closed. Boil until they float and top with the rest of the onions in butter."),
    ("Żurek", "Polish", "soup", "15/40/6",
     "rye bread:4 slice; kielbasa:300 g; potato:4; onion:1; garlic:3 clove; marjoram:1 tsp; egg:4; sour cream:150 g",
     "Simmer the sausage with onion and potato. Add the sour rye starter, garlic and marjoram. Enrich with sour cream. Serve with halved boiled eggs."),
    ("Bigos", "Polish", "main", "30/180/8",
     "sauerkraut:1 kg; cabbage:500 g; kielbasa:400 g; pork shoulder:500 g; mushrooms:150 g; prunes:100 g; red wine:200 ml; bay leaf:3; allspice:1 tsp",
     "Brown the pork and sausage. Combine with both cabbages, mushrooms, prunes and spices. Add wine and simmer gently for hours, stirring. It tastes best on the second or third day."),
    ("Gołąbki", "Polish", "main", "40/90/6",
     "cabbage:1; ground pork:500 g; rice:150 g; onion:1; egg:1; tomato sauce:500 ml; butter:30 g",
     "Blanch the cabbage head and peel off the leaves. Mix meat, half-cooked rice, fried onion and egg. Roll in the leaves and pack into a pot. Pour over tomato sauce and bake covered."),
    ("Placki Ziemniaczane", "Polish", "side", "15/20/4",
     "potato:1 kg; onion:1; egg:1; all-purpose flour:3 tbsp; vegetable oil:100 ml; sour cream:150 g",
     "Grate potatoes and onion and drain off the liquid. Mix with egg, flour and salt. Fry spoonfuls in hot oil until crisp on both sides. Serve with sour cream."),
    # Hungarian
    ("Gulyásleves", "Hungarian", "soup", "20/120/6",
     "beef chuck:800 g; onion:2; paprika:3 tbsp; caraway seed:1 tsp; potato:500 g; carrot:2; red bell pepper:1; tomato:1; lard:2 tbsp",
     "Soften the onions in lard and stir in the paprika off the heat. Add the beef and caraway and let it sweat in its own juices. Add water and simmer until almost tender. Add the vegetables and cook until everything is soft."),
    ("Lángos", "Hungarian", "snack", "60/15/6",
     "all-purpose flour:500 g; potato:200 g; milk:250 ml; yeast:7 g; vegetable oil:1 l; garlic:3 clove; sour cream:200 g; cheddar:150 g",
     "Make a soft dough with flour, mashed potato, milk and yeast and let it double. Stretch palm-sized rounds and fry until puffed. Rub with garlic, spread sour cream and shower with cheese."),
    ("Paprikás Csirke", "Hungarian", "main", "15/50/4",
     "chicken thigh:1 kg; onion:2; paprika:2 tbsp; green bell pepper:1; tomato:1; sour cream:200 g; all-purpose flour:1 tbsp; lard:2 tbsp",
     "Soften the onion in lard and add paprika off the heat. Add chicken, pepper, tomato and a little water and simmer. Whisk flour into the sour cream and stir it into the sauce. Serve with noodles."),
    ("Lecsó", "Hungarian", "side", "10/30/4",
     "green bell pepper:5; tomato:4; onion:1; lard:2 tbsp; paprika:1 tsp; kielbasa:200 g",
     "Fry the onion in lard, then the sliced sausage. Add the peppers and cook until soft. Add the tomatoes and paprika and stew until thick."),
    ("Palacsinta", "Hungarian", "dessert", "10/20/6",
     "all-purpose flour:200 g; milk:400 ml; egg:2; sparkling water:100 ml; sugar:1 tbsp; jam:200 g; walnuts:60 g",
     "Whisk a thin batter with the soda water for lightness. Cook thin pancakes in a hot pan. Spread with jam or ground walnuts and sugar and roll up."),
]

# Recipes that leave out some optional fields, to show that every field but
# "id" and "name" may be missing.
SPARSE = [
    {"name": "Dukkah", "cuisine": "Egyptian",
     "ingredients": "hazelnuts:100 g; sesame seeds:50 g; coriander seed:2 tbsp; cumin:1 tbsp; salt:1 tsp",
     "instructions": "Toast the nuts and seeds separately. Pound them coarsely with the salt."},
    {"name": "mystery stew", "ingredients": "onion; carrot; potato; water"},
    {"name": "Bircher Müsli", "chef": "Zoë Ångström", "course": "breakfast",
     "ingredients": "oats:100 g; apple:1; yogurt:150 g; milk:100 ml; hazelnuts:30 g; lemon juice:1 tbsp"},
    {"name": "Plain Toast", "course": "snack", "servings": 1,
     "ingredients": "white bread:2 slice; butter; jam:1 tbsp"},
    {"name": "Limonada Suíça", "cuisine": "Brazilian", "course": "drink", "prepMinutes": 5,
     "ingredients": "lime:4; sugar:100 g; condensed milk:100 g; water:1 l",
     "instructions": "Blend the whole limes briefly with water and sugar. Strain at once and whisk in the condensed milk."},
    {"name": "Ugali", "cuisine": "Kenyan", "course": "side", "cookMinutes": 20,
     "instructions": "Stir cornmeal into boiling water until stiff. Turn out and shape."},
]

UNITS = {"g", "kg", "ml", "l", "tbsp", "tsp", "cup", "clove", "pinch", "slice",
         "sprig", "bunch", "can"}


def parse_ingredients(text):
    lines = []
    for item in text.split(";"):
        item = item.strip()
        if not item:
            continue
        name, _, amount = item.partition(":")
        entry = {"name": name.strip()}
        if amount:
            parts = amount.split()
            value = float(parts[0])
            entry["quantity"] = int(value) if value == int(value) else value
            if len(parts) > 1:
                if parts[1] not in UNITS:
                    sys.exit(f"unknown unit {parts[1]!r} in {item!r}")
                entry["unit"] = parts[1]
        lines.append(entry)
    return lines


def png(width, height, seed):
    """A small RGB PNG: a two-colour gradient with a little deterministic grain."""
    rng = random.Random(seed)
    a = [rng.randrange(40, 230) for _ in range(3)]
    b = [rng.randrange(40, 230) for _ in range(3)]
    raw = bytearray()
    for y in range(height):
        raw.append(0)  # filter: none
        for x in range(width):
            t = (x + y) / (width + height - 2)
            for c in range(3):
                v = a[c] + (b[c] - a[c]) * t + rng.randrange(-12, 13)
                raw.append(max(0, min(255, int(v))))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b""))


def load_catalogue_names():
    names = set()
    with open(os.path.join(SAMPLE, "ingredients.tsv"), encoding="utf-8") as f:
        next(f)
        for line in f:
            names.add(line.split("\t", 1)[0])
    return names


def main():
    rng = random.Random(20240301)
    chefs_by_cuisine = {}
    for chef, cuisines in CHEFS.items():
        for cuisine in cuisines:
            chefs_by_cuisine.setdefault(cuisine, []).append(chef)
    turn = {}

    records = []
    for name, cuisine, course, times, ingredients, instructions in RECIPES:
        prep, cook, servings = (int(v) for v in times.split("/"))
        chefs = chefs_by_cuisine[cuisine]
        chef = chefs[turn.get(cuisine, 0) % len(chefs)]
        turn[cuisine] = turn.get(cuisine, 0) + 1
        rating = rng.randrange(4, 11) / 2  # 2.0 ... 5.0 in halves
        if rng.random() < 0.08:
            rating = rng.randrange(2, 4) / 2  # a few poor ones
        day = rng.randrange(0, 6 * 365)
        year, rest = 2019 + day // 365, day % 365
        month, dom = 1 + rest // 31 % 12, 1 + rest % 28
        record = {
            "name": name, "chef": chef, "cuisine": cuisine, "course": course,
            "prepMinutes": prep, "cookMinutes": cook, "servings": servings,
            "rating": rating, "published": f"{year:04d}-{month:02d}-{dom:02d}",
            "ingredients": parse_ingredients(ingredients), "instructions": instructions,
        }
        records.append(record)

    # A few complete recipes lose a field each: no rating, no date, no chef.
    for index in (7, 61, 118):
        del records[index]["rating"]
    for index in (23, 90):
        del records[index]["published"]
    for index in (44, 133):
        del records[index]["chef"]

    for sparse in SPARSE:
        record = dict(sparse)
        if "ingredients" in record:
            record["ingredients"] = parse_ingredients(record["ingredients"])
        records.insert(rng.randrange(10, len(records)), record)

    # About twenty recipes carry a photo.
    for n, index in enumerate(range(3, len(records), len(records) // 20)):
        records[index]["photo"] = base64.b64encode(png(48, 48, seed=n)).decode("ascii")

    known = load_catalogue_names()
    order = ["id", "name", "chef", "cuisine", "course", "prepMinutes", "cookMinutes",
             "servings", "rating", "published", "ingredients", "instructions", "photo"]
    out = os.path.join(SAMPLE, "recipes.jsonl")
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        for number, record in enumerate(records, 1):
            record["id"] = f"r-{number:06d}"
            for item in record.get("ingredients", []):
                if item["name"] not in known:
                    sys.exit(f"{record['name']}: ingredient {item['name']!r} is not in ingredients.tsv")
                if item["name"] != item["name"].lower():
                    sys.exit(f"{record['name']}: ingredient {item['name']!r} must be lower-case")
            ordered = {key: record[key] for key in order if key in record}
            f.write(json.dumps(ordered, ensure_ascii=False) + "\n")
    print(f"wrote {len(records)} recipes to {out}")


if __name__ == "__main__":
    main()
