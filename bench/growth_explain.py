"""The growth benchmark's plans (bench/growth.py): the SQL statements of each measured page and PostgreSQL's plan
of each, read on one database (the 10x one, and the 1x one beside it).

In a `manage.py shell`: Django's test client calls each page (a Main API token's access token, a Mobile login's),
twice, and `CaptureQueriesContext` keeps the statements of the second call (the worker's caches warm, as in the
run). Each SELECT is then run again as `EXPLAIN (ANALYZE, FORMAT JSON)`, three times: the plan and the fastest
execution time. While
queries are captured the page's statements run with client-side binding, their parameters written into the
text (apicore.database.prepared_statements), so each is a statement that can be explained as it is.

A plan fails when it reads a large table (more than `LARGE_TABLE_ROWS` rows, PostgreSQL's estimate) by a
sequential scan: a table that grows with history or members must be read through an index.
"""

from server import django_script

LARGE_TABLE_ROWS = 10_000

EXPLAIN_SCRIPT = """
import base64, json
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

client = Client(SERVER_NAME="127.0.0.1")
basic = base64.b64encode("{client_id}:{secret}".encode()).decode()
reply = client.post("/main/v5/oauth/token", {{"grant_type": "client_credentials"}}, HTTP_AUTHORIZATION="Basic " + basic)
assert reply.status_code == 200, reply.content
bearers = {{"main": "Bearer " + reply.json()["access_token"], "mobile": "Bearer {mobile_access}"}}


def walk(node, found):
    found.append(node)
    for child in node.get("Plans", ()):
        walk(child, found)
    return found


with connection.cursor() as cursor:
    cursor.execute("SELECT c.relname, c.reltuples::bigint FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                   " WHERE n.nspname = 'public' AND c.relkind = 'r'")
    sizes = dict(cursor.fetchall())

pages = {pages!r}
result = {{}}
for key, (api, path) in pages.items():
    for _ in range(2):
        with CaptureQueriesContext(connection) as captured:
            reply = client.get(path, HTTP_AUTHORIZATION=bearers[api])
        assert reply.status_code == 200, (path, reply.status_code, reply.content[:300])
    statements = []
    for query in captured.captured_queries:
        sql = query["sql"]
        if not sql.lstrip().upper().startswith(("SELECT", "WITH")):
            statements.append({{"sql": sql[:2000], "explained": False}})
            continue
        runs = []
        for _ in range(3):  # the fastest of three: one run on a shared machine is mostly its load
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + sql)
                (plan,) = cursor.fetchone()
            runs.append(plan[0] if isinstance(plan, list) else json.loads(plan)[0])
        plan = min(runs, key=lambda run: run["Execution Time"])
        nodes = walk(plan["Plan"], [])
        scans = [
            {{"table": n["Relation Name"], "rows": sizes.get(n["Relation Name"], 0)}}
            for n in nodes if n["Node Type"] == "Seq Scan"
        ]
        indexes = sorted({{n["Index Name"] for n in nodes if "Index Name" in n}})
        statements.append({{
            "sql": sql[:2000],
            "explained": True,
            "execution_ms": round(plan["Execution Time"], 3),
            "seq_scans": scans,
            "indexes": indexes,
            "plan": plan["Plan"],
        }})
    result[key] = {{"queries": len(statements), "statements": statements}}
print(json.dumps(result))
"""


# What the results keep of a plan node: what it does, to which table and by which index, with what estimate and
# outcome (PostgreSQL's costs, widths and the rest are left out; long conditions, such as a page's 500 keys, cut).
PLAN_KEYS = (
    "Node Type", "Strategy", "Join Type", "Relation Name", "Alias", "Index Name", "Scan Direction", "Index Cond",
    "Recheck Cond", "Hash Cond", "Join Filter", "Filter", "Sort Key", "Sort Method", "Plan Rows", "Actual Rows",
    "Actual Loops", "Actual Total Time", "Rows Removed by Filter", "Heap Fetches", "Subplan Name",
)  # fmt: skip
TEXT_KEPT = 240


def pruned(node: dict) -> dict:
    kept = {}
    for key in PLAN_KEYS:
        if key in node:
            value = node[key]
            kept[key] = value[:TEXT_KEPT] if isinstance(value, str) else value
    if node.get("Plans"):
        kept["Plans"] = [pruned(child) for child in node["Plans"]]
    return kept


def explain_pages(env: dict[str, str], *, token: dict, mobile_access: str, pages: dict[str, tuple[str, str]]) -> dict:
    """{page key: {queries, statements: [{sql, execution_ms, seq_scans, indexes, plan}]}} on env's database, the
    plans pruned (PLAN_KEYS) and the statements' text cut to 600 characters. `pages`: page key -> ("main" |
    "mobile", path with query)."""
    code = EXPLAIN_SCRIPT.format(
        client_id=token["client_id"], secret=token["secret"], mobile_access=mobile_access, pages=pages
    )
    explained = django_script(env, code, timeout=600)
    for page in explained.values():
        for statement in page["statements"]:
            statement["sql"] = statement["sql"][:600]
            if "plan" in statement:
                statement["plan"] = pruned(statement["plan"])
    return explained


def large_seq_scans(explained: dict) -> dict[str, list[str]]:
    """Page key -> the large tables its statements read by a sequential scan (empty when none)."""
    found = {}
    for key, page in explained.items():
        tables = sorted(
            {
                scan["table"]
                for statement in page["statements"]
                for scan in statement.get("seq_scans", ())
                if scan["rows"] > LARGE_TABLE_ROWS
            }
        )
        found[key] = tables
    return found


def summary_lines(explained: dict, before: dict | None = None, *, shown_from_ms: float = 0.25) -> list[str]:
    """A line a page, then one a statement of `shown_from_ms` or more (or with a large sequential scan): its time
    (at 1x beside it when given), the indexes it reads, its large scans, its start."""
    lines = []
    for key, page in explained.items():
        earlier = (before or {}).get(key, {}).get("statements", [])
        shown, total, total_before = [], 0.0, 0.0
        for index, statement in enumerate(page["statements"]):
            if not statement["explained"]:
                continue
            total += statement["execution_ms"]
            then = ""
            if index < len(earlier) and earlier[index].get("explained"):
                total_before += earlier[index]["execution_ms"]
                then = f" (1x {earlier[index]['execution_ms']:.2f})"
            large = [s["table"] for s in statement["seq_scans"] if s["rows"] > LARGE_TABLE_ROWS]
            if statement["execution_ms"] < shown_from_ms and not large:
                continue
            text = " ".join(statement["sql"].split())[:60]
            scans = f"  SEQ SCAN of {', '.join(large)}" if large else ""
            indexes = ", ".join(statement["indexes"]) or "no index"
            shown.append(f"    {statement['execution_ms']:6.2f} ms{then}  [{indexes}]{scans}  {text}")
        sums = f"{total:.2f} ms" + (f" (1x {total_before:.2f})" if before else "")
        lines.append(f"  {key}: {page['queries']} statements, {sums}")
        lines += shown
    return lines
