"""The principal of a TLS client certificate: its subject as Kafka formats it (Java's
``X500Principal.getName()``, RFC 2253: most specific RDN first, ``CN=alice,OU=eng,O=acme``)
mapped through ``ssl.principal.mapping.rules`` (Kafka's ``SslPrincipalMapper``).

Pure functions, no state; the connection's session calls them once per handshake.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

# Attribute names Java prints by keyword in RFC 2253 form; others by OID with a hex value.
_KEYWORDS = {
    "commonName": "CN", "countryName": "C", "localityName": "L", "stateOrProvinceName": "ST",
    "organizationName": "O", "organizationalUnitName": "OU", "streetAddress": "STREET",
    "domainComponent": "DC", "userId": "UID",
}
# (OID, DER string tag) of attributes Java writes as OID=#hex; the tag is the string type
# openssl and Java's keytool give them (IA5String for e-mail, PrintableString for serial).
_OID_ATTRS = {
    "emailAddress": ("1.2.840.113549.1.9.1", 0x16),
    "serialNumber": ("2.5.4.5", 0x13),
}


def _escape(value: str) -> str:
    out = re.sub(r'([,+"\\<>;])', r"\\\1", value)
    if out.startswith((" ", "#")):
        out = "\\" + out
    if out.endswith(" ") and not out.endswith("\\ "):
        out = out[:-1] + "\\ "
    return out


def _der_hex(tag: int, value: str) -> str:
    data = value.encode()
    if len(data) < 0x80:
        length = bytes([len(data)])
    else:
        n = len(data).to_bytes((len(data).bit_length() + 7) // 8, "big")
        length = bytes([0x80 | len(n)]) + n
    return "#" + (bytes([tag]) + length + data).hex()


def distinguished_name(subject: Sequence[Sequence[tuple[str, str]]]) -> str:
    """The RFC 2253 name of a subject as ``ssl.SSLSocket.getpeercert()`` gives it (a tuple
    of RDNs, each a tuple of (attribute, value) pairs, in certificate order)."""
    rdns = []
    for rdn in reversed(subject):
        parts = []
        for attr, value in rdn:
            if attr in _KEYWORDS:
                parts.append(f"{_KEYWORDS[attr]}={_escape(value)}")
            elif attr in _OID_ATTRS:
                oid, tag = _OID_ATTRS[attr]
                parts.append(f"{oid}={_der_hex(tag, value)}")
            else:
                parts.append(f"{attr}={_escape(value)}")
        rdns.append("+".join(parts))
    return ",".join(rdns)


class NoMatchingRule(ValueError):
    """No rule of ``ssl.principal.mapping.rules`` applies to a name."""


@dataclass(frozen=True)
class _Rule:
    pattern: re.Pattern[str] | None   # None: DEFAULT
    replacement: str
    case: str

    def apply(self, dn: str) -> str | None:
        if self.pattern is None:
            return dn
        if not self.pattern.fullmatch(dn):
            return None
        out = self.pattern.sub(self.replacement, dn)
        return out.lower() if self.case == "L" else out.upper() if self.case == "U" else out


# Kafka's SslPrincipalMapper.RULE_PATTERN / RULE_SPLITTER.
_RULE = r"(DEFAULT)|RULE:((\\.|[^\\/])*)/((\\.|[^\\/])*)/([LU]?).*?|(.*?)"
_SPLITTER = re.compile(r"\s*(" + _RULE + r")\s*(,\s*|$)")


def _java_replacement(rep: str) -> str:
    """``$1`` group references in Java's replacement syntax to Python's ``\\g<1>``."""
    out = re.sub(r"\\(.)", lambda m: m.group(1).replace("\\", "\\\\"), rep)
    return re.sub(r"\$(\d+)", r"\\g<\1>", out)


class SslPrincipalMapper:
    """``ssl.principal.mapping.rules``: ``DEFAULT`` (the whole DN) or ``RULE:pattern/replacement/[LU]``
    rules, comma separated, the first that matches wins."""

    def __init__(self, rules: str = "DEFAULT") -> None:
        self.rules: list[_Rule] = []
        text = (rules or "DEFAULT").strip()
        pos = 0
        while pos < len(text):
            m = _SPLITTER.match(text, pos)
            if m is None or m.end() == pos:
                raise ValueError(f"Invalid rule: {text[pos:]}")
            if m.group(8):
                raise ValueError(f"Invalid rule: {m.group(8)}")
            if m.group(2):
                self.rules.append(_Rule(None, "", ""))
            else:
                pattern = re.compile(m.group(3).replace("\\/", "/"))
                self.rules.append(_Rule(pattern, _java_replacement(m.group(5)), m.group(7) or ""))
            pos = m.end()
        if not self.rules:
            self.rules.append(_Rule(None, "", ""))

    def principal_name(self, dn: str) -> str:
        for rule in self.rules:
            name = rule.apply(dn)
            if name is not None:
                return name
        raise NoMatchingRule(f"No rules apply to {dn}, rules {[r.pattern for r in self.rules]}")
