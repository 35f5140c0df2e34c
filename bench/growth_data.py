"""The growth benchmark's history (bench/growth.py): nine earlier years of one club, copied in SQL.

The club made by demo.bench_club has one year of flying: flights, a booking for each, a charge with two account
rows for each charged flight, remarks with their history. Each earlier year k (1..9) is a copy of the rows of
that year's 364 days (52 weeks: weekdays and seasons stay where they were) moved back k * 364 days, in one
`INSERT ... SELECT` a table and a year. Every copy keeps every constraint and foreign key valid:

- new ids are the old ones plus k times the table's largest id, so references between copied rows (a charge's
  flight, an account row's charge, a flight's remark, an event's remark) are the old reference plus the
  same offset, and nothing clashes with rows made later (the identity sequences are moved past them);
- people, objects and flight types are the same rows (the same members flew then);
- the meters of a copied flight are moved back by k times the object's meters of the year, so each object's
  readings still rise over the years;
- copied remarks are closed (old remarks were dealt with): the objects' open remarks stay those of this year.

Columns not named here are copied as they are: a column added to a table later is copied too.
"""

import datetime as dt

import psycopg
from psycopg import sql

DAYS = 364
READINGS = ("departure_tachometer", "arrival_tachometer", "departure_hobbs", "arrival_hobbs")


def columns_of(conn, table: str) -> list[str]:
    rows = conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = %s "
        "ORDER BY ordinal_position",
        (table,),
    ).fetchall()
    return [row[0] for row in rows]


def copy_rows(conn, table: str, *, overrides: dict[str, str], where: str, params: dict, join: str = "") -> int:
    """INSERT INTO table SELECT its columns, those in `overrides` as the given SQL expressions, FROM table t
    (`join`ed) WHERE `where`. Returns the rows copied."""
    columns = columns_of(conn, table)
    unknown = set(overrides) - set(columns)
    if unknown:
        raise RuntimeError(f"{table} has no columns {sorted(unknown)}")
    values = [sql.SQL(overrides[c]) if c in overrides else sql.SQL("t.") + sql.Identifier(c) for c in columns]
    statement = sql.SQL("INSERT INTO {table} ({columns}) SELECT {values} FROM {table} t {join} WHERE {where}").format(
        table=sql.Identifier(table),
        columns=sql.SQL(", ").join(map(sql.Identifier, columns)),
        values=sql.SQL(", ").join(values),
        join=sql.SQL(join),
        where=sql.SQL(where),
    )
    return conn.execute(statement, params).rowcount


def largest_id(conn, table: str) -> int:
    query = sql.SQL("SELECT coalesce(max(id), 0) FROM {}").format(sql.Identifier(table))
    return conn.execute(query).fetchone()[0]


def move_sequence(conn, table: str) -> None:
    """The identity sequence past the largest id, so that the service's next row gets a free id."""
    conn.execute(
        sql.SQL("SELECT setval(pg_get_serial_sequence({name}, 'id'), (SELECT max(id) FROM {table}))").format(
            name=sql.Literal(table), table=sql.Identifier(table)
        )
    )


TABLES = (
    "objects_app_remark",
    "objects_app_remarkevent",
    "flightlog_flightlogentry",
    "bookings_booking",
    "economy_transaction",
    "economy_transactionrow",
)


def grow_history(database_url: str, organization_id: int, *, years: int = 9) -> dict:
    """Copy the club's year back `years` times (see the module's text); one transaction. Returns the rows
    copied by table."""
    copied = dict.fromkeys(TABLES, 0)
    with psycopg.connect(database_url) as conn:
        conn.execute("SET TIME ZONE 'UTC'")
        objects = "SELECT id FROM objects_app_bookableobject WHERE organization_id = %(org)s"
        first_day = conn.execute(
            f"SELECT min(date) FROM flightlog_flightlogentry WHERE object_id IN ({objects})", {"org": organization_id}
        ).fetchone()[0]
        if first_day is None:
            raise RuntimeError("the club has no flights to copy")
        # The year's window as points in time (UTC midnights) for bookings and remarks.
        first_at = dt.datetime.combine(first_day, dt.time(), dt.UTC)
        end_at = first_at + dt.timedelta(days=DAYS)
        base = {table: largest_id(conn, table) for table in TABLES}
        # Each object's meters over the year: a copy k years back reads k times that less.
        conn.execute(
            f"""
            CREATE TEMP TABLE growth_meters ON COMMIT DROP AS
            SELECT object_id,
                   coalesce(max(arrival_tachometer) - min(departure_tachometer), 0) AS tachometer,
                   coalesce(max(arrival_hobbs) - min(departure_hobbs), 0) AS hobbs
              FROM flightlog_flightlogentry
             WHERE object_id IN ({objects}) AND date >= %(first)s AND date < %(first)s + {DAYS}
             GROUP BY object_id
            """,
            {"org": organization_id, "first": first_day},
        )
        in_year = f"t.date >= %(first)s AND t.date < %(first)s + {DAYS}"
        for k in range(1, years + 1):
            shift = f"interval '{k * DAYS} days'"
            p = {"org": organization_id, "first": first_day, "first_at": first_at, "end_at": end_at}
            off = {table: k * base[table] for table in TABLES}
            remarks_in_year = (
                f"t.object_id IN ({objects}) AND t.created_at >= %(first_at)s AND t.created_at < %(end_at)s"
                f" AND t.id <= {base['objects_app_remark']}"
            )
            copied["objects_app_remark"] += copy_rows(
                conn,
                "objects_app_remark",
                overrides={
                    "id": f"t.id + {off['objects_app_remark']}",
                    "created_at": f"t.created_at - {shift}",
                    "state": "'closed'",
                },
                where=remarks_in_year,
                params=p,
            )
            copied["objects_app_remarkevent"] += copy_rows(
                conn,
                "objects_app_remarkevent",
                overrides={
                    "id": f"t.id + {off['objects_app_remarkevent']}",
                    "remark_id": f"t.remark_id + {off['objects_app_remark']}",
                    "at": f"t.at - {shift}",
                },
                where=f"t.remark_id IN (SELECT t.id FROM objects_app_remark t WHERE {remarks_in_year})",
                params=p,
            )
            flights_in_year = f"t.object_id IN ({objects}) AND {in_year} AND t.id <= {base['flightlog_flightlogentry']}"
            moved = {column: f"t.{column} - {k} * m.{column.split('_')[1]}" for column in READINGS}
            times = {c: f"t.{c} - {shift}" for c in ("blockoff_at", "takeoff_at", "landing_at", "blockon_at")}
            copied["flightlog_flightlogentry"] += copy_rows(
                conn,
                "flightlog_flightlogentry",
                overrides={
                    "id": f"t.id + {off['flightlog_flightlogentry']}",
                    "date": f"t.date - {k * DAYS}",
                    **times,
                    "created_at": f"t.created_at - {shift}",
                    "endorsed_at": f"t.endorsed_at - {shift}",
                    **moved,
                    # The remark of a copied flight is the copy of its remark (remarks of the year are copied).
                    "remark_id": (
                        "CASE WHEN EXISTS (SELECT 1 FROM objects_app_remark r WHERE r.id = t.remark_id"
                        f" AND r.id <= {base['objects_app_remark']} AND r.created_at >= %(first_at)s"
                        f" AND r.created_at < %(end_at)s) THEN t.remark_id + {off['objects_app_remark']} END"
                    ),
                },
                where=flights_in_year,
                params=p,
                join="JOIN growth_meters m ON m.object_id = t.object_id",
            )
            copied["bookings_booking"] += copy_rows(
                conn,
                "bookings_booking",
                overrides={
                    "id": f"t.id + {off['bookings_booking']}",
                    "start_at": f"t.start_at - {shift}",
                    "end_at": f"t.end_at - {shift}",
                    "created_at": f"t.created_at - {shift}",
                },
                where=(
                    f"t.object_id IN ({objects}) AND t.start_at >= %(first_at)s AND t.start_at < %(end_at)s"
                    f" AND t.id <= {base['bookings_booking']}"
                ),
                params=p,
            )
            # The club's charges of the copied flights, and its other transactions of the year.
            charges = (
                f"t.organization_id = %(org)s AND t.id <= {base['economy_transaction']} AND "
                f"(CASE WHEN t.flightlog_id IS NULL THEN {in_year} ELSE t.flightlog_id IN (SELECT t.id FROM"
                f" flightlog_flightlogentry t WHERE {flights_in_year}) END)"
            )
            copied["economy_transaction"] += copy_rows(
                conn,
                "economy_transaction",
                overrides={
                    "id": f"t.id + {off['economy_transaction']}",
                    "date": f"t.date - {k * DAYS}",
                    "created_at": f"t.created_at - {shift}",
                    "flightlog_id": f"t.flightlog_id + {off['flightlog_flightlogentry']}",
                },
                where=charges,
                params=p,
            )
            copied["economy_transactionrow"] += copy_rows(
                conn,
                "economy_transactionrow",
                overrides={
                    "id": f"t.id + {off['economy_transactionrow']}",
                    "transaction_id": f"t.transaction_id + {off['economy_transaction']}",
                },
                where=f"t.transaction_id IN (SELECT t.id FROM economy_transaction t WHERE {charges})",
                params=p,
            )
        for table in TABLES:
            move_sequence(conn, table)
        # Deferred foreign keys are checked here, at the commit.
    return copied
