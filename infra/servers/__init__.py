"""The servers under the services: PostgreSQL's pool (db.py) and migrations (migrate.py,
migrations/), the embedded servers of a machine without its own (embedded.py), what an
outage looks like (errors.py), and how each process runs (process.py)."""
