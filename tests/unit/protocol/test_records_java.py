"""Interop with Apache Kafka's own record code (kafka-clients, Java), both directions.

A small Java program (launched as a single source file against Kafka's jars) reads our
batches with ``MemoryRecords`` (``ensureValid`` = CRC and sizes, then every record, the
LZ4/snappy/zstd/gzip streams of the Java client) and writes batches with Kafka's own
``MemoryRecordsBuilder`` for every codec and an end-transaction marker, which we decode.
Needs the jars from scripts/install-deps.sh and a JDK; missing ones fail the test.
"""

import subprocess

import lz4.frame
import pytest

from kafpy.protocol import records as r
from tests.support import kafka_dist

JAVA = r"""
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import @PKG@.*;

public class RecordsInterop {
    static String hex(ByteBuffer b) {
        if (b == null) return "-";
        StringBuilder s = new StringBuilder("x");
        ByteBuffer d = b.duplicate();
        while (d.hasRemaining()) s.append(String.format("%02x", d.get() & 0xff));
        return s.toString();
    }
    static String hex(byte[] b) { return b == null ? "-" : hex(ByteBuffer.wrap(b)); }

    public static void main(String[] args) throws Exception {
        ByteBuffer in = ByteBuffer.wrap(Files.readAllBytes(Paths.get(args[0])));
        StringBuilder out = new StringBuilder();
        for (MutableRecordBatch b : MemoryRecords.readableRecords(in).batches()) {
            b.ensureValid();
            out.append(String.format("B %d %d %d %d %d %d %d %s %s %d %d %d%n", b.baseOffset(),
                b.lastOffset(), b.compressionType().id, b.producerId(), b.producerEpoch(),
                b.baseSequence(), b.partitionLeaderEpoch(), b.isTransactional(),
                b.isControlBatch(), b.maxTimestamp(), b.timestampType().id, b.countOrNull()));
            for (@PKG@.Record rec : b) {
                rec.ensureValid();
                StringBuilder h = new StringBuilder();
                for (Header x : rec.headers())
                    h.append(" ").append(hex(x.key().getBytes(StandardCharsets.UTF_8)))
                     .append("=").append(hex(x.value()));
                out.append(String.format("R %d %d %s %s%s%n", rec.offset(), rec.timestamp(),
                    hex(rec.key()), hex(rec.value()), h));
                if (b.isControlBatch()) {
                    EndTransactionMarker m = EndTransactionMarker.deserialize(rec);
                    out.append(String.format("C %d %d%n", m.controlType().type(), m.coordinatorEpoch()));
                }
            }
        }
        System.out.print(out);

        ByteArrayOutputStream written = new ByteArrayOutputStream();
        String[] codecs = {"none", "gzip", "snappy", "lz4", "zstd"};
        for (int c = 0; c < codecs.length; c++) {
            ByteBuffer buf = ByteBuffer.allocate(1 << 22);
            MemoryRecordsBuilder bld = new MemoryRecordsBuilder(buf, RecordBatch.MAGIC_VALUE_V2,
                Compression.of(codecs[c]).build(), TimestampType.CREATE_TIME, 1000L * c,
                RecordBatch.NO_TIMESTAMP, 500L + c, (short) 2, 10 * c, false, false, 4,
                buf.remaining());
            int n = Integer.parseInt(args[2]);
            for (int i = 0; i < n; i++) {
                byte[] key = i % 3 == 0 ? null : ("key-" + i).getBytes(StandardCharsets.UTF_8);
                byte[] value = ("value " + i + " ").repeat(i % 40).getBytes(StandardCharsets.UTF_8);
                Header[] headers = i % 2 == 0
                    ? new Header[] {new RecordHeader("h" + i, ("hv" + i).getBytes(StandardCharsets.UTF_8)),
                                    new RecordHeader("nul", (byte[]) null)}
                    : new Header[0];
                bld.append(1_700_000_000_000L + 7L * i, key, value, headers);
            }
            ByteBuffer b = bld.build().buffer();
            byte[] bytes = new byte[b.remaining()];
            b.get(bytes);
            written.write(bytes);
        }
        ByteBuffer marker = MemoryRecords.withEndTransactionMarker(9000L, 1_700_000_000_999L, 6,
            77L, (short) 3, new EndTransactionMarker(ControlRecordType.ABORT, 12)).buffer();
        byte[] bytes = new byte[marker.remaining()];
        marker.get(bytes);
        written.write(bytes);
        Files.write(Paths.get(args[1]), written.toByteArray());

        // legacy message sets, as clients before 0.11 sent them: magic 0 and 1, each codec
        ByteArrayOutputStream legacy = new ByteArrayOutputStream();
        String[] legacyCodecs = {"none", "gzip", "snappy", "lz4"};
        for (byte magic = 0; magic <= 1; magic++) {
            for (int c = 0; c < legacyCodecs.length; c++) {
                ByteBuffer buf = ByteBuffer.allocate(1 << 20);
                MemoryRecordsBuilder bld = new MemoryRecordsBuilder(buf, magic,
                    Compression.of(legacyCodecs[c]).build(), TimestampType.CREATE_TIME, 0L,
                    RecordBatch.NO_TIMESTAMP, RecordBatch.NO_PRODUCER_ID,
                    RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false, false,
                    RecordBatch.NO_PARTITION_LEADER_EPOCH, buf.remaining());
                for (int i = 0; i < 50; i++) {
                    byte[] key = i % 3 == 0 ? null : ("key-" + i).getBytes(StandardCharsets.UTF_8);
                    byte[] value = ("legacy " + i + " ").repeat(i % 9).getBytes(StandardCharsets.UTF_8);
                    bld.append(1_600_000_000_000L + i, key, value);
                }
                ByteBuffer b = bld.build().buffer();
                byte[] bytes2 = new byte[b.remaining()];
                b.get(bytes2);
                legacy.write(bytes2);
            }
        }
        Files.write(Paths.get(args[3]), legacy.toByteArray());
    }
}
"""

JAVA_RECORDS = 300
VERSIONS = [kafka_dist.DEFAULT_KAFKA_3, "4"]


def hx(b):
    return "-" if b is None else "x" + bytes(b).hex()


def our_batches():
    blobs = []
    for codec in range(5):
        items = []
        for i in range(120):
            key = None if i % 4 == 0 else ("k%d" % i).encode()
            value = None if i % 11 == 10 else ("payload %d " % i).encode() * (i % 50)
            headers = [("h\u00e9", b"v"), ("empty", b""), ("nul", None)] if i % 3 == 0 else []
            items.append((key, value, headers, 1_700_000_000_000 + 3 * i - (i % 5)))
        blobs.append(r.build_batch(items, base_offset=200 * codec, compression=codec,
                                   producer_id=40 + codec, producer_epoch=1,
                                   base_sequence=5 * codec, partition_leader_epoch=2,
                                   is_transactional=codec == 4))
    # the broker's rewrites must keep the batch valid for Kafka
    stamped = bytearray(r.build_batch([(b"a", b"1"), (b"b", b"2")], base_timestamp=1000,
                                      compression=3))
    r.set_base_offset(stamped, 0, 5000)
    r.set_partition_leader_epoch(stamped, 0, 9)
    r.set_max_timestamp(stamped, 0, 1_800_000_000_000, 1)
    blobs.append(bytes(stamped))
    blobs.append(r.recompress_batch(blobs[0], 0, 2))
    blobs.append(r.build_control_batch(r.CONTROL_COMMIT, producer_id=99, producer_epoch=4,
                                       coordinator_epoch=21, base_offset=7000,
                                       timestamp=1_700_000_001_000))
    return b"".join(blobs)


def expected_java_view(blob):
    """What Kafka's reader should print for our blob, computed with our decoder."""
    lines = []
    for pos, h in r.iter_batches(blob, strict=True):
        _, recs = r.decode_batch(blob, pos)
        lines.append("B %d %d %d %d %d %d %d %s %s %d %d %d" % (
            h.base_offset, h.last_offset, h.compression, h.producer_id, h.producer_epoch,
            h.base_sequence, h.partition_leader_epoch, str(h.is_transactional).lower(),
            str(h.is_control).lower(), h.max_timestamp, h.timestamp_type, h.records_count))
        for rec in recs:
            hs = "".join(" %s=%s" % (hx(k.encode()), hx(v)) for k, v in rec.headers)
            lines.append("R %d %d %s %s%s" % (rec.offset(h), rec.timestamp(h), hx(rec.key),
                                              hx(rec.value), hs))
            if h.is_control:
                m = r.parse_control_record(rec)
                lines.append("C %d %d" % (m.type, m.coordinator_epoch))
    return lines


@pytest.fixture(scope="module", params=VERSIONS)
def java_run(request, tmp_path_factory):
    version = request.param
    tmp = tmp_path_factory.mktemp("java-records")
    full = kafka_dist.full_version(version)
    pkg = ("org.apache.kafka.common.record" if full.startswith("3.")
           else "org.apache.kafka.common.record.internal")
    src = tmp / "RecordsInterop.java"
    src.write_text(JAVA.replace("@PKG@", pkg))
    ours = tmp / "ours.bin"
    blob = our_batches()
    ours.write_bytes(blob)
    theirs = tmp / "theirs.bin"
    legacy = tmp / "legacy.bin"
    proc = subprocess.run(
        [kafka_dist.java_executable(), "-cp", kafka_dist.classpath(version), str(src), str(ours),
         str(theirs), str(JAVA_RECORDS), str(legacy)],
        capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return blob, proc.stdout.splitlines(), theirs.read_bytes(), legacy.read_bytes()


def test_kafka_reads_our_batches(java_run):
    blob, java_lines, _, _ = java_run
    expected = expected_java_view(blob)
    assert len(expected) > 600
    assert java_lines == expected


def test_we_read_kafkas_batches(java_run):
    _, _, theirs, _ = java_run
    batches = list(r.iter_batches(theirs, strict=True))
    assert [h.compression for _, h in batches] == [0, 1, 2, 3, 4, 0]
    for codec, (pos, h) in enumerate(batches[:5]):
        assert (h.base_offset, h.producer_id, h.producer_epoch, h.base_sequence) == (
            1000 * codec, 500 + codec, 2, 10 * codec)
        assert h.partition_leader_epoch == 4 and h.records_count == JAVA_RECORDS
        _, recs = r.decode_batch(theirs, pos)
        for i, rec in enumerate(recs):
            assert rec.offset(h) == 1000 * codec + i
            assert rec.timestamp(h) == 1_700_000_000_000 + 7 * i
            assert rec.key == (None if i % 3 == 0 else b"key-%d" % i)
            assert rec.value == (b"value %d " % i) * (i % 40)
            want = [("h%d" % i, b"hv%d" % i), ("nul", None)] if i % 2 == 0 else []
            assert list(rec.headers) == want
        # and what we recompress, Kafka's own batches included, stays equal
        for target in range(5):
            assert r.decode_batch(r.recompress_batch(theirs, pos, target))[1] == recs
    pos, h = batches[5]
    assert h.is_control and h.is_transactional and h.base_offset == 9000
    assert (h.producer_id, h.producer_epoch, h.partition_leader_epoch) == (77, 3, 6)
    _, (rec,) = r.decode_batch(theirs, pos)
    assert r.parse_control_record(rec) == r.ControlRecord(0, r.CONTROL_ABORT, 12)


def test_we_upconvert_kafkas_legacy_message_sets(java_run):
    """Kafka's magic 0/1 writer, magic 0 lz4 with its KAFKA-3160 header checksum included."""
    _, _, _, legacy = java_run
    from kafpy.protocol.legacy import iter_legacy_messages

    shallow = list(iter_legacy_messages(legacy))
    assert [(m.magic, codec) for m, codec, _ in shallow][:1] == [(0, 0)]
    # one wrapper per compressed set, 50 plain messages per uncompressed set
    assert sorted({(m.magic, codec) for m, codec, _ in shallow}) == [
        (magic, codec) for magic in (0, 1) for codec in range(4)]
    (m0_lz4,) = [m for m, codec, _ in shallow if (m.magic, codec) == (0, 3)]
    with pytest.raises(RuntimeError, match="headerChecksum"):
        lz4.frame.decompress(m0_lz4.value)  # the broken header our codec repairs
    v2 = r.upconvert_legacy(legacy)
    got = []
    for pos, h in r.iter_batches(v2, strict=True):
        _, recs = r.decode_batch(v2, pos)
        got += [(h.compression, rec.timestamp(h), rec.key, rec.value) for rec in recs]
    want = []
    for magic in (0, 1):
        for codec in range(4):
            for i in range(50):
                want.append((codec, 1_600_000_000_000 + i if magic else -1,
                             None if i % 3 == 0 else b"key-%d" % i, (b"legacy %d " % i) * (i % 9)))
    assert got == want
