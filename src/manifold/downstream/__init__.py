"""The client-facing side: stdio and Streamable HTTP front ends, sessions, dispatch."""
