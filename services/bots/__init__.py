"""Bots: a Celery worker that plays empty seats from their own view, and its dispatcher."""
