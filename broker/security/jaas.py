"""Kafka's JAAS configuration text (``sasl.jaas.config``): one login module entry,
``<class> <flag> key="value" key2=value2;``. Pure parsing, no state.

Used for the server's PLAIN users (``user_<name>="<password>"`` options of
``PlainLoginModule``) and for the broker's own client credentials on the inter-broker
listener (``username`` / ``password`` options).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

FLAGS = ("required", "requisite", "sufficient", "optional")
_TOKEN = re.compile(r'\s*(?:"((?:\\.|[^"\\])*)"|([^\s=;"]+)|(=)|(;))')


@dataclass(frozen=True)
class JaasEntry:
    login_module: str
    flag: str
    options: dict[str, str] = field(default_factory=dict)


def parse_jaas_config(text: str) -> JaasEntry:
    """Parses one entry as Kafka's ``JaasConfig`` does; ValueError when malformed (Kafka:
    "JAAS config entry not terminated by semi-colon", a missing control flag, ...)."""
    tokens: list[tuple[str, str]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            if text[pos:].strip() == "":
                break
            raise ValueError(f"Invalid JAAS config near {text[pos:pos + 20]!r}")
        pos = m.end()
        if m.group(1) is not None:
            tokens.append(("str", re.sub(r"\\(.)", r"\1", m.group(1))))
        elif m.group(2) is not None:
            tokens.append(("word", m.group(2)))
        elif m.group(3):
            tokens.append(("=", "="))
        else:
            tokens.append((";", ";"))
    if not tokens or tokens[-1][0] != ";":
        raise ValueError("JAAS config entry not terminated by semi-colon")
    if [t for t in tokens if t[0] == ";"] != [tokens[-1]]:
        raise ValueError("JAAS config property contains 2 login modules, which is not supported")
    if len(tokens) < 3 or tokens[0][0] != "word" or tokens[1][0] != "word":
        raise ValueError("Invalid JAAS config: expected <LoginModuleClass> <ControlFlag> options;")
    module, flag = tokens[0][1], tokens[1][1]
    if flag.lower() not in FLAGS:
        raise ValueError(f"Invalid control flag {flag!r} in JAAS config")
    options: dict[str, str] = {}
    rest = tokens[2:-1]
    if len(rest) % 3:
        raise ValueError("Invalid JAAS config: options must be key=value")
    for i in range(0, len(rest), 3):
        (k_kind, key), (eq, _), (v_kind, value) = rest[i:i + 3]
        if k_kind != "word" or eq != "=" or v_kind == "=" or v_kind == ";":
            raise ValueError(f"Invalid JAAS config option near {key!r}")
        options[key] = value
    return JaasEntry(module, flag.lower(), options)


def plain_users(entry: JaasEntry) -> dict[str, str]:
    """``user_<name>=<password>`` options: PlainLoginModule's users on a broker."""
    return {k[5:]: v for k, v in entry.options.items() if k.startswith("user_")}
