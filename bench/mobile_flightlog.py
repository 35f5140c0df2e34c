"""The Mobile part's flight log baseline (bench/mobile.py): the same page as GET /mobile/v5/flightlogs?limit=500
&offset=N, read by one hand-written statement and built in Python as the API writes it (document 2's flight log
entry: Main v5's flight without meter readings, uplift, hobbs, daily check, transaction, remark and created_at).

As the operations part's flight baseline (bench/operations_baseline.py): the page's rows first in a CTE (the
flights on the member's organization's active objects and on active objects shared with it, as one filter on the
objects, while the organization uses the flight log), then their object, organization, flight type, airports and
crew; UTC texts by `to_char`; totals computed by the database.
"""

from operations_baseline import INSTRUCTOR, PILOT, SCOUT, _crew, utc_text

FLIGHTS_SQL = f"""
WITH page AS (
    SELECT f.*
      FROM flightlog_flightlogentry f
     WHERE f.object_id IN (
             SELECT v.id FROM objects_app_bookableobject v
              WHERE v.active
                AND (v.organization_id = %(org)s
                     OR v.id IN (SELECT s.object_id FROM objects_app_objectshare s WHERE s.organization_id = %(org)s)))
       AND EXISTS (SELECT 1 FROM accounts_organization mine WHERE mine.id = %(org)s AND mine.uses_flight_log)
     ORDER BY f.date, f.blockoff_at NULLS LAST, f.id
     LIMIT %(limit)s OFFSET %(offset)s
)
SELECT f.id, f.date::text, o.id, o.registration, org.id, org.name, f.flight_type_id, ft.name,
       da.icao, da.name, {utc_text("f.blockoff_at")}, {utc_text("f.takeoff_at")},
       aa.icao, aa.name, {utc_text("f.landing_at")}, {utc_text("f.blockon_at")}, f.via_route,
       org.hide_crew_in_log, {PILOT[0]}, {INSTRUCTOR[0]}, {SCOUT[0]},
       f.is_solo_instruction,
       round(extract(epoch FROM f.blockon_at - f.blockoff_at) / 60)::int,
       round(extract(epoch FROM f.landing_at - f.takeoff_at) / 60)::int,
       (f.arrival_tachometer - f.departure_tachometer)::float8,
       round((f.arrival_tachometer - f.departure_tachometer) * 60)::int,
       f.number_of_flights, f.comment
  FROM page f
  JOIN objects_app_bookableobject o ON o.id = f.object_id
  JOIN accounts_organization org ON org.id = o.organization_id
  LEFT JOIN flightlog_flighttype ft ON ft.id = f.flight_type_id
  LEFT JOIN flightlog_airport da ON da.id = f.departure_airport_id
  LEFT JOIN flightlog_airport aa ON aa.id = f.arrival_airport_id
  {PILOT[1]} {INSTRUCTOR[1]} {SCOUT[1]}
 ORDER BY f.date, f.blockoff_at NULLS LAST, f.id
"""


def flight_item(row) -> dict:
    (
        id_, date, object_id, registration, org_id, org_name, type_id, type_name,
        dep_icao, dep_name, blockoff, takeoff, arr_icao, arr_name, landing, blockon, via, hidden,
    ) = row[:18]  # fmt: skip
    pilot, instructor, scout = row[18:27], row[27:36], row[36:45]
    solo, block_min, air_min, tach, tach_min, landings, comment = row[45:]
    return {
        "id": id_,
        "date": date,
        "object": {"id": object_id, "registration": registration, "organization": {"id": org_id, "name": org_name}},
        "flight_type": None if type_id is None else {"id": type_id, "name": type_name},
        "departure": {
            "airport": None if dep_icao is None else {"icao": dep_icao, "name": dep_name},
            "blockoff_at": blockoff,
            "takeoff_at": takeoff,
        },
        "arrival": {
            "airport": None if arr_icao is None else {"icao": arr_icao, "name": arr_name},
            "landing_at": landing,
            "blockon_at": blockon,
        },
        "via_route": via or None,
        "crew_hidden": hidden,
        "pilot": _crew(hidden, *pilot),
        "instructor": _crew(hidden, *instructor),
        "scout": _crew(hidden, *scout),
        "is_solo_instruction": solo,
        "totals": {
            "block": None if block_min is None else round(block_min / 60, 2),
            "airborne": None if air_min is None else round(air_min / 60, 2),
            "tach": tach,
            "block_minutes": block_min,
            "airborne_minutes": air_min,
            "tach_minutes": tach_min,
        },
        "number_of_flights": landings,
        "comment": comment or None,
    }


def page_rows(conn, organization_id: int, *, limit: int, offset: int) -> list:
    """The page's rows and one more (whether a next page exists)."""
    arguments = {"org": organization_id, "limit": limit + 1, "offset": offset}
    return conn.execute(FLIGHTS_SQL, arguments).fetchall()
