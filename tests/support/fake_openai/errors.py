"""OpenAI's (and LiteLLM's) error bodies, and the checks a chat request passes before it is answered.

Each check takes ``(server, body, auth)`` and returns ``None`` (passed) or ``(outcome, status, body)``:
the outcome goes to ``server.log``, the status and body to the client, in OpenAI's shape
(``{"error": {"message", "type", "param", "code"}}``, the ``openai`` SDK's ``ErrorObject``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from .server import FakeOpenAIServer

Refusal = tuple[str, int, dict[str, Any]]  # (outcome logged, HTTP status, JSON body)


def error(message: str, type: str = "invalid_request_error", param: Any = None, code: Any = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type, "param": param, "code": code}}


def auth_error(server: "FakeOpenAIServer", auth: str) -> tuple[int, dict[str, Any]] | None:
    """The answer to a wrong key (every route), or None when the key is right or none is set."""
    if server.api_key is None or auth == f"Bearer {server.api_key}":
        return None
    if server.gateway == "litellm":  # LiteLLM's proxy without a database
        return 400, error("Authentication Error, No connected db.", "auth_error", "None", "400")
    return 401, error("Incorrect API key provided: sk-ab***cd.", code="invalid_api_key")


def wrong_key(server: "FakeOpenAIServer", body: dict[str, Any], auth: str) -> Refusal | None:
    if (err := auth_error(server, auth)) is not None:
        return str(err[0]), *err
    return None


def unknown_model(server: "FakeOpenAIServer", body: dict[str, Any], auth: str) -> Refusal | None:
    model = body.get("model")
    if model in server.models:
        return None
    if server.gateway == "litellm":
        return "404", 400, error(f"/chat/completions: Invalid model name passed in model={model}. "
                                 "Call `/v1/models` to view available models for your key.", "None", "None", "400")
    return "404", 404, error(f"The model `{model}` does not exist or you do not have access to it.",
                             code="model_not_found")


def _reasoning(server: "FakeOpenAIServer", body: dict[str, Any]) -> bool:
    return body.get("model") in server.reasoning_models


def max_tokens_on_reasoning(server: "FakeOpenAIServer", body: dict[str, Any], auth: str) -> Refusal | None:
    if _reasoning(server, body) and "max_tokens" in body:
        return "unsupported_parameter", 400, error(
            "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.", param="max_tokens", code="unsupported_parameter")
    return None


def temperature_on_reasoning(server: "FakeOpenAIServer", body: dict[str, Any], auth: str) -> Refusal | None:
    if _reasoning(server, body) and "temperature" in body and body["temperature"] != 1:
        return "unsupported_value", 400, error(
            f"Unsupported value: 'temperature' does not support {body['temperature']} "
            "with this model. Only the default (1) value is supported.", param="temperature",
            code="unsupported_value")
    return None


def logprobs_on_reasoning(server: "FakeOpenAIServer", body: dict[str, Any], auth: str) -> Refusal | None:
    if _reasoning(server, body) and (body.get("logprobs") or "top_logprobs" in body):
        param = "logprobs" if body.get("logprobs") else "top_logprobs"
        return "unsupported_parameter", 400, error(
            f"Unsupported parameter: '{param}' is not supported with this model.", param=param,
            code="unsupported_parameter")
    return None


def reasoning_effort(server: "FakeOpenAIServer", body: dict[str, Any], auth: str) -> Refusal | None:
    if "reasoning_effort" not in body:
        return None
    if not _reasoning(server, body):
        return "unsupported_value", 400, error(
            "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
            param="reasoning_effort", code="unsupported_parameter")
    if body["reasoning_effort"] not in server.reasoning_tokens:
        return "unsupported_value", 400, error(
            f"Unsupported value: 'reasoning_effort' does not support {body['reasoning_effort']!r} with this model.",
            param="reasoning_effort", code="unsupported_value")
    return None


# in the order the server applies them; the first that refuses answers
REQUEST_CHECKS: tuple[Callable[["FakeOpenAIServer", dict[str, Any], str], Refusal | None], ...] = (
    wrong_key, unknown_model, max_tokens_on_reasoning, temperature_on_reasoning, logprobs_on_reasoning,
    reasoning_effort)
