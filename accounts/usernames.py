"""The one rule for usernames (../shared/DECISIONS.md "Hostile input"; docs/decisions.md §3.13 "Usernames: what
is the same" to §3.15 "Usernames: where the rule applies"), used wherever a username arrives: POST /users and
the organization website's member form (through accounts.services.users), the member website's and the
organization website's login form and POST /login-checks (through accounts.services.logins), and the count of
failed logins (accounts.login_limits).

- A username is stored and looked up in Unicode NFKC: `1-erik` in full-width letters (U+FF45...) is
  `1-erik`, and `Ö` written as
  O + a combining diaeresis is `Ö`. Letter case is kept in storage and ignored in comparisons (`lookup_key`,
  the same lower-casing as the database's Lower() unique index on the column).
- Refused (400 10006 naming `username`), because two usernames would look alike while being different logins:
  - invisible characters: format characters (category Cf, e.g. U+200B ZERO WIDTH SPACE, U+202E RIGHT-TO-LEFT
    OVERRIDE), the other default-ignorable code points (variation selectors, Hangul fillers), controls,
    surrogates, private-use and unassigned code points, and spaces (U+00A0 becomes a space under NFKC, so
    `1-erik` + a no-break space would look like `1-erik`);
  - mixed scripts, as UTS #39 section 5.1 defines them: the letters of more than one script (Latin,
    Cyrillic, Greek, ...) in one username; characters of the scripts Common (digits 0-9, '-', '.', '_', '@')
    and Inherited (combining marks) go with any script, so the `<org id>-` prefix mixes with nothing. Han
    with Hiragana and Katakana (Japanese), Han with Hangul (Korean) and Han with Bopomofo count as one script,
    as UTS #39's augmented script sets do. A username wholly in one other script (`1-ёжик`) is allowed.
  - longer than the column (150 characters) once normalized (NFKC can lengthen: `㎏` is `kg`).

- Usernames that look alike are the same username (../shared/DECISIONS.md "Hostile input"; docs/decisions.md
  §3.18 "Usernames that look alike"): `username_skeleton` is the UTS #39 confusable skeleton of the
  case-folded username with its combining marks left out, so `1-adm` + dotless i + `n`, `1-ER` + dotted
  capital I + `K`, `1-ėrik` and `1-eriḱ` have the skeleton of `1-admin` and `1-erik`. It is stored beside the username
  (User.username_skeleton, unique), so that a new username is compared with every other by one index lookup.

Scripts come from confusable-homoglyphs (its table of Unicode's Scripts.txt, Unicode 15): the standard
library's unicodedata has no Script property. The skeleton's table is confusable-homoglyphs' too (Unicode's
confusables.txt, which it keeps as pairs both ways; `_prototypes` turns it back into the one-way mapping).
"""

import functools
import unicodedata

from confusable_homoglyphs import categories, confusables

from apicore.errors import ErrorCode, FieldProblem, ServiceError

MAX_LENGTH = 150  # User.username's column
FIELD = "username"

# Unicode categories that are never part of a visible username: controls, format characters, surrogates,
# private use, unassigned (in the Python's Unicode version), and every kind of space or separator.
_REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp"}
# Default_Ignorable_Code_Point (DerivedCoreProperties.txt) outside the categories above: invisible marks and
# fillers that render as nothing.
_DEFAULT_IGNORABLE_MARKS_AND_FILLERS = (
    (0x034F, 0x034F),  # COMBINING GRAPHEME JOINER
    (0x115F, 0x1160),  # HANGUL CHOSEONG / JUNGSEONG FILLER
    (0x17B4, 0x17B5),  # KHMER VOWEL INHERENT AQ / AA
    (0x180B, 0x180F),  # MONGOLIAN FREE VARIATION SELECTORS
    (0x3164, 0x3164),  # HANGUL FILLER
    (0xFE00, 0xFE0F),  # VARIATION SELECTORS
    (0xFFA0, 0xFFA0),  # HALFWIDTH HANGUL FILLER
    (0xE0100, 0xE01EF),  # VARIATION SELECTORS SUPPLEMENT
)
# Scripts that go with any other (UTS #39: their characters' script set is "all scripts").
_ANY_SCRIPT = {"COMMON", "INHERITED"}
# UTS #39's augmented script sets: one writing system written with several scripts.
_ONE_WRITING_SYSTEM = (
    frozenset({"HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"HAN", "HANGUL"}),
    frozenset({"HAN", "BOPOMOFO"}),
)


def _invisible(character: str) -> bool:
    if unicodedata.category(character) in _REFUSED_CATEGORIES:
        return True
    code = ord(character)
    return any(first <= code <= last for first, last in _DEFAULT_IGNORABLE_MARKS_AND_FILLERS)


def _refused_ranges_of_the_bmp() -> list[tuple[int, int]]:
    """The Basic Multilingual Plane's refused characters by category and the default-ignorable ones, as ranges;
    unassigned code points aside (hundreds of ranges, and they change with Unicode's version)."""
    ranges: list[tuple[int, int]] = []
    for code in range(0x10000):
        if 0xD800 <= code <= 0xDFFF:
            continue  # surrogates: no UTF-8 document can carry one
        if unicodedata.category(chr(code)) == "Cn" or not _invisible(chr(code)):
            continue
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    return ranges


def _refused_class() -> str:
    def escaped(code: int) -> str:
        return f"\\u{code:04x}"

    return "".join(
        escaped(first) + ("" if last == first else "-" + escaped(last)) for first, last in _refused_ranges_of_the_bmp()
    )


# The document's JSON Schema pattern of a username (POST /users, POST /login-checks): no control, format,
# private-use or default-ignorable character and no space of the Basic Multilingual Plane. What no pattern can
# state (one script; unassigned and other planes' code points; NFKC's own spaces) is in the description.
_REFUSED_CLASS = _refused_class()
VISIBLE_PATTERN = f"^[^{_REFUSED_CLASS}]+$"
# POST /users: the organization's id and a dash first (`12-erik`); which id is the caller's data.
PREFIXED_PATTERN = f"^[1-9][0-9]*-[^{_REFUSED_CLASS}]+$"
VISIBLE_DESCRIPTION = (
    "No spaces, control or invisible characters; the letters of one script only (Unicode UTS #39); compared "
    "in Unicode NFKC without regard to letter case."
)


def scripts_of(text: str) -> set[str]:
    """The scripts of the text's characters, Common and Inherited left out (e.g. {'LATIN', 'CYRILLIC'})."""
    return categories.unique_aliases(text) - _ANY_SCRIPT


def is_mixed_script(text: str) -> bool:
    scripts = scripts_of(text)
    return len(scripts) > 1 and not any(scripts <= system for system in _ONE_WRITING_SYSTEM)


def nfkc(raw: str) -> str:
    return unicodedata.normalize("NFKC", raw)


def lookup_key(raw: str) -> str:
    """What two usernames are compared by: NFKC, then lower-cased (as the Lower() index and the Unicode LOWER
    that apicore.database gives SQLite). Never refuses; for lookups and counts of input not yet checked."""
    return nfkc(raw).lower()


# confusable-homoglyphs writes right-to-left characters between two LEFT-TO-RIGHT MARKs.
_LRM = "\u200e"


@functools.cache
def _prototypes() -> dict[str, str]:
    """confusables.txt's mapping (UTS #39 section 4): a character to its prototype, one or more characters.

    confusable-homoglyphs keeps each line `source ; prototype` both ways (the prototype under the source and
    the source under the prototype). In confusables.txt a source is one character and never a prototype, so
    a character with one partner is the source when the partner is longer than one character or has other
    partners too. Where two characters have only each other, which one is the prototype does not change which
    strings share a skeleton; the lower code point stands for both."""
    pairs = {
        key.replace(_LRM, ""): [entry["c"].replace(_LRM, "") for entry in entries]
        for key, entries in confusables.confusables_data.items()
    }
    mapping = {}
    for character, partners in pairs.items():
        if len(character) != 1 or len(partners) != 1:
            continue  # a prototype: several characters, or the prototype of several sources
        partner = partners[0]
        if len(partner) > 1 or len(pairs.get(partner, ())) > 1 or ord(character) > ord(partner):
            mapping[character] = partner
    return mapping


def _confusable_skeleton(text: str) -> str:
    """UTS #39's skeleton(X): NFD, each character to its prototype, NFD again."""
    prototypes = _prototypes()
    mapped = "".join(prototypes.get(character, character) for character in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def username_skeleton(raw: str) -> str:
    """What two usernames are compared by to tell whether they look alike: the UTS #39 skeleton of the
    username in NFKC and case-folded, case-folded again (a prototype may be a capital: `0` is `O`), without
    combining marks (category Mn: `ė` is `e`, the dot of a case-folded `İ` goes). Never refuses.

    `1-adm` + dotless i + `n`, `1-ADMIN` and `1-admin` share one skeleton, and so do `1-ERİK`, `1-ėrik`,
    `1-eriḱ` and `1-erik`.
    """
    text = nfkc(raw).casefold()
    for _round in range(3):  # until nothing changes (a prototype may itself case-fold to a source)
        skeleton = _confusable_skeleton(text).casefold()
        if skeleton == text:
            break
        text = skeleton
    return "".join(character for character in text if unicodedata.category(character) != "Mn")


def username_problem(raw: str, field: str = FIELD) -> FieldProblem | None:
    """Why the username is refused (400 10006), or None when `normalize_username` accepts it."""
    normalized = nfkc(raw)
    # The character as sent where it is refused as sent (U+00A0, not the space NFKC makes of it).
    invisible = next((character for character in raw + normalized if _invisible(character)), None)
    if invisible is not None:
        name = unicodedata.name(invisible, "")
        shown = f"U+{ord(invisible):04X}{' ' + name if name else ''}"
        message = f"{field} must not contain invisible characters, spaces or control characters ({shown})."
        return FieldProblem(field, ErrorCode.INVALID_FIELD.code, message)
    if is_mixed_script(normalized):
        scripts = ", ".join(sorted(script.title() for script in scripts_of(normalized)))
        message = f"{field} must be written in one script, not several ({scripts})."
        return FieldProblem(field, ErrorCode.INVALID_FIELD.code, message)
    if len(normalized) > MAX_LENGTH:
        message = f"{field} must be at most {MAX_LENGTH} characters (in Unicode NFKC)."
        return FieldProblem(field, ErrorCode.INVALID_FIELD.code, message)
    return None


def normalize_username(raw: str, field: str = FIELD) -> str:
    """The username as it is stored and looked up (NFKC, letter case kept); raises ServiceError (400 10006
    naming `field`) for a refused one."""
    problem = username_problem(raw, field)
    if problem is not None:
        raise ServiceError(ErrorCode.INVALID_FIELD, problem.message, errors=[problem])
    return nfkc(raw)
