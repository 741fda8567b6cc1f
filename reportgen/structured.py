"""Reading the YAML and JSON files a user gives (schema and release configuration files), strictly.

Both formats let a key appear twice and silently keep the last (``privacy: 99`` then ``privacy: 1``
would lower a release bar without anyone seeing it), and YAML aliases let 400 bytes expand into
gigabytes (an alias bomb). So a duplicate key and any alias are refused, naming the file, the key or
alias and the line; a document nested too deeply for the parser is refused too.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from reportgen.errors import LoadError


class _StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader that refuses aliases and duplicate keys (anchors alone are harmless)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"the alias *{event.anchor} repeats another part of the file; aliases are not "
                "accepted (they can expand without bound): write the value out",
                event.start_mark,
            )
        return super().compose_node(parent, index)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            if isinstance(key, (str, int, float, bool)) or key is None:
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None,
                        None,
                        f"key {key!r} appears twice (lines {seen[key]} and {line}); keep one",
                        key_node.start_mark,
                    )
                seen[key] = line
        return super().construct_mapping(node, deep=deep)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's mapping, refusing a key given twice."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise ValueError(f"key {key!r} appears twice in one object; keep one")
        found[key] = value
    return found


def parse_yaml_or_json(text: str, *, as_json: bool, where: str) -> Any:
    """The data in ``text`` (JSON if ``as_json``, else YAML), refusing duplicate keys and aliases.

    ``where`` names the file in errors ("Schema file 'x.yaml'"); a ``LoadError`` says what is wrong
    and where.
    """
    what = "JSON" if as_json else "YAML"
    try:
        if as_json:
            return json.loads(text, object_pairs_hook=_unique_keys)
        return yaml.load(text, Loader=_StrictLoader)  # a SafeLoader, stricter still
    except RecursionError:
        raise LoadError(f"{where} is nested too deeply to read as {what}. Flatten the file.") from None
    except (ValueError, yaml.YAMLError) as error:  # json.JSONDecodeError is a ValueError
        raise LoadError(f"{where} is not valid {what}: {error}. Fix the file.") from None
