"""The contract test base of the Main API v5 and the Mobile API v5: `EndpointContract` (base.py) and the two
flavours it is declared for (flavours.py); routes.py finds the APIs' routes and which classes cover them.

    class TestObject(EndpointContract):
        flavour = MOBILE_V5
        path = "/objects/{id}"
        module = "objects"
        factory = ObjectFactory
        queries = {"GET": 3}
"""

from .base import CONTRACTS, EndpointContract
from .flavours import FLAVOURS, MAIN_V5, MOBILE_V5

__all__ = ["CONTRACTS", "FLAVOURS", "MAIN_V5", "MOBILE_V5", "EndpointContract"]
