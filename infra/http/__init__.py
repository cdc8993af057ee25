"""The HTTP edge every service shares: the one middleware (edge.py), the fast path of the
move cycle (fastpath.py), the bounds on what a client sends (wire.py, guards.py), rate limits
(ratelimit.py, rate_counters.py), problem details and CORS (common.py), the OpenAPI document
(openapi.py)."""
