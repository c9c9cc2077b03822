import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;

import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * One share-group throughput and latency run (bench/share_groups.py runs it per broker and
 * consumer count).
 *
 * ShareBench BOOTSTRAP TOPIC GROUP CONSUMERS BACKLOG LATENCY_RECORDS RATE
 *
 * Produces BACKLOG records of 100 B, then starts CONSUMERS KafkaShareConsumers (implicit
 * acknowledgement) of GROUP (share.auto.offset.reset=earliest) and measures how fast they
 * drain it (records/s from the first delivery to the last). Then produces LATENCY_RECORDS
 * more at RATE records/s, each carrying its send time, and measures the delivery latency
 * (from send to the consumer's poll returning it). Prints
 * "RESULT <records/s> <p50 ms> <p99 ms> <redelivered>".
 */
public class ShareBench {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], topic = args[1], group = args[2];
        int consumers = Integer.parseInt(args[3]);
        int backlog = Integer.parseInt(args[4]);
        int latencyRecords = Integer.parseInt(args[5]);
        int rate = Integer.parseInt(args[6]);

        Properties ap = new Properties();
        ap.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(ap)) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group),
                List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"),
                    AlterConfigOp.OpType.SET)))).all().get(30, TimeUnit.SECONDS);
        }
        Properties pp = new Properties();
        pp.put("bootstrap.servers", bootstrap);
        pp.put("key.serializer", ByteArraySerializer.class.getName());
        pp.put("value.serializer", ByteArraySerializer.class.getName());
        pp.put("acks", "1");
        pp.put("linger.ms", "5");
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pp);
        for (int i = 0; i < backlog; i++) {
            byte[] v = new byte[100];
            producer.send(new ProducerRecord<>(topic, v));
        }
        producer.flush();

        int total = backlog + latencyRecords;
        AtomicInteger delivered = new AtomicInteger();
        AtomicInteger redelivered = new AtomicInteger();
        AtomicLong firstNs = new AtomicLong(), backlogDoneNs = new AtomicLong();
        long[] latencies = new long[latencyRecords];
        AtomicInteger latencyCount = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        Properties cp = new Properties();
        cp.put("bootstrap.servers", bootstrap);
        cp.put("group.id", group);
        cp.put("key.deserializer", ByteArrayDeserializer.class.getName());
        cp.put("value.deserializer", ByteArrayDeserializer.class.getName());
        ExecutorService pool = Executors.newFixedThreadPool(consumers);
        List<Future<?>> running = new ArrayList<>();
        for (int i = 0; i < consumers; i++) {
            running.add(pool.submit(() -> {
                try (KafkaShareConsumer<byte[], byte[]> c = new KafkaShareConsumer<>(cp)) {
                    c.subscribe(List.of(topic));
                    while (!stop.get()) {
                        ConsumerRecords<byte[], byte[]> recs = c.poll(Duration.ofMillis(100));
                        long now = System.nanoTime();
                        for (ConsumerRecord<byte[], byte[]> r : recs) {
                            firstNs.compareAndSet(0, now);
                            if (r.deliveryCount().orElse((short) 1) > 1) redelivered.incrementAndGet();
                            ByteBuffer b = ByteBuffer.wrap(r.value());
                            if (b.get(0) == 1) {
                                int k = latencyCount.getAndIncrement();
                                if (k < latencies.length) latencies[k] = now - b.getLong(1);
                            }
                            if (delivered.incrementAndGet() == backlog) backlogDoneNs.set(now);
                        }
                    }
                }
                return null;
            }));
        }
        long deadline = System.nanoTime() + 300_000_000_000L;
        while (delivered.get() < backlog && System.nanoTime() < deadline) Thread.sleep(10);
        long intervalNs = 1_000_000_000L / rate;
        long next = System.nanoTime();
        for (int i = 0; i < latencyRecords; i++) {
            while (System.nanoTime() < next) Thread.onSpinWait();
            next += intervalNs;
            ByteBuffer b = ByteBuffer.allocate(100);
            b.put((byte) 1).putLong(System.nanoTime());
            producer.send(new ProducerRecord<>(topic, b.array()));
        }
        producer.flush();
        while (delivered.get() < total && System.nanoTime() < deadline) Thread.sleep(10);
        stop.set(true);
        for (Future<?> f : running) f.get(60, TimeUnit.SECONDS);
        pool.shutdown();
        producer.close();
        if (delivered.get() < total) {
            System.out.println("INCOMPLETE " + delivered.get() + " of " + total);
            System.exit(2);
        }
        double seconds = (backlogDoneNs.get() - firstNs.get()) / 1e9;
        int n = Math.min(latencyCount.get(), latencies.length);
        long[] lat = Arrays.copyOf(latencies, n);
        Arrays.sort(lat);
        double p50 = n == 0 ? -1 : lat[(int) (n * 0.50)] / 1e6;
        double p99 = n == 0 ? -1 : lat[Math.min(n - 1, (int) (n * 0.99))] / 1e6;
        System.out.printf("RESULT %.0f %.2f %.2f %d%n", backlog / Math.max(seconds, 1e-9), p50, p99,
            redelivered.get());
    }
}
