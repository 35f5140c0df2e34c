"""How the organization website shows values."""

from apicore import clock


def local_time(value, organization) -> str:
    """A point in time as the organization's local date and time, to the second (as a delivery log counts)."""
    return clock.local_text(value, organization.timezone, "%Y-%m-%d %H:%M:%S")
