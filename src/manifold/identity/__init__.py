"""Who is calling: inbound authentication of the HTTP front (`authn`, `jwks`), tenants and their
profiles (`tenants`, an addon), and rate limits and budgets (`ratelimit`, an addon). Each module
is imported only when its config section is set."""
