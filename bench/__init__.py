"""End-to-end benchmark harness: a fast mock MCP upstream, a lean raw JSON-RPC driver, and a
runner that measures the gateway against a direct baseline (``python -m bench.run``)."""
