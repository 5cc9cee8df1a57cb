"""What the client sends, made text before anything reads it.

JSON may escape half of a surrogate pair on its own (``"\\ud800"``): the string it decodes
to holds no character and cannot be encoded (a hover quoting it, a file written from it, a
URL built from it would fail).  pygls calls :meth:`CitewardenProtocol.structure_message`
for every JSON object of a message as it is decoded, innermost first; each object's strings
(and those of its lists) go through :func:`clean_object` there, once each.
"""

from __future__ import annotations

import re
from typing import Any

import attrs
from cattrs.v import format_exception, transform_error
from lsprotocol import types

from citewarden.lsp.convert import WrongKind
from citewarden.safe_text import visible, without_surrogates


def clean_object(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a freshly decoded JSON object, changed in place) with every lone surrogate
    in its keys and string values, and in the strings of its lists at any depth, replaced
    by U+FFFD.  Nested objects are not entered: the decoder has passed them here already."""
    for key, value in list(data.items()):
        if isinstance(value, list):
            _clean_lists(value)
        clean_key = without_surrogates(key)
        clean_value = without_surrogates(value) if isinstance(value, str) else value
        if clean_key is not key:
            del data[key]
        if clean_key is not key or clean_value is not value:
            data[clean_key] = clean_value
    return data


def _clean_lists(items: list[Any]) -> None:
    """The strings of ``items`` and of the lists in it, cleaned in place (no recursion:
    lists may nest as deep as the decoder allowed)."""
    pending = [items]
    while pending:
        current = pending.pop()
        for i, value in enumerate(current):
            if isinstance(value, str):
                cleaned = without_surrogates(value)
                if cleaned is not value:
                    current[i] = cleaned
            elif isinstance(value, list):
                pending.append(value)


def request_id(value: Any) -> int | str | None:
    """``value`` as the id of a request: a whole number or a string, else None."""
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return None


def shape_error(data: dict[str, Any]) -> str | None:
    """Why ``data``, an object naming ``"jsonrpc"``, is no JSON-RPC 2.0 message, or None:
    pygls reads another version as silence, and answers a method or a request id of
    another type with a traceback."""
    if data["jsonrpc"] != "2.0":
        return 'Invalid Request: "jsonrpc" is not "2.0"'
    if "method" not in data:
        return None
    if not isinstance(data["method"], str):
        return "Invalid Request: the method is not a string"
    if "id" not in data or request_id(data["id"]) is not None:
        return None
    if data["id"] is not None:
        return "Invalid Request: the id is neither a whole number nor a string"
    if not lsp_notification(data["method"]):
        return "Invalid Request: the id is null (an LSP request's id is a number or a string)"
    return None


def lsp_notification(method: str) -> bool:
    """Whether LSP defines ``method`` as a notification (its messages carry no id)."""
    message_type = types.METHOD_TO_TYPES.get(method, (None,))[0]
    return message_type is not None and "id" not in attrs.fields_dict(message_type)


def without_null_id(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` without an ``"id"`` that is null: a notification of LSP's sent with id null
    (JSON-RPC 1.0's way to write one) is read as the notification, and not answered."""
    if "id" in data and data["id"] is None and "method" in data:
        return {key: value for key, value in data.items() if key != "id"}
    return data


def is_notification(data: dict[str, Any]) -> bool:
    """Whether ``data``, a JSON-RPC 2.0 object, is a notification: a method and no id."""
    return "jsonrpc" in data and "id" not in data and isinstance(data.get("method"), str)


def notification_type(message_type: type | None) -> bool:
    """Whether ``message_type``, lsprotocol's type of a method, is a notification's (it
    has no ``id``)."""
    return (
        message_type is not None
        and attrs.has(message_type)
        and "id" not in attrs.fields_dict(message_type)
    )


def absent_params(message_type: type | None) -> dict[str, Any] | None:
    """The params a notification of ``message_type`` that has none is read with: the empty
    object when the type requires params (``initialized``'s are an empty object), else
    null (``exit`` has none; a method lsprotocol does not know takes any)."""
    if message_type is None or not attrs.has(message_type):
        return None
    field = attrs.fields_dict(message_type).get("params")
    return {} if field is not None and field.default is attrs.NOTHING else None


#: At most this many of a message's params problems are named, each cut at ``_PROBLEM``.
_PROBLEMS = 5
_PROBLEM = 200
_SNAKE = re.compile(r"_([a-z])")


def params_problems(error: BaseException) -> str:
    """What is wrong with params that do not fit their method's types, each problem at its
    place in the params as the client spells it (``params.position: Position.line should
    be in range [0:2147483647], but was -1.``); empty when nothing can be said."""
    try:
        problems = transform_error(error, path="$", format_exception=_problem)
    except Exception:  # what cattrs may raise here is not documented
        return ""
    said = []
    for problem in problems[:_PROBLEMS]:
        what, _, where = problem.rpartition(" @ $.")
        where = _SNAKE.sub(lambda m: m.group(1).upper(), where)
        said.append(visible(f"{where}: {what}" if what else problem)[:_PROBLEM])
    if len(problems) > _PROBLEMS:
        said.append(f"and {len(problems) - _PROBLEMS} more")
    return "; ".join(said)


def _problem(exc: BaseException, expected: type | None) -> str:
    """cattrs' words for ``exc``, or a validator's own (it says which range a number falls
    outside, where cattrs says 'invalid value')."""
    if isinstance(exc, WrongKind):
        return str(exc)
    if expected is None and type(exc) is ValueError and exc.args and isinstance(exc.args[0], str):
        return exc.args[0]
    return format_exception(exc, expected)
