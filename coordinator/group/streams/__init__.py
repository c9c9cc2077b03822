"""Streams groups of KIP-1071 in the group coordinator: topology, membership, tasks."""
