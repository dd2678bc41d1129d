"""Conversational-memory retrieval: long multi-session chat vaults, labelled questions, recall of the answering turns.

Issue 13 ("Passage retrieval"). A deterministic generator (seeded `random.Random`, no network, no LLM) of a
vault shaped like the public long-term conversational-memory benchmarks (LoCoMo, LongMemEval): several
conversations between 2-4 people, each with 15-30 dated sessions of 12-30 turns, one markdown note per session
(`conversations/<slug>/session-07.md`, frontmatter `type: conversation`, `date`, `participants`, `title`) and one
heading per turn (`## Maria Garcia`, `## Maria` or `### Maria (14:02)` under a `# title`, one style per
conversation), so kbgraph indexes every turn as one section. Everything here, the wording included, is written
for this file.

Hard in the ways real chat memory is hard:
  * Most turns are small talk that reuses the vocabulary of the questions (dogs, jobs, flights, doctors, books,
    rent, the same friends' names), so every session of one conversation looks like the others.
  * Facts are planted in single turns and stated the way people talk ("We finally brought home a little beagle
    from the rescue"); the questions paraphrase them ("What kind of dog did Maria adopt?") with synonyms and
    hypernyms. ~90 single-fact templates over pets, work, travel, health, family, hobbies, food, media, home,
    events; each has 1-3 question wordings. Whether a question shares a content word with its answering turns
    is measured, not assumed (`overlap` in questions.jsonl; about a third do, as in real data).
  * Third people are named by first name only ("my sister Ana"), and some fact turns use a pronoun only, after a
    "How's Ana doing?" from someone else (the label is the fact turn, which does not name her).
  * Question kinds (`kind`):
      single    one answering turn;
      multi     2-3 answering turns: one fact told across 2 turns of one session ("I signed up for a race in
                May!" / "Which one?" / "The Porto one"), or a collection spread over sessions ("What pets does
                Maria have?": a dog in session 3, a kitten in session 11);
      temporal  needs the session date: "When did Tom start at Acme?" (the turn says "yesterday"),
                "What did Maria do on 14 March 2025?", "What did Tom do the weekend after his birthday?" (the
                turn says "Last Saturday we ...", in the session after the birthday; the birthday turn is
                `support`, not a label);
      update    a fact that changed: "Where does Tom work now?" labels only the latest turn; the superseded
                turn is in `superseded`.
  Labels are (path, line of the turn's heading); the eval checks every label is the start of an indexed chunk.

Run (repo root; the embedding model must be installed, KBG_EMBEDDER unset):
  .venv/bin/python bench/conversations.py --out /tmp/conv-vault [--seed 1] [--scale 1.0]   # vault + questions.jsonl
  .venv/bin/python bench/conversations.py --eval /tmp/conv-vault [--json] [--db URL]        # index once, score
  .venv/bin/python bench/conversations.py --out /tmp/conv-vault2 --seed 2 && ... --eval /tmp/conv-vault2

Seed 1, scale 1: 9 conversations, 213 sessions, 4,701 turns, 285 questions (seed 2: 208, 4,648, 285); indexing
with vectors takes ~80 s and the whole eval ~3-6 min on 2 cores. The eval reports recall@5/@10 of the answering turns, per kind and overall, for documents and passages
(`search(..., unit="passage")`, when kbgraph has it) x bm25 / vector / hybrid. A document hit recovers every
answering turn inside that document; a passage hit recovers the turn at its exact (path, line). The row
"documents x chance*" is the floor for the document rows: a question names a participant, and the top 10 of a
conversation's ~23 sessions already hold ~45% of its turns by chance.
The last column, MRR, is 1 / the rank of the first hit that recovers an answering turn (top 10). --db
postgresql://...: index into and search that PostgreSQL database (empty, or holding this vault) instead of SQLite.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import re
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# --------------------------------------------------------------------------------------------------- people

FEMALE = ["Maria", "Aisha", "Chloe", "Ingrid", "Priya", "Sofia", "Hannah", "Yuki", "Fatima", "Leila", "Grace",
          "Marta", "Nadia", "Olga", "Rosa", "Emma", "Zara", "Ines", "Beatriz", "Freya", "Amara", "Lucia", "Mei",
          "Tessa", "Ana", "Camille", "Dina", "Esther", "Jade", "Kira"]
MALE = ["Tom", "Daniel", "Kofi", "Mateo", "Arjun", "Lukas", "Omar", "Felix", "Hugo", "Jonas", "Ravi", "Samuel",
        "Ben", "Ethan", "Marco", "Nikolai", "Pedro", "Tariq", "Victor", "Wei", "Yusuf", "Aaron", "Callum", "Diego",
        "Elliot", "Finn", "George", "Idris", "Joel", "Leo"]
SURNAMES = ["Garcia", "Becker", "Okafor", "Lindqvist", "Sharma", "Moreau", "Tanaka", "Haddad", "Novak", "Costa",
            "Fischer", "Mensah", "Kowalski", "Silva", "Brennan", "Nakamura", "Petrov", "Hughes", "Rahman", "Dubois",
            "Jensen", "Rossi", "Osei", "Byrne", "Ibrahim", "Kaur", "Larsen", "Mwangi", "Castillo", "Walsh"]
RELATIONS_F = ["sister", "cousin", "flatmate", "colleague", "neighbour", "best friend", "aunt", "niece"]
RELATIONS_M = ["brother", "cousin", "flatmate", "colleague", "neighbour", "best friend", "uncle", "nephew"]
CITIES = ["Lisbon", "Manchester", "Rotterdam", "Glasgow", "Valencia", "Leipzig", "Bristol", "Porto", "Lyon",
          "Gothenburg", "Bologna", "Cork", "Krakow", "Ghent", "Seville", "Edinburgh", "Antwerp", "Turin"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
COMPANIES = ["Northwind", "Brightlane", "Kestrel Labs", "Harbourline", "Copperleaf", "Bluefern", "Tidewater",
             "Larkspur Health", "Meridian Foods", "Ironbark", "Quillmark", "Sunmill"]
BOOKS = ["The Salt Orchard", "Nine Winters", "A Map of Small Fires", "The Glass Ferry", "Harbour of Lanterns",
         "The Clockmaker's Daughter", "Paper Tides", "Under the Linden", "The Last Lighthouse Keeper",
         "A Year of Quiet Rooms"]
BANDS = ["The Lanternmen", "Velvet Harbour", "Nova Ruins", "Paper Comets", "Kite Season", "The Orchard Lights"]


@dataclass
class Person:
    first: str
    last: str | None
    gender: str  # "f" | "m"
    rel: str | None = None  # a third person: relation to the participant whose circle holds them
    of: "Person | None" = None

    @property
    def full(self) -> str:
        return f"{self.first} {self.last}" if self.last else self.first

    @property
    def she(self) -> str:
        return "she" if self.gender == "f" else "he"

    @property
    def her(self) -> str:
        return "her" if self.gender == "f" else "his"

    @property
    def them(self) -> str:
        return "her" if self.gender == "f" else "him"


# --------------------------------------------------------------------------------------------------- banks
# Slots: {v} {w} the template's values; {S} subject (first name) in questions; {P} a third person; {Ref}/{ref}
# "My sister Ana" / "my sister Ana" or, after a lead-in turn, "She" / "she"; {poss} the subject's his/her;
# {month} {city} {O} (the person spoken to) and {X} (another first name) come from pools.


@dataclass(frozen=True)
class Fact:
    id: str
    who: str  # "self": the speaker is the subject; "other": a third person in the speaker's circle
    says: tuple
    asks: tuple
    values: tuple
    topic: str = ""
    answer: str = "{v}"


def F(id, who, says, asks, values, topic="", answer="{v}"):
    return Fact(id, who, tuple(says), tuple(asks), tuple(values), topic or id, answer)


NAMES_X = ["Ruth", "Gemma", "Oscar", "Milo", "Nell", "Rory", "Iris", "Dev", "Poppy", "Stan", "Wren", "Cleo", "Hattie",
           "Otis", "Bea", "Alfie", "Ivy", "Reuben", "Edie", "Sid"]

SINGLE = [
    # pets
    F("dog_adopt", "self", ["We finally brought home a little {v} from the shelter on Saturday!",
                            "Say hello to the newest member of the household: a {v} pup from the rescue, already eating my shoes."],
      ["What kind of dog did {S} adopt?", "Which breed is {S}'s new pet?"],
      ["beagle", "corgi", "greyhound", "dachshund", "whippet", "border collie"], topic="pets"),
    F("cat_name", "self", ["The kitten is officially called {v}, after a very heated family vote."],
      ["What did {S} name the cat?", "What is {S}'s new feline called?"],
      ["Miso", "Pickle", "Juniper", "Waffles", "Ziggy", "Olive"], topic="pets"),
    F("vet", "self", ["Spent the whole morning at the animal clinic, turns out the rabbit has a {v}."],
      ["What is wrong with {S}'s pet?", "What did the vet find when {S} took the bunny in?"],
      ["dental abscess", "ear infection", "sprained paw", "bad tummy bug"], topic="pets"),
    F("bird", "other", ["{Ref} came home with a {v} and now the flat sounds like a jungle."],
      ["What kind of bird did {P} get?", "Which animal did {S}'s {rel} buy?"],
      ["African grey parrot", "cockatiel", "pair of budgies", "lovebird"]),
    F("dog_walker", "self", ["I've started doing walks for three of the neighbours' {v}s before work, pocket money plus exercise."],
      ["What side gig did {S} pick up in the mornings?"], ["spaniel", "labrador", "pug", "terrier"]),
    # work
    F("promotion", "self", ["I got it! I'm officially {v} as of this week.",
                            "They made it official on Friday: I'm {v} now. Still feels weird to say."],
      ["What is {S}'s new title at work?", "What role was {S} promoted to?"],
      ["team lead", "senior designer", "head of sales", "staff engineer", "charge nurse", "deputy head"]),
    F("interview", "self", ["Second round with {v} went really well, they want me back for a panel next week."],
      ["Which company is {S} interviewing with?", "Where is {S} applying for a position?"], COMPANIES, topic="job"),
    F("retrain", "other", ["{Ref} handed in the notice, going to retrain as a {v}!"],
      ["What new career is {P} pursuing?", "What does {S}'s {rel} want to become?"],
      ["plumber", "primary school teacher", "midwife", "electrician", "paramedic", "carpenter"]),
    F("shop", "self", ["My little online {v} shop just passed a hundred orders, I could cry."],
      ["What does {S} sell on the internet?", "What kind of small business does {S} run?"],
      ["candle", "ceramics", "vintage clothing", "hand-bound notebook", "houseplant"]),
    F("launch", "self", ["We finally shipped the {v} app at work, six months of my life right there."],
      ["What did {S}'s team release?", "What product did {S} help launch?"],
      ["banking", "food delivery", "hospital scheduling", "museum guide", "bike-sharing"]),
    F("boss", "self", ["My new manager is called {v} and, miracle, actually replies to emails."],
      ["Who is {S}'s new boss?", "Who does {S} report to now?"], NAMES_X),
    F("talk", "self", ["Booked to speak at a {v} conference in the autumn, terrified already."],
      ["What kind of event is {S} presenting at?", "At what sort of gathering will {S} give a talk?"],
      ["data science", "urban planning", "veterinary", "children's literature", "renewable energy"]),
    F("other_job", "other", ["{Ref} started at the {v} last month and already loves the night shifts."],
      ["Where does {P} work?", "What is {S}'s {rel}'s workplace?"],
      ["fire station", "children's hospital", "airport", "bakery on the high street", "sorting office"]),
    F("sabbatical", "self", ["Work signed off on three months unpaid leave so I can {v}. Still can't believe it."],
      ["Why is {S} taking a sabbatical?", "What will {S} do during the career break?"],
      ["walk the Camino", "look after my dad", "finish my thesis", "sail to the Canaries"]),
    # travel
    F("holiday", "self", ["Flights are booked, two weeks in {v} in {month}!", "We pulled the trigger on {v} for {month}, the whole fortnight."],
      ["Where is {S} going on holiday?", "Which destination did {S} pick for the vacation?"],
      ["Japan", "Portugal", "Vietnam", "Iceland", "Morocco", "Peru", "Norway", "Greece"], topic="trip"),
    F("souvenir", "self", ["Came back with way too much {v} from that market, the suitcase barely closed."],
      ["What did {S} bring home from the trip?", "What did {S} buy abroad?"],
      ["saffron", "olive oil", "hand-painted tiles", "loose-leaf tea", "wool blankets"]),
    F("luggage", "self", ["The airline lost my suitcase and it turned up three days later in {v}, of all places."],
      ["Where was {S}'s missing luggage found?", "Where did {S}'s bag end up?"],
      ["Frankfurt", "Dublin", "Istanbul", "Helsinki", "Madrid"]),
    F("backpack", "other", ["{Ref} is backpacking around {v} for three months, the photos are unreal."],
      ["Where is {P} travelling?", "Which part of the world is {S}'s {rel} exploring?"],
      ["South America", "Southeast Asia", "New Zealand", "the Balkans", "Central America"]),
    F("roadtrip", "self", ["We drove the whole {v} coast in the camper van, eleven days, zero regrets."],
      ["Where did {S} go on the road trip?", "Which shoreline did {S} travel along?"],
      ["Amalfi", "Pacific", "Dalmatian", "Atlantic", "Cornish"]),
    F("retreat", "self", ["Back from a silent retreat in {v}. Five days of not talking, I'm a new person."],
      ["Where did {S} spend a week without speaking?", "Where did {S} go to meditate?"],
      ["Wales", "the Alps", "Kyoto", "Andalusia"]),
    # health
    F("injury", "self", ["Tore a ligament in my {v} at five-a-side, so I'm on crutches for a bit."],
      ["What did {S} injure?", "Which body part did {S} hurt playing football?"],
      ["knee", "ankle", "hip", "calf"], topic="health"),
    F("allergy", "self", ["Turns out I'm allergic to {v}, which explains a lot about those picnics."],
      ["What is {S} allergic to?", "What food makes {S} react badly?"],
      ["peanuts", "shellfish", "kiwi", "sesame", "strawberries"]),
    F("surgery", "other", ["{Ref} is recovering well after the {v} operation, already bored stiff at home."],
      ["What surgery did {P} have?", "What procedure did {S}'s {rel} undergo?"],
      ["hip", "gallbladder", "knee", "appendix", "cataract"]),
    F("sleep", "self", ["Started taking {v} before bed and I finally sleep through the night."],
      ["What helped {S} with insomnia?", "What is {S} using to rest better?"],
      ["magnesium", "melatonin", "chamomile", "valerian"]),
    F("eyes", "self", ["The optician says I need {v} now. Officially old."],
      ["What eyewear does {S} need?", "What did the eye test reveal for {S}?"],
      ["reading glasses", "varifocals", "contact lenses"]),
    F("therapy", "self", ["I've been seeing someone to talk things through every {v} and it's honestly helping."],
      ["How often does {S} go to counselling?", "When are {S}'s therapy sessions?"],
      ["Tuesday", "other Thursday", "Monday evening", "fortnight"]),
    F("smoking", "self", ["Day {v} without a cigarette. The patches are doing their job."],
      ["How long has {S} been off tobacco?", "For how many days has {S} not smoked?"],
      ["thirty", "forty-five", "ninety", "twelve"], answer="{v} days"),
    # family
    F("baby", "other", ["{Ref} is a parent now! A little girl, {v}, seven pounds two."],
      ["What is {P}'s daughter called?", "What did {S}'s {rel} name the newborn?"],
      ["Rosa", "Elif", "Amara", "Lotte", "Nia", "Maya"]),
    F("engaged", "other", ["{Ref} proposed to {X} on top of a mountain, in the pouring rain."],
      ["Who is {P} marrying?", "Who did {S}'s {rel} get engaged to?"], [""], answer="{X}"),
    F("anniversary", "self", ["My parents are renewing their vows for their {v} anniversary, Mum is beside herself."],
      ["Which wedding anniversary are {S}'s mum and dad celebrating?", "How many years have {S}'s parents been married?"],
      ["fortieth", "thirtieth", "fiftieth", "twenty-fifth"]),
    F("grandma", "self", ["Grandma turned {v} on Sunday and still beat everyone at cards."],
      ["How old is {S}'s grandmother?", "What age did {S}'s nan reach?"],
      ["ninety", "ninety-five", "eighty-eight", "a hundred and one"]),
    F("relocate", "other", ["{Ref} just moved to {v} for work, so no more Sunday roasts together."],
      ["Which city did {P} relocate to?", "Where does {S}'s {rel} live now?"], CITIES),
    F("school", "self", ["The twins start at {v} primary in September. I am not ready."],
      ["Which school will {S}'s kids attend?", "Where are {S}'s children enrolled?"],
      ["Hillcrest", "St Anne's", "Riverside", "Oakfield"]),
    F("reunion", "self", ["The family reunion is going to be at a farmhouse in {v} this summer, all forty of us."],
      ["Where is {S}'s family get-together taking place?", "Where are {S}'s relatives meeting up?"],
      ["Tuscany", "the Lake District", "Provence", "Bavaria"]),
    F("knit", "other", ["{Ref} knitted me a {v} for my birthday and it is enormous."],
      ["What handmade gift did {S} get from {P}?", "What did {P} make for {S}?"],
      ["jumper", "scarf", "blanket", "bobble hat"]),
    # hobbies
    F("instrument", "self", ["I bought a second-hand {v} and I'm learning from videos, the neighbours love me."],
      ["What instrument is {S} learning?", "What is {S} teaching themselves to play?"],
      ["cello", "ukulele", "banjo", "saxophone", "harp", "drum kit"], topic="music"),
    F("sport", "self", ["I joined a {v} club! Tuesday nights, extremely muddy."],
      ["What sport did {S} take up?", "What team activity has {S} started?"],
      ["rugby", "hockey", "rowing", "ultimate frisbee", "lacrosse"], topic="fitness"),
    F("pottery", "self", ["My first {v} came out of the kiln lopsided but I love it."],
      ["What did {S} make in ceramics class?", "What piece of pottery did {S} produce?"],
      ["bowl", "vase", "teapot", "mug"]),
    F("allotment", "self", ["The allotment finally gave us a proper crop of {v} this year."],
      ["What did {S} grow in the vegetable plot?", "What has {S} been harvesting?"],
      ["courgettes", "pumpkins", "broad beans", "tomatoes", "beetroot"]),
    F("marathon", "self", ["Finished {v} in four hours ten. My legs are destroyed."],
      ["Which marathon did {S} complete?", "What running event did {S} finish?"],
      ["Berlin", "Chicago", "Valencia", "Rotterdam", "Paris"]),
    F("tournament", "self", ["Won my first {v} tournament at the club on Sunday, I'm unbearable now."],
      ["What game did {S} win a competition in?", "Which board game contest did {S} win?"],
      ["chess", "bridge", "Scrabble", "backgammon"]),
    F("photo", "self", ["One of my shots of the {v} got picked for the local gallery show!"],
      ["What was the subject of {S}'s exhibited photograph?", "Which picture by {S} is on display?"],
      ["harbour at dawn", "old tram depot", "flower market", "frozen canal"]),
    F("dance", "self", ["Signed up for {v} lessons with my other half, we are hopeless."],
      ["What style of dancing is {S} learning?", "What dance classes is {S} taking?"],
      ["salsa", "tango", "swing", "flamenco"], topic="partner"),
    F("choir", "self", ["I'm singing in a {v} choir now, rehearsals every Wednesday."],
      ["What kind of choir does {S} perform with?", "What singing group has {S} joined?"],
      ["gospel", "community", "chamber", "barbershop"]),
    F("art", "self", ["I started doing {v} on Sunday mornings, very meditative."],
      ["What art form did {S} pick up?", "What creative hobby does {S} practise at the weekend?"],
      ["watercolours", "oil painting", "calligraphy", "linocut printing"]),
    F("fishing", "other", ["{Ref} caught a {v} the size of my arm off the pier."],
      ["What fish did {P} land?", "What did {S}'s {rel} catch?"], ["pike", "sea bass", "trout", "mackerel"]),
    F("game", "self", ["I've sunk sixty hours into {v} this month, send help."],
      ["What video game is {S} playing?", "Which game is {S} obsessed with?"],
      ["Star Orchard", "Deep Hollow", "Tidebreaker", "Lantern Keep"]),
    # food
    F("restaurant", "self", ["Had the best dinner of my life at a tiny {v} place near the station."],
      ["What cuisine was {S}'s favourite recent meal?", "What kind of restaurant did {S} love?"],
      ["Ethiopian", "Georgian", "Peruvian", "Sichuan", "Lebanese", "Korean"]),
    F("bake", "self", ["My {v} finally rose properly, third attempt lucky."],
      ["What did {S} manage to bake?", "Which bread did {S} get right?"],
      ["sourdough", "brioche", "focaccia", "challah"], topic="cooking"),
    F("coffee", "self", ["I've switched to {v}, no more four espressos a day."],
      ["What does {S} drink instead of coffee now?", "What replaced {S}'s caffeine habit?"],
      ["green tea", "matcha", "rooibos", "decaf"]),
    F("cookclass", "self", ["Did a weekend course on {v} cooking, my knife skills are transformed."],
      ["Which cuisine did {S} study in a class?", "What kind of food did {S} learn to make?"],
      ["Thai", "Indian", "Mexican", "Japanese"], topic="cooking"),
    F("dislike", "other", ["{Ref} refuses to eat anything with {v} in it, dinner parties are a puzzle."],
      ["What ingredient does {P} hate?", "What food won't {S}'s {rel} touch?"],
      ["coriander", "mushrooms", "olives", "aubergine"]),
    F("wine", "self", ["We did a tasting tour in {v} and I came back with a case of red."],
      ["Which wine region did {S} visit?", "Where did {S} go on the vineyard trip?"],
      ["Rioja", "the Douro", "Bordeaux", "Mendoza"]),
    # media
    F("novel", "self", ["Can't put down {v}, I was up till two last night."],
      ["What book is {S} reading?", "Which novel is keeping {S} awake?"], BOOKS, topic="books"),
    F("bookclub", "self", ["Our book club picked {v} for next month, apparently it's bleak."],
      ["What is {S}'s reading group discussing next?", "Which title did {S}'s club choose?"], BOOKS, topic="books"),
    F("series", "self", ["Binged all of {v} over the weekend, no regrets whatsoever."],
      ["Which series did {S} watch?", "What TV show did {S} finish?"],
      ["Cold Harbour", "The Quiet Fleet", "Margins", "Night Shift Kitchen"]),
    F("podcast", "self", ["I'm hooked on a podcast about {v}, forty episodes in."],
      ["What topic is {S}'s favourite audio show about?", "What is the podcast {S} listens to about?"],
      ["medieval history", "unsolved shipwrecks", "urban foxes", "space missions"]),
    F("writing", "self", ["I finished the first draft of my {v} novel, eighty thousand words!"],
      ["What genre is the book {S} is writing?", "What kind of story has {S} drafted?"],
      ["crime", "fantasy", "historical", "sci-fi"]),
    F("gig", "self", ["Saw {v} live last night and cried during the encore."],
      ["Which band did {S} see in concert?", "What gig did {S} go to?"], BANDS),
    F("festival", "self", ["We've got tickets for {v} in July, camping and everything."],
      ["Which music festival is {S} attending?", "What summer event is {S} going to?"],
      ["Green Hollow", "Riverbank Sounds", "Lakeside Weekender"]),
    F("museum", "self", ["Spent the afternoon at the {v} exhibition, the sculptures were unreal."],
      ["Which artist's show did {S} visit?", "What gallery exhibition did {S} see?"],
      ["Rodin", "Hepworth", "Kusama", "Giacometti"]),
    # home
    F("renovate", "self", ["We knocked through the wall between the kitchen and the {v}, dust everywhere."],
      ["What renovation did {S} do at home?", "Which rooms did {S} open up?"],
      ["dining room", "living room", "hallway", "utility room"], topic="diy"),
    F("flatmate", "self", ["My new flatmate is a {v} who works nights, so the place is silent all day."],
      ["What does {S}'s new housemate do for a living?", "What is the job of the person {S} lives with?"],
      ["nurse", "baker", "security guard", "radio producer"]),
    F("house", "self", ["We got the keys to our first place, a two-bed terrace in {v}!"],
      ["Which neighbourhood did {S} buy a home in?", "Where is the property {S} purchased?"],
      ["Clifton", "Leith", "Hackney", "Ancoats", "Southville"], topic="home"),
    F("houseplant", "self", ["My {v} has put out a new leaf and I'm weirdly proud."],
      ["What houseplant does {S} look after?", "Which indoor plant does {S} own?"],
      ["monstera", "fiddle-leaf fig", "orchid", "bonsai"]),
    F("noise", "self", ["The upstairs neighbours have taken up {v} at midnight. I'm losing my mind."],
      ["What noise is keeping {S} up?", "What are the people living above {S} doing late at night?"],
      ["tap dancing", "drum practice", "karaoke", "skipping rope"]),
    # events and misc
    F("witness", "self", ["{X} asked me to be a witness at the wedding, so I'm organising the big night out. Help."],
      ["Whose wedding is {S} going to be a witness at?", "Who asked {S} to stand beside them at the altar?"],
      [""], answer="{X}"),
    F("volunteer", "self", ["Started helping out at the {v} on Saturday mornings."],
      ["Where does {S} volunteer?", "Where does {S} do unpaid work?"],
      ["food bank", "animal shelter", "community library", "hospice shop"]),
    F("bike", "self", ["Treated myself to a {v} bike, my commute is a joy now."],
      ["What did {S} buy for getting to work?", "What kind of bicycle does {S} ride?"],
      ["cargo", "folding", "electric", "gravel"], topic="commute"),
    F("raffle", "self", ["I won a {v} in the school raffle, the first thing I've ever won!"],
      ["What prize did {S} get?", "What did {S} win in the draw?"],
      ["spa weekend", "hamper", "meal for two", "hot tub day pass"]),
    F("lost", "self", ["Left my {v} on the night bus. Gone forever."],
      ["What did {S} lose?", "What belonging did {S} leave on public transport?"],
      ["laptop", "favourite jacket", "headphones", "house keys"]),
    F("tattoo", "self", ["Got a tiny {v} tattooed on my wrist. Mum doesn't know yet."],
      ["What design did {S} get inked?", "What is {S}'s new tattoo of?"],
      ["swallow", "compass", "fern", "lighthouse"]),
    F("language", "self", ["I've started {v} lessons in my lunch break, ordering coffee is my limit so far."],
      ["What language is {S} studying?", "Which foreign tongue is {S} learning?"],
      ["Portuguese", "Japanese", "Greek", "Polish", "Korean"]),
    F("driving", "self", ["Passed my test on the {v} attempt!! Nobody is safe now."],
      ["How many tries did it take {S} to get a driving licence?", "On which attempt did {S} pass the driving exam?"],
      ["second", "third", "fourth", "fifth"]),
    F("charity", "self", ["I'm doing a sponsored {v} for the children's hospital, please donate."],
      ["What challenge is {S} doing for charity?", "What is {S} raising money with?"],
      ["skydive", "head shave", "sea swim", "hundred-mile cycle"]),
    F("exam", "self", ["Results are out. I passed the {v} exams!"],
      ["Which qualification did {S} get?", "What professional exams did {S} pass?"],
      ["accountancy", "bar", "nursing", "actuarial"]),
    F("masters", "other", ["{Ref} got a place on a master's in {v} in Edinburgh."],
      ["What is {P} going to study?", "What postgraduate course did {S}'s {rel} get into?"],
      ["marine biology", "architecture", "public health", "data science"]),
    F("breakup", "other", ["{Ref} and {X} split up after six years, I'm gutted for both of them."],
      ["Who did {P} break up with?", "Who was {S}'s {rel} with before the split?"], [""], answer="{X}"),
    F("present", "self", ["For our anniversary I'm surprising my partner with a {v}."],
      ["What present is {S} planning?", "What anniversary gift did {S} choose?"],
      ["hot air balloon ride", "weekend in Paris", "record player", "cookery course"], topic="partner"),
    F("phone", "self", ["Dropped my phone in the {v}. It did not survive."],
      ["How did {S} break their mobile?", "Where did {S}'s handset get drowned?"],
      ["canal", "bath", "paddling pool", "washing up"]),
    F("hair", "self", ["I went full {v} at the hairdresser and everyone at work did a double take."],
      ["What new look did {S} get?", "What did {S} do to their hair?"],
      ["pixie cut", "bleached blonde", "buzz cut", "curtain fringe"]),
    F("camper", "other", ["{Ref} bought an old {v} van and is converting it into a camper."],
      ["What vehicle is {P} doing up?", "What is {S}'s {rel} turning into a motorhome?"],
      ["Volkswagen", "Ford Transit", "Mercedes Sprinter", "Citroen"]),
    F("streetparty", "other", ["{Ref} is organising a street party for the {v}, bunting and all."],
      ["What is {P} planning a block party for?", "What occasion is {S}'s {rel} celebrating with the street?"],
      ["summer solstice", "end of term", "coronation", "village centenary"]),
    F("lottery", "other", ["{Ref} won {v} on a scratch card and spent it all on a sofa."],
      ["How much money did {P} win?", "What was {S}'s {rel}'s jackpot?"],
      ["five hundred quid", "two grand", "a thousand pounds"]),
    F("garden_design", "self", ["We're ripping out the lawn and putting in a {v}."],
      ["What is {S} doing with the back garden?", "What will replace {S}'s grass?"],
      ["wildflower meadow", "pond", "vegetable patch", "gravel garden"], topic="diy"),
    F("quiz", "self", ["Our pub team came {v} in the league this season, we got a trophy and everything."],
      ["Where did {S}'s trivia team finish?", "How did {S}'s quiz team rank?"],
      ["first", "second", "third"]),
    F("moving_help", "other", ["{Ref} asked me to help shift a {v} up four flights on Sunday. My back is gone."],
      ["What did {S} help {P} carry?", "What heavy item did {S} move for {P}?"],
      ["piano", "wardrobe", "sofa bed", "fish tank"]),
    F("scholarship", "other", ["{Ref} won a scholarship to study {v} in Vienna."],
      ["What is {P} going to Vienna to study?", "What subject did {S}'s {rel} get funding for?"],
      ["violin", "opera", "composition", "conducting"]),
    F("swim", "self", ["I swam a full mile in the {v} yesterday without stopping, who am I?"],
      ["Where did {S} do the long swim?", "Where did {S} manage a mile in the water?"],
      ["lido", "lake", "sea", "leisure centre pool"]),
    F("recipe", "other", ["{Ref} finally gave me the secret {v} recipe, I've been sworn to secrecy."],
      ["Which family recipe did {S} get from {P}?", "What dish did {P} teach {S} to make?"],
      ["lasagne", "dumpling", "curry", "apple cake"]),
    F("award", "other", ["{Ref} got the {v} award at the work gala, so proud."],
      ["What prize did {P} receive?", "What did {S}'s {rel} win at the gala?"],
      ["rising star", "innovation", "lifetime service", "team player"]),
    F("vote", "self", ["I got elected onto the {v} committee, apparently nobody else wanted it."],
      ["What board did {S} join?", "Which committee was {S} elected to?"],
      ["residents' association", "school governors", "allotment society", "tenants' union"]),
]

# One fact told across turns of one session: parts[0] and parts[2] are the subject's (both labels), parts[1] is
# asked by someone else in between.
SPLIT = [
    F("race_split", "self", ["I signed up for a half marathon in {month}!", "Ooh, which one?", "{v}, the flat course along the river. Training starts Monday."],
      ["Which race is {S} running, and in what month?", "What running event did {S} enter and when is it?"],
      CITIES, answer="{v} half marathon, {month}"),
    F("offer_split", "self", ["I accepted an offer today!!", "No way! Where?", "{v}. It's a {w} role, small team, good people."],
      ["Which company hired {S}, and for what position?", "What job did {S} take and where?"],
      [(c, r) for c in COMPANIES[:6] for r in ("product", "marketing", "research")], topic="job", answer="{v}, {w}"),
    F("honeymoon_split", "self", ["We're going to {v} for the honeymoon.", "Amazing! For how long?", "{w} weeks, and part of it in a treehouse."],
      ["Where and for how long is {S}'s honeymoon?", "How long is {S}'s post-wedding trip, and where to?"],
      [(p, n) for p in ("Bali", "Costa Rica", "Sri Lanka", "Mauritius") for n in ("Two", "Three")], topic="trip", answer="{v}, {w} weeks"),
    F("car_split", "self", ["I finally bought a car, {v} quid cash, don't laugh.", "Go on then, what is it?", "A {w} hatchback, twelve years old, smells faintly of dog."],
      ["What car did {S} buy and how much did it cost?", "What vehicle did {S} get and for what price?"],
      [(p, c) for p in ("two thousand", "fifteen hundred", "three grand") for c in ("silver", "red", "green")], topic="car", answer="{w} hatchback, {v}"),
    F("foster_split", "self", ["We're fostering a {v} from the rescue for a few weeks.", "Oh that's lovely! What's it called?", "{X}. Already rules the sofa."],
      ["What animal is {S} fostering, and what is its name?", "What pet is staying with {S} temporarily and what is it called?"],
      ["greyhound", "three-legged cat", "lurcher", "pair of guinea pigs"], topic="pets", answer="{v} called {X}"),
    F("course_split", "self", ["Enrolled in an evening course at the college.", "In what?", "{v}. Two nights a week until {month}."],
      ["What is {S} studying at night school, and until when?", "Which class does {S} attend after work and how long does it run?"],
      ["Furniture restoration", "Bookkeeping", "Sign language", "Welding"], answer="{v}, until {month}"),
    F("op_split", "other", ["{Ref} is going in for surgery next week.", "Oh no, what for?", "{poss_P} {v}. The surgeon says it's routine, but still."],
      ["Why is {P} having an operation and when?", "What is {S}'s {rel} being operated on for?"],
      ["shoulder", "back", "knee", "wrist"], topic="health", answer="{v}, next week"),
    F("move_split", "self", ["We're moving in {month}.", "Where to?!", "{v}. {X} got a transfer and I can work from anywhere."],
      ["Where is {S} relocating, and when?", "When and to which city is {S} moving?"],
      CITIES, topic="home", answer="{v}, {month}"),
    F("party_split", "self", ["Throwing a surprise party for {X} on the twelfth, keep it quiet.", "Count me in. Where?", "The back room of the {v}, booked from eight."],
      ["Where and for whom is {S} hosting the surprise celebration?", "Who is {S}'s secret party for, and where is it?"],
      ["Red Lion", "Anchor", "Crown and Thistle", "Old Bell"], answer="{X}, the {v}"),
]

# A collection told across sessions: each item is one turn in its own session; all are labels.
COLLECT = [
    dict(id="pets_all", topic="pets",
         items=[("We finally brought home a little {v} from the shelter!", ["beagle", "corgi", "whippet", "terrier"]),
                ("Plot twist: a {v} kitten has moved in with us as well.", ["tabby", "ginger", "black", "grey"]),
                ("We now own two {v}. They live on the balcony and judge me.", ["tortoises", "budgies", "chickens"])],
         asks=["What pets does {S} have?", "Which animals live with {S}?"]),
    dict(id="trips_all", topic="trip",
         items=[("Just back from {v}, the food alone was worth the flight.", ["Mexico", "Sicily", "Georgia", "Jordan"]),
                ("Home from a long weekend in {v}, my feet hurt from all the walking.", ["Prague", "Vienna", "Budapest", "Riga"]),
                ("Landed from {v} at six this morning, the jet lag is real.", ["Canada", "Thailand", "Brazil", "Kenya"])],
         asks=["Which places has {S} travelled to this year?", "Where has {S} been on trips lately?"]),
    dict(id="books_all", topic="books",
         items=[("Finished {v} on the train, what an ending.", BOOKS[:5]),
                ("Just turned the last page of {v}, still thinking about it.", BOOKS[5:]),
                ("I read {v} in two days, could not stop.", ["Saltwater Saints", "The Borrowed Hour", "Fen Country"])],
         asks=["What novels has {S} finished recently?", "Which books has {S} read lately?"]),
    dict(id="fitness_all", topic="fitness",
         items=[("Tried a {v} class on Monday, I can't feel my arms.", ["spin", "boxing", "kettlebell"]),
                ("Did my first {v} session yesterday, surprisingly fun.", ["pilates", "aerial yoga", "barre"]),
                ("Went bouldering with {X} for the first time, I'm hooked.", [""])],
         asks=["Which workouts has {S} tried?", "What kinds of exercise has {S} done?"]),
    dict(id="music_all", topic="music",
         items=[("I can now play three whole chords on the {v}.", ["ukulele", "guitar", "mandolin"]),
                ("Had my first {v} lesson, the teacher is very patient.", ["piano", "violin", "trumpet"])],
         asks=["What instruments is {S} learning?", "What is {S} learning to play?"]),
    dict(id="cooking_all", topic="cooking",
         items=[("Made {v} from scratch tonight, the kitchen is destroyed.", ["ramen", "paella", "lasagne", "pierogi"]),
                ("Attempted {v} for the first time, edible!", ["bao buns", "croissants", "risotto", "tamales"])],
         asks=["What dishes has {S} cooked recently?", "What food has {S} tried making at home?"]),
    dict(id="diy_all", topic="diy",
         items=[("Painted the bedroom {v}, very bold.", ["dark green", "terracotta", "navy", "mustard yellow"]),
                ("Put up {v} in the hallway myself, only one injury.", ["shelves", "a coat rack", "a mirror"]),
                ("Regrouted the whole {v} this weekend, never again.", ["bathroom", "kitchen splashback", "shower"])],
         asks=["What DIY jobs has {S} done around the house?", "What home improvements has {S} tackled?"]),
    dict(id="health_all", topic="health",
         items=[("Twisted my {v} stepping off the bus, so elegant.", ["ankle", "knee", "wrist"]),
                ("The dentist found {v}, so that's my month ruined.", ["two fillings", "a cracked molar", "gum disease"]),
                ("Had a nasty {v} all week, still coughing.", ["chest infection", "flu", "sinus infection"])],
         asks=["What health problems has {S} had lately?", "What ailments has {S} dealt with recently?"]),
]

# Dated facts: {when} is "yesterday", "this morning" or "on <weekday>", resolved against the session date.
TEMPORAL = [
    F("t_job", "self", ["First day at {v} was {when}, and my badge photo is a crime."],
      ["When did {S} start working at {v}?", "On what date did {S} begin at {v}?"], COMPANIES, topic="job"),
    F("t_10k", "self", ["Ran my first 10k {when}, fifty-eight minutes!"],
      ["When did {S} complete a ten kilometre run?", "What did {S} do on {date}?"], [""], topic="race"),
    F("t_engaged", "self", ["{When_cap} {X} got down on one knee at the beach and I said yes!!"],
      ["When did {S} get engaged?", "What happened between {S} and {X} on {date}?"], [""], topic="partner"),
    F("t_move", "self", ["Moved into the new flat {when}, currently sleeping on a mattress on the floor."],
      ["When did {S} change address?", "What did {S} do on {date}?"], [""], topic="home"),
    F("t_tooth", "self", ["Had the wisdom tooth out {when}, face like a hamster."],
      ["When was {S}'s dental extraction?", "What medical appointment did {S} have on {date}?"], [""], topic="health"),
    F("t_gig", "self", ["Saw {v} {when}, front row, ears still ringing."],
      ["When did {S} go to the {v} concert?", "What did {S} do on {date}?"], BANDS),
    F("t_driving", "self", ["Passed the driving test {when}!!"],
      ["On what date did {S} get a driving licence?", "What did {S} achieve on {date}?"], [""], topic="driving"),
    F("t_graduation", "self", ["Graduated {when}, silly hat and everything."],
      ["When was {S}'s graduation ceremony?", "What ceremony did {S} attend on {date}?"], [""]),
    F("t_wedding", "self", ["We were at {X}'s wedding {when}, I danced until three."],
      ["When did {X} get married?", "Whose wedding did {S} go to on {date}?"], [""]),
    F("t_hike", "self", ["Got to the top of {v} {when}, the view was ridiculous."],
      ["When did {S} climb {v}?", "Which mountain did {S} summit on {date}?"], ["Snowdon", "Ben Nevis", "Scafell Pike", "Pen y Fan"]),
    F("t_interview", "self", ["Had the big interview {when}. I think it went okay?"],
      ["When was {S}'s job interview?", "What did {S} have on {date} that might lead to a new position?"], [""], topic="job"),
    F("t_car", "self", ["Picked up the new car {when}, it's a {v}."],
      ["When did {S} collect the new vehicle?", "What did {S} pick up on {date}?"], ["Skoda", "Kia", "Mazda", "Fiat"], topic="car"),
]

# "What did S do the weekend after <anchor>?": the anchor turn says "this Saturday"; the answer turn, in a later
# session dated 8-13 days after that Saturday, says "Last Saturday we ...".
ANCHORS = [
    ("My birthday's this Saturday, I'm pretending it isn't happening.", "{poss} birthday"),
    ("Big exam this Saturday, wish me luck.", "{poss} exam"),
    ("{X}'s wedding is this Saturday and I still have nothing to wear.", "{X}'s wedding"),
    ("The half marathon is this Saturday, I've carb-loaded enough for a small village.", "the half marathon"),
]
ACTIVITIES = ["drove out to the coast and ate chips in the car", "went to a pottery workshop",
              "painted the garden fence", "took the train to {city} for the day", "went kayaking on the lake",
              "spent the whole day at a flea market", "helped {X} build a shed", "went to a wine tasting",
              "tried a climbing wall for the first time", "went strawberry picking"]
ANCHOR_ASKS = ["What did {S} do the weekend after {anchor}?", "How did {S} spend the Saturday following {anchor}?"]

UPDATES = [
    dict(id="u_employer", topic="job", values=COMPANIES,
         old="I've been at {v} three years now, hard to believe.",
         new="Handed in my notice at {v}! From next month I'm at {w}.",
         asks=["Where does {S} work now?", "Who is {S}'s current employer?"]),
    dict(id="u_city", topic="home", values=CITIES,
         old="Loving life in {v}, the tram goes right past my door.",
         new="{w} it is, signed the lease on the flat yesterday.",
         asks=["Where is {S} living these days?", "Which city is {S} based in now?"]),
    dict(id="u_diet", topic="diet", values=[("vegetarian", "vegan"), ("vegan", "pescatarian"), ("pescatarian", "vegetarian")],
         old="I'm {v} these days, my mum still offers me ham every visit.",
         new="Gave up on being {v}, I'm {w} now. Cheese was the sticking point.",
         asks=["What is {S}'s current diet?", "What does {S} eat nowadays?"]),
    dict(id="u_commute", topic="commute", values=[("cycle", "the train"), ("drive", "the bus"), ("walk", "the tram")],
         old="I {v} to work every day, rain or shine.",
         new="New routine: I take {w} to the office now, I can read on the way.",
         asks=["How does {S} get to work nowadays?", "What is {S}'s commute like at present?"]),
    dict(id="u_partner", topic="partner", values=NAMES_X,
         old="{v} and I have been seeing each other since spring. Early days!",
         new="{v} and I called it off. It was mutual, I'm fine, honestly.",
         asks=["Is {S} still dating {v}?", "What is {S}'s relationship status now?"]),
    dict(id="u_team", topic="team", values=["payments", "search", "onboarding", "mobile", "analytics", "support"],
         old="Still on the {v} team, same old firefighting.",
         new="I moved over to the {w} team this week, new desk and everything.",
         asks=["Which team is {S} on at the moment?", "What group does {S} work in now?"]),
    dict(id="u_car", topic="car", values=["Corsa", "Golf", "Clio", "Yaris", "Focus", "Polo"],
         old="My old {v} is still going, somehow.",
         new="The {v} finally died on the ring road, so I bought a {w}.",
         asks=["What does {S} drive now?", "What is {S}'s current car?"]),
    dict(id="u_exercise", topic="fitness", values=[("swimming", "climbing"), ("running", "cycling"), ("yoga", "boxing")],
         old="Still {v} three mornings a week, it keeps me sane.",
         new="I've swapped {v} for {w}, my whole body hates me.",
         asks=["What exercise does {S} do these days?", "What is {S}'s current workout?"]),
]

# Small talk: no fact anyone asks about, the same vocabulary as the facts. {O} the person spoken to, {P} someone in
# the speaker's circle, {rel} their relation, {city}, {weekday}, {month}.
SMALL = [
    "The dog next door barked at every delivery van today.", "Someone at work brought in a puppy and nobody got anything done.",
    "The cat from across the road sat on my car again.", "Saw the cutest dog at the park, I want one so badly.",
    "Work is just meetings about meetings at the moment.", "My manager moved our one-to-one again, third time this month.",
    "Our team is hiring, if you know anyone.", "Deadline on {weekday}, so I'm basically living at my desk.",
    "I need a holiday so badly, even a long weekend would do.", "Flights are ridiculous this time of year.",
    "Thinking about going somewhere warm in the winter.", "The train was cancelled again, of course.",
    "Mum keeps sending me articles about vitamins.", "I've got a doctor's appointment I keep rescheduling.",
    "Haven't slept properly all week, the heat is unbearable.", "My back hurts from sitting all day.",
    "Did {P} ever ring you back?", "{P} says hi, by the way.", "My {rel} {P} keeps asking when you're visiting.",
    "{P} has been so busy lately, I barely see them.", "I owe {P} a birthday card, remind me.",
    "We should do dinner soon, it's been ages.", "I made a huge pot of soup, I'll be eating it until Thursday.",
    "There's a new bakery on our street. Dangerous.", "I'm trying to cook more and order in less.",
    "Coffee number three and it's not even eleven.", "Remember that awful restaurant by the station? It closed.",
    "Can you recommend a book? I've run out of things to read.", "Reading on the train is the only reading I do these days.",
    "Is it just me or is every series now eight episodes of nothing?", "The concert tickets sold out in four minutes, obviously.",
    "The rent went up again, naturally.", "Still haven't unpacked the last box from ages ago.",
    "Can't decide whether to paint the bathroom or just live with it.", "The neighbours had a party until 2am.",
    "The plant you gave me is somehow still alive.", "The car is making that noise again.",
    "I keep meaning to go to the gym and then not going.", "Went for a walk by the river, it was lovely.",
    "It's been raining in {city} for a week straight.", "Traffic in {city} today was unreal.",
    "I can't believe it's already {month}.", "Weekends go by way too fast.", "I fell asleep on the sofa at nine last night.",
    "I should really learn another language, I keep saying it.", "Saw an ad for a pottery class and nearly signed up.",
    "The kids down the road had a full football tournament going.", "My phone battery dies by lunchtime now.",
    "I've been trying to drink more water, it's going badly.", "Family group chat is chaos today.",
    "My {rel} {P} sent me a meme at 3am, as usual.", "Do you still have that umbrella of mine?",
    "Work drinks on {weekday}, I might actually go.", "The heating broke, so I'm wearing two jumpers.",
    "Shopping for a present is the worst, I never know what to get.", "Our landlord finally fixed the boiler.",
    "The gym was packed at six, who are these people?", "I really need a haircut.", "Is it too early to think about Christmas?",
    "I've been listening to the same album on repeat.", "We watched a terrible film last night and loved it.",
    "The new season of that baking show is on, I'm obsessed.", "Got caught in the rain without a coat, classic me.",
    "Long day. Long week, honestly.", "How's work treating you?", "How's everything with you?",
    "What are you up to this week?", "How was your {weekday}?", "Anything exciting happening?", "How are things with {P}?",
    "Are you around this weekend?", "Did you end up going to that thing?", "Sorry, slow reply, it's been a day.",
]
REACT = ["Haha, classic.", "Oh no!", "Ugh, same.", "That's hilarious.", "Honestly, fair.", "Tell me about it.",
         "No way!", "Love that for you.", "Sounds like a lot.", "I hear you.", "Ha! Of course.", "Oof.",
         "Wait, really?", "Oh wow.", "That's so you.", "Good for you, honestly.", "Ooh, jealous.", "Amazing!!",
         "Huh, I did not see that coming.", "Tell me everything.", "How do you feel about it?", "Send pictures!",
         "That's big news.", "Congrats, seriously.", "Aw, that's lovely.", "Yikes."]
GREET = ["Hey {O}! How's your week going?", "Morning! Got a minute?", "Hiya, long time no chat!", "Hey you!",
         "Evening! Survived the day?", "{O}!! I have news. Well, sort of.", "Hi hi. Quick catch-up?"]
BYE = ["Right, I have to run. Talk soon!", "Okay, bedtime for me. Night!", "Gotta go, speak this week?",
       "Anyway, back to work. Later!", "Catch you soon x", "Love that. Chat later!"]
LEADIN = ["How's {P} getting on?", "Any news from {P}?", "What's new with {P}?", "How is {P} these days?",
          "Have you heard from {P} lately?"]

STOP = set("""a an the and or but of to in on at for with from by is are was were be been being do does did done
have has had i me my we our you your he him his she her it its they them their this that these those what which who
whom whose when where why how now nowadays these days new get got take took so as up down out about into over after
before than then there here just not no yes all any some one two first last next s t can will would should could
much many very really still also again off own same too only own own currently current at present lately recently
this year time""".split())
WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")


def content_words(text: str, names: set[str]) -> set[str]:
    out = set()
    for w in WORD.findall(text.lower()):
        w = w.split("'")[0]
        if len(w) < 3 or w in STOP or w in names:
            continue
        out.add(w[:-1] if w.endswith("s") and len(w) > 4 else w)
    return out


# --------------------------------------------------------------------------------------------------- generation

@dataclass
class Turn:
    speaker: Person
    text: str
    key: str | None = None  # a label key, for the turns questions point at


@dataclass
class Block:
    """Consecutive turns planted in one session."""

    turns: list
    session: int


@dataclass
class Conv:
    slug: str
    people: list
    circle: dict  # participant first name -> list of third Persons
    city: str
    style: str
    dates: list
    blocks: dict = field(default_factory=dict)  # session -> [Block]
    x_used: list = field(default_factory=list)
    questions: list = field(default_factory=list)


def fmt_date(d: dt.date) -> str:
    return f"{d.day} {d:%B %Y}"


def when_phrase(rng: random.Random, day: dt.date) -> tuple[str, dt.date]:
    r = rng.random()
    if r < 0.35:
        return "yesterday", day - dt.timedelta(days=1)
    if r < 0.55:
        return "this morning", day
    back = rng.randint(2, 5)
    d = day - dt.timedelta(days=back)
    return f"on {WEEKDAYS[d.weekday()]}", d


class Generator:
    def __init__(self, seed: int, scale: float):
        self.rng = random.Random(seed)
        self.seed, self.scale = seed, scale
        self.used_first: list[str] = []

    # people ------------------------------------------------------------------
    def person(self, last: bool, avoid: set[str]) -> Person:
        rng = self.rng
        while True:
            g = rng.choice("fm")
            first = rng.choice(FEMALE if g == "f" else MALE)
            if first not in avoid:
                return Person(first, rng.choice(SURNAMES) if last else None, g)

    def participants(self) -> list:
        n = self.rng.choices([2, 3, 4], weights=[6, 3, 1])[0]
        people = []
        for _ in range(n):
            p = self.person(True, set(self.used_first))  # a participant's first name is unique in the vault
            self.used_first.append(p.first)
            people.append(p)
        return people

    def make_conv(self, index: int, people: list) -> Conv:
        rng = self.rng
        taken = set(self.used_first)  # third people: never a participant's name, unique in their conversation
        circle = {}
        for p in people:
            mine = []
            for _ in range(rng.randint(3, 4)):
                q = self.person(False, taken)
                taken.add(q.first)
                q.rel, q.of = rng.choice(RELATIONS_F if q.gender == "f" else RELATIONS_M), p
                mine.append(q)
            circle[p.first] = mine
        start = dt.date(2025, rng.randint(1, 6), rng.randint(1, 28))
        dates, d = [], start
        for _ in range(rng.randint(15, 30)):
            dates.append(d)
            d += dt.timedelta(days=rng.randint(3, 16))
        slug = "-".join(p.first.lower() for p in people)
        style = ["full", "first", "timed"][index % 3]
        return Conv(slug, people, circle, rng.choice(CITIES), style, dates)

    def other_name(self, conv: Conv, *texts) -> str:
        """A name for {X} (a partner, a friend getting married), only when a text has {X}: a new one in this
        conversation while there are any, so one name is not two people."""
        if not any("{X}" in t for t in texts):
            return ""
        fresh = [x for x in NAMES_X if x not in conv.x_used]
        x = self.rng.choice(fresh or NAMES_X)
        conv.x_used.append(x)
        return x

    # planting ----------------------------------------------------------------
    def plant(self, conv: Conv, session: int, turns: list) -> None:
        conv.blocks.setdefault(session, []).append(Block(turns, session))

    def free_session(self, conv: Conv, lo: int = 0, hi: int | None = None) -> int:
        hi = len(conv.dates) - 1 if hi is None else hi
        options = list(range(lo, hi + 1))
        self.rng.shuffle(options)
        return min(options, key=lambda s: len(conv.blocks.get(s, [])))

    def question(self, conv, kind, sub, text, answer, keys, **extra):
        conv.questions.append(dict(kind=kind, template=sub, question=text, answer=answer, keys=keys, **extra))

    def generate(self) -> list[Conv]:
        rng = self.rng
        n_conv = max(1, round(9 * self.scale))
        convs = []
        used_topics: set = set()
        counter = [0]

        def key() -> str:
            counter[0] += 1
            return f"k{counter[0]}"

        groups = [self.participants() for _ in range(n_conv)]
        built = [self.make_conv(ci, group) for ci, group in enumerate(groups)]
        thirds: dict[str, int] = {}
        for c in built:
            for q in (q for qs in c.circle.values() for q in qs):
                thirds[q.first] = thirds.get(q.first, 0) + 1
        self.ambiguous = {name for name, count in thirds.items() if count > 1}
        for conv in built:
            topics: set = set()  # (subject, topic)

            def free(subject: str, topic: str) -> bool:
                if (subject, topic) in topics:
                    return False
                topics.add((subject, topic))
                return True

            def fill(text, subj, v="", w="", extra=None):
                slots = dict(v=v, w=w, S=subj.first, city=conv.city, month=rng.choice(MONTHS))
                slots.update(extra or {})
                return text.format_map(slots)

            # singles ----------------------------------------------------------
            singles = rng.sample(SINGLE, min(len(SINGLE), 18))
            for fact in singles:
                speaker = rng.choice(conv.people)
                if fact.who == "self":
                    subject = speaker
                    if not free(subject.first, fact.topic):
                        continue
                else:
                    subject = rng.choice(conv.circle[speaker.first])
                    if not free(subject.first, fact.topic):
                        continue
                self.plant_single(conv, fact, speaker, subject, key, fill)
            # split (same session, several turns) -----------------------------
            for fact in rng.sample(SPLIT, 3):
                speaker = rng.choice(conv.people)
                subject = speaker if fact.who == "self" else rng.choice(conv.circle[speaker.first])
                if not free(subject.first, fact.topic):
                    continue
                self.plant_split(conv, fact, speaker, subject, key, fill)
            # collections across sessions -------------------------------------
            for col in rng.sample(COLLECT, 3):
                speaker = rng.choice(conv.people)
                if not free(speaker.first, col["topic"]):
                    continue
                self.plant_collection(conv, col, speaker, key, fill)
            # temporal ----------------------------------------------------------
            for fact in rng.sample(TEMPORAL, 5):
                speaker = rng.choice(conv.people)
                if not free(speaker.first, fact.topic):
                    continue
                self.plant_temporal(conv, fact, speaker, key, fill)
            for anchor in rng.sample(ANCHORS, 1):
                self.plant_anchor(conv, anchor, rng.choice(conv.people), key, fill)
            # updates -----------------------------------------------------------
            for upd in rng.sample(UPDATES, 4):
                speaker = rng.choice(conv.people)
                if not free(speaker.first, upd["topic"]):
                    continue
                self.plant_update(conv, upd, speaker, key, fill)
            convs.append(conv)
        return convs

    def ref(self, subject: Person, pronoun: bool) -> tuple[str, str]:
        if pronoun:
            return subject.she.capitalize(), subject.she
        return f"My {subject.rel} {subject.first}", f"my {subject.rel} {subject.first}"

    def other_speaker(self, conv: Conv, not_: Person) -> Person:
        return self.rng.choice([p for p in conv.people if p is not not_])

    def ask(self, fact_asks, subject: Person, speaker: Person, extra: dict) -> str:
        text = self.rng.choice(list(fact_asks))
        if subject.of is not None and subject.first in self.ambiguous and "{S}" not in text:
            text = text.replace("{P}", "{S}'s {rel} {P}")  # another conversation has a {P} too
        name = subject.first if (subject.last is None or self.rng.random() < 0.8) else subject.full
        slots = dict(S=name, P=subject.first, rel=subject.rel or "", poss=subject.her)
        if subject.of is not None:  # a third person: {S} is the participant whose circle holds them
            slots["S"] = subject.of.first
        slots.update(extra)
        return text.format_map(slots)

    def pick_name(self, conv, values, n=1):
        """Values that are names (a boss, a partner): ones not yet used in this conversation."""
        names = tuple(values) == tuple(NAMES_X)
        fresh = [x for x in values if x not in conv.x_used] if names else list(values)
        out = self.rng.sample(fresh if len(fresh) >= n else list(values), n)
        if names:
            conv.x_used.extend(out)
        return out

    def plant_single(self, conv, fact: Fact, speaker, subject, key, fill):
        rng = self.rng
        v = self.pick_name(conv, fact.values)[0]
        X = self.other_name(conv, *fact.says, *fact.asks)
        turns = []
        pronoun = fact.who == "other" and rng.random() < 0.4
        Ref, ref = self.ref(subject, pronoun) if fact.who == "other" else ("", "")
        if pronoun:
            turns.append(Turn(self.other_speaker(conv, speaker), rng.choice(LEADIN).format(P=subject.first)))
        say = rng.choice(fact.says)
        extra = dict(Ref=Ref, ref=ref, X=X, P=subject.first)
        k = key()
        text = fill(say, subject, v, extra=extra)
        turns.append(Turn(speaker, text, k))
        if rng.random() < 0.7:
            turns.append(Turn(self.other_speaker(conv, speaker), rng.choice(REACT)))
        session = self.free_session(conv)
        self.plant(conv, session, turns)
        q = self.ask(fact.asks, subject, speaker, dict(X=X, v=v))
        self.question(conv, "single", fact.id, q, fill(fact.answer, subject, v, extra=extra), [k], pronoun=pronoun)

    def plant_split(self, conv, fact: Fact, speaker, subject, key, fill):
        rng = self.rng
        v = rng.choice(fact.values)
        v, w = v if isinstance(v, tuple) else (v, "")
        X = self.other_name(conv, *fact.says, *fact.asks)
        Ref, ref = self.ref(subject, False) if fact.who == "other" else ("", "")
        month = rng.choice(MONTHS)
        extra = dict(Ref=Ref, ref=ref, X=X, P=subject.first, poss_P=subject.her.capitalize(), month=month)
        k1, k2 = key(), key()
        other = self.other_speaker(conv, speaker)
        turns = [Turn(speaker, fill(fact.says[0], subject, v, w, extra), k1), Turn(other, fact.says[1]),
                 Turn(speaker, fill(fact.says[2], subject, v, w, extra), k2)]
        if rng.random() < 0.6:
            turns.append(Turn(other, rng.choice(REACT)))
        self.plant(conv, self.free_session(conv), turns)
        q = self.ask(fact.asks, subject, speaker, dict(X=X, v=v))
        self.question(conv, "multi", fact.id, q, fill(fact.answer, subject, v, w, extra), [k1, k2], spread="session")

    def plant_collection(self, conv, col, speaker, key, fill):
        rng = self.rng
        items = col["items"] if len(col["items"]) == 2 else rng.sample(col["items"], rng.choice([2, 3]))
        n = len(conv.dates)
        cuts = sorted(rng.sample(range(n), len(items)))
        keys, answers = [], []
        X = self.other_name(conv, *(say for say, _ in items))
        for (say, values), session in zip(items, cuts):
            v = rng.choice(values)
            k = key()
            turns = [Turn(speaker, fill(say, speaker, v, extra=dict(X=X)), k)]
            if rng.random() < 0.7:
                turns.append(Turn(self.other_speaker(conv, speaker), rng.choice(REACT)))
            self.plant(conv, session, turns)
            keys.append(k)
            answers.append(v or fill("bouldering with {X}", speaker, extra=dict(X=X)))
        q = self.ask(col["asks"], speaker, speaker, {})
        self.question(conv, "multi", col["id"], q, "; ".join(answers), keys, spread="sessions")

    def plant_temporal(self, conv, fact: Fact, speaker, key, fill):
        rng = self.rng
        session = self.free_session(conv)
        phrase, day = when_phrase(rng, conv.dates[session])
        v = rng.choice(fact.values)
        X = self.other_name(conv, *fact.says, *fact.asks)
        k = key()
        extra = dict(when=phrase, When_cap=phrase[0].upper() + phrase[1:], X=X)
        turns = [Turn(speaker, fill(fact.says[0], speaker, v, extra=extra), k)]
        if rng.random() < 0.7:
            turns.append(Turn(self.other_speaker(conv, speaker), rng.choice(REACT)))
        self.plant(conv, session, turns)
        ask = rng.choice(fact.asks)
        q = ask.format_map(dict(S=speaker.first, v=v, X=X, date=fmt_date(day)))
        answer = fmt_date(day) if "{date}" not in ask else fill(fact.says[0], speaker, v, extra=extra)
        self.question(conv, "temporal", fact.id, q, answer, [k], event_date=day.isoformat(),
                      session_date=conv.dates[session].isoformat(), relative=phrase)

    def plant_anchor(self, conv, anchor_pick, speaker, key, fill):
        rng = self.rng
        dates = conv.dates
        pairs = []
        for i, d in enumerate(dates[:-1]):
            if d.weekday() == 5:
                continue
            sat = d + dt.timedelta(days=(5 - d.weekday()) % 7)
            for j in range(i + 1, len(dates)):
                if sat + dt.timedelta(days=8) <= dates[j] <= sat + dt.timedelta(days=13):
                    pairs.append((i, j, sat))
        if not pairs:
            return
        i, j, sat = rng.choice(pairs)
        anchor_say, anchor_name = anchor_pick
        activity = rng.choice(ACTIVITIES)
        X = self.other_name(conv, anchor_say, activity)
        act = activity.format(city=rng.choice(CITIES), X=X)
        ka, k = key(), key()
        self.plant(conv, i, [Turn(speaker, anchor_say.format(X=X), ka),
                             Turn(self.other_speaker(conv, speaker), rng.choice(REACT))])
        self.plant(conv, j, [Turn(speaker, f"Last Saturday we {act}.", k)])
        anchor = anchor_name.format(poss=speaker.her, X=X)
        q = rng.choice(ANCHOR_ASKS).format(S=speaker.first, anchor=anchor)
        self.question(conv, "temporal", "t_after", q, act, [k], support=[ka],
                      event_date=(sat + dt.timedelta(days=7)).isoformat())

    def plant_update(self, conv, upd, speaker, key, fill):
        rng = self.rng
        n = len(conv.dates)
        a = rng.randint(0, n - 5)
        b = rng.randint(a + 3, n - 1)
        values = upd["values"]
        if isinstance(values[0], tuple):
            v, w = rng.choice(values)
        else:
            v, w = self.pick_name(conv, values, 2)
        ko, kn = key(), key()
        self.plant(conv, a, [Turn(speaker, upd["old"].format(v=v, w=w), ko)])
        self.plant(conv, b, [Turn(speaker, upd["new"].format(v=v, w=w), kn),
                             Turn(self.other_speaker(conv, speaker), rng.choice(REACT))])
        q = rng.choice(upd["asks"]).format(S=speaker.first, v=v)
        answer = w if upd["id"] != "u_partner" else f"single again (split from {v})"
        self.question(conv, "update", upd["id"], q, answer, [kn], superseded=[ko])

    # rendering -----------------------------------------------------------------
    def small(self, conv: Conv, speaker: Person, addressee: Person, day: dt.date) -> str:
        rng = self.rng
        p = rng.choice(conv.circle[speaker.first])
        slots = dict(O=addressee.first, P=p.first, rel=p.rel, city=conv.city, weekday=rng.choice(WEEKDAYS),
                     month=MONTHS[day.month - 1])
        lines = [rng.choice(SMALL).format_map(slots) for _ in range(rng.choices([1, 2, 3], [5, 4, 1])[0])]
        return " ".join(dict.fromkeys(lines))

    def session_turns(self, conv: Conv, s: int) -> list[Turn]:
        rng = self.rng
        day = conv.dates[s]
        blocks = conv.blocks.get(s, [])
        target = rng.randint(12, 30)
        planted = sum(len(b.turns) for b in blocks)
        n_filler = max(2, target - planted - 2)
        slots: list = [None] * n_filler + list(blocks)
        rng.shuffle(slots)
        people = conv.people
        first = rng.choice(people)
        turns = [Turn(first, rng.choice(GREET).format(O=self.other_speaker(conv, first).first))]

        def next_speaker(last: Person) -> Person:
            return self.other_speaker(conv, last)

        for slot in slots:
            last = turns[-1].speaker
            if slot is None:
                sp = next_speaker(last)
                text = self.small(conv, sp, last, day) if rng.random() < 0.75 else rng.choice(REACT)
                turns.append(Turn(sp, text))
                continue
            if slot.turns[0].speaker is last:  # someone else speaks first, as in a real chat
                sp = next_speaker(last)
                turns.append(Turn(sp, self.small(conv, sp, last, day)))
            for t in slot.turns:
                if t.key and rng.random() < 0.35:  # a fact turn often carries some chatter too
                    extra = self.small(conv, t.speaker, self.other_speaker(conv, t.speaker), day).split(". ")[0]
                    extra = extra if extra.endswith((".", "?", "!")) else extra + "."
                    t = Turn(t.speaker, f"{t.text} {extra}" if rng.random() < 0.5 else f"{extra} {t.text}", t.key)
                turns.append(t)
        last = turns[-1].speaker
        turns.append(Turn(next_speaker(last), rng.choice(BYE)))
        return turns

    def heading(self, conv: Conv, p: Person, clock: list) -> str:
        if conv.style == "full":
            return f"## {p.full}"
        if conv.style == "first":
            return f"## {p.first}"
        clock[0] += self.rng.randint(0, 3)
        h, m = divmod(clock[0], 60)
        return f"### {p.first} ({h % 24:02d}:{m:02d})"

    def write(self, out: Path) -> dict:
        convs = self.generate()
        if out.exists():
            shutil.rmtree(out)
        (out / "conversations").mkdir(parents=True)
        (out / "kbgraph.toml").write_text(
            "# Written by bench/conversations.py: one note per chat session, one heading per turn.\n"
            "[search]\nembedder = \"minilm\"\n")
        where: dict[str, tuple[str, int, str, str]] = {}
        n_turns = 0
        for conv in convs:
            folder = out / "conversations" / conv.slug
            folder.mkdir(parents=True)
            names = ", ".join(p.full for p in conv.people)
            for s, day in enumerate(conv.dates):
                turns = self.session_turns(conv, s)
                path = f"conversations/{conv.slug}/session-{s + 1:02d}.md"
                title = f"{' & '.join(p.first for p in conv.people)}, session {s + 1}"
                lines = ["---", "type: conversation", f"title: \"{title}\"", f"date: {day.isoformat()}",
                         f"participants: [{names}]", "---", ""]
                clock = [self.rng.randint(8 * 60, 21 * 60)]
                if conv.style == "timed":
                    lines += [f"# {title} ({fmt_date(day)})", ""]
                for t in turns:
                    lines.append(self.heading(conv, t.speaker, clock))
                    if t.key:
                        where[t.key] = (path, len(lines), t.speaker.first, t.text)
                    lines += [t.text, ""]
                (out / path).write_text("\n".join(lines))
                n_turns += len(turns)
        all_names = {w.lower() for w in FEMALE + MALE + SURNAMES + NAMES_X}
        questions = []
        for conv in convs:
            for i, q in enumerate(conv.questions):
                turns = [dict(zip(("path", "line", "speaker", "text"), where[k])) for k in q.pop("keys")]
                for field_ in ("support", "superseded"):
                    if field_ in q:
                        q[field_] = [dict(zip(("path", "line", "speaker", "text"), where[k])) for k in q[field_]]
                qw = content_words(q["question"], all_names)
                shared = sorted(qw & set().union(*(content_words(t["text"], all_names) for t in turns)))
                questions.append(dict(id=f"{conv.slug}-{i + 1:02d}", conversation=conv.slug, **q, turns=turns,
                                      overlap=shared))
        with open(out / "questions.jsonl", "w") as fh:
            for q in questions:
                fh.write(json.dumps(q) + "\n")
        return dict(conversations=len(convs), sessions=sum(len(c.dates) for c in convs), turns=n_turns,
                    questions=len(questions), seed=self.seed, scale=self.scale)


# --------------------------------------------------------------------------------------------------- evaluation

KINDS = ("single", "multi", "temporal", "update")
UNITS = ("document", "passage")
MODES = ("bm25", "vector", "hybrid")
KS = (5, 10)


def evaluate(root: Path, modes: tuple = MODES, reindex: bool = True, document_vectors: tuple = (),
             db: str | None = None) -> dict:
    sys.path.insert(0, str(REPO / "src"))
    from kbgraph.access import LOCAL
    from kbgraph.config import load_config
    from kbgraph.ingest.pipeline import index_vault
    from kbgraph.search import search
    from kbgraph.store import open_store

    questions = [json.loads(line) for line in open(root / "questions.jsonl")]
    notes = []
    if os.environ.get("KBG_EMBEDDER"):
        notes.append(f"KBG_EMBEDDER={os.environ['KBG_EMBEDDER']} is set: it overrides the vault's embedder")
    t0 = time.perf_counter()
    store = open_store(root, db=db)
    report = index_vault(root, store=store) if reindex else None
    index_s = time.perf_counter() - t0
    config = load_config(root)
    # every label must be where an indexed chunk starts, or the numbers mean nothing
    starts: dict[str, set[int]] = {}
    for q in questions:
        for t in q["turns"]:
            if t["path"] not in starts:
                doc = store.get_document(LOCAL, path=t["path"])
                starts[t["path"]] = {c["line"] for c in store.document_chunks(LOCAL, doc["id"])} if doc else set()
    bad = [(q["id"], t["path"], t["line"]) for q in questions for t in q["turns"] if t["line"] not in starts[t["path"]]]
    if bad:
        raise SystemExit(f"{len(bad)} labels are not chunk starts, e.g. {bad[:3]}")
    import dataclasses

    runs = [(u, m, None) for u in UNITS for m in modes]
    # [search] document_vectors: how a document is near the query (centroid, best-section, both), each measured
    runs += [("document", m, dv) for dv in document_vectors for m in modes if m != "bm25"]
    scores: dict = {}
    pending, timing = [], {}
    for unit, mode, dv in runs:
        name = f"{unit}s x {mode}" if dv is None else f"documents[{dv}] x {mode}"
        run_config = config if dv is None else dataclasses.replace(
            config, search=dataclasses.replace(config.search, document_vectors=dv))
        per_q = []
        t1 = time.perf_counter()
        try:
            for q in questions:
                kwargs = dict(limit=max(KS), mode=mode, config=run_config, access=LOCAL)
                if unit == "passage":
                    kwargs["unit"] = "passage"
                hits = search(store, q["question"], **kwargs).hits
                found = {"rr": _reciprocal_rank(unit, hits[:max(KS)], q["turns"])}
                for k in KS:
                    top = hits[:k]
                    if unit == "document":
                        paths = {h.path for h in top} | {p for h in top for p in h.duplicates}
                        got = [t["path"] in paths for t in q["turns"]]
                    else:
                        spots = {(h.path, h.line) for h in top}
                        got = [(t["path"], t["line"]) in spots for t in q["turns"]]
                    found[k] = sum(got) / len(got)
                per_q.append((q, found))
        except TypeError as exc:
            if unit == "passage":
                pending.append(f"{name}: search() does not take unit= yet ({exc})")
                continue
            raise
        timing[name] = (time.perf_counter() - t1) / len(questions) * 1000
        table = {}
        for kind in KINDS + ("all",):
            rows = [f for q, f in per_q if kind in ("all", q["kind"])]
            table[kind] = {f"r@{k}": round(100 * sum(f[k] for f in rows) / len(rows), 1) if rows else None for k in KS}
            table[kind]["n"] = len(rows)
            table[kind]["mrr"] = round(sum(f["rr"] for f in rows) / len(rows), 3) if rows else None
        for label, test in (("shares a word", True), ("no shared word", False)):
            rows = [f for q, f in per_q if bool(q["overlap"]) is test]
            table[label] = {f"r@{k}": round(100 * sum(f[k] for f in rows) / len(rows), 1) if rows else None for k in KS}
            table[label]["n"] = len(rows)
        scores[name] = table
    store.close()
    # reference: the named person's conversation found, its sessions in random order (expected recall)
    sessions = {}
    for path in (root / "conversations").glob("*/session-*.md"):
        sessions[path.parent.name] = sessions.get(path.parent.name, 0) + 1
    chance = {}
    for kind in KINDS + ("all", "shares a word", "no shared word"):
        rows = [q for q in questions if kind in ("all", q["kind"])
                or (kind == "shares a word" and q["overlap"]) or (kind == "no shared word" and not q["overlap"])]
        chance[kind] = {f"r@{k}": round(100 * sum(min(1, k / sessions[q["conversation"]]) for q in rows) / len(rows), 1)
                        if rows else None for k in KS}
        chance[kind]["n"] = len(rows)
    scores["documents x chance*"] = chance
    timing["documents x chance*"] = 0.0
    kinds = {k: sum(q["kind"] == k for q in questions) for k in KINDS}
    return dict(vault=str(root), store="postgresql" if db else "sqlite", questions=len(questions), kinds=kinds,
                answering_turns=sum(len(q["turns"]) for q in questions),
                share_a_word=sum(bool(q["overlap"]) for q in questions),
                index_seconds=round(index_s, 1), index=(report.__dict__ if report and hasattr(report, "__dict__") else None),
                ms_per_query={k: round(v, 1) for k, v in timing.items()}, scores=scores, pending=pending, notes=notes)


def _reciprocal_rank(unit: str, hits: list, turns: list) -> float:
    """1 / the rank of the first hit that recovers an answering turn (0: none in these hits)."""
    wanted = {(t["path"], t["line"]) for t in turns}
    for rank, h in enumerate(hits, 1):
        if unit == "document" and {t[0] for t in wanted} & ({h.path} | set(h.duplicates)):
            return 1 / rank
        if unit == "passage" and (h.path, h.line) in wanted:
            return 1 / rank
    return 0.0


def print_table(out: dict) -> None:
    print(f"{out['vault']} ({out['store']}): {out['questions']} questions {out['kinds']}, {out['answering_turns']} answering turns, "
          f"{out['share_a_word']} share a content word with them; indexed in {out['index_seconds']} s")
    cols = list(KINDS) + ["all", "shares a word", "no shared word"]
    print("recall@5 / recall@10 of the answering turns (%)")
    print(f"{'run':<32}" + "".join(f"{c:>16}" for c in cols) + f"{'ms/q':>8}{'MRR':>8}")
    print(f"{'(questions)':<32}" + "".join(f"{next(iter(out['scores'].values()))[c]['n']:>16}" for c in cols))
    for name, table in out["scores"].items():
        cells = "".join(f"{table[c]['r@5']:>8.1f}{table[c]['r@10']:>8.1f}" for c in cols)
        mrr = table["all"].get("mrr")
        print(f"{name:<32}{cells}{out['ms_per_query'][name]:>8.0f}" + (f"{mrr:>8.3f}" if mrr is not None else ""))
    print("* chance: the right conversation's sessions in random order (k / sessions), a floor for the document rows")
    for line in out["pending"] + out["notes"]:
        print("note:", line)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, help="write a vault and its questions.jsonl here (replaced if present)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scale", type=float, default=1.0, help="conversations = round(9 x scale)")
    ap.add_argument("--eval", type=Path, help="index this generated vault and score the questions")
    ap.add_argument("--modes", default=",".join(MODES), help="search modes to run (default bm25,vector,hybrid)")
    ap.add_argument("--no-index", action="store_true", help="score on the existing index")
    ap.add_argument("--document-vectors", default="", help="also score documents with these [search] document_vectors,"
                                                             " comma-separated (centroid, best-section, both)")
    ap.add_argument("--db", help="--eval into this PostgreSQL database (postgresql://...) instead of the vault's SQLite;"
                                 " it must be empty or hold this vault's index")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not args.out and not args.eval:
        ap.error("give --out DIR and/or --eval DIR")
    if args.out:
        info = Generator(args.seed, args.scale).write(args.out)
        print(json.dumps(info) if args.json and not args.eval else
              f"wrote {args.out}: {info['conversations']} conversations, {info['sessions']} sessions, "
              f"{info['turns']} turns, {info['questions']} questions (seed {args.seed}, scale {args.scale})",
              file=sys.stderr if args.eval else sys.stdout)
    if args.eval:
        out = evaluate(args.eval, tuple(args.modes.split(",")), reindex=not args.no_index,
                       document_vectors=tuple(v for v in args.document_vectors.split(",") if v), db=args.db)
        if args.json:
            out.pop("index", None)
            print(json.dumps(out, indent=1))
        else:
            print_table(out)


if __name__ == "__main__":
    main()
