"""What both games' rules values share: an immutable dataclass of options with named presets.

``mjcore.riichi.rules.RuleSet`` and ``mjcore.classical.rules.ClassicalRules`` each hold their own
options, checks and presets; looking a preset up, changing options by name and converting to and
from a dict are written once, here.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from .errors import InvalidRuleError

if TYPE_CHECKING:
    from typing import Self


def names_option(label: str, name: str, value: object, allowed: tuple[str, ...]
                 ) -> tuple[str, ...]:
    """The names ``value`` holds (an iterable of names, not one string), in ``allowed``'s
    order; anything else is an InvalidRuleError naming the option ``name``."""
    items = list(value) if isinstance(value, Iterable) and not isinstance(value, (str, bytes)) \
        else None
    if items is None or not all(isinstance(x, str) and x in allowed for x in items):
        raise InvalidRuleError(f"{label} option {name}={value!r}: expected a subset of "
                               f"{', '.join(allowed)}")
    return tuple(x for x in allowed if x in items)


class RuleOptions:
    """Base of a frozen dataclass of rule options, declared with ``repr=False`` (the repr is
    this class's). A subclass sets ``_LABEL`` (how its errors name it, e.g. "classical rule"),
    ``_DEFAULT_PRESET``, and, after its presets are built, ``_PRESETS`` (name -> value); its
    ``__post_init__`` stores ``_pack_scoring()`` as ``_scoring``."""

    _LABEL: ClassVar[str] = "rule"
    _DEFAULT_PRESET: ClassVar[str]
    _PRESETS: ClassVar[Mapping[str, Any]] = {}
    name: str                     # the preset's name, "custom" once an option changed
    _scoring: tuple[int, ...]

    def _pack_scoring(self) -> tuple[int, ...]:
        raise NotImplementedError

    @property
    def scoring_params(self) -> tuple[int, ...]:
        """The options the compiled scorer reads, packed (see ``_pack_scoring``)."""
        return self._scoring

    def __repr__(self) -> str:
        cls = type(self).__name__
        if self.name != "custom":
            return f"{cls}.preset({self.name!r})"
        base = self._PRESETS[self._DEFAULT_PRESET]
        diff = [f"{n}={getattr(self, n)!r}" for n in self.option_names()
                if getattr(self, n) != getattr(base, n)]
        return f"{cls}({', '.join(diff)})"

    @classmethod
    def preset(cls, name: str) -> Self:
        """The named preset (the module's table lists them); an unknown name raises
        InvalidRuleError naming it and the known ones."""
        try:
            found: Self = cls._PRESETS[name]
        except (KeyError, TypeError):
            raise InvalidRuleError(
                f"unknown {cls._LABEL} preset {name!r}; expected one of "
                f"{', '.join(cls._PRESETS)}") from None
        return found

    @classmethod
    def presets(cls) -> tuple[str, ...]:
        """The names of the presets, in the module's order."""
        return tuple(cls._PRESETS)

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        """The names of every option (each field but ``name``), in declaration order."""
        return tuple(f.name for f in dataclasses.fields(cls) if f.name != "name")  # type: ignore[arg-type]

    def replace(self, **opts: Any) -> Self:
        """A copy with some options changed; unknown option names raise InvalidRuleError."""
        unknown = sorted(set(opts) - set(self.option_names()))
        if unknown:
            raise InvalidRuleError(f"unknown {self._LABEL} option(s): {', '.join(unknown)}")
        if not opts:
            return self
        return dataclasses.replace(self, name="custom", **opts)  # type: ignore[type-var]

    def to_dict(self) -> dict[str, Any]:
        """Every option by name (``name`` left out); ``from_dict`` reads it back."""
        return {n: getattr(self, n) for n in self.option_names()}

    @classmethod
    def from_dict(cls, opts: Mapping[str, Any], base: str | None = None) -> Self:
        """The preset ``base`` (the default preset when None) with the options in ``opts``
        replaced; an unknown option or a bad value raises InvalidRuleError."""
        return cls.preset(base or cls._DEFAULT_PRESET).replace(**dict(opts))
