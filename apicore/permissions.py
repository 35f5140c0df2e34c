from rest_framework.permissions import SAFE_METHODS, BasePermission

from apicore.errors import ErrorCode
from apicore.exceptions import ApiError


class ModuleRight(BasePermission):
    """The view declares `module` (and optionally `right`); reads need `r`, writes `w` (403 10002)."""

    def has_permission(self, request, view) -> bool:
        module = getattr(view, "module", None)
        if module is None:
            return True
        right = getattr(view, "right", None) or ("r" if request.method in SAFE_METHODS else "w")
        if not request.auth.allows(module, right):
            raise ApiError(ErrorCode.NO_MODULE_ACCESS, f"The token lacks the {right} right of the module {module}.")
        return True
