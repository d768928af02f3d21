"""Judge settings: config block ``judges.<name>`` with defaults filled in.

A judge is any OpenAI-compatible chat-completions endpoint (``base_url`` and the
*name* of the environment variable that holds its key), or an embedded model
(``embedded``) that the workflow serves itself with llama.cpp on 127.0.0.1.
"""
from __future__ import annotations

import copy
import re
from typing import Any

JUDGE_DEFAULTS: dict[str, Any] = {
    "model": None,               # the model id sent to the server (required)
    "base_url": None,            # OpenAI-compatible API root, e.g. https://api.openai.com/v1
    "api_key_env": None,         # name of the environment variable holding the key
    "embedded": None,            # name of an embedded model (sumjudge.judge.embedded.EMBEDDED_MODELS)
    "temperature": 0.0,          # paper: 0; null: not sent (reasoning models accept none)
    "max_tokens": 256,           # paper: 256; null: not sent
    "max_completion_tokens": None,  # sent instead of max_tokens (reasoning models); not both
    "reasoning_effort": None,    # e.g. low | medium | high: sent when set
    "top_p": None,               # null: not sent (server default)
    "seed": 0,                   # null: not sent; sample k is sent seed + k
    "samples": 1,                # replies per unit (sample index is part of the cache key)
    "top_logprobs": None,        # e.g. 5: ask for logprobs, keep G-Eval's weighted Likert score; an
                                 # embedded judge that does not set it gets EMBEDDED_TOP_LOGPROBS
    "extra_body": {},            # further request fields, e.g. {repeat_penalty: 1.0} for llama.cpp
    "price_input_per_1k": None,  # USD per 1K prompt tokens; null: unknown (cost null), 0 for embedded
    "price_cached_input_per_1k": None,  # USD per 1K cached prompt tokens; null: the input price
    "price_output_per_1k": None,  # USD per 1K completion tokens (reasoning tokens included)
    "batch_price_factor": 0.5,   # replies through the Batch API cost this share of the live price
    "mode": "live",              # live: one request per unit | batch: the Batch API (sumjudge.judge.batch)
    "batch": {},                 # Batch API settings: see BATCH_DEFAULTS
    "rate_limit_group": None,    # judges naming the same group share one budget (one job at a time)
    "max_concurrency": 1,        # requests in flight at once (also the Snakemake resource)
    "requests_per_minute": None,  # null: no limit
    "tokens_per_minute": None,   # null: no limit (estimated prompt + max_tokens per request)
    "timeout_s": 120.0,          # per request
    "max_retries": 6,            # for 429, 5xx, timeouts, connection errors, malformed bodies
    "backoff_base_s": 1.0,       # exponential backoff: base * 2^attempt, jittered ...
    "backoff_max_s": 60.0,       # ... and capped (retry-after is honoured up to 10x this)
    "server": {},                # embedded only: see EMBEDDED_SERVER_DEFAULTS
    "cache_identity": None,      # remote only: what names the service in the cache key;
                                 # null: the normalised base_url (see normalise_base_url)
}

BATCH_DEFAULTS: dict[str, Any] = {
    "poll_s": 30,                # seconds between status polls
    "window": "24h",             # completion_window sent to batches.create
    "max_requests": 50000,       # per batch (OpenAI's limit)
    "max_bytes": 200000000,      # per input file (OpenAI's limit: 200 MB)
    "wait": True,                # true: poll until done; false: submit, report, stop the rule
    "fallback": "resubmit",      # requests an expired/cancelled batch left over: resubmit | live
    "max_enqueued_tokens": None,  # estimated input tokens of the judge's batches in flight at once; null: no limit
}

MODES = ("live", "batch")
FALLBACKS = ("resubmit", "live")

EMBEDDED_SERVER_DEFAULTS: dict[str, Any] = {
    "n_ctx": 8192,               # context window; SummEval prompts reach ~2.5K tokens
    "n_threads": 2,
    "n_batch": 512,
    "logits_all": False,         # True: llama.cpp's own logprobs (logits of every prompt token, ~2x the
                                 # time); false answers top_logprobs from the sampled positions only
    "extra_buffers": False,      # llama.cpp weight repacking (AMX/...): crashes with SIGILL on
                                 # VMs that announce AMX but do not enable it
    "chat_format": None,         # null: the chat template stored in the GGUF
    "startup_timeout_s": 180.0,
}

# top_logprobs of an embedded judge that does not set the key (null: none, the integer
# scores only). Cheap there (sumjudge.judge.llama_server): the weighted score by default.
EMBEDDED_TOP_LOGPROBS = 10

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class JudgeConfigError(ValueError):
    """A judge's settings cannot work."""


def _with_defaults(key: str, defaults: dict[str, Any], given: dict[str, Any] | None) -> dict[str, Any]:
    """A settings block ``given`` (config key ``key``) over its ``defaults``; unknown names are an error."""
    unknown = set(given or {}) - set(defaults)
    if unknown:
        raise JudgeConfigError(f"config key {key}: unknown setting(s) {', '.join(sorted(unknown))}; "
                               f"allowed: {', '.join(sorted(defaults))}")
    return {**defaults, **(given or {})}


OPTIONAL_KEYS = ("price_per_hour", "scores")


def judge_spec(name: str, settings: dict[str, Any] | None) -> dict[str, Any]:
    """Settings of judge ``name`` with every default filled in (a plain dict)."""
    if not NAME_PATTERN.match(name):
        raise JudgeConfigError(f"judge name {name!r} (config key judges.{name}): use letters, digits, . _ -")
    spec = copy.deepcopy(JUDGE_DEFAULTS)
    # optional keys, kept in the spec only when set (absent ones leave existing judge params unchanged):
    # price_per_hour (USD per hour of a local judge's machine; the leaderboard's cost column),
    # scores (another tool's scores, sumjudge.judge.imported: no request is sent)
    unknown = set(settings or {}) - set(spec) - set(OPTIONAL_KEYS)
    if unknown:
        raise JudgeConfigError(f"config key judges.{name}: unknown setting(s) {', '.join(sorted(unknown))}; "
                               f"allowed: {', '.join(sorted(spec))}")
    spec.update(copy.deepcopy(settings or {}))
    spec["name"] = name
    if not spec["model"] and spec.get("scores"):
        spec["model"] = "imported-scores"
    if not spec["model"]:
        raise JudgeConfigError(f"config key judges.{name}.model: a model id is required")
    if spec["embedded"]:
        from .embedded import EMBEDDED_MODELS
        if spec["embedded"] not in EMBEDDED_MODELS:
            raise JudgeConfigError(f"config key judges.{name}.embedded: {spec['embedded']!r} is not an embedded "
                                   f"model; allowed values: {', '.join(EMBEDDED_MODELS)}")
        if spec["base_url"]:
            raise JudgeConfigError(f"config key judges.{name}: set either base_url or embedded, not both")
        spec["server"] = _with_defaults(f"judges.{name}.server", EMBEDDED_SERVER_DEFAULTS, spec["server"])
        if "top_logprobs" not in (settings or {}):
            spec["top_logprobs"] = EMBEDDED_TOP_LOGPROBS
    elif not spec["base_url"] and not spec.get("scores"):
        raise JudgeConfigError(f"config key judges.{name}: set base_url (an OpenAI-compatible API), embedded, "
                               "or scores (another tool's scores)")
    elif spec["server"]:
        raise JudgeConfigError(f"config key judges.{name}.server: only for embedded judges")
    if spec["max_tokens"] is not None and spec["max_completion_tokens"] is not None:
        raise JudgeConfigError(f"config keys judges.{name}.max_tokens and judges.{name}.max_completion_tokens: "
                               f"set only one (reasoning models take max_completion_tokens; set "
                               f"judges.{name}.max_tokens: null)")
    if spec["mode"] not in MODES:
        raise JudgeConfigError(f"config key judges.{name}.mode: {spec['mode']!r}; allowed values: {', '.join(MODES)}")
    batch = _with_defaults(f"judges.{name}.batch", BATCH_DEFAULTS, spec["batch"])
    if batch["fallback"] not in FALLBACKS:
        raise JudgeConfigError(f"config key judges.{name}.batch.fallback: {batch['fallback']!r}; allowed values: "
                               f"{', '.join(FALLBACKS)}")
    spec["batch"] = batch
    if spec["mode"] == "batch" and spec["embedded"]:
        raise JudgeConfigError(f"config key judges.{name}.mode: batch needs an API with /v1/batches, "
                               f"not an embedded judge")
    if spec["embedded"]:  # a model on this machine: its price is known, and it is 0
        for k in ("price_input_per_1k", "price_output_per_1k"):
            if spec[k] is None:
                spec[k] = 0.0
    if spec["embedded"] and spec["cache_identity"]:
        raise JudgeConfigError(f"config key judges.{name}.cache_identity: only for remote judges "
                               f"(an embedded judge is named by its model file's sha256)")
    check_no_secrets(name, spec)
    if int(spec["samples"]) < 1 or int(spec["max_concurrency"]) < 1:
        raise JudgeConfigError(f"config key judges.{name}: samples and max_concurrency must be >= 1")
    return spec


def judge_specs(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: judge_spec(name, s) for name, s in (config.get("judges") or {}).items()}


def resource_name(judge: str | dict[str, Any]) -> str:
    """The Snakemake custom resource that bounds a judge's requests in flight: per
    judge, or per ``rate_limit_group`` when the judge (a spec) names one, so every
    judge of a group shares it and their jobs take turns (one budget across jobs)."""
    if isinstance(judge, dict):
        judge = f"group_{judge['rate_limit_group']}" if judge.get("rate_limit_group") else judge["name"]
    return "judge_" + re.sub(r"\W", "_", judge)


def judge_resources(specs: dict[str, dict[str, Any]]) -> dict[str, int]:
    """Resource name -> capacity (the largest max_concurrency of the judges that use it)."""
    out: dict[str, int] = {}
    for spec in specs.values():
        r = resource_name(spec)
        out[r] = max(out.get(r, 0), int(spec["max_concurrency"]))
    return out
DEFAULT_PORTS = {"http": 80, "https": 443}
LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "::1", "[::1]", "0:0:0:0:0:0:0:1"}
# names (split at _ - . and camelCase) that hold credentials; "max_tokens" is not one
SECRET_WORDS = {"key", "apikey", "token", "secret", "password", "passwd", "authorization", "auth",
                "credential", "credentials", "bearer", "cookie", "signature", "sig"}


def _name_words(name: str) -> set[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", str(name))
    return {w for w in re.split(r"[\s_.\-]+", spaced.lower()) if w}


def credential_like(name: str) -> bool:
    """A field or parameter name that looks like it holds a credential."""
    words = _name_words(name)
    return bool(words & SECRET_WORDS) or str(name).lower().replace("-", "").replace("_", "") in SECRET_WORDS


def check_no_secrets(name: str, spec: dict[str, Any]) -> None:
    """Refuse settings that would copy a secret into every cache entry and table:
    user info or credential-like query parameters in ``base_url``, credential-like
    keys anywhere in ``extra_body``."""
    from urllib.parse import parse_qsl, urlsplit
    fix = (f"put the key in an environment variable and name that variable in judges.{name}.api_key_env "
           f"(the key is sent as the Authorization header and never stored)")
    url = spec.get("base_url")
    if url:
        parts = urlsplit(str(url))
        if parts.username is not None or parts.password is not None or "@" in parts.netloc:
            raise JudgeConfigError(f"config key judges.{name}.base_url holds user info (user:password@): {fix}")
        bad = [k for k, _ in parse_qsl(parts.query, keep_blank_values=True) if credential_like(k)]
        if bad:
            raise JudgeConfigError(f"config key judges.{name}.base_url has credential-like query parameter(s) "
                                   f"{', '.join(bad)}: {fix}")

    def walk(obj: Any, where: str) -> None:
        if isinstance(obj, dict):
            for k, v in obj.items():
                if credential_like(k):
                    raise JudgeConfigError(f"config key {where}.{k} looks like a credential and extra_body is "
                                           f"stored in every cache entry and table: {fix}")
                walk(v, f"{where}.{k}")
        elif isinstance(obj, list):
            for i, v in enumerate(obj):
                walk(v, f"{where}[{i}]")

    walk(spec.get("extra_body") or {}, f"judges.{name}.extra_body")


def normalise_base_url(url: str) -> str:
    """``base_url`` as the cache names it: scheme and host lower-cased, the default
    port and trailing slashes dropped, and every loopback name (localhost, 127.0.0.1,
    ::1) written ``localhost``; the path (case kept) and the query stay."""
    from urllib.parse import urlsplit, urlunsplit
    parts = urlsplit(str(url).strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if host in LOOPBACK_HOSTS:
        host = "localhost"
    elif ":" in host:
        host = f"[{host}]"
    port = parts.port
    netloc = host if port is None or port == DEFAULT_PORTS.get(scheme) else f"{host}:{port}"
    return urlunsplit((scheme, netloc, parts.path.rstrip("/"), parts.query, ""))


def server_identity(spec: dict[str, Any]) -> dict[str, Any]:
    """What identifies the server in the cache key (docs/judge.md, "Cache identity").

    Embedded judge: the model file's sha256 and the chat template (``chat_format``;
    null = the template stored in that file); the engine settings that change replies
    are request fields (temperature, seed, extra_body's repeat_penalty, ...) and so in
    the key already. Not the engine version (each entry records it) and never the
    random port. Remote judge: ``cache_identity`` or the normalised ``base_url``."""
    if spec["embedded"]:
        from .embedded import EMBEDDED_MODELS
        m = EMBEDDED_MODELS[spec["embedded"]]
        return {"gguf_sha256": m.sha256, "chat_format": (spec.get("server") or {}).get("chat_format")}
    return {"api": spec.get("cache_identity") or normalise_base_url(spec["base_url"])}


def request_params(spec: dict[str, Any], sample: int) -> dict[str, Any]:
    """The request fields that determine the reply (all of them go into the cache key)."""
    # a default judge gives exactly the fields (and so the cache keys) it gave before
    # these options existed: model, temperature, max_tokens, seed
    params: dict[str, Any] = {"model": spec["model"]}
    if spec["temperature"] is not None:
        params["temperature"] = spec["temperature"]
    if spec["max_tokens"] is not None:
        params["max_tokens"] = spec["max_tokens"]
    if spec.get("max_completion_tokens") is not None:
        params["max_completion_tokens"] = int(spec["max_completion_tokens"])
    if spec.get("reasoning_effort") is not None:
        params["reasoning_effort"] = spec["reasoning_effort"]
    if spec["top_p"] is not None:
        params["top_p"] = spec["top_p"]
    if spec["seed"] is not None:
        params["seed"] = int(spec["seed"]) + sample
    if spec["top_logprobs"]:
        params["logprobs"] = True
        params["top_logprobs"] = int(spec["top_logprobs"])
    if spec["extra_body"]:
        params["extra_body"] = dict(spec["extra_body"])
    return params


LOGPROB_PARAMS = ("logprobs", "top_logprobs")


def label_params(params: dict[str, Any]) -> dict[str, Any] | None:
    """The request fields of the same request without logprobs (what the judge sends
    with ``top_logprobs: null``), or None when ``params`` asks for no logprobs.

    Its cache entry answers the integer labels (docs/judge.md, "Weighted Likert
    scores"): replies cached before logprobs were asked for keep answering them."""
    if not any(k in params for k in LOGPROB_PARAMS):
        return None
    return {k: v for k, v in params.items() if k not in LOGPROB_PARAMS}


def completion_cap(spec: dict[str, Any]) -> int | None:
    """The most completion tokens a request may take (max_completion_tokens or max_tokens)."""
    cap = spec.get("max_completion_tokens") if spec.get("max_completion_tokens") is not None else spec["max_tokens"]
    return None if cap is None else int(cap)


# completion tokens assumed for pacing when a judge sets no cap (neither max_tokens nor
# max_completion_tokens): what a reasoning model typically spends on a short answer
UNCAPPED_OUTPUT_TOKENS = 1024


def usage_tokens(usage: dict[str, Any] | None) -> dict[str, int]:
    """prompt, cached prompt, completion and reasoning tokens of an OpenAI ``usage`` object."""
    usage = usage or {}
    prompt_details = usage.get("prompt_tokens_details") or {}
    completion_details = usage.get("completion_tokens_details") or {}
    return {"input": int(usage.get("prompt_tokens") or 0), "cached_input": int(prompt_details.get("cached_tokens") or 0),
            "output": int(usage.get("completion_tokens") or 0),
            "reasoning": int(completion_details.get("reasoning_tokens") or 0)}


def priced(spec: dict[str, Any]) -> bool:
    return spec.get("price_input_per_1k") is not None and spec.get("price_output_per_1k") is not None


def cost_usd(spec: dict[str, Any], usage: dict[str, Any] | None, via: str = "live") -> float | None:
    """What a reply with this ``usage`` costs at the judge's prices, or None if a price is
    not configured (unknown, never 0). Cached prompt tokens cost ``price_cached_input_per_1k``
    (default: the input price); reasoning tokens are part of ``completion_tokens``; a
    reply obtained through the Batch API costs ``batch_price_factor`` of that."""
    if not priced(spec):
        return None
    t = usage_tokens(usage)
    p_in = float(spec["price_input_per_1k"])
    p_cached = p_in if spec.get("price_cached_input_per_1k") is None else float(spec["price_cached_input_per_1k"])
    cached = min(t["cached_input"], t["input"])
    cost = ((t["input"] - cached) * p_in + cached * p_cached + t["output"] * float(spec["price_output_per_1k"])) / 1000
    if via == "batch":
        cost *= float(spec.get("batch_price_factor", 0.5))
    return cost
