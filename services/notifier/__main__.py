"""python -m services.notifier: the notifier process (services/notifier/notifier.py)."""

from infra.servers.process import run_until_signalled
from services.notifier.notifier import run

if __name__ == "__main__":
    run_until_signalled(run)
