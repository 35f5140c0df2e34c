from django.db import migrations


class Migration(migrations.Migration):
    """The Mobile API's sign-in moved to mobile_api (mobile_api 0001); its tables stay."""

    dependencies = [
        ("mobile_api", "0001_initial"),
        ("accounts", "0011_api_token_to_main_api"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name="appclient",
                    name="application",
                ),
                migrations.RemoveField(
                    model_name="appclient",
                    name="organizations",
                ),
                migrations.RemoveField(
                    model_name="appconsent",
                    name="app_client",
                ),
                migrations.RemoveField(
                    model_name="mobilelogin",
                    name="app_client",
                ),
                migrations.RemoveField(
                    model_name="appconsent",
                    name="member",
                ),
                migrations.DeleteModel(
                    name="BlockedAddress",
                ),
                migrations.RemoveField(
                    model_name="mobilelogin",
                    name="member",
                ),
                migrations.DeleteModel(
                    name="AppClient",
                ),
                migrations.DeleteModel(
                    name="AppConsent",
                ),
                migrations.DeleteModel(
                    name="MobileLogin",
                ),
            ]
        ),
    ]
