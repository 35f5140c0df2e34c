"""gunicorn settings shared by `make run`, the benchmarks and production.

The application alone decides whether a request came over https (apicore.middleware, TRUSTED_PROXIES):
gunicorn must not turn X-Forwarded-Proto from loopback into https on its own.
"""

forwarded_allow_ips = ""
secure_scheme_headers: dict[str, str] = {}


def post_worker_init(worker):
    """Once a worker has loaded the application: the objects of start-up (modules, URL patterns, models)
    move out of the garbage collector's sight, and full collections run less often. A request makes
    many short-lived objects but few cycles; without this, collections walking every loaded module took
    47-64 ms of a 500-member users page (issue 6's profile) and now and then a millisecond of a small call."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
