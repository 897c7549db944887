#!/usr/bin/env bash
# Print the MCP client config that runs this checkout's `manifold` over stdio on a config file
# (absolute paths, so it works from any IDE whether or not `manifold` is on PATH).
# Usage: scripts/ide-config.sh [CONFIG]   (default manifold.yaml)
set -euo pipefail
VENV="${VENV:-.venv}"
exec "$VENV/bin/python" - "$VENV/bin/manifold" "${1:-manifold.yaml}" <<'PY'
import json
import os
import sys

manifold, config = (os.path.abspath(p) for p in sys.argv[1:3])
if not os.path.isfile(config):
    print(
        f"note: {config} does not exist yet: write it (see Config in the README) or convert "
        "your client's file with `manifold import PATH -o manifold.yaml`",
        file=sys.stderr,
    )
snippet = {"mcpServers": {"manifold": {"command": manifold, "args": ["run", "--config", config]}}}
print(json.dumps(snippet, indent=2))
PY
