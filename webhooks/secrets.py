"""The webhook's token and signing key at rest: encrypted, never in clear.

Every try needs both in full (the token goes in the Authorization header, the key makes the HMAC), so neither
can be kept as a hash the way API tokens are. They are encrypted with Fernet (AES-128-CBC with HMAC-SHA256,
from `cryptography`) under WEBHOOK_SECRETS_KEYS: the first key encrypts, every key decrypts, so a key can be
rotated by putting the new one first. Unset, the key is derived from SECRET_KEY (HKDF-SHA256 with its own
label), so a database copy alone reveals nothing.
"""

import base64
import functools

from cryptography.fernet import Fernet, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings


def _derived_key(secret: str) -> bytes:
    raw = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"flyclub webhook secrets").derive(
        secret.encode("utf-8")
    )
    return base64.urlsafe_b64encode(raw)


@functools.lru_cache(maxsize=4)
def _cipher(keys: tuple[str, ...], secret_key: str) -> MultiFernet:
    fernets = [Fernet(key.encode("ascii")) for key in keys] or [Fernet(_derived_key(secret_key))]
    return MultiFernet(fernets)


def _current() -> MultiFernet:
    return _cipher(tuple(getattr(settings, "WEBHOOK_SECRETS_KEYS", ()) or ()), settings.SECRET_KEY)


def encrypt(value: str) -> str:
    return _current().encrypt(value.encode("utf-8")).decode("ascii")


def decrypt(value: str) -> str:
    return _current().decrypt(value.encode("ascii")).decode("utf-8")
