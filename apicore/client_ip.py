"""The caller's address and scheme, believing forwarded headers only from trusted proxies."""

import ipaddress

from django.conf import settings


def _from_trusted_proxy(request) -> bool:
    remote = request.META.get("REMOTE_ADDR", "")
    return bool(remote) and remote in settings.TRUSTED_PROXIES


def client_ip(request) -> str:
    remote = request.META.get("REMOTE_ADDR", "")
    if _from_trusted_proxy(request):
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        # The right-most address was added by our own proxy: that is the one we can believe.
        hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
        if hops:
            return hops[-1]
    return remote


def is_https(request) -> bool:
    if request.is_secure():
        return True
    return _from_trusted_proxy(request) and request.META.get("HTTP_X_FORWARDED_PROTO", "").lower() == "https"


def ip_allowed(ip: str, allowed: list[str]) -> bool:
    """An empty list allows every address; entries are addresses or CIDR ranges."""
    if not allowed:
        return True
    try:
        address = ipaddress.ip_address(ip)
    except ValueError:
        return False
    for entry in allowed:
        try:
            if address in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False
