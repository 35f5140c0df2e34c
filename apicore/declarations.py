"""What an endpoint declares about each of its operations, read by the OpenAPI document and by tests."""

from dataclasses import dataclass, field
from typing import Any

from apicore.errors import ErrorCode


@dataclass(frozen=True)
class Operation:
    method: str  # "get", "post", "put", "patch", "delete"
    summary: str
    module: str | None  # the right's module; None: any accepted caller
    right: str | None  # "r" or "w"
    parameters: dict[str, Any]  # query parameters by name (apicore.params.Parameter)
    body: Any  # the JSON body's schema class (apicore.schema.Schema), or None
    reply: str  # "list", "item" or "empty" (204)
    presenter: Any  # the item presenter of a "list" or "item" reply
    status: int  # the status of success
    errors: tuple[ErrorCode, ...]  # every error code the operation can answer
    list_meta: dict[str, dict] = field(default_factory=dict)  # extra `meta` fields: name -> JSON Schema
    item_schema: dict | None = None  # JSON Schema of the reply's item where no presenter makes it
