"""Environment interpolation in the string values of a parsed pipeline config.

The syntax is the one docker compose and Vector use:

=====================  ===================================================================
``${VAR}``             the value of ``VAR``; an error when ``VAR`` is unset
``${VAR:-default}``    ``default`` when ``VAR`` is unset or empty
``${VAR-default}``     ``default`` when ``VAR`` is unset
``${VAR:?message}``    an error saying ``message`` when ``VAR`` is unset or empty
``${VAR?message}``     an error saying ``message`` when ``VAR`` is unset
``$$``                 a literal ``$``
=====================  ===================================================================

A ``$`` not followed by ``{`` or ``$`` is kept as it is (so regular expressions such as
``\\.html$`` need no escaping). Defaults are literal text (no nesting). Interpolation runs on
the *parsed* string leaves of the config, never on its raw text, so a value cannot inject
YAML structure. Mapping keys are not interpolated.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from .errors import ConfigError

__all__ = ["interpolate", "interpolate_string"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def interpolate(data: Any, env: Mapping[str, str] | None = None, where: str = "") -> Any:
    """A copy of ``data`` (nested dicts/lists of plain values) with every string leaf
    interpolated from ``env`` (default ``os.environ``).

    Raises :class:`~crawlmill.core.errors.ConfigError` listing *every* failing place, e.g.
    ``("output", "environment variable OUT is not set (write ${OUT:-default} ...)")``.
    """
    env = os.environ if env is None else env
    problems: list[tuple[str, str]] = []
    result = _walk(data, env, where, problems)
    if problems:
        raise ConfigError(problems)
    return result


def _walk(data: Any, env: Mapping[str, str], where: str, problems: list[tuple[str, str]]) -> Any:
    if isinstance(data, str):
        try:
            return interpolate_string(data, env)
        except ValueError as exc:
            problems.append((where, str(exc)))
            return data
    if isinstance(data, Mapping):
        return {
            key: _walk(value, env, _join(where, str(key)), problems) for key, value in data.items()
        }
    if isinstance(data, list | tuple):
        return [_walk(value, env, f"{where}[{i}]", problems) for i, value in enumerate(data)]
    return data


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def interpolate_string(text: str, env: Mapping[str, str] | None = None) -> str:
    """Interpolate one string; raises ``ValueError`` with a message that names the variable."""
    env = os.environ if env is None else env
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        dollar = text.find("$", i)
        if dollar < 0:
            out.append(text[i:])
            break
        out.append(text[i:dollar])
        nxt = text[dollar + 1 : dollar + 2]
        if nxt == "$":
            out.append("$")
            i = dollar + 2
        elif nxt == "{":
            end = text.find("}", dollar + 2)
            if end < 0:
                raise ValueError(
                    f"unclosed '${{' at character {dollar} in {text!r} (write $$ for a literal $)"
                )
            out.append(_expand(text[dollar + 2 : end], env))
            i = end + 1
        else:
            out.append("$")
            i = dollar + 1
    return "".join(out)


def _expand(body: str, env: Mapping[str, str]) -> str:
    match = _NAME.match(body)
    if match is None:
        raise ValueError(
            f"invalid variable reference '${{{body}}}' (expected ${{NAME}}, ${{NAME:-default}}, ...)"
        )
    name, rest = match.group(), body[match.end() :]
    value = env.get(name)
    if rest == "":
        if value is None:
            raise ValueError(
                f"environment variable {name} is not set (set it, or write ${{{name}:-default}} to give a default)"
            )
        return value
    for op in (":-", ":?", "-", "?"):
        if rest.startswith(op):
            arg = rest[len(op) :]
            missing = value is None or (op.startswith(":") and value == "")
            if not missing:
                return value  # type: ignore[return-value]
            if op.endswith("-"):
                return arg
            reason = arg or ("is not set" if value is None else "is empty")
            raise ValueError(f"environment variable {name}: {reason}")
    raise ValueError(
        f"invalid variable reference '${{{body}}}' (after the name use :-, -, :? or ?)"
    )
