"""The Mobile API's block list (403 10003): IP addresses and networks that support keeps in the admin.

Every Mobile API call asks first, so it must not cost a query: the parsed list lives in Django's cache (Redis
in production, shared by every process) under one key. Saving or deleting a BlockedAddress drops that key at
once (signals below), so a change applies to the next call; the short TTL is only a safety net for a change
made without the signals (a queryset update).

An authenticated call does not even read that key: each process keeps its own copy of the list (`LocalList`)
with the revision stamp it was read under, and mobile_api.auth checks that stamp in the round trip that counts
the call (apicore.counters). The signals renew the stamp as they drop the key.
"""

import ipaddress
import time
from dataclasses import dataclass

from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from apicore import counters
from mobile_api.models import BlockedAddress

CACHE_KEY = "fc:blocked-addresses"
CACHE_TTL = 60
STAMP_KEY = counters.revision_key("mobile-blocked", "list")

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
    return networks_hold(blocked_networks(), ip)


def networks_hold(networks: tuple[Network, ...], ip: str) -> bool:
    if not networks:
        return False
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped  # ::ffff:203.0.113.7 is 203.0.113.7
    return any(address.version == network.version and address in network for network in networks)


@dataclass(frozen=True)
class LocalList:
    """This process's copy of the list, read under `stamp` (STAMP_KEY's value before the list was read)."""

    stamp: str
    networks: tuple[Network, ...]
    read_at: float

    def blocks(self, ip: str) -> bool:
        return networks_hold(self.networks, ip)


_local: LocalList | None = None


def local_list() -> LocalList | None:
    """The process's copy, unless it is older than CACHE_TTL (the same safety net as the shared key's)."""
    found = _local
    if found is None or time.monotonic() - found.read_at > CACHE_TTL:
        return None
    return found


def local_list_read(stamp: str) -> LocalList:
    """The list as it is now, kept as read under `stamp` (which the caller read before)."""
    global _local
    _local = LocalList(stamp=stamp, networks=blocked_networks(), read_at=time.monotonic())
    return _local


def forget_local_list() -> None:
    global _local
    _local = None


def _dropped() -> None:
    cache.delete(CACHE_KEY)
    counters.backend().bump([STAMP_KEY])


@receiver(post_save, sender=BlockedAddress, dispatch_uid="blocked-addresses-changed-save")
@receiver(post_delete, sender=BlockedAddress, dispatch_uid="blocked-addresses-changed-delete")
def _forget(**_kwargs) -> None:
    # Now, and again after the commit: a call between the two may have read the list as it was.
    _dropped()
    transaction.on_commit(_dropped, robust=True)
