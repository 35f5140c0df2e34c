"""The objects' small pictures for the apps: a JPEG of 150x100 pixels made once from the uploaded picture.

`BookableObject.thumbnail` is the picture an administrator uploaded (any size). The first request for the small
picture makes it (`small_picture`): the picture is turned upright (EXIF orientation), scaled and cropped from
the centre to fill 3:2, and saved as a JPEG without metadata through Django's default storage. The row then
remembers the file, the picture's name it was made from and the SHA-256 of its bytes (the ETag), so later
requests read the stored file, and a 304 needs no file at all. A new picture has a new name (the storage never
reuses one), so it is made small again when next asked for.

A picture that cannot be read as an image (a broken upload, a file gone from the storage) gives no small
picture: the row remembers the name with no file, so `has_thumbnail` turns false and the picture is not read
again until it is replaced.
"""

import hashlib
import io
import logging
import warnings
from dataclasses import dataclass

from django.core.files.base import ContentFile
from PIL import Image, ImageOps

from .models import BookableObject

logger = logging.getLogger(__name__)

SIZE = (150, 100)
QUALITY = 85
# Pictures of more pixels are not decoded (a decompression bomb): Pillow's own limit, about 89 million (a
# camera's photo has up to about 50 million).
MAX_PIXELS = Image.MAX_IMAGE_PIXELS
# What a picture that cannot be read raises while it is opened and decoded.
UNREADABLE = (OSError, ValueError, SyntaxError, Image.DecompressionBombError, Image.DecompressionBombWarning)


def has_small_picture(picture: str, source: str, small: str) -> bool:
    """`has_thumbnail` from the row's columns: a picture, unless it was found unreadable."""
    return bool(picture) and not (source == picture and not small)


@dataclass(frozen=True)
class SmallPicture:
    etag: str  # the SHA-256 of the bytes in hex (quoted in the ETag header)
    name: str  # the stored file's name

    def read(self) -> bytes | None:
        """The stored bytes, None when the file is gone."""
        storage = BookableObject._meta.get_field("thumbnail_small").storage
        try:
            with storage.open(self.name, "rb") as file:
                return file.read()
        except OSError:
            return None


def make_jpeg(data: bytes) -> bytes:
    """A 150x100 JPEG of an image's bytes (upright, cropped from the centre to fill 3:2); raises one of
    UNREADABLE when the bytes are not an image Pillow can read."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        with Image.open(io.BytesIO(data)) as image:
            if image.width * image.height > MAX_PIXELS:
                raise ValueError(f"picture of {image.width}x{image.height} pixels")
            # A JPEG is decoded at a fraction of its size where that is still at least twice the small one.
            image.draft("RGB", (SIZE[0] * 2, SIZE[1] * 2))
            image = ImageOps.exif_transpose(image)
            if image.mode in ("RGBA", "LA", "P", "PA"):
                image = image.convert("RGBA")
                background = Image.new("RGBA", image.size, (255, 255, 255, 255))
                image = Image.alpha_composite(background, image)
            small = ImageOps.fit(image.convert("RGB"), SIZE, method=Image.Resampling.LANCZOS)
    out = io.BytesIO()
    small.save(out, "JPEG", quality=QUALITY, optimize=True)
    return out.getvalue()


def _read_picture(obj: BookableObject) -> bytes | None:
    try:
        with obj.thumbnail.open("rb") as file:
            return file.read()
    except OSError:
        return None
    finally:
        obj.thumbnail.close()


def small_picture(obj: BookableObject, *, remake: bool = False) -> SmallPicture | None:
    """The object's small picture, made and stored when it has none for its current picture yet (or `remake`:
    its stored file is gone); None when the object has no picture or its picture cannot be read as an image."""
    picture = obj.thumbnail.name
    if not picture:
        return None
    if obj.thumbnail_small_source == picture and not remake:
        if not obj.thumbnail_small.name:
            return None  # found unreadable before
        return SmallPicture(obj.thumbnail_small_etag, obj.thumbnail_small.name)
    data = _read_picture(obj)
    try:
        if data is None:
            raise OSError("the picture's file cannot be read")
        jpeg = make_jpeg(data)
    except UNREADABLE as error:
        logger.warning("object %s: picture %s is no readable image (%s)", obj.pk, picture, error)
        _remember(obj, picture, "", "")
        return None
    etag = hashlib.sha256(jpeg).hexdigest()
    storage = BookableObject._meta.get_field("thumbnail_small").storage
    # Named by the object and the bytes' digest: two requests making it at once write one file.
    name = f"objects/thumbnails/{obj.pk}-{etag[:32]}.jpg"
    if not storage.exists(name):
        name = storage.save(name, ContentFile(jpeg))
    _remember(obj, picture, name, etag)
    return SmallPicture(etag, name)


def _remember(obj: BookableObject, picture: str, name: str, etag: str) -> None:
    """Store what was made, unless the picture was replaced meanwhile (then the next request makes it anew)."""
    BookableObject.objects.filter(pk=obj.pk, thumbnail=picture).update(
        thumbnail_small=name, thumbnail_small_source=picture, thumbnail_small_etag=etag
    )
