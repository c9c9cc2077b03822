"""Who a connection is and how it proves it: listeners' security protocols, TLS, SASL
(PLAIN, SCRAM) and the principal handlers see as ``ctx.principal``."""
