from django.db import migrations


class Migration(migrations.Migration):
    """The API token's model moved to main_api (main_api 0001); its table stays."""

    dependencies = [
        ("accounts", "0010_booking_and_app_settings"),
        ("main_api", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.DeleteModel(name="ApiToken")]),
    ]
