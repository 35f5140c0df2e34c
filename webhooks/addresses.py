"""Which addresses a webhook may reach: never the service's own network.

An address is refused when it is, or resolves to, a loopback, private, link-local (cloud metadata lives
there: 169.254.169.254), shared (100.64.0.0/10, also Alibaba's metadata), multicast, reserved or unspecified
range, IPv4 written inside IPv6 included. WEBHOOK_ALLOW_LOOPBACK lets tests and the demo reach loopback
addresses, and only there plain http. The check runs when support saves the address and again on the
address each try actually connects to (webhooks.transport), so a DNS answer that changes in between cannot
reach inside.
"""

import ipaddress
import socket
import urllib.parse

from django.conf import settings
from django.utils.translation import gettext_lazy as _

NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


class AddressRefused(Exception):
    """The address may not be used; the message says why, for support's form and the delivery log."""


def loopback_allowed() -> bool:
    return bool(getattr(settings, "WEBHOOK_ALLOW_LOOPBACK", False))


def ip_allowed(text: str) -> bool:
    address = ipaddress.ip_address(text.split("%", 1)[0])
    if isinstance(address, ipaddress.IPv6Address):
        mapped = address.ipv4_mapped or address.sixtofour
        if mapped is None and address in NAT64:
            # A NAT64 gateway carries 64:ff9b::/96 to the IPv4 address in its last 32 bits.
            mapped = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if mapped is not None:
            address = mapped
    if address.is_loopback:
        return loopback_allowed()
    return address.is_global and not address.is_multicast


def resolve(host: str, port: int) -> list[tuple]:
    """getaddrinfo's answers for a TCP connection, each checked; refused when any answer is inside."""
    try:
        answers = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as error:
        raise AddressRefused(_("The host name could not be resolved.")) from error
    if not answers:
        raise AddressRefused(_("The host name could not be resolved."))
    for answer in answers:
        if not ip_allowed(answer[4][0]):
            raise AddressRefused(_("The address leads into a private, loopback or reserved network."))
    return answers


def _is_loopback_host(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_check(url: str, *, resolve_host: bool = True) -> None:
    """Refuse an address that is not https (or http on loopback where allowed), that carries credentials, or
    whose host resolves inside."""
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise AddressRefused(_("The address is not a valid URL.")) from error
    host = parts.hostname or ""
    if not host:
        raise AddressRefused(_("The address has no host."))
    if parts.username or parts.password:
        raise AddressRefused(_("The address must not carry a user name or password."))
    if parts.scheme == "http":
        if not (loopback_allowed() and _is_loopback_host(host)):
            raise AddressRefused(_("The address must begin with https://."))
    elif parts.scheme != "https":
        raise AddressRefused(_("The address must begin with https://."))
    if resolve_host:
        resolve(host, port or (443 if parts.scheme == "https" else 80))
