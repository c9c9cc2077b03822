"""The one error replaying metadata raises.

Kafka's loader fails with a RuntimeException/IllegalStateException when a record refers to
something the image does not hold (a PartitionChangeRecord for an unknown topic id, a fence
of an unregistered broker): the log and the image disagree, and no request is answered with
it, so this is not a ``KafkaError`` with an error code."""


class MetadataReplayError(RuntimeError):
    """A metadata record that cannot be applied to the image it was replayed onto."""
