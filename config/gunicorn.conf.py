"""gunicorn settings shared by `make run`, the benchmarks and production.

The application alone decides whether a request came over https (apicore.middleware, TRUSTED_PROXIES):
gunicorn must not turn X-Forwarded-Proto from loopback into https on its own.
"""

forwarded_allow_ips = ""
secure_scheme_headers: dict[str, str] = {}
