"""Model rows kept as plain values between requests, and the instances each request builds from them.

The token caches of both APIs (main_api.token_cache, mobile_api.caller_cache) hold the rows of a caller in
the process; a request must never share an instance with another (one may change it), so each gets new
instances, built as Model.from_db would for those columns (any other field deferred) without running
Model.__init__ over every field.
"""

from django.db.models.base import DEFERRED, ModelState
from django.db.models.signals import post_init, pre_init


def fresh(values) -> list:
    """A copy whose JSON values (dicts, lists: mutable) are the caller's own."""
    return [value.copy() if isinstance(value, dict | list) else value for value in values]


def instance_from_values(model, names, values, using: str = "default"):
    """The instance Model.from_db gives for these columns. A model with init signals goes through from_db."""
    if pre_init.has_listeners(model) or post_init.has_listeners(model):
        loaded = dict(zip(names, values, strict=True))
        attnames = [field.attname for field in model._meta.concrete_fields]
        return model.from_db(using, attnames, [loaded.get(name, DEFERRED) for name in attnames])
    instance = model.__new__(model)
    instance.__dict__.update(zip(names, values, strict=True))
    instance._state = ModelState()
    instance._state.adding = False
    instance._state.db = using
    return instance


def column_names(model, *, leave_out: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The attribute names of a model's columns, less `leave_out` (secrets a cache must not hold)."""
    return tuple(field.attname for field in model._meta.concrete_fields if field.name not in leave_out)


def row_values(instance, names) -> tuple:
    """The values of `names` of a loaded instance, for instance_from_values later."""
    return tuple(getattr(instance, name) for name in names)
