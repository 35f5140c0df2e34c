"""Stored usernames in Unicode NFKC (accounts.usernames): before issue 7 the API stored a username as sent,
so `1-Lisa` in full-width letters (U+FF2C...) could be stored, and no login written in ASCII would find it any more.

A username whose NFKC form (letter case aside) another login already has is left as it is: the two are
different people's logins and renaming one would merge them; such a login can no longer log in by name and
support renames it by hand (such names are listed on the migration's output). A stored name with invisible
characters or mixed scripts is put in NFKC like any other; the logins refuse such a name, so support renames it.

The reverse does nothing: the NFKC names are as valid under the code before this change.
"""

import unicodedata

from django.db import migrations


def usernames_to_nfkc(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    rows = list(User.objects.values_list("pk", "username"))
    taken = {username.lower() for _pk, username in rows}
    left = []
    for pk, username in rows:
        normalized = unicodedata.normalize("NFKC", username)
        if normalized == username:
            continue
        if normalized.lower() in taken or len(normalized) > 150:
            left.append(username)
            continue
        User.objects.filter(pk=pk).update(username=normalized)
        taken.add(normalized.lower())
    if left:
        print(f"\n  Usernames left as they were (their NFKC form is in use or too long): {left!r}")


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_verbose_names"),
    ]

    operations = [
        migrations.RunPython(usernames_to_nfkc, migrations.RunPython.noop, elidable=True),
    ]
