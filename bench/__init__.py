"""Benchmarks and live checks against a real gunicorn server (see bench/README.md)."""
