import json

from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import transaction

from demo.world import build_world


class Command(BaseCommand):
    help = "Reset the database to the demo world and print its credentials as one JSON document."

    def handle(self, *args, **options):
        call_command("flush", interactive=False, verbosity=0)
        with transaction.atomic():
            world = build_world()
        self.stdout.write(json.dumps(world, ensure_ascii=False, indent=2))
        if world.get("webhooks") is None:
            # On stderr: stdout stays one JSON document.
            self.stderr.write(
                "No demo webhook: its address is refused. Plain http on loopback needs WEBHOOK_ALLOW_LOOPBACK=true "
                "(as `make run` sets); or set DEMO_WEBHOOK_URL to an https address."
            )
