
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

# The Mobile API's sign-in left accounts for mobile_api: the tables stay as they were (db_table), only
# Django's idea of which app owns them changes, and so do their content types (the admin's history).
MODELS = ["appclient", "appconsent", "blockedaddress", "mobilelogin"]


def content_types_to(app_label, other):
    def move(apps, schema_editor):
        content_type = apps.get_model("contenttypes", "ContentType")
        for model in MODELS:
            if not content_type.objects.filter(app_label=app_label, model=model).exists():
                content_type.objects.filter(app_label=other, model=model).update(app_label=app_label)

    return move


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('accounts', '0011_api_token_to_main_api'),
        ('contenttypes', '0002_remove_content_type_name'),
        migrations.swappable_dependency(settings.OAUTH2_PROVIDER_APPLICATION_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
        migrations.CreateModel(
            name='BlockedAddress',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('network', models.CharField(help_text='For example 203.0.113.7 or 198.51.100.0/24.', max_length=50, unique=True, verbose_name='address or network')),
                ('reason', models.CharField(blank=True, max_length=200, verbose_name='reason')),
                ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='created')),
            ],
            options={
                'verbose_name': 'blocked address',
                'verbose_name_plural': 'blocked addresses',
                'db_table': 'accounts_blockedaddress',
                'ordering': ['network'],
            },
        ),
        migrations.CreateModel(
            name='AppClient',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=200, verbose_name='developer')),
                ('app_name', models.CharField(max_length=200, verbose_name='app name')),
                ('developer_contact', models.EmailField(blank=True, max_length=254, verbose_name="developer's email address")),
                ('rights', models.JSONField(blank=True, default=dict, help_text='module name to r, w or rw', verbose_name='rights')),
                ('redirect_uris', models.JSONField(blank=True, default=list, verbose_name='redirect addresses')),
                ('confidential', models.BooleanField(default=False, help_text='An app with a server of its own gets a key; a native app without one gets none.', verbose_name='confidential (has a key)')),
                ('rate_limit_per_minute', models.PositiveIntegerField(blank=True, help_text='Empty: the default limit.', null=True, verbose_name='calls per minute')),
                ('revoked_at', models.DateTimeField(blank=True, editable=False, null=True, verbose_name='revoked')),
                ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='created')),
                ('application', models.OneToOneField(editable=False, on_delete=django.db.models.deletion.PROTECT, related_name='app_client', to=settings.OAUTH2_PROVIDER_APPLICATION_MODEL, verbose_name='OAuth application')),
                ('organizations', models.ManyToManyField(blank=True, help_text='None chosen: every organization.', related_name='app_clients', to='accounts.organization', verbose_name='allowed organizations')),
            ],
            options={
                'verbose_name': 'app client',
                'verbose_name_plural': 'app clients',
                'db_table': 'accounts_appclient',
                'ordering': ['name', 'app_name', 'id'],
            },
        ),
        migrations.CreateModel(
            name='AppConsent',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('allowed_at', models.DateTimeField(verbose_name='allowed')),
                ('rights', models.JSONField(blank=True, default=dict, verbose_name='rights allowed')),
                ('app_client', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='consents', to='mobile_api.appclient', verbose_name='app client')),
                ('member', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='app_consents', to='accounts.member', verbose_name='member')),
            ],
            options={
                'verbose_name': 'app consent',
                'verbose_name_plural': 'app consents',
                'db_table': 'accounts_appconsent',
                'constraints': [models.UniqueConstraint(fields=('app_client', 'member'), name='app_consent_once')],
            },
        ),
        migrations.CreateModel(
            name='MobileLogin',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('token_family', models.UUIDField(unique=True, verbose_name='token family')),
                ('code_digest', models.CharField(max_length=64, unique=True, verbose_name='authorization code digest')),
                ('device_name', models.CharField(blank=True, max_length=100, verbose_name='device name')),
                ('created_at', models.DateTimeField(verbose_name='logged in')),
                ('last_used_at', models.DateTimeField(verbose_name='last renewed')),
                ('ended_at', models.DateTimeField(blank=True, null=True, verbose_name='ended')),
                ('end_reason', models.CharField(blank=True, choices=[('member', 'ended by the member'), ('app', 'logged out in the app'), ('password', 'password changed'), ('code-replay', 'authorization code used twice'), ('refresh-reuse', 'old refresh token used again'), ('client', 'app client revoked'), ('member-gone', 'member can no longer log in')], max_length=20, verbose_name='why it ended')),
                ('app_client', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='logins', to='mobile_api.appclient', verbose_name='app client')),
                ('member', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='app_logins', to='accounts.member', verbose_name='member')),
            ],
            options={
                'verbose_name': 'app login',
                'verbose_name_plural': 'app logins',
                'db_table': 'accounts_mobilelogin',
                'ordering': ['-created_at', '-id'],
                'indexes': [models.Index(fields=['member', 'ended_at'], name='mobile_login_member_open')],
            },
        ),
        ]),
        migrations.RunPython(content_types_to("mobile_api", "accounts"), content_types_to("accounts", "mobile_api")),
    ]
