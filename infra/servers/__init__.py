"""The servers under the services: PostgreSQL's pool (db.py) and migrations (migrate.py,
migrations/), the embedded servers of a machine without its own (embedded.py: which server;
local.py: what answers, the installed ones started; packaged.py: the pip packages' ones),
what an outage looks like (errors.py), and how each process runs (process.py)."""
