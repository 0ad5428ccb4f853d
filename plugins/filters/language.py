"""``language``: keep pages whose body text is in a language with at least a probability.

As the Chuweb21 paper did: the ``<script>`` and ``<style>`` elements (and comments) are
removed, the text of ``<body>`` is extracted (:func:`crawlmill.algorithms.simhash_text.body_text`:
lxml, no network), and a detector gives the probability that it is in one of ``languages``
(default English); the page is kept when that probability is ``>= threshold`` (the paper
excluded pages "with a probability less than 0.99"). The payload (without HTTP head) is
decoded by the charset :func:`crawlmill.formats.http.html_charset.detect_charset` finds, as
``html-length`` does. With ``max_chars`` only the text's first characters are read. With
``extractor`` ``resiliparse``, ``trafilatura`` or ``lxml`` the text is the text extraction
component's main text instead (:func:`crawlmill.algorithms.text_extraction.record_text`: body
de-chunked and decompressed, charset found, boilerplate removed but by ``lxml``): other
probabilities than the default ``body`` (the paper's rule above); a record that is not an
HTML page is then dropped as ``no-text``.

Detectors (:mod:`crawlmill.algorithms.language_detect`, the ``language`` extra: ``pip install '.[language]'`` in the
crawlmill checkout, or ``pip install langdetect lingua-language-detector``):
``langdetect`` (the paper's; seeded with ``seed``, so a page gets the same decision in every
run, worker and process, which the paper's unseeded runs did not promise) and ``lingua``
(deterministic; its confidences are lower than langdetect's probabilities, so choose its
threshold on your data: ``benchmarks/bench_language.py`` compares both). A missing package is
a configuration error naming the extra.

Drop reasons: ``wrong-language`` and ``no-text`` (no body text with letters). The step counts
each page's most probable language as ``lang:<code>`` (``lang:none`` without one).
"""

from __future__ import annotations

from typing import Any, Literal

from crawlmill.algorithms.text_extraction import BODY, FeatureExtractor, feature_text
from crawlmill.core import Drop, Filter, PluginOptions, Record, comma_list, hookimpl
from pydantic import Field, field_validator, model_validator

__all__ = ["LanguageFilter", "page_text"]


def page_text(record: Record, extractor: str = BODY) -> str | None:
    """The text of ``record`` the filter reads: by default (:data:`BODY`) the body text of
    its payload without script and style, decoded by the charset the HTTP head, a ``<meta>``
    tag or a detector names; with another extractor the component's main text (``None``:
    not an HTML page)."""
    from crawlmill.plugins.filters.html_length import payload_codec

    if extractor == BODY:
        if not record.payload:
            return ""
        return feature_text(record, BODY, payload_codec(record))
    return feature_text(record, extractor)


class LanguageFilter(Filter):
    """Keep pages whose body text (script and style removed) is in a language, by probability."""

    name = "language"

    class Options(PluginOptions):
        languages: list[str] = Field(
            default_factory=lambda: ["en"],
            description="ISO 639-1 codes of the languages kept (a page is kept when one of "
            "them reaches the threshold)",
        )
        threshold: float = Field(
            0.99,
            ge=0.0,
            le=1.0,
            description="smallest probability kept (the paper's 0.99 with langdetect); else "
            "wrong-language",
        )
        detector: Literal["langdetect", "lingua"] = Field(
            "langdetect",
            description="langdetect (the paper's, seeded) or lingua (lingua-language-"
            "detector); both need the language extra (pip install '.[language]' in the "
            "crawlmill checkout, or pip install langdetect lingua-language-detector)",
        )
        seed: int = Field(0, ge=0, description="langdetect's random seed (runs repeat)")
        extractor: FeatureExtractor = Field(
            BODY,
            description="the text read: body (the text nodes of <body> without script and "
            "style, as the Chuweb21 paper; the default) or the text component's main text by "
            "resiliparse, trafilatura or lxml (see docs/outputs.md)",
        )
        max_chars: int | None = Field(
            None,
            ge=1,
            description="read only the text's first characters; none: the whole text "
            "(langdetect itself reads the first 10,000)",
        )

        @field_validator("languages", mode="before")
        @classmethod
        def _commas(cls, value: Any) -> Any:
            return comma_list(value)

        @field_validator("languages")
        @classmethod
        def _lower(cls, items: list[str]) -> list[str]:
            if not items:
                raise ValueError("give at least one language")
            return [item.strip().lower() for item in items]

        @model_validator(mode="after")
        def _installed(self) -> LanguageFilter.Options:
            from crawlmill.algorithms.language_detect import DetectorMissing, known_languages

            try:
                known = known_languages(self.detector)
            except DetectorMissing as exc:
                raise ValueError(str(exc)) from None
            unknown = sorted(set(self.languages) - known)
            if unknown:
                raise ValueError(
                    f"{self.detector} knows no language {', '.join(unknown)} "
                    f"(known: {', '.join(sorted(known))})"
                )
            return self

    def __init__(self, options: PluginOptions | None = None) -> None:
        super().__init__(options)
        self._detect = None

    def probabilities(self, record: Record) -> dict[str, float]:
        """``{language: probability}`` of ``record``'s body text (``{}`` without letters)."""
        if self._detect is None:
            from crawlmill.algorithms.language_detect import detector

            self._detect = detector(self.options.detector, self.options.seed)
        text = page_text(record, self.options.extractor)
        if text is None:
            return {}
        if self.options.max_chars is not None:
            text = text[: self.options.max_chars]
        return self._detect(text)

    def apply(self, record: Record) -> Record | Drop:
        """Drop by language: no-text, or wrong-language below the threshold."""
        probs = self.probabilities(record)
        if not probs:
            self.ctx.count("lang:none")
            return Drop("no-text")
        self.ctx.count("lang:" + max(probs.items(), key=lambda kv: (kv[1], kv[0]))[0])
        best = max((probs.get(lang, 0.0) for lang in self.options.languages), default=0.0)
        if best >= self.options.threshold:
            return record
        return Drop("wrong-language")


@hookimpl
def crawlmill_register_filters(register):
    """Register ``language``."""
    register(LanguageFilter)
