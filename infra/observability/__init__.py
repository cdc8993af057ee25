"""What a process tells of itself: metrics (metrics.py), traces (tracing.py), logs
(logging.py) and the context every log line carries (context.py)."""
