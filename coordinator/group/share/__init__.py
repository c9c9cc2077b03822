"""Share groups of KIP-932 in the group coordinator: membership and assignment."""
