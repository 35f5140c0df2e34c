"""Path converters of the APIs."""


class IdConverter:
    """An id in a path: 1 to 18 ASCII digits. A longer number cannot be a row (ids are 64-bit), so the address
    does not exist (404) instead of reaching the database with a number it cannot hold."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)
