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

Scripts come from confusable-homoglyphs (its table of Unicode's Scripts.txt, Unicode 15): the standard
library's unicodedata has no Script property.
"""

import unicodedata

from confusable_homoglyphs import categories

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
