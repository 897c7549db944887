"""Benchmark for ``manifold.economy.search``: latency on a 10,000-tool catalog and recall.

Usage: ``python bench/search_bench.py [--tools 10000] [--queries 2000] [--seed 7]``

Prints one JSON object to stdout:

* ``recall``: recall@1/@5 of the labelled LeanProxy intents and of the held-out intents
  on the real 118-tool catalog, and again with that catalog buried in synthetic tools
  (``with_distractors``: the real tools plus synthetic ones up to ``--tools``);
* ``latency_ms``: p50/p90/p99/max/mean time of ``ToolIndex.search`` per query on the
  large catalog, over a deterministic mix of labelled intents and synthetic queries:
  wall time of one pass, thread CPU time of that pass, and the best of ``--repeats``
  wall timings (robust to other processes on a busy machine);
* ``build_s``: time to build the large index.

The synthetic catalog is generated deterministically from ``--seed``: a few hundred
servers drawn from common MCP domains (code hosting, trackers, chat, docs, databases,
cloud, observability, CRM, commerce, mail, calendar, storage, fitness ...), each with
``verb_object`` tools, templated descriptions and typical parameters.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))  # the bench package (search_eval), when run as a script

from bench.search_eval import (  # noqa: E402
    Intent,
    evaluate,
    load_catalog,
    load_intents,
)
from manifold.economy.search import ToolEntry, ToolIndex, split_identifier  # noqa: E402

CATALOG = ROOT / "bench" / "data" / "leanproxy-catalog.json"
INTENTS = ROOT / "bench" / "data" / "leanproxy-intents.json"
HELDOUT = ROOT / "tests" / "economy" / "data" / "heldout_intents.json"

# domain -> (server name stems, objects, extra verbs)
DOMAINS: dict[str, tuple[list[str], list[str], list[str]]] = {
    "code": (
        ["gitlab", "bitbucket", "gitea", "codeberg", "azure-repos", "sourcehut"],
        [
            "repository",
            "branch",
            "commit",
            "merge_request",
            "pipeline",
            "job",
            "tag",
            "release",
            "issue",
            "snippet",
            "webhook",
            "deploy_key",
            "runner",
            "environment",
            "artifact",
            "protected_branch",
            "milestone",
            "wiki_page",
        ],
        ["merge", "fork", "archive", "cancel", "retry", "approve", "cherry_pick"],
    ),
    "tracker": (
        ["linear", "youtrack", "asana", "trello", "clickup", "monday", "shortcut", "taiga"],
        [
            "issue",
            "project",
            "cycle",
            "label",
            "comment",
            "attachment",
            "team",
            "workflow_state",
            "epic",
            "board",
            "card",
            "checklist",
            "time_entry",
            "custom_field",
            "roadmap",
        ],
        ["assign", "archive", "move", "link", "estimate", "watch"],
    ),
    "chat": (
        ["discord", "teams", "mattermost", "rocketchat", "zulip", "telegram", "matrix"],
        [
            "message",
            "channel",
            "thread",
            "reaction",
            "member",
            "role",
            "guild",
            "webhook",
            "pinned_message",
            "emoji",
            "voice_channel",
            "invite",
            "direct_message",
        ],
        ["send", "pin", "mute", "kick", "ban", "react", "reply"],
    ),
    "docs": (
        ["notion", "coda", "gitbook", "outline", "bookstack", "google-docs", "quip"],
        [
            "page",
            "database",
            "block",
            "comment",
            "document",
            "space",
            "template",
            "folder",
            "revision",
            "collection",
            "share_link",
        ],
        ["publish", "duplicate", "export", "restore", "share"],
    ),
    "database": (
        [
            "mysql",
            "mongodb",
            "sqlite",
            "redis",
            "clickhouse",
            "snowflake",
            "bigquery",
            "cockroach",
            "dynamodb",
            "supabase",
        ],
        [
            "table",
            "collection",
            "index",
            "query",
            "document",
            "key",
            "schema",
            "view",
            "stored_procedure",
            "user_grant",
            "backup",
            "replica",
            "migration",
            "connection",
        ],
        ["execute", "explain", "vacuum", "analyze", "truncate", "restore"],
    ),
    "cloud": (
        [
            "aws-ec2",
            "aws-s3",
            "aws-lambda",
            "gcp-compute",
            "azure-vm",
            "digitalocean",
            "hetzner",
            "fly",
            "vercel",
            "netlify",
            "cloudflare",
            "heroku",
        ],
        [
            "instance",
            "bucket",
            "object",
            "function",
            "deployment",
            "domain",
            "dns_record",
            "load_balancer",
            "volume",
            "snapshot",
            "security_group",
            "secret",
            "certificate",
            "environment_variable",
            "log_stream",
        ],
        ["start", "stop", "reboot", "deploy", "rollback", "scale", "invoke", "upload"],
    ),
    "k8s": (
        ["kubernetes", "helm", "argocd", "nomad", "docker", "portainer"],
        [
            "pod",
            "deployment",
            "service",
            "namespace",
            "config_map",
            "secret",
            "node",
            "container",
            "image",
            "release",
            "application",
            "ingress",
            "cron_job",
            "event",
        ],
        ["restart", "scale", "rollout", "exec", "drain", "sync", "logs"],
    ),
    "observability": (
        [
            "sentry",
            "datadog",
            "grafana",
            "prometheus",
            "new-relic",
            "honeycomb",
            "pagerduty",
            "opsgenie",
            "statuspage",
            "loki",
        ],
        [
            "alert",
            "incident",
            "dashboard",
            "monitor",
            "metric",
            "trace",
            "error_event",
            "service_level_objective",
            "on_call_schedule",
            "escalation_policy",
            "log_query",
            "annotation",
            "maintenance_window",
        ],
        ["acknowledge", "resolve", "silence", "mute", "escalate", "snooze"],
    ),
    "crm": (
        ["salesforce", "hubspot", "pipedrive", "zoho-crm", "close", "attio"],
        [
            "contact",
            "company",
            "deal",
            "lead",
            "opportunity",
            "note",
            "task",
            "call_log",
            "email_sequence",
            "pipeline_stage",
            "owner",
            "activity",
        ],
        ["convert", "merge", "assign", "qualify", "enroll"],
    ),
    "commerce": (
        ["stripe", "shopify", "paddle", "square", "woocommerce", "chargebee", "lemon-squeezy"],
        [
            "customer",
            "invoice",
            "subscription",
            "payment",
            "refund",
            "product",
            "price",
            "order",
            "coupon",
            "payout",
            "dispute",
            "checkout_session",
            "inventory_item",
        ],
        ["refund", "capture", "cancel", "fulfill", "void", "charge"],
    ),
    "mail": (
        ["gmail", "outlook", "fastmail", "sendgrid", "mailgun", "postmark", "mailchimp"],
        [
            "email",
            "draft",
            "label",
            "thread",
            "attachment",
            "contact",
            "filter",
            "template",
            "campaign",
            "audience",
            "mailbox",
            "signature",
        ],
        ["send", "forward", "reply", "archive", "mark_read", "schedule"],
    ),
    "calendar": (
        ["google-calendar", "outlook-calendar", "calendly", "cal-com", "zoom", "meet"],
        [
            "event",
            "calendar",
            "attendee",
            "availability",
            "meeting",
            "recording",
            "booking",
            "reminder",
            "room",
            "time_slot",
        ],
        ["schedule", "reschedule", "cancel", "invite", "accept", "decline"],
    ),
    "storage": (
        ["google-drive", "dropbox", "box", "onedrive", "s3-files", "backblaze", "filesystem"],
        [
            "file",
            "folder",
            "permission",
            "shared_link",
            "revision",
            "comment",
            "upload_session",
            "trash_item",
            "tag",
        ],
        ["upload", "download", "move", "copy", "share", "restore", "rename"],
    ),
    "design": (
        ["figma", "miro", "canva", "penpot", "excalidraw"],
        [
            "file",
            "frame",
            "component",
            "comment",
            "board",
            "sticky_note",
            "style",
            "version",
            "export",
            "team_project",
        ],
        ["export", "duplicate", "publish", "comment"],
    ),
    "support": (
        ["zendesk", "intercom", "freshdesk", "helpscout", "front"],
        [
            "ticket",
            "conversation",
            "macro",
            "agent",
            "customer",
            "article",
            "satisfaction_rating",
            "tag",
            "view",
            "group",
        ],
        ["assign", "close", "reopen", "merge", "escalate", "reply"],
    ),
    "fitness": (
        ["strava", "fitbit", "oura", "whoop", "polar", "withings", "apple-health"],
        [
            "activity",
            "segment",
            "route",
            "sleep_session",
            "heart_rate_sample",
            "readiness_score",
            "workout",
            "body_measurement",
            "nutrition_log",
            "goal",
            "challenge",
            "gear",
        ],
        ["upload", "sync", "export", "log"],
    ),
    "analytics": (
        ["google-analytics", "mixpanel", "amplitude", "posthog", "plausible", "segment-io"],
        [
            "report",
            "event",
            "funnel",
            "cohort",
            "dashboard",
            "property",
            "user_profile",
            "experiment",
            "feature_flag",
            "annotation",
        ],
        ["export", "run", "compare", "toggle"],
    ),
}

VERBS = ["get", "list", "create", "update", "delete", "search"]
QUALIFIERS = [
    "",
    " by id",
    " with pagination",
    " for the authenticated account",
    " including metadata",
    " filtered by status and date range",
    " in the workspace",
    " and return the raw JSON",
    " with optional fields",
    " sorted by most recent first",
]
DESC_TEMPLATES = {
    "get": "Get details of a single {obj} from {srv}{q}.",
    "list": "List {objs} in {srv}{q}.",
    "create": "Create a new {obj} in {srv}{q}.",
    "update": "Update fields of an existing {obj} in {srv}{q}.",
    "delete": "Delete a {obj} from {srv} permanently{q}.",
    "search": "Search {objs} in {srv} by keyword or filter{q}.",
    "other": "{Verb} a {obj} in {srv}{q}.",
}
COMMON_PARAMS = ["limit", "cursor", "page", "fields", "sort", "order", "since", "until"]


def _plural(word: str) -> str:
    if word.endswith("y") and word[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"


def synthetic_catalog(n_tools: int, seed: int = 7) -> list[ToolEntry]:
    """Deterministic synthetic tools (about 40 per server) across common MCP domains."""
    rng = random.Random(seed)
    out: list[ToolEntry] = []
    domain_names = sorted(DOMAINS)
    server_serial = 0
    while len(out) < n_tools:
        domain = domain_names[server_serial % len(domain_names)]
        stems, objects, extra = DOMAINS[domain]
        base = stems[(server_serial // len(domain_names)) % len(stems)]
        round_no = server_serial // (len(domain_names) * len(stems))
        server = base if round_no == 0 else f"{base}-{round_no + 1}"
        server_serial += 1
        pretty = base.replace("-", " ").title()
        prefix = base.split("-")[0] + "_" if rng.random() < 0.4 else ""
        tools: dict[str, ToolEntry] = {}
        objs = rng.sample(objects, k=min(len(objects), rng.randint(5, 9)))
        for obj in objs:
            verbs = [v for v in VERBS if rng.random() < 0.75] or ["get"]
            verbs += rng.sample(extra, k=min(len(extra), rng.randint(0, 2)))
            for verb in verbs:
                plural = verb in ("list", "search")
                obj_name = _plural(obj) if plural else obj
                name = f"{prefix}{verb}_{obj_name}"
                if rng.random() < 0.15:  # some servers use camelCase tool names
                    parts = name.split("_")
                    name = parts[0] + "".join(p.title() for p in parts[1:])
                words = obj.replace("_", " ")
                tmpl = DESC_TEMPLATES.get(verb, DESC_TEMPLATES["other"])
                desc = tmpl.format(
                    obj=words,
                    objs=_plural(words),
                    srv=pretty,
                    q=rng.choice(QUALIFIERS),
                    Verb=verb.replace("_", " ").capitalize(),
                )
                props: dict[str, Any] = {}
                if verb not in ("list", "search", "create"):
                    props[f"{obj}_id"] = {"type": "string", "description": f"ID of the {words}."}
                if verb == "search":
                    props["query"] = {"type": "string", "description": "Search text."}
                if verb in ("create", "update"):
                    for field in rng.sample(
                        [
                            "name",
                            "title",
                            "description",
                            "status",
                            "owner",
                            "labels",
                            "due_date",
                            "body",
                            "priority",
                        ],
                        k=3,
                    ):
                        props[field] = {"type": "string", "description": f"The {field}."}
                if verb in ("list", "search"):
                    for p in rng.sample(COMMON_PARAMS, k=3):
                        props[p] = {"type": "string", "description": f"The {p} parameter."}
                schema = {"type": "object", "properties": props}
                tools[name] = ToolEntry(server, name, desc, schema)
                if len(tools) >= 48:
                    break
            if len(tools) >= 48:
                break
        out.extend(tools.values())
    return out[:n_tools]


def synthetic_queries(entries: list[ToolEntry], n: int, seed: int) -> list[str]:
    """User-like queries about random synthetic tools (paraphrased, not copied)."""
    rng = random.Random(seed + 1)
    lead = ["", "please ", "can you ", "I want to ", "show me how to "]
    tails = ["", " for the team", " from yesterday", " in prod", " asap", " for customer 42"]
    synonyms = {
        "get": ["show", "fetch", "what is the", "look at"],
        "list": ["list all", "show every", "which", "what are the"],
        "create": ["make a new", "add a", "open a", "set up a"],
        "update": ["change the", "edit the", "modify the", "rename the"],
        "delete": ["remove the", "drop the", "get rid of the", "delete the"],
        "search": ["find", "look for", "search for"],
    }
    out: list[str] = []
    for _ in range(n):
        e = rng.choice(entries)
        server_words = set(split_identifier(e.server))
        words = [w for w in split_identifier(e.tool) if w not in server_words]
        verb = words[0] if words else "get"
        rest = " ".join(words[1:]) or e.server
        phr = rng.choice(synonyms.get(verb, [verb]))
        where = rng.choice(["", f" in {e.server.split('-')[0]}", " on the server"])
        out.append(f"{rng.choice(lead)}{phr} {rest}{where}{rng.choice(tails)}".strip())
    return out


def _percentile(sorted_values: list[float], p: float) -> float:
    if not sorted_values:
        return 0.0
    i = min(len(sorted_values) - 1, max(0, round(p / 100.0 * (len(sorted_values) - 1))))
    return sorted_values[i]


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50": round(_percentile(ordered, 50), 4),
        "p90": round(_percentile(ordered, 90), 4),
        "p99": round(_percentile(ordered, 99), 4),
        "max": round(ordered[-1], 4) if ordered else 0.0,
        "mean": round(statistics.fmean(ordered), 4) if ordered else 0.0,
    }


def _recall_block(index: ToolIndex, intents: list[Intent]) -> dict[str, Any]:
    r = evaluate(index, intents, ks=(1, 5))
    return {"n": r["n"], "recall@1": r["recall@1"], "recall@5": r["recall@5"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tools", type=int, default=10_000, help="size of the large catalog")
    ap.add_argument("--queries", type=int, default=2_000, help="timed queries")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=3, help="timings per query for best_of")
    args = ap.parse_args(argv)

    real = load_catalog(CATALOG)
    main_intents = load_intents(INTENTS)
    heldout = load_intents(HELDOUT)

    small = ToolIndex.build(real)
    synthetic = synthetic_catalog(max(0, args.tools - len(real)), seed=args.seed)
    t0 = time.perf_counter()
    large = ToolIndex.build([*real, *synthetic])
    build_s = time.perf_counter() - t0

    labelled = [it.query for it in (*main_intents, *heldout)]
    queries = labelled + synthetic_queries(
        synthetic, max(0, args.queries - len(labelled)), args.seed
    )
    rng = random.Random(args.seed + 2)
    rng.shuffle(queries)

    for q in queries[:50]:  # warm-up (stem cache, allocator)
        large.search(q, k=args.k)
    gc.collect()
    gc.disable()
    try:
        wall: list[float] = []
        cpu: list[float] = []
        best_of: list[float] = []
        empty = 0
        for q in queries:
            c0 = time.thread_time_ns()
            t0 = time.perf_counter_ns()
            hits = large.search(q, k=args.k)
            wall.append((time.perf_counter_ns() - t0) / 1e6)
            cpu.append((time.thread_time_ns() - c0) / 1e6)
            empty += not hits
            best = wall[-1]
            for _ in range(args.repeats - 1):
                t0 = time.perf_counter_ns()
                large.search(q, k=args.k)
                best = min(best, (time.perf_counter_ns() - t0) / 1e6)
            best_of.append(best)
    finally:
        gc.enable()

    result = {
        "catalog": {
            "real_tools": len(real),
            "large_tools": len(large),
            "build_s": round(build_s, 3),
        },
        "recall": {
            "leanproxy_intents": _recall_block(small, main_intents),
            "heldout_intents": _recall_block(small, heldout),
            "with_distractors": {
                "leanproxy_intents": _recall_block(large, main_intents),
                "heldout_intents": _recall_block(large, heldout),
            },
        },
        "latency_ms": {
            "queries": len(wall),
            "k": args.k,
            "wall": _summary(wall),
            "cpu": _summary(cpu),
            f"wall_best_of_{args.repeats}": _summary(best_of),
            "empty_results": empty,
            "note": "wall is one timed pass (includes preemption on a busy machine); cpu is "
            "thread CPU time of the same pass; best_of repeats each query and keeps the fastest",
        },
        "python": sys.version.split()[0],
    }
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
