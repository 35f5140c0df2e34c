"""The planner's price of a page read out of order (apicore.database.plan_for_data_in_memory; docs/decisions.md
§12.24): set on every new PostgreSQL connection from settings.POSTGRES_RANDOM_PAGE_COST, counted by no query log,
left to the server when the setting is None."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL planner setting")


def page_cost_of_a_new_connection() -> tuple[str, int]:
    """random_page_cost as a new connection has it, and the queries its opening logged."""
    fresh = connection.copy()
    try:
        with CaptureQueriesContext(fresh) as opening:
            fresh.ensure_connection()
        logged = len(opening.captured_queries)
        with fresh.cursor() as cursor:
            cursor.execute("SHOW random_page_cost")
            return cursor.fetchone()[0], logged
    finally:
        fresh.close()


def test_every_connection_prices_pages_as_read_from_memory(db):
    assert page_cost_of_a_new_connection() == ("1.1", 0)


@override_settings(POSTGRES_RANDOM_PAGE_COST=1.5)
def test_the_setting_is_the_price(db):
    assert page_cost_of_a_new_connection() == ("1.5", 0)


@override_settings(POSTGRES_RANDOM_PAGE_COST=None)
def test_none_keeps_the_servers(db):
    with connection.cursor() as cursor:
        cursor.execute("SELECT reset_val FROM pg_settings WHERE name = 'random_page_cost'")
        (server_default,) = cursor.fetchone()
    assert page_cost_of_a_new_connection()[0] == server_default
