"""gunicorn's own logs (the access log, the error log) through the service's redacting filter.

The access log writes every request line: a password-reset link (/password-reset/<uid>/<token>) or a
credential someone put in a query string would be written in clear. Named by `logger_class` (bin/run-demo;
production: config/gunicorn.conf.py or --logger-class config.gunicorn_logging.RedactingLogger).
"""

from gunicorn.glogging import Logger

from config.log_redaction import RedactSecrets


class RedactingLogger(Logger):
    def setup(self, cfg):
        super().setup(cfg)
        # On the loggers, not the handlers: gunicorn replaces its handlers on every configuration reload.
        for log in (self.error_log, self.access_log):
            if not any(isinstance(existing, RedactSecrets) for existing in log.filters):
                log.addFilter(RedactSecrets())
