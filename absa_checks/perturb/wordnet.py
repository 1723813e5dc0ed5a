"""WordNet for nltk, offline: nltk's own downloaded corpus, or Debian's `wordnet-base` package.

Debian ships WordNet 3.0 in /usr/share/wordnet but without the `lexnames` file nltk needs, and nltk
reads only from its own data folders (and refuses symlinks), so we copy the files once into
nltk's data folder (~/nltk_data/corpora/wordnet, or the first $NLTK_DATA entry) and write
`lexnames` there, exactly where `nltk.download("wordnet")` would have put the corpus.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from absa_checks.common.errors import AbsaChecksError

WORDNET_ENV = "ABSA_WORDNET_DIR"
DEBIAN_DIR = Path("/usr/share/wordnet")
WORDNET_FILES = ("data.adj", "data.adv", "data.noun", "data.verb", "index.adj", "index.adv", "index.noun",
            "index.verb", "adj.exc", "adv.exc", "noun.exc", "verb.exc")
OPTIONAL = ("index.sense", "cntlist.rev")
# WordNet 3.0's lexicographer files, in file-number order (the `lexnames` file Debian does not ship)
LEXNAMES = ("adj.all adj.pert adv.all noun.Tops noun.act noun.animal noun.artifact noun.attribute noun.body "
            "noun.cognition noun.communication noun.event noun.feeling noun.food noun.group noun.location "
            "noun.motive noun.object noun.person noun.phenomenon noun.plant noun.possession noun.process "
            "noun.quantity noun.relation noun.shape noun.state noun.substance noun.time verb.body verb.change "
            "verb.cognition verb.communication verb.competition verb.consumption verb.contact verb.creation "
            "verb.emotion verb.motion verb.perception verb.possession verb.social verb.stative verb.weather "
            "adj.ppl").split()
HOW_TO_GET = ("WordNet is needed to generate REVTGT/REVNON variants. Either install Debian's packages "
              "(apt-get install wordnet-base wordnet-sense-index), or with internet run "
              "python -m nltk.downloader wordnet, or set ABSA_WORDNET_DIR to a folder holding WordNet 3.0's "
              "dict files (data.noun, index.noun, ...).")


def nltk_data_home() -> Path:
    """Where nltk's downloader would put data: the first $NLTK_DATA entry, else ~/nltk_data."""
    first = os.environ.get("NLTK_DATA", "").split(os.pathsep)[0]
    return Path(first).expanduser() if first else Path.home() / "nltk_data"


def load_wordnet():
    """nltk's WordNet reader, installing Debian's copy into nltk's data folder when that is needed.

    nltk's reader builds, on loading, a map from WordNet 3.0 to the loaded version for the multilingual
    (OMW) functions; it compares the version with the name "wordnet", so it always builds it (about 2 s, half
    the load, in every process that generates), although the loaded version is 3.0 and the map the identity.
    absa-checks reads English only: the reader is loaded without it (map30 None: nltk then uses the offsets
    as they are, which is what the identity map gives)."""
    ensure_wordnet_installed()
    from nltk.corpus import wordnet
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    if isinstance(wordnet, WordNetCorpusReader):  # loaded already in this process
        return wordnet
    build_map = WordNetCorpusReader.map_wn
    WordNetCorpusReader.map_wn = _no_map
    try:
        wordnet.ensure_loaded()
    finally:
        WordNetCorpusReader.map_wn = build_map
    return wordnet


def _no_map(self, version="wordnet"):
    return None


def ensure_wordnet_installed() -> None:
    if _nltk_has_wordnet():
        return
    source = Path(os.environ[WORDNET_ENV]) if os.environ.get(WORDNET_ENV) else DEBIAN_DIR
    missing = [name for name in WORDNET_FILES if not (source / name).is_file()]
    if missing:
        where = f"{WORDNET_ENV}={source}" if os.environ.get(WORDNET_ENV) else "nltk's data folders or " + str(source)
        raise AbsaChecksError(f"WordNet not found in {where}. {HOW_TO_GET}")
    _install(source, nltk_data_home() / "corpora" / "wordnet")


def _nltk_has_wordnet() -> bool:
    try:
        import nltk.data

        nltk.data.find("corpora/wordnet")
        return True
    except LookupError:
        return False


def _install(source: Path, target: Path) -> None:
    """Copy (nltk refuses symlinks) WordNet's dict files to `target` and add `lexnames`."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".wordnet-", dir=target.parent))  # atomic for concurrent workers
    for name in WORDNET_FILES + OPTIONAL:
        if (source / name).is_file():
            shutil.copyfile(source / name, staging / name)
    if (source / "lexnames").is_file():
        shutil.copyfile(source / "lexnames", staging / "lexnames")
    else:
        (staging / "lexnames").write_text("".join(f"{i:02d}\t{name}\t{_lexname_pos(name)}\n"
                                                  for i, name in enumerate(LEXNAMES)))
    try:
        staging.rename(target)
    except OSError:  # another worker installed it first
        shutil.rmtree(staging, ignore_errors=True)


def _lexname_pos(name: str) -> int:
    return {"noun": 1, "verb": 2, "adj": 3, "adv": 4}[name.split(".")[0]]
