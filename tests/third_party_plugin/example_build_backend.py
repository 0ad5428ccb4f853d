"""A minimal PEP 517 build backend for the example plugin: builds a pure-Python wheel of the
modules named in ``[tool.example-build] modules`` with the ``[project]`` metadata and entry
points. It needs nothing but the standard library, so the package installs offline."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import tarfile
import tomllib
import zipfile

_HERE = os.path.dirname(os.path.abspath(__file__))


def _project() -> tuple[dict, list[str]]:
    with open(os.path.join(_HERE, "pyproject.toml"), "rb") as fh:
        data = tomllib.load(fh)
    return data["project"], data["tool"]["example-build"]["modules"]


def _dist_name(project: dict) -> str:
    return project["name"].replace("-", "_").lower()


def _metadata(project: dict) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project.get('description', '')}",
    ]
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {dep}" for dep in project.get("dependencies", [])]
    return "\n".join(lines) + "\n"


def _entry_points(project: dict) -> str:
    out = []
    for group, entries in project.get("entry-points", {}).items():
        out.append(f"[{group}]")
        out += [f"{name} = {target}" for name, target in entries.items()]
        out.append("")
    return "\n".join(out)


def get_requires_for_build_wheel(config_settings=None):
    """No build requirements."""
    return []


def get_requires_for_build_sdist(config_settings=None):
    """No build requirements."""
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """Write ``<name>-<version>-py3-none-any.whl`` into ``wheel_directory``."""
    project, modules = _project()
    dist = _dist_name(project)
    info = f"{dist}-{project['version']}.dist-info"
    files: list[tuple[str, bytes]] = []
    for module in modules:
        with open(os.path.join(_HERE, f"{module}.py"), "rb") as fh:
            files.append((f"{module}.py", fh.read()))
    files.append((f"{info}/METADATA", _metadata(project).encode()))
    files.append((f"{info}/entry_points.txt", _entry_points(project).encode()))
    wheel_meta = "Wheel-Version: 1.0\nGenerator: example_build_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files.append((f"{info}/WHEEL", wheel_meta.encode()))
    record = []
    for path, data in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    files.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode()))
    name = f"{dist}-{project['version']}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as zf:
        for path, data in files:
            zf.writestr(zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0)), data)
    return name


def build_sdist(sdist_directory, config_settings=None):
    """Write ``<name>-<version>.tar.gz`` with the sources into ``sdist_directory``."""
    project, modules = _project()
    base = f"{_dist_name(project)}-{project['version']}"
    name = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as tar:
        for file in ["pyproject.toml", "example_build_backend.py", *(f"{m}.py" for m in modules)]:
            with open(os.path.join(_HERE, file), "rb") as fh:
                data = fh.read()
            entry = tarfile.TarInfo(f"{base}/{file}")
            entry.size = len(data)
            tar.addfile(entry, io.BytesIO(data))
    return name
