"""Usernames that look alike are one username (accounts.usernames.username_skeleton; docs/decisions.md §3.18
"Usernames that look alike"): each login gets its username's skeleton in a column with a unique index.

Logins are filled oldest first. A login whose skeleton an older one already has (`1-admın` made beside
`1-admin` before this change) keeps NULL: the two are different people's logins and neither is renamed here;
both go on logging in by their exact usernames, a look-alike finds the older one, and support renames the
newer by hand (such names are listed on the migration's output).

Reversible: the reverse drops the column (the data step's reverse has nothing to undo).
"""

from django.db import migrations, models

from accounts.usernames import username_skeleton


def fill_skeletons(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    taken = set()
    left, rows = [], []
    for pk, username in User.objects.order_by("pk").values_list("pk", "username").iterator(chunk_size=2000):
        skeleton = username_skeleton(username)
        if skeleton in taken:
            left.append(username)
            continue
        taken.add(skeleton)
        rows.append(User(pk=pk, username_skeleton=skeleton))
    User.objects.bulk_update(rows, ["username_skeleton"], batch_size=1000)
    if left:
        print(f"\n  Logins left without a skeleton (they look like an older login's username): {left!r}")


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0012_mobile_sign_in_to_mobile_api"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="username_skeleton",
            field=models.TextField(blank=True, editable=False, null=True, verbose_name="username skeleton"),
        ),
        migrations.RunPython(fill_skeletons, migrations.RunPython.noop, elidable=True),
        migrations.AddConstraint(
            model_name="user",
            constraint=models.UniqueConstraint(fields=("username_skeleton",), name="user_username_skeleton_unique"),
        ),
    ]
