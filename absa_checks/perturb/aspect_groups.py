"""Aspects that stand for one another, so ADDDIFF never appends a clause about the target itself.

A blind reader fails "the ambiance is depressing" appended to a sentence about the atmosphere, "the
storage is tiny" for an SSD drive, or "the tacos are bland" for "the food": the added clause covers the
target. An aspect belongs to every group one of whose words it contains as a whole word.
"""

from __future__ import annotations

import re

GROUPS: tuple[frozenset[str], ...] = tuple(frozenset(words.split(",")) for words in (
    # restaurant
    "ambiance,ambience,atmosphere,decor,vibe,setting,music,view,patio,interior,space,place",
    "service,staff,waiter,waiters,waitress,waitresses,server,servers,waitstaff,wait staff,hostess,host,manager,"
    "bartender,bartenders,owner,owners,employees,people",
    "food,meal,meals,dish,dishes,cuisine,menu,lunch,dinner,breakfast,brunch,lunch special,kitchen,chef,portions,"
    "appetizers,bagels,bread,burger,burgers,chicken,desserts,dessert,dessert menu,dumplings,fries,noodles,pasta,"
    "pizza,rice,salad,sauce,seafood,soup,steak,sushi,tacos,fish,entrees,specials",
    "drinks,drink,cocktails,wine,wine list,beer,beer selection,tea,coffee,happy hour,bar,beverages",
    "prices,price,value,cost,bill,check",
    "wait,reservations,seating,tables,table",
    # laptop
    "storage,hard drive,hdd,ssd,disk,drive,optical drive,memory,ram",
    "processor,cpu,chip,performance,speed,boot time,graphics card,graphics,gpu,fast,slow,powerful,quick,instantly",
    "display,screen,resolution,brightness,backlight,touchscreen,retina",
    "keyboard,keys,touchpad,trackpad,touch pad,mouse",
    "speakers,sound quality,sound,audio,headphone jack,microphone,volume",
    "operating system,os,windows,mac os,osx,software,applications,apps,programs,bloatware,start menu,games,"
    "setup,drivers",
    "battery life,battery,charger,power supply,power button,power",
    "customer service,tech support,support,warranty,applecare,service",
    "build quality,design,case,lid,hinge,size,weight,portability,body",
    "wifi,ports,usb,bluetooth,webcam,camera",
    "fan,cooling system,heat,temperature",
))


# Targets that stand for the whole machine: every component clause would be about them ("the hardware
# problems have been so bad, ... but the cooling system ..."). Only groups outside the machine remain.
WHOLE_MACHINE = frozenset({"hardware", "laptop", "computer", "machine", "notebook", "netbook", "macbook", "mac",
                           "macbook pro", "system", "unit", "device", "product", "build"})
OUTSIDE_THE_MACHINE = ("customer service", "operating system", "prices")


def covered_groups(terms: list[str], sentence: str) -> frozenset[int]:
    """The groups an appended clause must avoid: those of every aspect and every word of the sentence
    ("the speed is terrible" after "fast, powerful"; "the backlight is too dim" after "the brightness"),
    and every component's group when the target is the whole machine."""
    taken = set(groups_of(sentence))
    for term in terms:
        taken |= groups_of(term)
    if any(term.lower() in WHOLE_MACHINE for term in terms[:1]):
        keep = {i for word in OUTSIDE_THE_MACHINE for i in groups_of(word)}
        taken |= {i for i in range(len(GROUPS)) if i not in keep}
    return frozenset(taken)


# one compiled alternation per group: groups_of runs for every bank entry of every ADDDIFF attempt
_PATTERNS = tuple(re.compile(r"(?<!\w)(?:" + "|".join(re.escape(w) for w in sorted(group, key=len, reverse=True))
                             + r")(?!\w)") for group in GROUPS)


def groups_of(term: str) -> frozenset[int]:
    """Indices of the groups `term` belongs to ("Haswell CPU" -> the processor group)."""
    lower = term.lower()
    return frozenset(i for i, pattern in enumerate(_PATTERNS) if pattern.search(lower))
