"""English inflection for the words the perturbations touch: verb forms, comparatives, a/an."""

from __future__ import annotations

import re

# lemma: (past, past participle) for common irregular verbs
IRREGULAR_VERBS = {
    "be": ("was", "been"), "have": ("had", "had"), "do": ("did", "done"), "go": ("went", "gone"),
    "make": ("made", "made"), "take": ("took", "taken"), "get": ("got", "gotten"), "give": ("gave", "given"),
    "come": ("came", "come"), "see": ("saw", "seen"), "know": ("knew", "known"), "think": ("thought", "thought"),
    "find": ("found", "found"), "feel": ("felt", "felt"), "leave": ("left", "left"), "keep": ("kept", "kept"),
    "bring": ("brought", "brought"), "buy": ("bought", "bought"), "break": ("broke", "broken"),
    "fall": ("fell", "fallen"), "forget": ("forgot", "forgotten"), "hold": ("held", "held"),
    "lose": ("lost", "lost"), "pay": ("paid", "paid"), "run": ("ran", "run"), "sell": ("sold", "sold"),
    "send": ("sent", "sent"), "sit": ("sat", "sat"), "spend": ("spent", "spent"), "stand": ("stood", "stood"),
    "tell": ("told", "told"), "win": ("won", "won"), "write": ("wrote", "written"), "eat": ("ate", "eaten"),
    "drink": ("drank", "drunk"), "choose": ("chose", "chosen"), "freeze": ("froze", "frozen"),
    "hide": ("hid", "hidden"), "burn": ("burned", "burned"), "let": ("let", "let"), "put": ("put", "put"),
    "set": ("set", "set"), "cut": ("cut", "cut"), "hit": ("hit", "hit"), "hurt": ("hurt", "hurt"),
    "cost": ("cost", "cost"), "shut": ("shut", "shut"), "say": ("said", "said"), "mean": ("meant", "meant"),
    "meet": ("met", "met"), "lead": ("led", "led"), "read": ("read", "read"), "build": ("built", "built"),
    "begin": ("began", "begun"), "fly": ("flew", "flown"), "grow": ("grew", "grown"), "draw": ("drew", "drawn"),
    "show": ("showed", "shown"), "speak": ("spoke", "spoken"), "steal": ("stole", "stolen"),
    "wake": ("woke", "woken"), "wear": ("wore", "worn"), "tear": ("tore", "torn"), "shake": ("shook", "shaken"),
    "sleep": ("slept", "slept"), "teach": ("taught", "taught"), "catch": ("caught", "caught"),
    "fight": ("fought", "fought"), "seek": ("sought", "sought"), "understand": ("understood", "understood"),
    "become": ("became", "become"), "overcome": ("overcame", "overcome"), "undergo": ("underwent", "undergone"),
    "rise": ("rose", "risen"), "drive": ("drove", "driven"), "ride": ("rode", "ridden"), "sing": ("sang", "sung"),
    "sink": ("sank", "sunk"), "swim": ("swam", "swum"), "ring": ("rang", "rung"), "light": ("lit", "lit"),
    "feed": ("fed", "fed"), "bleed": ("bled", "bled"), "deal": ("dealt", "dealt"), "lend": ("lent", "lent"),
    "bend": ("bent", "bent"), "blow": ("blew", "blown"), "throw": ("threw", "thrown"), "dig": ("dug", "dug"),
    "hang": ("hung", "hung"), "stick": ("stuck", "stuck"), "strike": ("struck", "struck"), "spin": ("spun", "spun"),
    "upset": ("upset", "upset"), "outdo": ("outdid", "outdone"), "undo": ("undid", "undone"),
    "overdo": ("overdid", "overdone"), "mislead": ("misled", "misled"), "withstand": ("withstood", "withstood"),
}
IRREGULAR_PRESENT = {"be": "is", "have": "has", "do": "does", "go": "goes"}
IRREGULAR_COMPARATIVE = {"good": ("better", "best"), "well": ("better", "best"), "bad": ("worse", "worst"),
                         "badly": ("worse", "worst"), "far": ("farther", "farthest"), "little": ("less", "least"),
                         "much": ("more", "most"), "many": ("more", "most")}
_VOWEL = "aeiou"


def third_person(lemma: str) -> str:
    if lemma in IRREGULAR_PRESENT:
        return IRREGULAR_PRESENT[lemma]
    if re.search(r"(s|x|z|ch|sh|o)$", lemma):
        return lemma + "es"
    if re.search(r"[^aeiou]y$", lemma):
        return lemma[:-1] + "ies"
    return lemma + "s"


def past(lemma: str, participle: bool = False) -> str:
    if lemma in IRREGULAR_VERBS:
        return IRREGULAR_VERBS[lemma][1 if participle else 0]
    if lemma.endswith("e"):
        return lemma + "d"
    if re.search(r"[^aeiou]y$", lemma):
        return lemma[:-1] + "ied"
    if _doubles_final_consonant(lemma):
        return lemma + lemma[-1] + "ed"
    return lemma + "ed"


def gerund(lemma: str) -> str:
    if lemma.endswith("ie"):
        return lemma[:-2] + "ying"
    if lemma.endswith("e") and not lemma.endswith(("ee", "ye", "oe")) and lemma != "be":
        return lemma[:-1] + "ing"
    if _doubles_final_consonant(lemma):
        return lemma + lemma[-1] + "ing"
    return lemma + "ing"


def syllables(word: str) -> int:
    """Vowel groups, not counting a silent final e (nice: 1, simple: 2)."""
    stem = word[:-1] if word.endswith("e") and not word.endswith("le") else word
    return max(1, len(re.findall(r"[aeiouy]+", stem)))


def _doubles_final_consonant(lemma: str) -> bool:
    """stop -> stopped, but open -> opened: one short stressed syllable ending consonant-vowel-consonant."""
    if lemma in ("prefer", "refer", "occur", "admit", "regret", "commit", "permit", "control", "omit"):
        return True  # stressed final syllable
    return (syllables(lemma) == 1 and len(lemma) >= 3 and lemma[-1] not in "wxy" + _VOWEL
            and lemma[-2] in _VOWEL and lemma[-3] not in _VOWEL)


def verb_form(lemma: str, tag: str) -> str:
    """Inflect `lemma` like a verb tagged `tag` (Penn: VB, VBP, VBZ, VBD, VBN, VBG)."""
    if tag == "VBZ":
        return third_person(lemma)
    if tag == "VBD":
        return past(lemma)
    if tag == "VBN":
        return past(lemma, participle=True)
    if tag == "VBG":
        return gerund(lemma)
    return lemma


def comparative(adjective: str, superlative: bool = False) -> str:
    if adjective in IRREGULAR_COMPARATIVE:
        return IRREGULAR_COMPARATIVE[adjective][1 if superlative else 0]
    count = syllables(adjective)
    if count > 2 or (count == 2 and not adjective.endswith("y")):
        return ("most " if superlative else "more ") + adjective
    suffix = "est" if superlative else "er"
    if adjective.endswith("e"):
        return adjective + suffix[1:]
    if re.search(r"[^aeiou]y$", adjective):
        return adjective[:-1] + "i" + suffix
    if _doubles_final_consonant(adjective):
        return adjective + adjective[-1] + suffix
    return adjective + suffix


def adjective_form(lemma: str, tag: str) -> str:
    if tag == "JJR":
        return comparative(lemma)
    if tag == "JJS":
        return comparative(lemma, superlative=True)
    return lemma


def article_for(word: str) -> str:
    """'a' or 'an' by the sound of `word`'s beginning (spelling heuristics with the usual exceptions)."""
    w = word.lower()
    if re.match(r"(hour|honest|honou?r|heir)", w):
        return "an"
    if re.match(r"(uni|use|usu|uti|ure|eu|ewe|one|once|u[bcfhjkqrst][aeiou])", w):
        return "a"
    return "an" if w[:1] in _VOWEL else "a"


def match_case(template: str, word: str) -> str:
    """Give `word` the capitalisation of `template` (first letter, or all caps)."""
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word
