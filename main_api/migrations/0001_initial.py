
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

# The API token left accounts for main_api: the table stays as it was (db_table), only Django's idea of
# which app owns it changes, and so does its content type (the admin's history keeps pointing at it).
MODELS = ["apitoken"]


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
        ('accounts', '0010_booking_and_app_settings'),
        ('contenttypes', '0002_remove_content_type_name'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        migrations.swappable_dependency(settings.OAUTH2_PROVIDER_APPLICATION_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[migrations.CreateModel(
            name='ApiToken',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('description', models.CharField(max_length=200, verbose_name='description')),
                ('rights', models.JSONField(blank=True, default=dict, help_text='module name to r, w or rw', verbose_name='rights')),
                ('allowed_ips', models.JSONField(blank=True, default=list, help_text='addresses or CIDR ranges; empty allows all', verbose_name='allowed IP addresses')),
                ('client_id', models.PositiveBigIntegerField(editable=False, unique=True, verbose_name='client ID')),
                ('secret_hash', models.CharField(editable=False, max_length=64, unique=True, verbose_name='hash of the secret')),
                ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='created')),
                ('application', models.OneToOneField(editable=False, on_delete=django.db.models.deletion.CASCADE, related_name='api_token', to=settings.OAUTH2_PROVIDER_APPLICATION_MODEL, verbose_name='OAuth application')),
                ('organization', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='api_tokens', to='accounts.organization', verbose_name='organization')),
                ('owner', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='owned_api_tokens', to=settings.AUTH_USER_MODEL, verbose_name='owner')),
            ],
            options={
                'verbose_name': 'API token',
                'verbose_name_plural': 'API tokens',
                'db_table': 'accounts_apitoken',
                'ordering': ['organization', 'description', 'id'],
            },
        )]),
        migrations.RunPython(content_types_to("main_api", "accounts"), content_types_to("accounts", "main_api")),
    ]
