"""The server-facing side: transports, one live session per upstream, supervision, the pool."""
