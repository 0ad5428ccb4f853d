"""Offline, deterministic language identification: the probability that a text is in a language.

Two detectors, each an optional package (the ``language`` extra: ``pip install '.[language]'``
in the crawlmill checkout, or ``pip install langdetect lingua-language-detector``):

* ``langdetect`` (1.0.9, the one the Chuweb21 paper used at probability 0.99). It samples
  character n-grams at random, so unseeded it gives another answer on borderline texts from
  run to run; here every detector has a fixed ``seed`` (the random generator is reseeded for
  each text, so a text's result does not depend on the texts before it, on the worker or on
  the process), and its language profiles are loaded in sorted file-name order (langdetect's
  own ``load_profile`` takes ``os.listdir`` order, which the file system decides and which
  changes the order floating-point sums are made in). It reads the text's first 10,000
  characters after removing URLs and e-mail addresses. A text without letters gives ``{}``.
* ``lingua`` (``lingua-language-detector``, Rust, deterministic by construction): the
  confidence values of ``compute_language_confidence_values`` over all its languages; these
  are not calibrated like langdetect's (a clear English sentence may get 0.6), so a threshold
  chosen for langdetect does not carry over.

Languages are ISO 639-1 codes (``en``, ``fr``; langdetect's ``zh-cn`` and ``zh-tw`` are
``zh-cn``/``zh-tw``). This module imports nothing else of crawlmill; the detector packages
are imported on first use, and a missing one raises :class:`DetectorMissing` naming the
package and the extra.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

__all__ = ["DETECTORS", "DetectorMissing", "detector", "known_languages", "require"]

#: detector name -> (importable module, PyPI package).
DETECTORS: dict[str, tuple[str, str]] = {
    "langdetect": ("langdetect", "langdetect"),
    "lingua": ("lingua", "lingua-language-detector"),
}

_CACHE: dict[tuple[str, int], Callable[[str], dict[str, float]]] = {}


class DetectorMissing(ImportError):
    """The package of a language detector is not installed."""


def require(name: str) -> None:
    """Raise :class:`DetectorMissing` when detector ``name``'s package is not importable."""
    module, package = DETECTORS[name]
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise DetectorMissing(
            f"the language detector {name!r} needs the package {package!r}, which cannot be "
            f"imported ({exc}): pip install {package} (or the language extra: pip install '.[language]' in the crawlmill checkout)"
        ) from None


def known_languages(name: str) -> set[str]:
    """The language codes detector ``name`` can return."""
    require(name)
    if name == "langdetect":
        import os

        from langdetect.detector_factory import PROFILES_DIRECTORY

        return {f for f in os.listdir(PROFILES_DIRECTORY) if not f.startswith(".")}
    from lingua import Language

    return {lang.iso_code_639_1.name.lower() for lang in Language.all()}


def detector(name: str, seed: int = 0) -> Callable[[str], dict[str, float]]:
    """A function ``text -> {language code: probability}`` (languages the detector rates
    above zero; ``{}`` for a text without features) for detector ``name``; one per process
    and seed."""
    key = (name, seed)
    found = _CACHE.get(key)
    if found is None:
        require(name)
        found = _langdetect(seed) if name == "langdetect" else _lingua()
        _CACHE[key] = found
    return found


def _langdetect(seed: int) -> Callable[[str], dict[str, float]]:
    import os

    from langdetect.detector_factory import PROFILES_DIRECTORY, DetectorFactory
    from langdetect.lang_detect_exception import LangDetectException

    factory = DetectorFactory()
    names = sorted(f for f in os.listdir(PROFILES_DIRECTORY) if not f.startswith("."))
    profiles = []
    for filename in names:
        with open(os.path.join(PROFILES_DIRECTORY, filename), encoding="utf-8") as f:
            profiles.append(f.read())
    factory.load_json_profile(profiles)
    factory.seed = seed

    def probabilities(text: str) -> dict[str, float]:
        d = factory.create()
        d.append(text)
        try:
            return {lang.lang: lang.prob for lang in d.get_probabilities()}
        except LangDetectException:  # no features: no letters in the text
            return {}

    return probabilities


def _lingua() -> Callable[[str], dict[str, float]]:
    from lingua import LanguageDetectorBuilder

    built = LanguageDetectorBuilder.from_all_languages().build()

    def probabilities(text: str) -> dict[str, float]:
        if not any(c.isalpha() for c in text):
            return {}
        return {
            v.language.iso_code_639_1.name.lower(): v.value
            for v in built.compute_language_confidence_values(text)
            if v.value > 0
        }

    return probabilities
