"""The Object resource of the Mobile API v5 (document 2).

Its own fields (`model`, `has_thumbnail`) and the `disclaimer` block are the Mobile API's; the `status`,
`active_remarks`, `time_summary` and `settings` blocks are the Main API v5's (objects_app.api.presenters), as
../shared/DECISIONS.md "Objects: contents left open" says: one query each for a whole page, whatever its length
(docs/decisions.md §1.1 "Replies: presenters, not DRF serializers").
"""

from apicore.presenters import BOOLEAN, INTEGER, REF, STRING, Block, Field, Presenter, nullable, obj, text_or_none

from ..thumbnails import has_small_picture
from .presenters import AIRCRAFT, NULLABLE_TEXT, ObjectPresenter, category_ref

MODEL = obj(designator=NULLABLE_TEXT, name=NULLABLE_TEXT)
DISCLAIMER = obj(headline=NULLABLE_TEXT, text=NULLABLE_TEXT)


def _model(category: int, designator: str, name: str) -> dict:
    """{designator, name}: always the object, its values filled in for aircraft only (null otherwise, and
    where empty)."""
    if category != AIRCRAFT:
        return {"designator": None, "name": None}
    return {"designator": designator or None, "name": name or None}


def _owner(organization_id: int, name: str) -> dict:
    return {"id": organization_id, "name": name}


def _disclaimer(headline: str, text: str) -> dict | None:
    """{headline, text} when the object has a disclaimer (either part), else null; an empty part is null."""
    if not headline and not text:
        return None
    return {"headline": headline or None, "text": text or None}


class MobileObjectPresenter(Presenter):
    keys_first = ObjectPresenter.keys_first
    fields = {
        "id": Field(INTEGER, "id"),
        "registration": Field(STRING, "registration"),
        "category": Field(obj(id=INTEGER, name=STRING), "category", compute=category_ref),
        "model": Field(MODEL, "category", "type_designator", "type_name", compute=_model),
        "comment": Field(NULLABLE_TEXT, "comment", compute=text_or_none),
        "organization": Field(REF, "organization_id", "organization__name", compute=_owner),
        "has_thumbnail": Field(
            BOOLEAN, "thumbnail", "thumbnail_small_source", "thumbnail_small", compute=has_small_picture
        ),
    }
    blocks = {
        "status": ObjectPresenter.blocks["status"],
        "active_remarks": ObjectPresenter.blocks["active_remarks"],
        "time_summary": ObjectPresenter.blocks["time_summary"],
        "disclaimer": Block(nullable(DISCLAIMER), "disclaimer_headline", "disclaimer_text", compute=_disclaimer),
        "settings": ObjectPresenter.blocks["settings"],
    }
