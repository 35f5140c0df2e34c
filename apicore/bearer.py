"""Bearer tokens as every API reads them (RFC 6750): the credential of the Authorization header, and the
challenge of a refused one."""

INVALID_TOKEN_CHALLENGE = 'Bearer error="invalid_token"'

# Each right a token or app holds per module: read, write, or both.
RIGHT_VALUES = ("r", "w", "rw")


def bearer_credential(header: str) -> str | None:
    """The credential of `Bearer <credential>` (the scheme in any letter case, RFC 9110 11.1), else None."""
    scheme, _, credential = header.partition(" ")
    credential = credential.strip()
    if scheme.lower() != "bearer" or not credential:
        return None
    return credential
