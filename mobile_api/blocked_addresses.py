"""The Mobile API's block list (403 10003): IP addresses and networks that support keeps in the admin.

Every Mobile API call asks `address_blocked` first, so it must not cost a query: the parsed list lives in
Django's cache (Redis in production, shared by every process) under one key. Saving or deleting a
BlockedAddress drops that key at once (signals below), so a change applies to the next call; the short TTL
is only a safety net for a change made without the signals (a queryset update).
"""

import ipaddress

from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from mobile_api.models import BlockedAddress

CACHE_KEY = "fc:blocked-addresses"
CACHE_TTL = 60

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_network(text: str) -> Network:
    """One entry as a network (a single address is a /32 or /128); ValueError when it is neither. Host bits
    are allowed (198.51.100.7/24 is 198.51.100.0/24): support pastes what a log shows."""
    return ipaddress.ip_network(text.strip(), strict=False)


def _load() -> tuple[Network, ...]:
    networks = []
    for text in BlockedAddress.objects.order_by().values_list("network", flat=True):
        try:
            networks.append(parse_network(text))
        except ValueError:
            continue  # the admin refuses such an entry; one saved otherwise blocks nothing
    return tuple(networks)


def blocked_networks() -> tuple[Network, ...]:
    networks = cache.get(CACHE_KEY)
    if networks is None:
        networks = _load()
        cache.set(CACHE_KEY, networks, CACHE_TTL)
    return networks


def address_blocked(ip: str) -> bool:
    """Whether the caller's address is on the block list (one cache read; a query only after a change)."""
    networks = blocked_networks()
    if not networks:
        return False
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped  # ::ffff:203.0.113.7 is 203.0.113.7
    return any(address.version == network.version and address in network for network in networks)


@receiver(post_save, sender=BlockedAddress, dispatch_uid="blocked-addresses-changed-save")
@receiver(post_delete, sender=BlockedAddress, dispatch_uid="blocked-addresses-changed-delete")
def _forget(**_kwargs) -> None:
    # Now, and again after the commit: a call between the two may have cached the list as it was.
    cache.delete(CACHE_KEY)
    transaction.on_commit(lambda: cache.delete(CACHE_KEY))
