"""The quorum controller's managers, as Kafka's ``org.apache.kafka.controller`` package.

Pure state machines: each manager reads the controller's current state, turns a request (the
generated request messages of ``kafpy.protocol.messages``) into a ``ControllerResult`` (the
metadata records to append and the response to give once they commit), and changes state
only when records are replayed into the ``ControllerMetadata`` they share. No sockets, no
Raft, and the clock is passed in."""
