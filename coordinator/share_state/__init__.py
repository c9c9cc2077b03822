"""Share groups' durable state (KIP-932): the share coordinator, which keeps each share
partition's delivery state in `__share_group_state`, and the persister through which a
share partition's leader reads and writes it."""
