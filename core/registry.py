"""The plugin registry: loads plugins from entry points and configs, collects their components.

Plugins come only from the ``crawlmill`` entry-point group and from module names a pipeline
config lists under ``plugins:``. A plugin that fails to import or register is recorded with its
error (``status: failed`` in ``crawlmill plugins``) and the others still load.

Plugins load lazily: a plugin whose components are declared in a manifest (an entry point in
the ``crawlmill_manifests`` group naming a dict of entry-point name -> ``module`` and
``components``, see :mod:`crawlmill.plugins.manifest`) is registered from that declaration and
its module is imported only when a run uses one of its components (:attr:`Component.cls`) or
detection needs its reader's ``sniff``; ``crawlmill plugins`` (:meth:`Registry.describe`)
imports them all. A plugin without a declaration is imported at start.

Environment switches (as pytest, tox and llm offer):

* ``CRAWLMILL_LOAD_PLUGINS=a,b``: load only these entry points (empty: none);
* ``CRAWLMILL_DISABLE_PLUGINS=a,b``: skip these entry points.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

import pluggy

from . import entry_scan, hookspecs
from .contract import capabilities
from .errors import PluginError
from .markers import PROJECT
from .plugin import Filter, Layout, Reader, Writable, Writer

ENTRY_POINT_GROUP = "crawlmill"
#: entry points naming a dict that declares plugins of :data:`ENTRY_POINT_GROUP` (lazy loading)
MANIFEST_GROUP = "crawlmill_manifests"
KINDS: dict[str, type] = {
    "reader": Reader,
    "writer": Writer,
    "filter": Filter,
    "layout": Layout,
    "writable": Writable,
}
_HOOK_OF_KIND = {
    "reader": "crawlmill_register_readers",
    "writer": "crawlmill_register_writers",
    "filter": "crawlmill_register_filters",
    "layout": "crawlmill_register_layouts",
    "writable": "crawlmill_register_writables",
}


@dataclass
class PluginInfo:
    """What the registry knows of one plugin (one entry point or config-listed module)."""

    name: str
    module: str
    package: str | None = None
    version: str | None = None
    status: str = "ok"  # ok | failed | blocked
    error: str | None = None
    hooks: list[str] = field(default_factory=list)
    components: list[tuple[str, str]] = field(default_factory=list)  # (kind, name)
    #: declared in a manifest and not imported yet (imported on first use)
    lazy: bool = False


class Component:
    """A registered reader, writer, filter, layout or Writable and the plugin that provided it.

    A component declared in a manifest has no class until its plugin is imported: reading
    :attr:`cls` imports it (a :class:`PluginError` when that fails or the plugin does not
    register what it declared); :attr:`file_suffixes`, :attr:`java_names` and
    :meth:`may_claim` answer from the declaration without importing."""

    def __init__(
        self,
        kind: str,
        name: str,
        cls: type | None,
        plugin: str,
        *,
        declared: dict[str, Any] | None = None,
        loader: Any = None,
    ) -> None:
        self.kind, self.name, self.plugin = kind, name, plugin
        self._cls = cls
        self.declared = declared or {}
        self._loader = loader

    def __repr__(self) -> str:
        state = "" if self._cls is not None else ", not imported"
        return f"Component({self.kind} {self.name!r} of {self.plugin!r}{state})"

    @property
    def loaded(self) -> bool:
        """Whether the class is imported."""
        return self._cls is not None

    @property
    def cls(self) -> type:
        """The component's class (importing its plugin on first use)."""
        if self._cls is None and self._loader is not None:
            self._loader(self.plugin)
        if self._cls is None:
            raise PluginError(
                f"{self.kind} {self.name!r} of plugin {self.plugin!r} is not available: "
                "its plugin failed to load or did not register it (see `crawlmill plugins`)"
            )
        return self._cls

    @cls.setter
    def cls(self, value: type) -> None:
        self._cls = value

    @property
    def file_suffixes(self) -> tuple[str, ...]:
        """A reader's ``file_suffixes`` (declared ones while not imported)."""
        if self._cls is None and "file_suffixes" in self.declared:
            return tuple(self.declared["file_suffixes"])
        return tuple(getattr(self.cls, "file_suffixes", ()))

    @property
    def java_names(self) -> tuple[str, ...]:
        """A Writable's ``java_names`` (declared ones while not imported)."""
        if self._cls is None and self.declared:
            return tuple(self.declared.get("java_names", ()))
        return tuple(getattr(self.cls, "java_names", ()))

    def may_claim(self, path: str, head: bytes) -> bool:
        """False when the declaration says this reader's ``sniff`` claims nothing of ``path``
        (a file for a ``folders`` reader; a file whose first bytes start with none of its
        ``file_magic``, or with one of its ``declines_magic`` while no declared
        ``file_suffixes`` occurs in its name), so detection need not import it; True
        otherwise."""
        if self._cls is not None or not self.declared:
            return True
        is_dir = os.path.isdir(path)
        if self.declared.get("sniffs", "any") == "folders" and not is_dir:
            return False
        magic = self.declared.get("file_magic")
        if magic and not is_dir and not any(head.startswith(m) for m in magic):
            return False
        declines = self.declared.get("declines_magic")
        if declines and not is_dir and any(head.startswith(m) for m in declines):
            name = os.path.basename(path.replace("\\", "/")).lower()
            return any(s.lower() in name for s in self.declared.get("file_suffixes", ()))
        return True

    def describe(self) -> dict[str, Any]:
        """Plain-data description: kind, name, summary and options schema."""
        doc = (self.cls.__doc__ or "").strip()
        options = []
        for opt_name, f in self.cls.Options.model_fields.items():
            options.append(
                {
                    "name": opt_name,
                    "type": _type_name(f.annotation),
                    "default": None
                    if f.is_required()
                    else _jsonable(f.get_default(call_default_factory=True)),
                    "required": f.is_required(),
                    "description": f.description or "",
                }
            )
        return {
            "kind": self.kind,
            "name": self.name,
            "summary": doc.splitlines()[0] if doc else "",
            "capabilities": capabilities(self.cls),
            "options": options,
        }


def _identity(dist: Any) -> tuple[str | None, str | None]:
    """The name and version of an entry point's distribution. ``dist.metadata`` parses the
    whole metadata file (a long description included) on every call, once per entry point:
    the headers are read here, once per distinct file."""
    if dist is None:
        return None, None
    text = dist.read_text("METADATA") or dist.read_text("PKG-INFO")
    if not text:
        return dist.metadata["Name"], dist.version
    return entry_scan.headers_identity(text)


#: ``(path key, {group: entry points})`` of the last scan (see :func:`_entry_points_of`).
_SCAN: tuple[tuple, dict[str, tuple[Any, ...]]] | None = None


def _path_key() -> tuple:
    """``sys.path`` and the modification time of each of its folders: a distribution installed
    or removed since changes it (its ``*.dist-info`` folder comes or goes)."""
    key = []
    for entry in sys.path:
        try:
            key.append((entry, os.stat(entry or ".").st_mtime_ns))
        except OSError:
            key.append((entry, None))
    return tuple(key)


def _entry_points_of(group: str) -> tuple[Any, ...]:
    """The entry points of ``group`` (sorted by name), from one scan of the installed
    distributions for both of crawlmill's groups, kept while :func:`_path_key` is unchanged:
    a scan reads every distribution's ``entry_points.txt`` (hundreds in a large environment).
    :func:`crawlmill.core.entry_scan.scan` reads them without importing importlib.metadata,
    which is asked where that scan is not sure."""
    global _SCAN
    key = _path_key()
    if _SCAN is None or _SCAN[0] != key:
        wanted = (ENTRY_POINT_GROUP, MANIFEST_GROUP)
        light = entry_scan.scan(wanted)
        if light is None:
            import importlib.metadata as md

            found = md.entry_points()
            light = {g: tuple(found.select(group=g)) for g in wanted}
        groups = {g: tuple(sorted(light[g], key=lambda e: e.name)) for g in wanted}
        _SCAN = (key, groups)
    return _SCAN[1][group]


#: ``(path key, top-level package -> distribution names)`` of the last read (see
#: :func:`_distributions_of`).
_TOPS: tuple[tuple, dict[str, list[str]]] | None = None


def _distributions_of(top: str) -> list[str]:
    """The installed distributions providing the top-level package ``top``, from one
    ``packages_distributions()`` kept while :func:`_path_key` is unchanged: it reads every
    distribution's file list (~0.2 s of CPU in a large environment), once per ``plugins:``
    module and process before."""
    import importlib.metadata as md

    global _TOPS
    key = _path_key()
    if _TOPS is None or _TOPS[0] != key:
        _TOPS = (key, dict(md.packages_distributions()))
    return _TOPS[1].get(top) or []


class Registry:
    """All loaded plugins and the components they registered."""

    def __init__(self) -> None:
        self.pm = pluggy.PluginManager(PROJECT)
        self.pm.add_hookspecs(hookspecs)
        self.plugins: dict[str, PluginInfo] = {}
        self.components: dict[str, dict[str, Component]] = {kind: {} for kind in KINDS}
        self.problems: list[str] = []
        #: plugin name -> ``(path, message)``: the first time its reader's ``sniff`` or its
        #: ``crawlmill_detect_format`` hook raised (see :meth:`detect`).
        self.detection_failures: dict[str, tuple[str, str]] = {}
        #: declared (not yet imported) plugin name -> its entry point
        self._entry_points: dict[str, Any] = {}
        #: one import of a declared plugin at a time (another thread waits for it)
        self._import_lock = threading.RLock()
        self._importing: set[str] = set()

    # -- loading -------------------------------------------------------------------------

    @classmethod
    def load(
        cls, extra_modules: list[str] | tuple[str, ...] = (), *, entry_points: bool = True
    ) -> Registry:
        """Load entry-point plugins (unless ``entry_points`` is false) and ``extra_modules``."""
        reg = cls()
        if entry_points:
            reg._load_entry_points()
        for module in extra_modules:
            reg.add_module(module)
        return reg

    def _load_entry_points(self) -> None:
        allow = _env_list("CRAWLMILL_LOAD_PLUGINS")
        block = _env_list("CRAWLMILL_DISABLE_PLUGINS") or set()
        manifests = self._manifests(_entry_points_of(MANIFEST_GROUP))
        seen: set[str] = set()
        #: id of a distribution -> its name and version (its metadata read once, not per entry point)
        identities: dict[int, tuple[str | None, str | None]] = {}
        for ep in _entry_points_of(ENTRY_POINT_GROUP):
            if ep.name in seen:
                continue
            seen.add(ep.name)
            dist = getattr(ep, "dist", None)
            if id(dist) not in identities:
                identities[id(dist)] = _identity(dist)
            package, version = identities[id(dist)]
            info = PluginInfo(name=ep.name, module=ep.value, package=package, version=version)
            self.plugins[ep.name] = info
            if (allow is not None and ep.name not in allow) or ep.name in block:
                info.status = "blocked"
                continue
            declared = manifests.get(ep.name)
            if declared is not None and declared.get("module") == ep.value:
                self._entry_points[ep.name] = ep
                self._declare(info, declared)
                continue
            try:
                obj = ep.load()
            except Exception as exc:  # a broken plugin must not stop the others
                info.status, info.error = "failed", f"{type(exc).__name__}: {exc}"
                continue
            self._register(info, obj)

    def _manifests(self, declared: Any) -> dict[str, dict[str, Any]]:
        """Entry-point name -> declaration, from every ``crawlmill_manifests`` entry point
        (``declared``; the first declaration of a name wins; an unreadable manifest is a
        registry problem and its plugins are imported at start)."""
        found: dict[str, dict[str, Any]] = {}
        for ep in declared:
            try:
                table = ep.load()
                items = [(str(k), v) for k, v in table.items() if isinstance(v, dict)]
            except Exception as exc:
                self.problems.append(
                    f"plugin manifest {ep.name!r} ({ep.value}) ignored: {type(exc).__name__}: {exc}"
                )
                continue
            for name, declared in items:
                found.setdefault(name, declared)
        return found

    def _declare(self, info: PluginInfo, declared: dict[str, Any]) -> None:
        """Register ``info``'s declared components without importing its module."""
        info.lazy = True
        kinds = []
        for entry in declared.get("components", ()):
            kind, name = entry.get("kind"), entry.get("name")
            if kind not in KINDS or not name:
                self.problems.append(f"plugin {info.name!r}: manifest entry {entry!r} ignored")
                continue
            kinds.append(kind)
            existing = self.components[kind].get(name)
            if existing is not None:
                self.problems.append(
                    f"{kind} {name!r} from plugin {info.name!r} refused: already registered by {existing.plugin!r}"
                )
                continue
            self.components[kind][name] = Component(
                kind, name, None, info.name, declared=entry, loader=self._import_lazy
            )
            info.components.append((kind, name))
        info.hooks = sorted({_HOOK_OF_KIND[k] for k in kinds})
        if declared.get("detect_format"):
            info.hooks = sorted([*info.hooks, "crawlmill_detect_format"])

    def _import_lazy(self, plugin: str) -> None:
        """Import the declared plugin ``plugin`` and bind its components' classes; a plugin
        that fails to import becomes ``failed`` and its components leave the tables."""
        info = self.plugins.get(plugin)
        if info is None or not info.lazy:
            return
        with self._import_lock:  # another thread waits until the import is done
            if info.lazy and plugin not in self._importing:
                self._importing.add(plugin)
                try:
                    self._import_declared(info)
                finally:
                    self._importing.discard(plugin)
                    info.lazy = False

    def _import_declared(self, info: PluginInfo) -> None:
        plugin = info.name
        declared = list(info.components)
        try:
            obj = self._entry_points[plugin].load()
        except Exception as exc:
            info.status, info.error = "failed", f"{type(exc).__name__}: {exc}"
            obj = None
        if obj is not None:
            self._register(info, obj)
        if info.status == "failed":
            for kind, name in declared:
                self.components[kind].pop(name, None)
            info.components = []
            return
        for kind, name in declared:
            if not self.components[kind][name].loaded:
                self.components[kind].pop(name)
                info.components.remove((kind, name))
                self.problems.append(
                    f"plugin {plugin!r} declares {kind} {name!r} in its manifest but importing "
                    f"{info.module} did not register it"
                )

    def load_all(self) -> None:
        """Import every declared plugin not imported yet (``crawlmill plugins``)."""
        for name in sorted(self.plugins):
            self._import_lazy(name)

    def add_module(self, module: str) -> PluginInfo:
        """Import ``module`` and register it as a plugin (config ``plugins:`` entries)."""
        if module in self.plugins:
            return self.plugins[module]
        info = PluginInfo(name=module, module=module)
        self.plugins[module] = info
        try:
            obj = importlib.import_module(module)
        except Exception as exc:
            info.status, info.error = "failed", f"{type(exc).__name__}: {exc}"
            return info
        top = module.split(".")[0]
        try:
            import importlib.metadata as md

            dists = _distributions_of(top)
            if dists:
                info.package, info.version = dists[0], md.version(dists[0])
        except Exception:  # metadata is informative only
            pass
        self._register(info, obj)
        return info

    def _register(self, info: PluginInfo, obj: object) -> None:
        try:
            self.pm.register(obj, name=info.name)
        except Exception as exc:
            info.status, info.error = "failed", f"{type(exc).__name__}: {exc}"
            return
        info.hooks = sorted(impl.name for impl in self.pm.get_hookcallers(obj) or [])
        unknown = [
            attr
            for attr in dir(obj)
            if attr.startswith("crawlmill_")
            and callable(getattr(obj, attr))
            and not hasattr(self.pm.hook, attr)
        ]
        if unknown:
            info.status = "failed"
            known = sorted({*_HOOK_OF_KIND.values(), "crawlmill_detect_format"})
            info.error = f"unknown hook(s) {', '.join(unknown)}; known: {', '.join(known)}"
            self.pm.unregister(obj)
            return
        for kind, hook_name in _HOOK_OF_KIND.items():
            for impl in getattr(self.pm.hook, hook_name).get_hookimpls():
                if impl.plugin is obj:
                    self._call_register(info, kind, impl)

    def _call_register(self, info: PluginInfo, kind: str, impl: pluggy.HookImpl) -> None:
        def register(component: type) -> None:
            self._add_component(info, kind, component)

        try:
            impl.function(**{arg: register for arg in impl.argnames})
        except Exception as exc:
            info.status, info.error = "failed", f"{impl.name}: {type(exc).__name__}: {exc}"

    def _add_component(self, info: PluginInfo, kind: str, component: type) -> None:
        base = KINDS[kind]
        if not (isinstance(component, type) and issubclass(component, base)):
            raise PluginError(
                f"{info.name}: register() takes a {base.__name__} subclass, got {component!r}"
            )
        name = getattr(component, "name", "")
        if not name:
            raise PluginError(f"{info.name}: {component.__qualname__} has no name")
        existing = self.components[kind].get(name)
        if existing is not None and existing.plugin == info.name and not existing.loaded:
            existing.cls = component  # the declared component, imported
            self._check_declared(info, existing)
            return
        if existing is not None:
            refused = f"{kind} {name!r} from plugin {info.name!r} refused: already registered by {existing.plugin!r}"
            if refused not in self.problems:  # (said once when declared, again when imported)
                self.problems.append(refused)
            return
        self.components[kind][name] = Component(kind, name, component, info.name)
        info.components.append((kind, name))

    def _check_declared(self, info: PluginInfo, component: Component) -> None:
        """A registry problem for each fact the manifest declared differently from the class
        (the class wins)."""
        cls = component.cls
        for fact in ("file_suffixes", "java_names"):
            if fact in component.declared and tuple(component.declared[fact]) != tuple(
                getattr(cls, fact, ())
            ):
                self.problems.append(
                    f"plugin {info.name!r}: manifest declares {component.kind} "
                    f"{component.name!r} {fact} {tuple(component.declared[fact])!r}, "
                    f"the class has {tuple(getattr(cls, fact, ()))!r} (the class wins)"
                )

    # -- look-up -------------------------------------------------------------------------

    def get(self, kind: str, name: str, *, suggest: bool = True) -> type:
        """The component class of ``kind`` called ``name``, or a :class:`PluginError` that
        lists the known names, the plugins that failed or are blocked and (``suggest``: a name
        a user typed) the closest match."""
        table = self.components[kind]
        if name in table:
            self._import_lazy(table[name].plugin)
        if name in table:  # still: its plugin imported and registered it
            return table[name].cls
        known = sorted(table)
        import difflib

        close = difflib.get_close_matches(name, known, n=1) if suggest else []
        if suggest:
            # ``WARC`` for ``warc``: a case-insensitive match is the best suggestion
            close = [k for k in known if k.lower() == name.lower()] or close
        hint = f"; did you mean {close[0]!r}?" if close else ";"
        if suggest and kind == "writer" and name in self.components.get("layout", {}):
            hint = (
                f": {name!r} is a layout, not a writer; write WARC files in that layout with "
                f"`--to warc --option layout={name}` (config: writer: {{name: warc, layout: {name}}});"
            )
        failed = [p.name for p in self.plugins.values() if p.status == "failed"]
        blocked = [p.name for p in self.plugins.values() if p.status == "blocked"]
        also = f" (plugins that failed to load: {', '.join(failed)})" if failed else ""
        if blocked:
            also += (
                " (plugins blocked by CRAWLMILL_LOAD_PLUGINS / CRAWLMILL_DISABLE_PLUGINS: "
                f"{', '.join(sorted(blocked))})"
            )
        raise PluginError(
            f"unknown {kind} {name!r}{hint} known {kind}s: {', '.join(known) or 'none'}{also}"
        )

    def reader(self, name: str) -> type[Reader]:
        """The reader class called ``name``."""
        return self.get("reader", name)  # type: ignore[return-value]

    def writer(self, name: str) -> type[Writer]:
        """The writer class called ``name``."""
        return self.get("writer", name)  # type: ignore[return-value]

    def filter(self, name: str) -> type[Filter]:
        """The filter class called ``name``."""
        return self.get("filter", name)  # type: ignore[return-value]

    def layout(self, name: str) -> type[Layout]:
        """The layout class called ``name``."""
        return self.get("layout", name)  # type: ignore[return-value]

    def writable(self, java_name: str) -> type[Writable] | None:
        """The Writable class registered for the Java class ``java_name`` (its ``name`` or one
        of its ``java_names``), or ``None``: a SequenceFile of an unknown class is read raw."""
        table = self.components["writable"]
        if java_name in table:
            self._import_lazy(table[java_name].plugin)
        if java_name in table:
            return table[java_name].cls  # type: ignore[return-value]
        for component in list(table.values()):
            if java_name in component.java_names:
                self._import_lazy(component.plugin)
                if table.get(component.name) is component and java_name in component.java_names:
                    return component.cls  # type: ignore[return-value]
        return None

    def detect(self, path: str, head: bytes) -> list[tuple[str, float]]:
        """Every registered reader's confidence that ``path`` (first bytes ``head``) is its
        format, best first (ties by name), confidence above 0 only.

        One ranking from two sources: each reader's :meth:`~crawlmill.core.plugin.Reader.sniff`
        and every ``crawlmill_detect_format`` hook result; a reader gets the highest confidence
        either source gives it, clamped to 0..1. Names the hook returns that are not registered
        readers are left out. A ``sniff`` or hook implementation that raises is a plugin bug
        that must not stop the run nor hide the other readers: its answer is left out (the
        reader claims nothing) and the first such failure of each plugin is kept in
        :attr:`detection_failures`, which planning reports as a warning."""
        scores: dict[str, float] = {}

        def claim(name: str, confidence: object) -> None:
            if confidence is None or name not in self.components["reader"]:
                return
            value = min(max(float(confidence), 0.0), 1.0)  # type: ignore[arg-type]
            scores[name] = max(scores.get(name, 0.0), value)

        for name, component in list(self.components["reader"].items()):
            if not component.may_claim(path, head):  # declared: claims nothing here
                continue
            try:
                claim(name, component.cls.sniff(path, head))
            except Exception as exc:  # a plugin bug: say whose, and go on without it
                self._detection_failed(
                    component.plugin,
                    f"reader {name!r} (plugin {component.plugin!r}): sniff",
                    path,
                    exc,
                )
        for info in list(self.plugins.values()):
            if info.lazy and "crawlmill_detect_format" in info.hooks:
                self._import_lazy(info.name)
        hook = self.pm.hook.crawlmill_detect_format
        args = {"path": path, "head": head}
        for impl in hook.get_hookimpls():  # one by one: a raising one must not hide the others
            if impl.hookwrapper or getattr(impl, "wrapper", False):
                continue
            try:
                result = impl.function(*(args[a] for a in impl.argnames))
                for name, confidence in result or []:
                    claim(name, confidence)
            except Exception as exc:
                self._detection_failed(
                    impl.plugin_name,
                    f"hook crawlmill_detect_format (plugin {impl.plugin_name!r})",
                    path,
                    exc,
                )
        return sorted(((n, c) for n, c in scores.items() if c > 0), key=lambda nc: (-nc[1], nc[0]))

    def _detection_failed(self, plugin: str, who: str, path: str, exc: Exception) -> None:
        """Keep the first detection failure of ``plugin``: ``(path, message)``."""
        if plugin not in self.detection_failures:
            self.detection_failures[plugin] = (
                path,
                f"{who} raised, so it claims no file (a bug of that plugin; other readers "
                f"still detect): {type(exc).__name__}: {exc}",
            )

    def file_suffixes(self) -> tuple[str, ...]:
        """Every registered reader's :attr:`~crawlmill.core.plugin.Reader.file_suffixes`
        (lower case, with their dot), longest first: the format suffixes output stems drop."""
        found = {
            suffix.lower()
            for component in self.components["reader"].values()
            for suffix in component.file_suffixes
        }
        return tuple(sorted(found, key=lambda s: (-len(s), s)))

    def discovery_reads(self) -> list[tuple[re.Pattern[str], int | None]]:
        """Every registered reader's :attr:`~crawlmill.core.plugin.Reader.discovery_reads`,
        the patterns compiled (imports every reader; one whose plugin fails to import is left
        out, as detection leaves it out). A declaration that is no ``(pattern, size)`` pair of
        a regular expression and ``None`` or a size >= 0 is a :class:`PluginError`."""
        found = []
        for name, component in list(self.components["reader"].items()):
            try:
                declared = tuple(getattr(component.cls, "discovery_reads", ()))
            except PluginError:
                continue
            for entry in declared:
                try:
                    pattern, size = entry
                    if size is not None and not (type(size) is int and size >= 0):
                        raise ValueError(f"size {size!r} is no byte count")
                    found.append((re.compile(pattern), size))
                except (TypeError, ValueError, re.error) as exc:
                    raise PluginError(
                        f"reader {name!r} (plugin {component.plugin!r}): discovery_reads entry "
                        f"{entry!r} is not a (regular expression, bytes or None) pair: {exc}"
                    ) from None
        return found

    def describe(self, include_failed: bool = True) -> list[dict[str, Any]]:
        """Plain-data listing of plugins and their components (``crawlmill plugins --json``);
        imports every declared plugin."""
        self.load_all()
        out = []
        for info in sorted(self.plugins.values(), key=lambda p: p.name):
            if not include_failed and info.status != "ok":
                continue
            comps = [
                self.components[k][n].describe()
                for k, n in info.components
                if n in self.components[k]
            ]
            out.append(
                {
                    "name": info.name,
                    "module": info.module,
                    "package": info.package,
                    "version": info.version,
                    "status": info.status,
                    "error": info.error,
                    "hooks": info.hooks,
                    "components": comps,
                }
            )
        return out


def _env_list(var: str) -> set[str] | None:
    value = os.environ.get(var)
    if value is None:
        return None
    return {v.strip() for v in value.split(",") if v.strip()}


def _type_name(annotation: Any) -> str:
    if annotation is None:
        return "None"
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return str(value)
