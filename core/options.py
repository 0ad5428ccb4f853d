"""Light options: stdlib dataclasses that pydantic validates, and that build without pydantic.

A component's ``Options`` (and core's run spec, :mod:`crawlmill.core.spec`) may be declared as a
frozen stdlib dataclass on :class:`LightOptions` instead of a pydantic model on
:class:`~crawlmill.core.plugin.PluginOptions`. Both forms are part of the plugin contract
(``docs/plugin_hooks.md``, "Options: two forms"); the light one exists for start-up: importing pydantic and building
a model's schema costs ~0.15 s, more than a one-record convert's whole run, and a run whose
components take their defaults has nothing to validate.

* Validation of a mapping (a config, ``--option``) goes through pydantic
  (``pydantic.TypeAdapter`` of the dataclass, imported then), so error messages are pydantic's.
  Constraints are ``Annotated`` metadata pydantic honours: :class:`Ge`, :class:`Le`... (which
  pydantic reads as ``annotated_types``' bounds, imported then: that package and
  ``typing_extensions`` cost ~25 ms at start; ``annotated_types``' own bounds work too), and
  :class:`FieldCheck` for a function ``check(value, info)`` (``info.data``: the fields
  before, ``info.context``: the validation context); unknown keys are errors
  (``__pydantic_config__``); ``check(self)`` is the cross-field rule (a ``ValueError``).
* Built directly (``Options()``, ``RunSpec(workers=2)``), ``__post_init__`` enforces the same
  constraints with :func:`check_fields` (types, ``Literal`` values, bounds, context-free
  :class:`FieldCheck` functions) and the cross-field rule: a value pydantic refuses is refused here
  too (``ValueError``/``TypeError``; :func:`build` then asks pydantic for its message).
* ``model_validate`` of no options (or of the defaults' own dump, as a validated spec stores
  them) returns the defaults without importing pydantic.
* The subset of pydantic's model API that crawlmill's code and plugins use works on both forms:
  ``model_validate``, ``model_dump(mode="json")``, ``model_fields`` (name -> description,
  default, annotation), ``model_copy(update=...)``, ``model_fields_set``.
"""

from __future__ import annotations

import contextvars
import dataclasses
import functools
import json
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Literal, Union

__all__ = [
    "FieldCheck",
    "FieldError",
    "Ge",
    "Gt",
    "Le",
    "Lt",
    "LightOptions",
    "NoOptions",
    "OptionField",
    "build",
    "check_fields",
    "is_light",
    "option",
]

#: set while pydantic validates (it calls ``__post_init__``: its own checks already ran).
_VALIDATING: contextvars.ContextVar[bool] = contextvars.ContextVar("_VALIDATING", default=False)

_MISSING = dataclasses.MISSING


class _Info:
    """What a :class:`FieldCheck` function gets in a direct build (pydantic's ``ValidationInfo``
    has the same two attributes)."""

    def __init__(self, data: dict[str, Any], context: Any = None) -> None:
        self.data = data
        self.context = context


class FieldError(ValueError):
    """A refused value of the field ``field``, raised by ``after_validation`` (or ``check``):
    pydantic reports it at that field, as a field validator's error."""

    def __init__(self, field: str, message: str, value: Any) -> None:
        super().__init__(message)
        self.field = field
        self.value = value


class _Bound:
    """A bound of a number as ``Annotated`` metadata: ``Ge(1)`` is ``annotated_types.Ge(1)``
    to pydantic (which gives that one's messages), without importing ``annotated_types`` (and
    ``typing_extensions``, ~25 ms) in a run that validates nothing."""

    kind = ""

    def __init__(self, bound: Any) -> None:
        setattr(self, self.kind, bound)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({getattr(self, self.kind)!r})"

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        import annotated_types

        bound = getattr(annotated_types, type(self).__name__)(getattr(self, self.kind))
        return handler(typing.Annotated[source, bound])


class Ge(_Bound):
    """``value >= bound`` (``annotated_types.Ge``)."""

    kind = "ge"


class Gt(_Bound):
    """``value > bound`` (``annotated_types.Gt``)."""

    kind = "gt"


class Le(_Bound):
    """``value <= bound`` (``annotated_types.Le``)."""

    kind = "le"


class Lt(_Bound):
    """``value < bound`` (``annotated_types.Lt``)."""

    kind = "lt"


class FieldCheck:
    """``Annotated`` metadata: ``check(value, info)`` returns the value or raises
    ``ValueError`` (pydantic reports it at the field). ``context_free``: it needs no
    ``info.context`` (no registry), so a direct build runs it too; a check that needs the
    run's registry runs only under validation."""

    def __init__(self, check: Callable[[Any, Any], Any], *, context_free: bool = True) -> None:
        self.check = check
        self.context_free = context_free

    def __repr__(self) -> str:
        return f"FieldCheck({getattr(self.check, '__name__', self.check)!r})"

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.with_info_after_validator_function(self.check, handler(source))


def option(
    default: Any = _MISSING, *, description: str = "", default_factory: Any = _MISSING
) -> Any:
    """A dataclass field with a description (what ``crawlmill plugins`` prints)."""
    meta = {"description": description}
    if default_factory is not _MISSING:
        return dataclasses.field(default_factory=default_factory, metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


class OptionField:
    """One field as pydantic's ``FieldInfo`` describes it (the attributes crawlmill reads)."""

    def __init__(self, f: dataclasses.Field, annotation: Any) -> None:
        self._field = f
        self.annotation = annotation
        self.description = f.metadata.get("description") or None
        self.default = None if f.default is _MISSING else f.default
        self.default_factory = None if f.default_factory is _MISSING else f.default_factory

    def is_required(self) -> bool:
        """True when the field has no default."""
        return self._field.default is _MISSING and self._field.default_factory is _MISSING

    def get_default(self, *, call_default_factory: bool = False) -> Any:
        """The default (the factory's value with ``call_default_factory``)."""
        if self.default_factory is not None:
            return self.default_factory() if call_default_factory else self.default_factory
        return self.default


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    """The fields' resolved annotations, ``Annotated`` metadata included."""
    return typing.get_type_hints(cls, include_extras=True)


def _split(annotation: Any) -> tuple[Any, tuple[Any, ...]]:
    """``(type, metadata)`` of a possibly ``Annotated`` annotation."""
    if typing.get_origin(annotation) is typing.Annotated:
        args = typing.get_args(annotation)
        return args[0], tuple(args[1:])
    return annotation, ()


class _Fields:
    """``cls.model_fields``: name -> :class:`OptionField`, in declaration order."""

    def __get__(self, obj: Any, owner: type) -> dict[str, OptionField]:
        return _fields_of(owner)


@functools.cache
def _fields_of(cls: type) -> dict[str, OptionField]:
    hints = _hints(cls)
    return {
        f.name: OptionField(f, _split(hints[f.name])[0]) for f in dataclasses.fields(cls) if f.init
    }


class LightOptions:
    """Base of options (and specs) declared as a stdlib dataclass: subclass it and decorate
    the subclass with ``@dataclass(frozen=True, kw_only=True)`` (options) or
    ``@dataclass(kw_only=True)`` (core's spec). See the module docstring."""

    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid"}
    model_fields: ClassVar[Any] = _Fields()

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        made = super().__new__(cls)
        object.__setattr__(made, "_fields_set", frozenset(kwargs))  # pydantic's fields_set
        return made

    def __post_init__(self) -> None:
        if not _VALIDATING.get():  # a direct build: the checks pydantic would make
            check_fields(self)
            self.check()
            self.after_validation(None)
        else:
            self.check()

    def check(self) -> None:
        """Cross-field rules: raise ``ValueError`` (pydantic reports it at the options)."""

    # -- hooks of a subclass whose validation needs the context (the run's registry) ---------

    @classmethod
    def before_validation(cls, data: Any, context: Any) -> Any:
        """The mapping before pydantic validates it (may reshape it); ``ValueError``: refused."""
        return data

    def after_validation(self, context: Any) -> None:
        """After validation (and after a build of the defaults): settle derived state."""

    @classmethod
    def defaults_valid(cls, context: Any) -> bool:
        """Whether the defaults are valid in ``context`` without pydantic (True: no default
        depends on the context; a subclass whose default does, says)."""
        return True

    # -- pydantic's model API, the part crawlmill uses -----------------------------------------

    @classmethod
    def model_validate(cls, data: Any, *, context: Any = None) -> Any:
        """Validate a mapping (pydantic); no options, or the defaults' own dump, give the
        defaults without pydantic."""
        if isinstance(data, cls):
            return data
        if isinstance(data, Mapping) and cls._is_default_data(data) and cls.defaults_valid(context):
            made = cls()
            made.after_validation(context)
            _mark_set(made, data)  # the keys given, as pydantic counts them
            return made
        token = _VALIDATING.set(True)
        try:
            made = _adapter(cls).validate_python(data, context=context)
        finally:
            _VALIDATING.reset(token)
        _mark_set(made, data)
        return made

    @classmethod
    def model_validate_json(cls, text: str | bytes, *, context: Any = None) -> Any:
        """:meth:`model_validate` of a JSON text."""
        return cls.model_validate(json.loads(text), context=context)

    @classmethod
    def _is_default_data(cls, data: Mapping[str, Any]) -> bool:
        if not data:
            return True
        try:
            return _same(dict(data), _defaults_dump(cls))
        except Exception:  # a default that cannot be built: let pydantic say why
            return False

    @classmethod
    def model_construct(cls, **values: Any) -> Any:
        """An instance of ``values`` (the defaults for the others) without any check, as
        pydantic's ``model_construct``."""
        made = cls.__new__(cls, **values)
        for f in dataclasses.fields(cls):
            if not f.init:
                continue
            if f.name in values:
                value = values[f.name]
            elif f.default_factory is not _MISSING:
                value = f.default_factory()
            else:
                value = f.default
            object.__setattr__(made, f.name, value)
        return made

    def model_dump(
        self, *, mode: str = "python", exclude: Any = None, exclude_unset: bool = False
    ) -> dict[str, Any]:
        """The fields as plain data (``mode="json"``: JSON types), in declaration order."""
        return _dump(self, mode, exclude, exclude_unset)

    def model_dump_json(self) -> str:
        """:meth:`model_dump` as compact JSON (pydantic's form)."""
        return json.dumps(self.model_dump(mode="json"), separators=(",", ":"), ensure_ascii=False)

    def model_copy(self, *, update: Mapping[str, Any] | None = None) -> Any:
        """A copy with ``update`` applied (not validated, as pydantic's)."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.init}
        values.update(update or {})
        token = _VALIDATING.set(True)
        try:
            made = type(self)(**values)
        finally:
            _VALIDATING.reset(token)
        for key, value in self.__dict__.items():  # derived state (private attributes)
            if key not in values and key != "_fields_set":
                object.__setattr__(made, key, value)
        object.__setattr__(made, "_fields_set", self.model_fields_set | set(update or ()))
        return made

    @property
    def model_fields_set(self) -> set[str]:
        """The fields given (by name to the constructor, or in the validated mapping)."""
        given = self.__dict__.get("_fields_set")
        if given is None:
            return {f.name for f in dataclasses.fields(self) if f.init}
        return set(given)


@dataclasses.dataclass(frozen=True, kw_only=True)
class NoOptions(LightOptions):
    """The options of a component that declares none (any option given is unknown)."""


def is_light(cls: Any) -> bool:
    """Whether ``cls`` is a :class:`LightOptions` dataclass."""
    return isinstance(cls, type) and issubclass(cls, LightOptions)


def build(cls: type[LightOptions], values: Mapping[str, Any], *, context: Any = None) -> Any:
    """``cls(**values)`` when it builds (the constraints hold, :func:`check_fields`), else
    pydantic's validation of ``values`` (which coerces what it may, or raises its
    ``ValidationError`` naming the field). The command line's path: no pydantic for values it
    already typed."""
    try:
        made = cls(**values)
    except (TypeError, ValueError):
        return cls.model_validate(dict(values), context=context)
    made.after_validation(context)
    return made


@functools.cache
def _adapter(cls: type) -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(typing.Annotated[cls, _Hooks(cls)])


class _Hooks:
    """The class's before/after hooks around its pydantic schema, with the context."""

    def __init__(self, cls: type) -> None:
        self.cls = cls

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        cls = self.cls

        def before(data: Any, info: Any) -> Any:
            return cls.before_validation(data, info.context)

        def after(made: Any, info: Any) -> Any:
            try:
                made.after_validation(info.context)
            except FieldError as exc:
                from pydantic import ValidationError
                from pydantic_core import InitErrorDetails

                error = InitErrorDetails(
                    type="value_error", loc=(exc.field,), input=exc.value, ctx={"error": exc}
                )
                raise ValidationError.from_exception_data(cls.__name__, [error]) from None
            return made

        inner = core_schema.with_info_after_validator_function(after, handler(source))
        return core_schema.with_info_before_validator_function(before, inner)


@functools.cache
def _defaults_dump(cls: type) -> dict[str, Any]:
    return cls().model_dump(mode="json")


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same types, all the way down (``1.0 == True`` is no default here:
    pydantic may refuse what Python's equality accepts)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(v, b[k]) for k, v in a.items())
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _mark_set(made: Any, data: Any) -> None:
    """Record which fields ``data`` gave (as pydantic's ``model_fields_set``), below too."""
    if not isinstance(made, LightOptions) or not isinstance(data, Mapping):
        return
    object.__setattr__(made, "_fields_set", frozenset(k for k in data if k in made.model_fields))
    for key, value in data.items():
        child = made.__dict__.get(key) if isinstance(key, str) else None
        if isinstance(child, LightOptions):
            _mark_set(child, value)
        elif isinstance(child, list) and isinstance(value, list):
            for item, raw in zip(child, value, strict=False):
                _mark_set(item, raw)


def _dump(obj: Any, mode: str, exclude: Any, exclude_unset: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    given = obj.model_fields_set if exclude_unset else None
    for f in dataclasses.fields(obj):
        if not f.init or (given is not None and f.name not in given):
            continue
        sub = None
        if isinstance(exclude, Mapping):
            sub = exclude.get(f.name)
            if sub is True or sub is ...:
                continue
        elif exclude is not None and f.name in exclude:
            continue
        out[f.name] = _plain(getattr(obj, f.name), mode, sub, exclude_unset)
    return out


def _plain(value: Any, mode: str, exclude: Any, exclude_unset: bool) -> Any:
    if isinstance(value, LightOptions):
        return _dump(value, mode, exclude, exclude_unset)
    if hasattr(value, "model_dump"):  # a pydantic model inside (a plugin's own)
        return value.model_dump(mode=mode)
    if isinstance(value, dict):
        return {k: _plain(v, mode, None, exclude_unset) for k, v in value.items()}
    if isinstance(value, list | tuple):
        items = [_plain(v, mode, None, exclude_unset) for v in value]
        return items if mode == "json" or isinstance(value, list) else tuple(items)
    return value


# -- the direct build's checks -------------------------------------------------------------


def check_fields(obj: Any) -> None:
    """Refuse (``TypeError``/``ValueError``) a field value pydantic's strict reading of the
    annotation refuses: its type (``int``, ``str``, ``bool``, ``float``, ``None``, ``Literal``,
    unions, ``list[...]``, ``dict[...]``, nested options), its ``annotated_types`` bounds and
    its context-free :class:`FieldCheck` functions. A value pydantic would coerce (``"2"`` for an
    ``int``) is refused here: :func:`build` then hands it to pydantic."""
    hints = _hints(type(obj))
    data: dict[str, Any] = {}
    for f in dataclasses.fields(obj):
        if not f.init:
            continue
        value = getattr(obj, f.name)
        _check_value(hints[f.name], value, f.name, data)
        data[f.name] = value


def _check_value(annotation: Any, value: Any, where: str, data: dict[str, Any]) -> None:
    tp, meta = _split(annotation)
    _check_type(tp, value, where)
    for m in meta:
        _check_meta(m, value, where, data)


_BOUNDS = {"ge": (lambda v, b: v >= b, "greater than or equal to"),
           "gt": (lambda v, b: v > b, "greater than"),
           "le": (lambda v, b: v <= b, "less than or equal to"),
           "lt": (lambda v, b: v < b, "less than")}  # fmt: skip


def _check_meta(m: Any, value: Any, where: str, data: dict[str, Any]) -> None:
    if isinstance(m, FieldCheck):
        if m.context_free:
            m.check(value, _Info(dict(data)))
        return
    for name, (ok, words) in _BOUNDS.items():
        bound = getattr(m, name, None)
        if bound is not None and value is not None and not ok(value, bound):
            raise ValueError(f"{where}: should be {words} {bound} (got {value!r})")
    # annotated_types' grouped bounds (Interval) carry several of the above at once


def _check_type(tp: Any, value: Any, where: str) -> None:
    if tp is Any or tp is object:
        return
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        _check_value(tp, value, where, {})
        return
    if origin is Literal:
        if not any(type(value) is type(a) and value == a for a in typing.get_args(tp)):
            raise ValueError(f"{where}: should be one of {typing.get_args(tp)} (got {value!r})")
        return
    if origin is Union or origin is types.UnionType:
        errors = []
        for arm in typing.get_args(tp):
            try:
                _check_type(arm, value, where)
                return
            except (TypeError, ValueError) as exc:
                errors.append(exc)
        raise errors[0]
    if tp is type(None) or tp is None:
        if value is not None:
            raise TypeError(f"{where}: should be None (got {value!r})")
        return
    if origin in (list, tuple, set, frozenset):
        if type(value) is not origin:
            raise TypeError(f"{where}: should be a {origin.__name__} (got {value!r})")
        args = typing.get_args(tp)
        for i, item in enumerate(value):
            _check_type(args[0] if args else Any, item, f"{where}[{i}]")
        return
    if origin is dict:
        if type(value) is not dict:
            raise TypeError(f"{where}: should be a mapping (got {value!r})")
        key_tp, value_tp = typing.get_args(tp) or (Any, Any)
        for k, v in value.items():
            _check_type(key_tp, k, where)
            _check_type(value_tp, v, f"{where}.{k}")
        return
    if isinstance(tp, type):
        if issubclass(tp, LightOptions):
            if not isinstance(value, tp):
                raise TypeError(f"{where}: should be {tp.__name__} (got {value!r})")
            return
        if tp in (int, str, bool, float, bytes):
            if type(value) is not tp:  # strict: bool is no int, "2" no int (pydantic coerces)
                raise TypeError(f"{where}: should be {tp.__name__} (got {value!r})")
            return
        if not isinstance(value, tp):
            raise TypeError(f"{where}: should be {tp.__name__} (got {value!r})")
        return
    raise TypeError(f"{where}: cannot check {tp!r} directly")
